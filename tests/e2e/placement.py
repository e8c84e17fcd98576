"""Where a message is drawn: what an upload or an import did is said beside the control that did it, where the person
looking at that control sees it (used by the Data, Human scores and Author page tests)."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

WAIT_MS = 60_000
NEAR_PX = 200  # the message starts within this much below its control


def alert(page: Page, text: str) -> Locator:
    """The message box (success, warning, error) whose text has ``text``."""
    return page.get_by_test_id("stAlert").filter(has_text=text)


def beside(message: Locator, control: Locator, page: Page) -> None:
    """``message`` is in ``control``'s row or starts just below it, and both are in the window (no scrolling
    needed to read it)."""
    expect(message).to_be_visible(timeout=WAIT_MS)
    said, done = message.bounding_box(), control.bounding_box()
    assert said is not None and done is not None
    bottom = done["y"] + done["height"]
    assert said["y"] + said["height"] >= done["y"], f"the message ends {done['y'] - said['y']:.0f} px above its control"
    assert said["y"] <= bottom + NEAR_PX, f"the message starts {said['y'] - bottom:.0f} px below its control"
    height = page.viewport_size["height"]
    assert 0 <= said["y"] <= height and 0 <= done["y"] <= height, (said, done, height)

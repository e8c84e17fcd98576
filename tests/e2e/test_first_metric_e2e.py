"""Writing a first metric, in a real browser: what a new metric author hit in a first hour (issue 23), the parts
only a browser shows: a click on the weight map's squares (plotly's own hover and click), and the editor's
Save button kept off the code at two widths.

The rest of issue 23 is checked through AppTest: an A/B export as one candidate per output column, a second
candidate's warning and role editor (tests/app/test_app_candidate_files.py), the verdict of "Score all" and an
example's fields (tests/app/test_app_author_verdict.py), Runs compare on two runs of one candidate
(tests/app/test_app_runs_compare.py).

One server for the module and a fresh workspace for each test (``tests/e2e/conftest.py``); each test writes the
draft, the data and the scores it needs into it before it opens a page, so no test depends on another's screen
or database.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.workspace import Workspace
from skynet_core.workspace.jobs import JobSlot
from tests.e2e.browser import at_widths, shot, wait_for_app_run
from tests.e2e.editor_moves import EDITOR

pytestmark = pytest.mark.e2e

REWARD_METRIC = EXAMPLE_METRICS["Accuracy, speed and cost"].read_text(encoding="utf-8")


def open_page(page: Page, url: str, path: str = "") -> None:
    page.goto(f"{url}/{path}")
    drawn(page)


def drawn(page: Page) -> None:
    """The page's title drawn and its first script run ended."""
    page.get_by_test_id("stMainBlockContainer").locator("h1").wait_for(timeout=60_000)
    wait_for_app_run(page, timeout_ms=60_000)


# --- item 1: the weight map ----------------------------------------------------------------------------


def hover_weights(page: Page, x: float, y: float) -> tuple[float, float, float] | None:
    """Hover the map at (x, y): the weights its label says ("accuracy 0.22 · speed 0.60 · cost 0.18"), if any."""
    page.mouse.move(x, y)
    label = page.locator(".hoverlayer .hovertext")
    try:
        label.first.wait_for(timeout=3_000)
    except Exception:  # noqa: BLE001 - no point under the cursor
        return None
    found = re.search(r"accuracy (\d\.\d+).*?speed (\d\.\d+).*?cost (\d\.\d+)", label.first.text_content() or "")
    return (float(found[1]), float(found[2]), float(found[3])) if found else None


# True once the three weight boxes hold the wanted weights (within a tolerance): a wait, not a sleep.
WEIGHTS_ARE = """([want, tolerance]) => ["Accuracy", "Speed", "Cost"].every((part, index) => {
  const box = document.querySelector(`input[aria-label="${part} weight"]`);
  return box !== null && Math.abs(parseFloat(box.value) - want[index]) <= tolerance;
})"""


def boxes(page: Page) -> tuple[float, float, float]:
    return tuple(  # type: ignore[return-value]
        float(page.get_by_label(f"{part} weight", exact=True).input_value()) for part in ("Accuracy", "Speed", "Cost")
    )


def click_points_and_check_the_weights(page: Page, picks: list[int]) -> None:
    """Hover each picked square of the map, click it, and see the weights its label gave in the number boxes."""
    ternary = page.get_by_test_id("stPlotlyChart").filter(has_text="The winner at each mix of weights")
    points = ternary.locator(".scatterlayer .trace path.point")
    for pick in picks:
        ternary.scroll_into_view_if_needed(timeout=60_000)
        expect(points.first).to_be_attached(timeout=60_000)  # plotly.js draws a chart once it is in view
        box = points.nth(pick % points.count()).bounding_box()
        assert box is not None
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        hovered = hover_weights(page, x, y)
        assert hovered is not None, f"no hover label at square {pick}"
        page.mouse.click(x, y)
        wait_for_app_run(page)
        try:
            page.wait_for_function(WEIGHTS_ARE, arg=[list(hovered), 0.006], timeout=60_000)
        except Exception:  # noqa: BLE001 - the assertion below says what the boxes hold
            pass
        assert boxes(page) == pytest.approx(hovered, abs=0.006), f"the label said {hovered} at square {pick}"


@pytest.mark.timeout(600)  # a scoring and two clicks, each waited for generously on a loaded machine
def test_a_click_on_the_weight_map_sets_the_weights_of_the_point_clicked(
    page: Page, server: str, workspace: Workspace
) -> None:
    """The candidates are scored in this process first (a new session finds the saved scores, as after a
    reload): the page draws the map at once. A click, a reload, and a click far from the first."""
    url, ws = server, workspace
    ws.store.save_draft(REWARD_METRIC)
    ws.data.save_choice("example")
    assert ws.jobs.score_candidates(JobSlot(), ws.drafts.current().metric).wait(300)
    open_page(page, url, "tradeoffs")
    winner = page.get_by_test_id("stMetric").filter(has_text="Winner at these weights")
    expect(winner).to_be_visible(timeout=60_000)
    click_points_and_check_the_weights(page, [40])
    page.reload()
    drawn(page)
    expect(winner).to_be_visible(timeout=60_000)
    click_points_and_check_the_weights(page, [1200])  # after a reload, and far from the first on the map


# --- polish: the editor's Save button -------------------------------------------------------------------


def test_the_editors_save_button_covers_no_line_of_code(page: Page, server: str, workspace: Workspace) -> None:
    """The floating "Save" sat over the last visible line: with code long enough to fill the editor, the
    button's box must not overlap the text area's, at either width (one page load, the window narrowed as a
    person narrows it)."""
    workspace.store.save_draft("\n".join(f"x_{i} = '{'long text ' * 14}'" for i in range(80)) + "\n")
    page.set_viewport_size({"width": 1400, "height": 1000})
    open_page(page, server)
    for width in at_widths(page, (1400, 1000)):
        frame = page.frame_locator(EDITOR)
        frame.locator(".ace_content").wait_for(timeout=60_000)
        button = frame.get_by_role("button", name="Save").bounding_box()
        text = frame.locator(".ace_scroller").bounding_box()
        assert button is not None and text is not None
        below = button["y"] >= text["y"] + text["height"] - 0.5
        beside = button["x"] >= text["x"] + text["width"] - 0.5
        assert below or beside, (width, button, text)
        frame.get_by_role("button", name="Save").scroll_into_view_if_needed()
        shot(page, f"newcomer-editor-save-{width}")

"""What an upload or an import did is said beside the control that did it, where the person looking at that control
sees it: the Human scores page's Import, the Data page's "Use this dataset", the Author page's metric upload.

The three are looked at in one session, as a person goes from page to page in the sidebar (a page load costs
seconds of CPU; a page the sidebar opens, less)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Locator, Page, expect

from skynet_core.workspace import Workspace
from tests.e2e.browser import wait_for_app_run
from tests.e2e.editor_moves import go_to

WAIT_MS = 60_000
NEAR_PX = 200  # the message starts within this much below its control


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


def alert(page: Page, text: str) -> Locator:
    return page.get_by_test_id("stAlert").filter(has_text=text)


def uploader(page: Page, label: str) -> Any:
    return page.get_by_test_id("stFileUploader").filter(has_text=label).locator('input[type="file"]')


def test_each_import_says_what_it_did_beside_its_control(
    page: Page, server: str, workspace: Workspace, tmp_path: Path
) -> None:
    """In this order, in one session:

    1. The Author page's metric upload: "Loaded uploaded.py: the metric folder has 1 file." beside the uploader.
    2. The Human scores page's Import: "Imported 12 human scores by ana" and "500 rows name cases not in the
       data" beside the Import button.
    3. The Data page's "Use this dataset": "Using support.csv: 30 cases × 1 candidate." beside the button.
    """
    # 1. The Author page's metric upload.
    metric = tmp_path / "uploaded.py"
    metric.write_text("def score(input, output):\n    return 1.0, {'feedback': 'from the uploaded file'}\n")
    workspace.human.set_rater("ana")
    page.goto(server)
    expect(page.get_by_role("heading", name="Author metric.py")).to_be_visible(timeout=WAIT_MS)
    wait_for_app_run(page)
    page.get_by_text("Upload metric.py or a .zip of the metric folder", exact=True).click()
    field = page.get_by_test_id("stFileUploader").filter(has_text="A UTF-8 Python file")
    field.locator('input[type="file"]').set_input_files(str(metric))
    wait_for_app_run(page)
    beside(alert(page, "uploaded.py"), field, page)
    expect(alert(page, "Loaded uploaded.py: the metric folder has 1 file.")).to_be_visible()

    # 2. The Human scores page's Import.
    ids = [case.id for case in workspace.data.in_use().cases][:12]
    labels = tmp_path / "labels.csv"
    labels.write_text("id,human\n" + "".join(f"{case_id},1\n" for case_id in ids) + "".join(
        f"ghost{n},0\n" for n in range(500)))  # fmt: skip
    go_to(page, "Human scores")
    expect(page.get_by_role("heading", name="Human scores", exact=True)).to_be_visible(timeout=WAIT_MS)
    wait_for_app_run(page)
    uploader(page, "A labels file").set_input_files(str(labels))
    wait_for_app_run(page)
    button = page.get_by_role("button", name="Import", exact=True)
    button.scroll_into_view_if_needed()
    button.click()
    wait_for_app_run(page)
    beside(alert(page, "human scores by ana"), button, page)
    expect(alert(page, "Imported 12 human scores by ana")).to_be_visible()
    expect(alert(page, "500 rows name cases not in the data")).to_be_visible()

    # 3. The Data page's "Use this dataset".
    data = tmp_path / "support.csv"
    data.write_text("id,question,answer,response\n" + "".join(f"s{n},q {n},a {n},r {n}\n" for n in range(30)))
    go_to(page, "Data")
    expect(page.get_by_role("heading", name="Data", exact=True)).to_be_visible(timeout=WAIT_MS)
    page.get_by_text("A file", exact=True).click()
    wait_for_app_run(page)
    uploader(page, "Upload a CSV, JSON Lines or Parquet file").set_input_files(str(data))
    expect(page.get_by_role("heading", name="support.csv")).to_be_visible(timeout=WAIT_MS)
    wait_for_app_run(page)
    button = page.get_by_role("button", name="Use this dataset")
    button.scroll_into_view_if_needed()
    button.click()
    wait_for_app_run(page)
    button = page.get_by_role("button", name="Use this dataset")
    beside(alert(page, "Using support.csv: 30 cases × 1 candidate."), button, page)

"""Feedback review in a real browser: a weak metric's feedback is flagged; the bundled exact match clears the flags.

The metric is set by writing the draft into the store, so the test does not depend on the
Author page's editor; scoring goes through the page's own "Score all cases now" button.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.store import Store
from tests.e2e.conftest import ARTIFACTS, start_server, stop_server, wait_for_app_run

pytestmark = pytest.mark.e2e
playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

WEAK_METRIC = """import json


def score(input, output, expected=None):
    try:
        data = json.loads(output)
    except ValueError:
        data = {}
    got = data.get("label") if isinstance(data, dict) else None
    if expected is None or got == expected["label"]:
        return 1.0, {"feedback": "Correct."}
    return 0.0, {"feedback": "Wrong."}
"""
WAIT_MS = 60_000  # a rerun on a busy 2-core machine
SLOW_MS = 180_000  # scoring 72 cases (or the probes) there
VIEWPORT = {"width": 1500, "height": 1100}


def full_shot(page, name: str) -> Path:
    """A screenshot of the whole page: Streamlit scrolls inside its main block, so grow the viewport to fit it."""
    ARTIFACTS.mkdir(exist_ok=True)
    height = page.evaluate(
        "Math.max(...[...document.querySelectorAll('[data-testid=stMain], [data-testid=stAppViewContainer]')]"
        ".map(element => element.scrollHeight))"
    )
    page.set_viewport_size({"width": VIEWPORT["width"], "height": max(VIEWPORT["height"], int(height) + 40)})
    wait_for_app_run(page)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(VIEWPORT)
    return path


def open_feedback_page(browser, url: str):
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(url)
    # The router (app.py) must run first: it adds the page to the menu.
    page.get_by_role("link", name="Feedback review").click()
    expect(page.get_by_role("heading", name="Feedback review")).to_be_visible(timeout=WAIT_MS)
    return context, page


def score_now(page) -> None:
    button = page.get_by_role("button", name="Score all cases now")
    expect(button).to_be_enabled(timeout=WAIT_MS)
    wait_for_app_run(page)  # a click while the page's first run still draws can be lost
    button.click()


@pytest.fixture
def weak_server(tmp_path: Path):
    Store(tmp_path).save_draft(WEAK_METRIC)
    process, url = start_server(tmp_path)
    yield tmp_path, url
    stop_server(process)


def test_weak_feedback_is_flagged_then_a_good_metric_clears_the_flags(browser, weak_server) -> None:
    data_dir, url = weak_server
    context, page = open_feedback_page(browser, url)
    expect(page.get_by_text(re.compile(r"No scored run of Support tickets \(example\)"))).to_be_visible(timeout=WAIT_MS)
    wait_for_app_run(page)
    full_shot(page, "feedback-01-no-run-yet")

    score_now(page)
    summary = page.get_by_text(re.compile(r"^\d+ of 72 judged cases broke at least one rule\.$"))
    expect(summary).to_be_visible(timeout=SLOW_MS)
    flagged = int(summary.inner_text().split()[0])
    assert flagged > 0
    generic_row = page.locator("tr").filter(has_text="Generic phrase only").filter(has_text="A stock phrase such as")
    expect(generic_row).to_contain_text(str(flagged), timeout=WAIT_MS)
    expect(page.get_by_text("What the feedback should add")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("The feedback 'Wrong.' is a stock phrase that names no specifics.")).to_be_visible(
        timeout=WAIT_MS
    )

    page.get_by_label("Note (optional)").fill("names nothing")
    page.get_by_role("button", name="Weak").click()
    expect(page.get_by_text("Marked weak.")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_test_id("stMetric").filter(has_text="Marked weak")).to_have_text(
        re.compile(r"Marked weak\s*1$"), timeout=WAIT_MS
    )

    page.get_by_role("button", name="Run probes").click()
    expect(
        page.get_by_text(re.compile(r"trivial outputs a high score|rewards an output that says nothing")).first
    ).to_be_visible(timeout=SLOW_MS)
    full_shot(page, "feedback-02-weak-metric-flagged")
    context.close()

    # A new session reads the new draft: the bundled exact match, whose feedback names both labels.
    Store(data_dir).save_draft(EXAMPLE_METRICS["Exact match"].read_text(encoding="utf-8"))
    context, page = open_feedback_page(browser, url)
    expect(page.get_by_text(re.compile("out of date: metric.py changed"))).to_be_visible(timeout=WAIT_MS)
    score_now(page)
    expect(page.get_by_text("No feedback broke a rule at these thresholds.")).to_be_visible(timeout=SLOW_MS)
    expect(page.get_by_test_id("stMetric").filter(has_text="Broke a rule")).to_have_text(
        re.compile(r"Broke a rule\s*0$"), timeout=WAIT_MS
    )
    expect(page.get_by_text(re.compile("out of date: metric.py changed"))).to_have_count(0, timeout=WAIT_MS)
    full_shot(page, "feedback-03-exact-match-clear")
    context.close()

"""Feedback review in a real browser: a weak metric's feedback is flagged; the bundled exact match clears the flags.

The metric is set by writing the draft into the store, so the test does not depend on the
Author page's editor; scoring goes through the page's own "Score all cases now" button.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.workspace import Workspace
from tests.e2e.browser import shot, wait_for_app_run
from tests.e2e.editor_moves import start_job

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


def open_feedback_page(page: Page, url: str) -> None:
    """Feedback review in a new session (a page load is one): its address, as a deep link."""
    page.goto(f"{url}/feedback")
    expect(page.get_by_role("heading", name="Feedback review")).to_be_visible(timeout=WAIT_MS)


def score_now(page, result) -> None:
    button = page.get_by_role("button", name="Score all cases now")
    expect(button).to_be_enabled(timeout=WAIT_MS)
    wait_for_app_run(page)
    start_job(page, button, result, timeout_ms=SLOW_MS)


def test_weak_feedback_is_flagged_then_a_good_metric_clears_the_flags(
    page: Page, server: str, workspace: Workspace
) -> None:
    url = server
    workspace.drafts.replace(WEAK_METRIC, "the test")
    page.set_viewport_size({"width": 1500, "height": 1100})
    open_feedback_page(page, url)
    expect(page.get_by_text(re.compile(r"No scored run of Support tickets \(example\)"))).to_be_visible(timeout=WAIT_MS)
    wait_for_app_run(page)
    shot(page, "feedback-01-no-run-yet", whole=True)

    summary = page.get_by_text(re.compile(r"^\d+ of 72 judged cases broke at least one rule\.$"))
    score_now(page, summary)
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
    expect(page.get_by_text("Marked weak.").first).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_test_id("stMetric").filter(has_text="Marked weak")).to_have_text(
        re.compile(r"Marked weak\s*1$"), timeout=WAIT_MS
    )

    page.get_by_role("button", name="Run probes").click()
    expect(
        page.get_by_text(re.compile(r"trivial outputs a high score|rewards an output that says nothing")).first
    ).to_be_visible(timeout=SLOW_MS)
    shot(page, "feedback-02-weak-metric-flagged", whole=True)

    # A new session reads the new draft: the bundled exact match, whose feedback names both labels.
    workspace.drafts.replace(EXAMPLE_METRICS["Exact match"].read_text(encoding="utf-8"), "the test")
    open_feedback_page(page, url)
    expect(page.get_by_text(re.compile("out of date: metric.py changed"))).to_be_visible(timeout=WAIT_MS)
    score_now(page, page.get_by_text("No feedback broke a rule at these thresholds."))
    expect(page.get_by_test_id("stMetric").filter(has_text="Broke a rule")).to_have_text(
        re.compile(r"Broke a rule\s*0$"), timeout=WAIT_MS
    )
    expect(page.get_by_text(re.compile("out of date: metric.py changed"))).to_have_count(0, timeout=WAIT_MS)
    shot(page, "feedback-03-exact-match-clear", whole=True)

"""The Settings page in headless Chromium: configure a local model server, test it, judge with it.

The module's server has its own data directory, emptied for each test, and a fake OpenAI-compatible
server on 127.0.0.1 insists on the key typed in the browser: every judge call proves the server, not
metric code, sent it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import shot, wait_for_app_run
from tests.e2e.editor_moves import load_example, start_job
from tests.fake_openai import FakeOpenAI

KEY = "sk-e2e-typed-in-the-browser-9ABCD"
PASSES = "The metric meets the contract."


@pytest.fixture(scope="module")
def judge() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(latency_s=0.1, require_key=KEY) as fake:
        yield fake


def test_configure_a_local_judge_test_it_and_score_with_it(page: Page, server: str, judge: FakeOpenAI):
    # Opened by its address (the menu's link to it is checked below): loading the Author page first to click that
    # link cost Chromium an Author page load (about 2.5 CPU-s) and the server its check.
    page.goto(f"{server}/settings")
    expect(page.get_by_role("heading", name="Settings")).to_be_visible(timeout=20_000)
    expect(page.get_by_test_id("stSidebarNav").get_by_role("link", name="Settings", exact=True)).to_be_visible()
    expect(page.get_by_text(re.compile(r"No model answers metrics' llm\(\) calls"))).to_be_visible()
    expect(page.get_by_test_id("stMain").get_by_text(re.compile(r"(full|reduced) ·"))).to_be_visible()

    metric = page.locator(".st-key-settings-panel-metric")
    # Placeholders read as examples, and an empty field says it is not set.
    expect(metric.get_by_label("Model (a litellm model name)", exact=True)).to_have_attribute(
        "placeholder", "e.g. openai/gpt-4o-mini"
    )
    expect(metric.get_by_text(re.compile(r"Not set: no model answers metrics' llm\(\) calls"))).to_be_visible()
    for label, value in (
        ("Model (a litellm model name)", "openai/gpt-4o-mini"),
        ("API base (optional)", judge.url),
        ("API key for this session (optional)", KEY),
    ):
        field = metric.get_by_label(label, exact=True)
        field.fill(value)
        field.press("Enter")  # Streamlit takes the value and reruns the page
        wait_for_app_run(page)
        expect(field).to_have_value(value)
    expect(page.get_by_text(re.compile("Unsaved changes"))).to_be_visible()
    page.get_by_role("button", name="Save settings").click()
    wait_for_app_run(page)
    expect(page.get_by_text(re.compile(r"Metrics' llm\(\) calls use openai/gpt-4o-mini"))).to_be_visible()
    expect(metric.get_by_text("Key: typed in for this session (…ABCD)")).to_have_count(1)
    expect(metric.get_by_label("API key for this session (optional)", exact=True)).to_have_value("")
    assert KEY not in page.content()
    shot(page, "settings-01-saved")

    metric.get_by_role("button", name="Test connection").click()
    reply = metric.get_by_text(re.compile(r"replied “PASS\. The triage fits\.” in \d+ ms .* cost \$0\.0000\d+"))
    expect(reply).to_be_visible(timeout=30_000)
    assert judge.requests[-1].authorization == f"Bearer {KEY}"
    shot(page, "settings-02-test-connection")

    page.get_by_role("button", name="Run the judge example").click()
    cost = page.get_by_test_id("stMetric").filter(has_text="Judge cost per 1,000 cases")
    expect(cost).to_contain_text(re.compile(r"\$0\.\d{4}"), timeout=60_000)
    expect(page.get_by_test_id("stMetric").filter(has_text="Judge time per 1,000 cases")).to_contain_text(
        re.compile(r"\d+\.\d s")
    )
    expect(page.get_by_test_id("stMetric").filter(has_text="Judge calls")).to_contain_text("5")
    page.get_by_test_id("stMain").get_by_test_id("stDataFrame").last.scroll_into_view_if_needed()
    shot(page, "settings-03-judge-example")

    # The same session on the Author page: score every case with the model-as-judge example.
    page.get_by_role("link", name="Author", exact=True).click()
    expect(page.get_by_text("Contract check")).to_be_visible(timeout=20_000)
    load_example(page, "Model as judge")
    # The contract check of the judge example asks the local server: its verdict is the sampled cases' feedback.
    judged = page.locator(".st-key-author-samples").filter(has_text="PASS. The triage fits.")
    expect(judged.first).to_be_visible(timeout=60_000)  # while the run draws, the stale copy may show too
    expect(page.get_by_text(PASSES)).to_be_visible(timeout=30_000)
    scored = page.get_by_text(re.compile(r"Showing (\d+) of \1 scored cases"))
    start_job(page, page.get_by_role("button", name="Score all cases"), scored)
    expect(page.get_by_text(re.compile(r"error \d"))).to_have_count(0)
    page.get_by_test_id("stDataFrame").last.scroll_into_view_if_needed()
    shot(page, "settings-04-author-scored-with-the-judge")
    assert len(judge.requests) > 20
    assert {request.authorization for request in judge.requests} == {f"Bearer {KEY}"}

""" "Does this feedback help?" in headless Chromium: the experiment run on the bundled example against scripted task and
reflection models on 127.0.0.1, its report and charts seen; and a saved report at 1400 px and 1000 px wide, in English
and in Chinese (screenshots to look at)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from skynet_core.datasets import load_example
from skynet_core.runs import RunKey
from skynet_core.workspace import SETTING_LANGUAGE, Workspace, example_metric
from tests.case_factory import weak_every_third, with_weak_run
from tests.e2e.browser import WIDTHS, assert_readable_picture, at_widths, shot, wait_for_app_run
from tests.e2e.editor_moves import enter_number, pick_language, start_job
from tests.fake_openai import FakeOpenAI, Received
from tests.uplift_saved import HELPS, saved_result

pytest.importorskip("gepa", reason="gepa==0.1.4 is a requirement")
pytestmark = pytest.mark.timeout(900)  # litellm's first import and a whole run, on a machine that may be busy

LEARNED = "Tickets about a refund are labelled refund."
RUN_MS = 300_000  # the whole run, on a machine that may be busy
LITELLM_MS = 240_000


def reply(received: Received) -> str:
    """The task model answers a JSON ticket triage (refund only once the instruction says so); the reflection model
    adds one sentence to the instruction its prompt shows."""
    if received.model == "reflect":
        current = (received.user or "").split("```\n", 1)[1].split("\n```", 1)[0]
        return "```\n" + (current if LEARNED in current else f"{current}\n{LEARNED}") + "\n```"
    refund = LEARNED in (received.system or "") and "refund" in (received.user or "").lower()
    return json.dumps({"label": "refund" if refund else "billing", "priority": "medium", "reply": "Thanks."})


@pytest.fixture(scope="module")
def models() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(reply=reply, usage=(100, 20)) as server:
        yield server


@pytest.fixture(scope="module")
def server_env(models: FakeOpenAI) -> dict[str, str]:
    return {
        "SKYNET_TASK_MODEL": "openai/task",
        "SKYNET_TASK_API_BASE": models.url,
        "SKYNET_REFLECTION_MODEL": "openai/reflect",
        "SKYNET_REFLECTION_API_BASE": models.url,
        "OPENAI_API_KEY": "sk-test-unused",
    }


@pytest.fixture
def seeded(workspace: Workspace) -> Workspace:
    """The bundled exact-match metric as the draft and a scored run of the example (the review, and the panel, show)."""
    metric = example_metric()
    workspace.drafts.replace(metric, "the test")
    data = load_example()
    key = RunKey.of(data, data.candidates[0], None, metric.files["metric.py"])
    workspace.runs.store.save(key, weak_every_third(), metric_source=metric.files["metric.py"])
    return workspace


def open_panel(page: Page, url: str, width: int, zh: bool = False) -> None:
    page.set_viewport_size({"width": width, "height": 1000})
    page.goto(f"{url}/feedback")
    expect(page.get_by_role("heading", name="反馈审查" if zh else "Feedback review")).to_be_visible(timeout=60_000)
    # The panel's plan prices the calls: the server's first one loads litellm, which a busy machine takes minutes for.
    wait_for_app_run(page, timeout_ms=LITELLM_MS)
    page.locator("summary").filter(has_text="这个反馈有帮助吗" if zh else "Does this feedback help?").click()
    wait_for_app_run(page, timeout_ms=LITELLM_MS)


def test_the_experiment_runs_on_the_example_and_shows_its_report_and_charts(
    page: Page, server: str, seeded: Workspace, models: FakeOpenAI
) -> None:
    open_panel(page, server, 1400)
    expect(page.get_by_text("Task model: openai/task", exact=False)).to_be_visible()
    enter_number(page, "Rounds", 1)
    enter_number(page, "Seeds", 2)
    expect(page.get_by_text("Planned: at most", exact=False)).to_be_visible(timeout=60_000)  # litellm loads first
    finished = page.get_by_text("The experiment finished: 2 seeds in every arm.")
    start_job(page, page.get_by_role("button", name="Run the experiment"), finished, RUN_MS)
    page.get_by_text("Calls:", exact=False).first.scroll_into_view_if_needed()  # the charts draw once in view
    charts = page.get_by_test_id("stPlotlyChart")
    scores = charts.filter(has_text="Validation score of each arm")
    expect(scores).to_have_count(1)
    scores.scroll_into_view_if_needed()
    expect(charts.filter(has_text="Gain over the start")).to_have_count(1)
    expect(page.locator("code").filter(has_text=f"+{LEARNED}").first).to_be_visible()  # the final instruction's diff
    assert {request.model for request in models.requests} == {"task", "reflect"}
    shot(page, "uplift-finished")


def test_a_saved_report_reads_whole_at_two_widths_in_two_languages(
    page: Page, server: str, workspace: Workspace
) -> None:
    """A saved report (the feedback helps): its value line, its verdict and the chart of each arm's final
    instruction, screenshots at 1400 and 1000 px asserted readable; in English, then in Chinese in the same session
    (the sidebar's language picker: a rerun of the page instead of a second load)."""
    with_weak_run(workspace)
    saved_result(workspace, HELPS)
    workspace.store.set(SETTING_LANGUAGE, "en")
    open_panel(page, server, WIDTHS[0])
    for language, widths in (("en", WIDTHS), ("zh_CN", WIDTHS[::-1])):
        zh = language == "zh_CN"
        value = page.get_by_text("反馈价值" if zh else "Feedback value:", exact=False).first
        if zh:
            pick_language(page, "简体中文")
            if not value.is_visible():  # the panel, drawn again under its Chinese title, is closed
                page.locator("summary").filter(has_text="这个反馈有帮助吗").click()
                wait_for_app_run(page)
        expect(value).to_be_visible()
        page.get_by_text("反馈有帮助" if zh else "The feedback helps", exact=False).first.scroll_into_view_if_needed()
        chart = page.get_by_test_id("stPlotlyChart").filter(has_text="各实验组最终指令" if zh else "Validation score")
        expect(chart).to_have_count(1)
        for width in at_widths(page, widths):
            chart.scroll_into_view_if_needed()
            assert_readable_picture(shot(page, f"uplift-{language}-{width}"), width)

"""The trace of a case's llm() calls in the row detail of the per-case table (ui/widgets/trace.py), through AppTest:
an answered call (its retry, clipped answer, tokens and cost), failed calls, the detail of a row chosen after another,
the detail in Chinese, and the judge's totals."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.harness import open_function

TABLE_KEY = "t.table.tok." + str(hash(((), ())))  # panels.cases names its table by token and filters


def page() -> None:
    """A per-case table of two judged cases: one answered after a retry, one whose calls failed."""
    import streamlit as st

    from skynet_core.cases import Case
    from skynet_core.i18n import set_language
    from skynet_core.results import CaseResult, CaseStatus, JudgeUsage
    from skynet_core.results.trace import LlmCall
    from ui.widgets.cases import cases_table

    set_language(st.session_state.get("studio.language", "en"))
    answered = LlmCall.make(
        "Answer PASS or FAIL.",
        "Q: refund please A: billing",
        "PASS. " + "The ticket asks for a refund. " * 200 + "VERDICT: PASS",
        model="openai/gpt-4o-mini",
        prompt_tokens=20,
        completion_tokens=1_200,
        latency_ms=812.0,
        elapsed_ms=1_730.0,
        cost_usd=0.00072,
        retries=1,
    )
    failed = LlmCall.make(
        "Answer PASS or FAIL.",
        "Q: password reset A: [link](http://example.com) **bold**",
        None,
        model="openai/gpt-4o-mini",
        latency_ms=40.0,
        elapsed_ms=40.0,
        error="the openai API rejected the API key for openai/gpt-4o-mini: set a valid key (sk-abcdefgh12345678)",
        error_kind="AuthenticationError",
    )
    results = [
        CaseResult(
            id="TCK-1", score=1.0, feedback="PASS", judge=JudgeUsage.of_calls((answered,)), _llm_calls=(answered,)
        ),
        CaseResult(
            id="TCK-2",
            status=CaseStatus.ERROR,
            error="LlmError: the openai API rejected the API key",
            judge=JudgeUsage.of_calls((failed, failed)),
            _llm_calls=(failed, failed),
        ),
    ]
    cases = [
        Case(id="TCK-1", input={"question": "refund please"}, output="billing"),
        Case(id="TCK-2", input={"question": "password reset"}, output="account"),
    ]
    cases_table("tok", results, cases, "t")


def open_row(row: int, language: str = "en") -> AppTest:
    at = open_function(page, language=language)
    at.session_state[TABLE_KEY] = {"selection": {"rows": [row], "columns": []}}
    at.run()
    assert not at.exception, at.exception
    return at


def texts(at: AppTest) -> list[str]:
    return [str(node.value) for node in [*at.markdown, *at.caption, *at.code, *at.text]]


def test_the_row_detail_shows_the_calls_sent_answer_tokens_latency_retries_and_cost() -> None:
    at = open_row(0)
    shown = texts(at)
    assert any("Model calls" in text for text in shown)
    assert "Answer PASS or FAIL." in shown and "Q: refund please A: billing" in shown
    answer = next(text for text in shown if text.startswith("PASS. The ticket"))
    assert answer.endswith("VERDICT: PASS")  # clipped: head and tail kept
    assert any(text.startswith("Clipped: ") for text in shown)
    assert any("1 call · tokens 20 in, 1,200 out · 1.7 s · cost $0.00072" in text for text in shown)
    assert any("1 retry" in text and "1.7 s in all" in text for text in shown)
    calls = next(frame.value for frame in at.dataframe if "retries" in frame.value.columns)
    assert calls.to_dict("records")[0] | {"cost_usd": None} == {
        "call": 1,
        "status": "answered",
        "model": "openai/gpt-4o-mini",
        "prompt_tokens": 20,
        "completion_tokens": 1200,
        "latency_ms": 812.0,
        "retries": 1,
        "cost_usd": None,
    }


def test_failed_calls_show_their_kind_and_message_literally_and_count_in_the_summary() -> None:
    at = open_row(1)
    shown = texts(at)
    assert any("2 calls, all failed · 80 ms" in text for text in shown)
    assert "AuthenticationError" in shown
    # Data is shown literally (a text element), never rendered as markdown.
    assert "Q: password reset A: [link](http://example.com) **bold**" in at.text.values
    assert not any("sk-abcdefgh12345678" in text for text in shown)
    assert any("judge: 3 calls, 2 failed (AuthenticationError 2)" in text for text in shown)
    assert list(at.selectbox[0].options) == ["1 · failed: AuthenticationError", "2 · failed: AuthenticationError"]


def test_a_row_chosen_after_another_replaces_its_detail() -> None:
    at = open_row(1)
    assert "AuthenticationError" in texts(at)
    at.session_state[TABLE_KEY] = {"selection": {"rows": [0], "columns": []}}
    at.run()
    assert not at.exception, at.exception
    shown = texts(at)
    assert "AuthenticationError" not in shown and any(text.startswith("Clipped: ") for text in shown)


def test_a_case_without_calls_has_no_trace() -> None:
    from skynet_core.results import CaseResult

    assert CaseResult(id="x").llm_calls == ()


def test_the_trace_reads_in_chinese() -> None:
    from i18n_scan import english_words

    at = open_row(1, "zh_CN")
    left = english_words(at, allowed=USER_DATA | COLUMN_IDS, where="main")
    texts_left = {text for _word, text in left}
    # What is left comes from panels/cases.py (the author helper's), translated on another branch.
    unexpected = {text for text in texts_left if not any(part in text for part in PENDING_OTHER_BRANCH)}
    assert not unexpected, unexpected


def test_an_answered_calls_detail_reads_in_chinese_with_its_retry() -> None:
    shown = texts(open_row(0, "zh_CN"))
    assert "**模型调用（`llm()`）**" in shown
    assert any(" · 重试 1 次 · " in text for text in shown), shown


# Data: the case, the model's name, the error the provider sent (shown literally, untranslated).
USER_DATA = {
    *"AuthenticationError LlmError openai gpt mini TCK llm plaintext account Answer PASS or FAIL".split(),
    *"the rejected key for set valid redacted password reset link bold API".split(),
}
# The per-call table's column ids (their labels are translated; the scanner reads the column config's JSON).
COLUMN_IDS = {"status", "model", "prompt", "tokens", "completion", "latency", "ms", "retries", "cost", "usd", "index"}
PENDING_OTHER_BRANCH: set[str] = set()


def judge_page() -> None:
    """The judge's totals of three cases whose every llm() call failed."""
    from skynet_core.judge import judge_summary
    from skynet_core.results import CaseResult, CaseStatus, JudgeUsage
    from skynet_core.results.trace import LlmCall
    from ui.widgets.trace import judge_metrics

    failed = LlmCall.make("Answer PASS or FAIL.", "x", None, error="rejected key", error_kind="AuthenticationError")
    results = [
        CaseResult(
            id=f"c{n}",
            status=CaseStatus.ERROR,
            error="rejected key",
            judge=JudgeUsage.of_calls((failed,)),
            _llm_calls=(failed,),
        )
        for n in range(3)
    ]
    judge_metrics(judge_summary(results))


def test_the_judge_totals_count_calls_that_all_failed() -> None:
    at = open_function(judge_page)
    metrics = {metric.label: metric.value for metric in at.metric}
    assert metrics["Judge calls"] == "3" and metrics["Failed calls"] == "3"
    assert "Failed calls by kind: AuthenticationError 3" in at.caption[0].value

"""A tiny app for the browser test of the llm() trace: six of the example's cases as the judge example scored them
against a model server (the results built here with their llm() calls, as a scoring records them), shown in the
per-case table whose row detail holds the trace.

The first case's call failed (a 500, retried twice), the second was answered after one 429, and the ticket about a
refund got an answer long enough to be clipped. ``?lang=zh_CN`` shows the page in Chinese.
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from skynet_core.cases import Case  # noqa: E402
from skynet_core.datasets import load_example  # noqa: E402
from skynet_core.i18n import set_language  # noqa: E402
from skynet_core.results import CaseResult, CaseStatus, JudgeUsage  # noqa: E402
from skynet_core.results.trace import LlmCall  # noqa: E402
from ui.widgets.cases import cases_table  # noqa: E402

MODEL = "openai/gpt-4o-mini"
API = "http://127.0.0.1:43017/v1"
# The judge example's instructions (skynet_core/examples: "Model as judge").
INSTRUCTIONS = (
    "You review how a support ticket was triaged. The triage should be one JSON object with a label "
    "(billing, technical, account, shipping, refund or other), a priority (low, medium or high) and a short, "
    "polite reply to the customer that fits the ticket. Answer PASS or FAIL, then give one sentence of reasons."
)
PASS = "PASS. The triage fits: billing, medium priority, a polite reply."
LONG = "PASS. " + "The label, priority and reply all fit the ticket. " * 120 + "Verdict: PASS."
FAILED = f"{API} failed to answer for {MODEL} (tried 3 times): The server had an error while processing your request."


def prompt(case: Case) -> str:
    """What the judge example sends for ``case``."""
    hint = f"\nExpected label: {case.expected['label']}" if case.expected is not None else ""
    return f"Subject: {case.input['subject']}\nMessage: {case.input['message']}\nTriage: {case.output}{hint}"


def judged(index: int, case: Case) -> CaseResult:
    """The result of ``case``, the ``index``-th scored, with its one llm() call."""
    if index == 0:  # three 500s: the call fails, and so does the case
        call = LlmCall.make(
            INSTRUCTIONS, prompt(case), None, model=MODEL, latency_ms=115.4, elapsed_ms=668.7, retries=2,
            error=FAILED, error_kind="InternalServerError",
        )  # fmt: skip
        error = f"LlmError: {FAILED} (metric.py line 19)"
        return CaseResult(
            case.id, case.split, CaseStatus.ERROR, error=error, duration_ms=3596.7, line=19, candidate=case.candidate,
            judge=JudgeUsage.of_calls((call,)), _llm_calls=(call,),
        )  # fmt: skip
    answer = LONG if "refund" in prompt(case).lower() else PASS
    call = LlmCall.make(
        INSTRUCTIONS, prompt(case), answer, model=MODEL, prompt_tokens=20, completion_tokens=5, latency_ms=64.0 + index,
        elapsed_ms=(231.3 if index == 1 else 64.0 + index), cost_usd=6e-06, retries=1 if index == 1 else 0,
    )  # fmt: skip
    return CaseResult(
        case.id, case.split, score=1.0, feedback=answer, duration_ms=70.0 + index, candidate=case.candidate,
        judge=JudgeUsage.of_calls((call,)), _llm_calls=(call,),
    )  # fmt: skip


@st.cache_resource
def scored() -> tuple[list[Case], list[CaseResult]]:
    dataset = load_example()
    cases = dataset.for_candidate(dataset.candidates[0])[:6]
    return cases, [judged(index, case) for index, case in enumerate(cases)]


st.set_page_config(page_title="Trace", layout="wide")  # as app.py
set_language(st.query_params.get("lang", "en"))
cases, results = scored()
cases_table("trace", results, cases, "trace")

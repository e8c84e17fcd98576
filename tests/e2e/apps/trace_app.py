"""A tiny app for the browser test of the llm() trace: the judge example scored against a local fake
model server (127.0.0.1), shown in the per-case table whose row detail holds the trace.

The first case's call fails (a 500, retried twice), the second is answered after one 429, and a
ticket about a refund gets an answer long enough to be clipped. ``?lang=zh_CN`` shows the page in Chinese.
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from skynet_core.datasets import load_example  # noqa: E402
from skynet_core.examples import EXAMPLE_METRICS  # noqa: E402
from skynet_core.i18n import set_language  # noqa: E402
from skynet_core.llm import ModelConfig, ModelSettings, make_handler  # noqa: E402
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner.run import score_cases  # noqa: E402
from tests.fake_openai import FakeOpenAI, Received  # noqa: E402
from ui.widgets.cases import cases_table  # noqa: E402

LONG = "PASS. " + "The label, priority and reply all fit the ticket. " * 120 + "Verdict: PASS."


def reply(received: Received) -> str:
    if "refund" in (received.user or "").lower():
        return LONG
    return "PASS. The triage fits: billing, medium priority, a polite reply."


@st.cache_resource
def scored():
    server = FakeOpenAI(reply=reply, latency_s=0.05).start()
    server.script = [500, 500, 500, 429]
    settings = ModelSettings(
        metric=ModelConfig("openai/gpt-4o-mini", api_base=server.url), backoff_s=0.01, max_retries=2
    )
    dataset = load_example()
    cases = dataset.for_candidate(dataset.candidates[0])[:6]
    results = score_cases(
        EXAMPLE_METRICS["Model as judge"].read_text(), cases, RunOptions(llm=make_handler(settings), concurrency=1)
    ).results
    return cases, results


st.set_page_config(page_title="Trace", layout="wide")  # as app.py
set_language(st.query_params.get("lang", "en"))
cases, results = scored()
cases_table("trace", results, cases, "trace")

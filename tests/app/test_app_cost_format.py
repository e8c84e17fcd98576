"""Issue 23 polish: one precision for a cost wherever a page shows one (``i18n.format_cost``): a trace showed
"$0.00004" where Settings showed $0.000045."""

from __future__ import annotations

from pages.settings.model import price_text
from skynet_core.results.trace import LlmCall
from ui.widgets.trace import calls_frame, totals


def test_a_trace_and_settings_show_a_cost_alike() -> None:
    call = LlmCall.make(
        "Answer PASS or FAIL.", "Q: refund", "PASS", model="openai/gpt-4o-mini", latency_ms=5.0, cost_usd=0.000045
    )
    assert price_text(0.000045) == "$0.000045"
    assert "cost $0.000045" in totals((call,))
    assert calls_frame((call,))["cost_usd"].tolist() == ["$0.000045"]

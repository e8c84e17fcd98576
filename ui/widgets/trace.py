"""The trace of one case's ``llm()`` calls, in the row detail of the per-case table.

For each call: what was sent (instructions and input), what came back (the answer, or the error
and its kind), tokens, latency, retries and cost. Every text in a trace came from metric code, the
data or the model: it is shown literally (``ui.widgets.text.long_text``, dataframe cells), never as markdown.
The texts were redacted and clipped when the call was made (``skynet_core.results.trace``).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from skynet_core.i18n import _, format_cost, format_duration, format_number, ngettext
from skynet_core.judge import JudgeSummary
from skynet_core.llm import kind_label
from skynet_core.results import CaseResult
from skynet_core.results.trace import CLIP_CHARS, CLIP_HEAD, FULL_CALLS, LlmCall
from ui.widgets.text import long_text, md


def duration(ms: float) -> str:
    """A call's time for people: "820 ms" under a second, "2.4 s" above."""
    if ms < 1000.0:
        return _("{value} ms").format(value=format_number(ms, 0))
    return format_duration(ms / 1000.0)


def status(call: LlmCall) -> str:
    if call.ok:
        return _("answered")
    return _("failed: {kind}").format(kind=kind_label(call.error_kind or "LlmError"))


def totals(calls: tuple[LlmCall, ...]) -> str:
    """One line over a case's calls: how many (failed), tokens, time and cost."""
    failed = sum(1 for call in calls if not call.ok)
    known = [call.cost_usd for call in calls if call.cost_usd is not None]
    values = {
        "calls": ngettext("{count} call", "{count} calls", len(calls)).format(count=format_number(len(calls))),
        "failed": format_number(failed),
        "prompt": format_number(sum(call.prompt_tokens for call in calls)),
        "completion": format_number(sum(call.completion_tokens for call in calls)),
        "time": duration(sum(call.elapsed_ms or call.latency_ms for call in calls)),
        "cost": format_cost(sum(known)) if known else _("unknown"),
    }
    if failed == len(calls):  # nothing was answered: no tokens, no cost to speak of
        return ngettext("{calls}, failed · {time}", "{calls}, all failed · {time}", len(calls)).format(**values)
    if failed:
        return _("{calls}, {failed} failed · tokens {prompt} in, {completion} out · {time} · cost {cost}").format(
            **values
        )
    return _("{calls} · tokens {prompt} in, {completion} out · {time} · cost {cost}").format(**values)


def calls_frame(calls: tuple[LlmCall, ...]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "call": n,
                "status": status(call),
                "model": call.model,
                "prompt_tokens": call.prompt_tokens,
                "completion_tokens": call.completion_tokens,
                "latency_ms": call.latency_ms,
                "retries": call.retries,
                "cost_usd": format_cost(call.cost_usd),  # the one cost format, as text
            }
            for n, call in enumerate(calls, 1)
        ]
    )


def clip_note(call: LlmCall, field: str) -> None:
    full = call.clipped.get(field)
    if full is None:
        return
    if not getattr(call, field):
        st.caption(
            _("Not kept: only a case's first {count} calls keep their texts ({full} characters).").format(
                count=format_number(FULL_CALLS), full=format_number(full)
            )
        )
        return
    st.caption(
        _("Clipped: {full} characters; the first {head} and the last {tail} are shown.").format(
            full=format_number(full), head=format_number(CLIP_HEAD), tail=format_number(CLIP_CHARS - CLIP_HEAD)
        )
    )


def show_call(call: LlmCall, key: str) -> None:
    """One call in full: what was sent, what came back."""
    sent, came = st.columns(2)
    with sent:
        st.markdown("**" + _("Instructions") + "**")
        clip_note(call, "instructions")
        long_text(call.instructions, key=f"{key}.instructions")
        st.markdown("**" + _("Input") + "**")
        if call.input is None:
            st.caption(_("None: `llm()` was called with instructions only."))
        else:
            clip_note(call, "input")
            long_text(call.input, key=f"{key}.input")
    with came:
        if call.ok:
            st.markdown("**" + _("Answer") + "**")
            clip_note(call, "answer")
            long_text(call.answer or "", key=f"{key}.answer")
        else:
            st.markdown("**" + _("Error") + "**")
            st.text(kind_label(call.error_kind or "LlmError"))
            clip_note(call, "error")
            long_text(call.error, key=f"{key}.error")
        details = [
            _("Latency {latency} (the last attempt)").format(latency=duration(call.latency_ms)),
            ngettext("{count} retry", "{count} retries", call.retries).format(count=format_number(call.retries)),
        ]
        if call.retries:
            details.append(_("{time} in all").format(time=duration(call.elapsed_ms)))
        st.caption(" · ".join(details))


def show_calls(result: CaseResult, key: str = "trace") -> None:
    """The ``llm()`` calls of one case's result: a table of them, then each in full. Nothing when it made none."""
    calls = result.llm_calls
    if not calls:
        return
    base = f"{key}.{result.id}"
    st.markdown("**" + _("Model calls (`llm()`)") + "**")
    st.caption(totals(calls))
    config: dict[str, Any] = {
        "call": st.column_config.NumberColumn(_("call"), width="small"),
        "status": st.column_config.TextColumn(_("status")),
        "model": st.column_config.TextColumn(_("model")),
        "prompt_tokens": st.column_config.NumberColumn(_("tokens in")),
        "completion_tokens": st.column_config.NumberColumn(_("tokens out")),
        "latency_ms": st.column_config.NumberColumn(_("latency (ms)"), format="%.0f"),
        "retries": st.column_config.NumberColumn(_("retries")),
        "cost_usd": st.column_config.TextColumn(_("cost")),
    }
    st.dataframe(calls_frame(calls), hide_index=True, width="stretch", column_config=config, key=f"{base}.table")
    if len(calls) == 1:
        show_call(calls[0], f"{base}.1")
        return
    labels = [f"{n} · {status(call)}" for n, call in enumerate(calls, 1)]
    first_failed = next((n for n, call in enumerate(calls) if not call.ok), 0)
    chosen = st.selectbox(
        _("Call"), range(len(calls)), index=first_failed, format_func=lambda n: labels[n], key=f"{base}.pick"
    )
    show_call(calls[chosen], f"{base}.{chosen + 1}")


def judge_metrics(summary: JudgeSummary) -> None:
    """The judge's totals over a run as metrics: calls, failed calls (with their kinds), time and cost per
    1,000 cases. For pages that show a run's judging in large type (the Settings page's "Try the judge")."""
    cols = st.columns(4)
    cols[0].metric(_("Judge calls"), format_number(summary.calls))
    cols[1].metric(_("Failed calls"), format_number(summary.failed))
    cols[2].metric(_("Judge time per 1,000 cases"), format_duration(summary.ms_per_1000 / 1000.0))
    per_1000 = summary.cost_per_1000
    cols[3].metric(_("Judge cost per 1,000 cases"), format_cost(per_1000))
    if summary.failed:
        st.caption(_("Failed calls by kind: {kinds}").format(kinds=md(summary.error_kinds())))

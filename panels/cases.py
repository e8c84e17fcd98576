"""The per-case results of a scoring run: summary numbers, histogram, filterable table and one case in full.

Every text that came from metric code or a data file (ids, feedback, named-score keys, errors,
prints) is shown literally: dataframe cells, ``st.code``/``studio.literal``, never markdown.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

import studio
from panels.trace import show_calls
from skynet_core.cases import Case
from skynet_core.charts import score_histogram
from skynet_core.export import results_frame, score_names
from skynet_core.judge import JudgeSummary, judge_summary
from skynet_core.overflow import full_side_information
from skynet_core.results import CaseResult

S = st.session_state


def frame_for(token: Any, results: list[CaseResult]) -> pd.DataFrame:
    """The per-case table of one set of results (``token`` names it), built once per session."""
    cached = S.get("cases.frame")
    if cached is None or cached[0] != (token, len(results)):
        cached = ((token, len(results)), results_frame(results))
        S["cases.frame"] = cached
    return cached[1]


def summary(frame: pd.DataFrame, names: list[str], judge: JudgeSummary | None, key: str) -> None:
    """Mean score over ok cases, counts by status, each named score's mean, what judging cost, and the histogram."""
    ok = frame[frame["status"] == "ok"]
    counts = frame["status"].value_counts()
    numbers, chart = st.columns([2, 3])
    with numbers:
        top = st.columns(2)
        top[0].metric("Mean score (ok cases)", f"{ok['score'].mean():.3f}" if len(ok) else "–")
        top[1].metric(
            "Cases by status",
            " · ".join(
                f"{status} {counts.get(status, 0)}"
                for status in ("ok", "error", "timeout", "invalid")
                if counts.get(status, 0) or status == "ok"
            ),
        )
        if names:  # named-score keys come from metric code: table cells, never metric labels
            means = pd.DataFrame(
                {
                    "named score": names,
                    "mean (ok cases)": [ok[f"score.{name}"].mean() if len(ok) else None for name in names],
                }
            )
            st.dataframe(
                means,
                hide_index=True,
                width="stretch",
                column_config={"mean (ok cases)": st.column_config.NumberColumn(format="%.3f")},
            )
        if judge is not None and judge.used:
            st.text(judge.describe())
    figure = score_histogram(ok["score"]).update_layout(height=280, margin={"t": 40, "b": 40})
    chart.plotly_chart(figure, width="stretch", key=f"{key}.histogram")


def cases_table(token: Any, results: list[CaseResult], cases: list[Case], key: str) -> None:
    """Summary, filters and the table of ``results``; selecting a row shows that case in full."""
    frame = frame_for(token, results)
    names = score_names(results)
    summary(frame, names, judge_summary(results), key)

    filters = st.columns(2)
    statuses = filters[0].multiselect(
        "Status", sorted(frame["status"].unique()), key=f"{key}.filter_status", placeholder="every status"
    )
    splits = filters[1].multiselect(
        "Split", sorted(frame["split"].unique()), key=f"{key}.filter_split", placeholder="every split"
    )
    view = frame
    if statuses:
        view = view[view["status"].isin(statuses)]
    if splits:
        view = view[view["split"].isin(splits)]
    judged = bool(frame["judge_calls"].sum())
    judge_columns = ["judge_ms", "judge_cost_usd"] if judged else []
    columns = [
        "id",
        "split",
        "status",
        "score",
        *[f"score.{n}" for n in names],
        "feedback",
        "duration_ms",
        *judge_columns,
        "error",
    ]
    view = view[columns].reset_index(drop=True)
    st.caption(f"Showing {len(view)} of {len(frame)} scored cases. Select a row to see the case in full.")
    config: dict[str, Any] = {
        "id": st.column_config.TextColumn("id", pinned=True),
        "score": st.column_config.NumberColumn("score", format="%.3f"),
        "feedback": st.column_config.TextColumn("feedback", width="large"),
        "duration_ms": st.column_config.NumberColumn("duration", format="%.2f ms"),
        "judge_ms": st.column_config.NumberColumn(
            "judge time", format="%.0f ms", help="Time the metric's llm() calls took for this case"
        ),
        "judge_cost_usd": st.column_config.NumberColumn(
            "judge cost", format="$%.5f", help="What the metric's llm() calls cost for this case"
        ),
        "error": st.column_config.TextColumn("error", width="medium"),
    }
    for name in names:
        config[f"score.{name}"] = st.column_config.NumberColumn(name, format="%.3f")
    event = st.dataframe(
        view,
        hide_index=True,
        column_config=config,
        on_select="rerun",
        selection_mode="single-row",
        width="stretch",
        key=f"{key}.table.{token}.{hash((tuple(statuses), tuple(splits)))}",
    )
    rows = event.selection.rows if event is not None else []
    if rows:
        case_details(view.iloc[rows[0]]["id"], results, cases)


def case_details(case_id: str, results: list[CaseResult], cases: list[Case]) -> None:
    """One case in full: input, output, expected, side information, error and what metric.py printed."""
    result = next(r for r in results if r.id == case_id)
    case = next((c for c in cases if c.id == case_id), None)
    st.markdown("#### The selected case")
    st.text(f"Case {case_id} · {result.split} · {result.status.value}")
    cols = st.columns(3)
    with cols[0]:
        st.markdown("**Input**")
        st.json(case.input if case else {}, expanded=True)
    with cols[1]:
        st.markdown("**Output**")
        if case is not None and isinstance(case.output, str):
            studio.literal(case.output, key=f"cases.output.{case_id}")
        else:
            st.json(case.output if case else None)
    with cols[2]:
        st.markdown("**Expected**")
        if case is not None and case.expected is None:
            st.caption("None: this case has no expected value.")
        else:
            st.json(case.expected if case else None)
    cols = st.columns(2)
    with cols[0]:
        st.markdown("**Side information**")
        st.json({"feedback": result.feedback, "scores": result.scores, **result.extra}, expanded=True)
        whole = full_side_information(result)
        if whole is not None:
            st.download_button(
                "Download the full side information",
                whole,
                file_name=f"side-information-{case_id}.json",
                mime="application/json",
                on_click="ignore",
                icon=":material/download:",
                key=f"cases.side.{case_id}",
            )
        if result.error:
            st.markdown("**Error**")
            studio.long_text(result.error, key=f"cases.error.{case_id}")
    with cols[1]:
        st.markdown("**Printed by metric.py**")
        if result.stdout:
            studio.long_text(result.stdout, key=f"cases.stdout.{case_id}")
        else:
            st.caption("Nothing was printed.")
    show_calls(result, key="cases.trace")

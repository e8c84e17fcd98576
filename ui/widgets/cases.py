"""The per-case results of a scoring run: summary numbers, histogram, filterable table and one case in full.

Every text that came from metric code or a data file (ids, feedback, named-score keys, errors,
prints) is shown literally: dataframe cells, ``st.code``/``ui.widgets.text.literal``, never markdown.
:func:`column_config` is the one column configuration of every per-case table of the studio (a run, two
runs or versions compared, the probes, a try-out of the judge).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pandas as pd
import streamlit as st

from skynet_core.cases import Case
from skynet_core.i18n import _, format_number, ngettext, with_language
from skynet_core.judge import JudgeSummary, judge_summary
from skynet_core.results import CaseResult
from skynet_core.reward.charts import score_histogram
from skynet_core.runs.export import results_frame, score_names
from skynet_core.views.author import run_numbers
from skynet_core.views.runs import costs_shown, status_word, statuses_text, words_shown
from skynet_core.workspace.jobs import Job
from ui.widgets.case_detail import case_details

S = st.session_state
CACHE = "cases.frame"  # this session's table of the results shown last: (token, frame)
TABLE_ROWS = 10_000  # rows sent to the browser at most, the first the filters keep (a 900,000-case run sent all)
PARTIAL_ROWS = 100
"""While a run goes on, the table lists the latest this many of the cases scored so far."""


def column_config(names: Iterable[str] = ()) -> dict[str, Any]:
    """How every per-case table labels and formats its columns (``names``: the named scores, shown by name)."""
    number, text = st.column_config.NumberColumn, st.column_config.TextColumn
    config: dict[str, Any] = {
        "id": text(_("case"), pinned=True),
        "split": text(_("split")),
        "candidate": text(_("candidate")),
        "status": text(_("status")),
        "score": number(_("score"), format="%.3f"),
        "feedback": text(_("feedback"), width="large"),
        "error": text(_("error"), width="medium"),
        "input": text(_("input")),
        "output": text(_("output")),
        "expected": text(_("expected")),
        "duration_ms": number(_("duration"), format="%.1f ms"),
        "judge_ms": number(
            _("judge time"), format="%.0f ms", help=_("Time the metric's llm() calls took for this case")
        ),
        "judge_cost_usd": text(_("judge cost"), help=_("What the metric's llm() calls cost for this case")),
        "old_status": text(_("status A")),
        "new_status": text(_("status B")),
        "status_change": text(_("status change")),
        "old_score": number(_("score A"), format="%.3f"),
        "new_score": number(_("score B"), format="%.3f"),
        "delta": number(_("change (B − A)"), format="%+.3f"),
        "old_feedback": text(_("feedback A"), width="large"),
        "new_feedback": text(_("feedback B"), width="large"),
    }
    for name in names:
        config[f"score.{name}"] = number(name, format="%.3f")
    return config


def frame_for(token: Any, results: list[CaseResult]) -> pd.DataFrame:
    """The per-case table of one set of results (``token`` names it), built once per session."""
    cached = S.get(CACHE)
    if cached is None or cached[0] != (token, len(results)):
        cached = ((token, len(results)), costs_shown(results_frame(results)))
        S[CACHE] = cached
    return cached[1]


def summary(
    frame: pd.DataFrame, results: list[CaseResult], names: list[str], judge: JudgeSummary | None, key: str
) -> None:
    """The mean over ok cases beside the share that did not score (as prominent), each named score's
    mean, what judging cost, and the histogram (or why there is none)."""
    ok = frame[frame["status"] == "ok"]
    numbers = run_numbers(results)
    with st.container(horizontal=True, vertical_alignment="top", gap="large"):
        st.metric(
            _("Mean score (ok cases)"), f"{numbers.mean:.3f}" if numbers.mean is not None else "–", width="content"
        )
        st.metric(
            _("Did not score"),
            _("{failed} of {total}").format(failed=numbers.failed, total=numbers.total),
            delta=f"{numbers.failed_share:.0%}" if numbers.failed else None,
            delta_color="inverse",
            delta_arrow="off",
            help=_("Cases whose call raised an error, timed out or returned an invalid value."),
            width="content",
        )
        with st.container(width="content"):
            st.caption(statuses_text(numbers.by_status))
            if judge is not None and judge.used:
                st.text(judge.describe())
    if names:  # named-score keys come from metric code: table cells, never metric labels
        means = pd.DataFrame(
            {
                _("named score"): names,
                _("mean (ok cases)"): [ok[f"score.{name}"].mean() if len(ok) else None for name in names],
            }
        )
        st.dataframe(
            means,
            hide_index=True,
            column_config={_("mean (ok cases)"): st.column_config.NumberColumn(format="%.3f")},
        )
    if not len(ok):
        st.info(_("No ok case to plot: no case returned a score."), icon=":material/bar_chart_off:")
        return
    figure = score_histogram(ok["score"]).update_layout(height=240, margin={"t": 40, "b": 40})
    st.plotly_chart(figure, width="stretch", key=f"{key}.histogram")


def cases_table(
    token: Any,
    results: list[CaseResult],
    cases: list[Case],
    key: str,
    *,
    pins: list[str] | None = None,
    on_pin: Callable[[str], None] | None = None,
    on_try: Callable[[str], None] | None = None,
) -> None:
    """Summary, filters and the table of ``results``; selecting a row shows that case in full.

    With ``on_pin`` the selected case can be pinned for the live check (``pins`` are the pinned ids);
    with ``on_try`` it can be re-run alone (in the try-one-case panel)."""
    frame = frame_for(token, results)
    names = score_names(results)
    summary(frame, results, names, judge_summary(results), key)

    filters = st.columns(2)
    statuses = filters[0].multiselect(
        _("Status"),
        sorted(frame["status"].unique()),
        format_func=status_word,
        key=f"{key}.filter_status",
        placeholder=_("every status"),
    )
    splits = filters[1].multiselect(
        _("Split"), sorted(frame["split"].unique()), key=f"{key}.filter_split", placeholder=_("every split")
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
    kept = len(view)
    view = view[columns].head(TABLE_ROWS).reset_index(drop=True)
    view["error"] = view["error"].map(lambda text: text.splitlines()[0][:200] if text else "")
    if kept > len(view):
        st.caption(
            _(
                "Showing the first {shown} of {total} scored cases: filter by status or split for others, or "
                "download every case from the Runs page. Select a row to see the case in full."
            ).format(shown=format_number(len(view)), total=format_number(kept))
        )
    else:
        st.caption(
            _("Showing {shown} of {total} scored cases. Select a row to see the case in full.").format(
                shown=len(view), total=len(frame)
            )
        )
    config = column_config(names)
    event = st.dataframe(
        words_shown(view),
        hide_index=True,
        column_config=config,
        on_select="rerun",
        selection_mode="single-row",
        width="stretch",
        key=f"{key}.table.{token}.{hash((tuple(statuses), tuple(splits)))}",
    )
    rows = event.selection.rows if event is not None else []
    if rows:
        case_id = view.iloc[rows[0]]["id"]
        if on_pin is not None or on_try is not None:
            case_actions(case_id, pins or [], on_pin, on_try, key)
        case_details(case_id, results, cases)


def partial_table(job: Job[Any]) -> None:
    """The cases a running job has scored so far, the latest :data:`PARTIAL_ROWS` of them, in the full table's
    columns; the full table replaces it when the run ends."""
    shown, done = job.latest(PARTIAL_ROWS), job.done
    if not shown:
        return
    names = score_names(shown)
    frame = words_shown(costs_shown(results_frame(shown)))
    columns = ["id", "split", "status", "score", *[f"score.{n}" for n in names], "feedback", "duration_ms"]
    if len(shown) < done:
        text = _("The latest {shown} of the {done} cases scored so far; the whole table when the run ends.")
    else:
        text = ngettext(
            "The {done} case scored so far; the whole table when the run ends.",
            "The {done} cases scored so far; the whole table when the run ends.",
            done,
        )
    st.caption(text.format(shown=format_number(len(shown)), done=format_number(done)))
    st.dataframe(frame[columns], hide_index=True, column_config=column_config(names), width="stretch")


def case_actions(
    case_id: str,
    pins: list[str],
    on_pin: Callable[[str], None] | None,
    on_try: Callable[[str], None] | None,
    key: str,
) -> None:
    """Buttons for the selected case: pin it for the live check (or unpin it), re-run it alone."""
    with st.container(horizontal=True):
        if on_pin is not None:
            pinned = case_id in pins
            st.button(
                _("Stop using in the live check") if pinned else _("Use in the live check"),
                on_click=with_language(on_pin),
                args=(case_id,),
                icon=":material/keep_off:" if pinned else ":material/keep:",
                key=f"{key}.pin.{case_id}",
                help=_("The contract check runs on the pinned cases instead of the planner's sample."),
            )
        if on_try is not None:
            st.button(
                _("Re-run this case"),
                on_click=with_language(on_try),
                args=(case_id,),
                icon=":material/replay:",
                key=f"{key}.try.{case_id}",
                help=_("Runs this case alone in the try-one-case panel, where you can edit it."),
            )

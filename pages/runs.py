"""Runs: every saved "Score all cases" run, one opened case by case, two compared side by side, and a run's download.

What to show is decided in ``skynet_core.run_views`` (the tables, filters, sorting and exports); this page
draws the widgets and calls it.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import streamlit as st

import studio
from skynet_core import run_views as views
from skynet_core.i18n import N_, _, format_number
from skynet_core.runs import RunSummary, SavedRun

studio.ensure_router()

ws = studio.workspace()
OPEN, COMPARE = N_("Open a run"), N_("Compare two runs")
FORMATS = {"csv": "CSV", "jsonl": "JSONL", "parquet": "Parquet"}
# Sort choices other than a column: (label, column, magnitude).
BY_CHANGE = N_("size of change")


def number(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else format_number(value, digits)


def share(value: float) -> str:
    return _("{percent}%").format(percent=format_number(100 * value, 1))


@st.cache_data(max_entries=8, show_spinner=False)
def saved_run(run_id: int, directory: str) -> SavedRun | None:
    return ws.runs.get(run_id)


def case_columns() -> dict[str, Any]:
    """The per-case tables' column labels (one run's, and a comparison's)."""
    number, text = st.column_config.NumberColumn, st.column_config.TextColumn
    return {
        "id": _("case"),
        "split": _("split"),
        "candidate": _("candidate"),
        "status": _("status"),
        "score": number(_("score"), format="%.3f"),
        "feedback": text(_("feedback"), width="large"),
        "error": _("error"),
        "input": _("input"),
        "output": _("output"),
        "expected": _("expected"),
        "duration_ms": number(_("time (ms)"), format="%.1f"),
        "old_status": _("status A"),
        "new_status": _("status B"),
        "status_change": _("status change"),
        "old_score": number(_("score A"), format="%.3f"),
        "new_score": number(_("score B"), format="%.3f"),
        "delta": number(_("change (B − A)"), format="%+.3f"),
        "old_feedback": text(_("feedback A"), width="large"),
        "new_feedback": text(_("feedback B"), width="large"),
    }


def column_label(column: str) -> str:
    """A sort choice as people read it: the column's label, or "size of change"."""
    if column == BY_CHANGE:
        return _(BY_CHANGE)
    label = case_columns().get(column, column)
    return label if isinstance(label, str) else str(label.get("label") or column)


def case_table(run: SavedRun) -> Any:
    cases, where = views.run_cases(run, ws.cases_of)
    if where == "dataset":
        st.caption(_("This run was saved before runs kept their cases: inputs and outputs come from its dataset now."))
    elif where == "missing":
        st.caption(_("This run's dataset is not loaded now: its inputs, outputs and expected values are empty."))
    return views.run_frame(run, cases)


def filters(frame: Any, key: str, columns: views.Columns, sorts: list[str], default_sort: str) -> Any:
    """The filter and sort widgets over ``frame``; returns the rows they keep, in their order."""
    with st.container(horizontal=True, vertical_alignment="bottom"):
        score_range = None
        whole = views.bounds(frame, columns.score)
        if whole is not None and whole[0] < whole[1]:
            chosen = st.slider(_("Score range"), whole[0], whole[1], whole, key=f"{key}.score", width=240)
            score_range = views.narrowed(chosen, whole)
        named_list = views.named_score_columns(frame)
        named, named_range = None, None
        if named_list:
            named = st.selectbox(_("Named score"), [None, *named_list], key=f"{key}.named", width=180,
                                 format_func=lambda name: _("(none)") if name is None else name)  # fmt: skip
            named_whole = views.bounds(frame, f"score.{named}") if named else None
            if named_whole is not None and named_whole[0] < named_whole[1]:
                picked = st.slider(_("Named-score range"), *named_whole, named_whole, key=f"{key}.named_range",
                                   width=240)  # fmt: skip
                named_range = views.narrowed(picked, named_whole)
        statuses = sorted({value for name in columns.statuses for value in frame[name].dropna()})
        status = st.multiselect(_("Status"), statuses, key=f"{key}.status", placeholder=_("any"), width=200)
        split = st.multiselect(_("Split"), sorted(frame["split"].dropna().unique()), key=f"{key}.split",
                               placeholder=_("any"), width=200)  # fmt: skip
    with st.container(horizontal=True, vertical_alignment="bottom"):
        text = st.text_input(_("Feedback contains"), key=f"{key}.text", width=220)
        sort = st.selectbox(_("Sort by"), sorts, index=sorts.index(default_sort), key=f"{key}.sort", width=220,
                            format_func=column_label)  # fmt: skip
        descending = st.toggle(_("Highest first"), value=True, key=f"{key}.descending")
    chosen_filter = views.CaseFilter(score_range, named, named_range, tuple(status), tuple(split), text)
    kept = views.filter_frame(frame, chosen_filter, columns)
    if sort == BY_CHANGE:
        kept = views.sort_frame(kept, "delta", descending, magnitude=True)
    else:
        kept = views.sort_frame(kept, sort, descending)
    st.caption(_("Showing {shown} of {total} cases").format(shown=format_number(len(kept)), total=len(frame)))
    return kept


def downloads(run: SavedRun, frame: Any) -> None:
    with st.container(horizontal=True):
        for form, name in FORMATS.items():
            st.download_button(
                _("Download {format}").format(format=name),
                partial(views.export_bytes, frame, form),
                file_name=f"run-{run.id}.{form}",
                mime=views.MIMES[form],
                key=f"runs.download.{form}",
                on_click="ignore",
                icon=":material/download:",
            )
    st.caption(_("A download holds every case of the run with its input, output and expected, whatever is shown."))


def open_run(summary: RunSummary, names: dict[str, str]) -> None:
    run = saved_run(summary.id, str(ws.directory))
    if run is None:
        st.info(_("This run is no longer kept."))
        return
    studio.stale_banner(
        studio.stale_changes(run.provenance, studio.provenance()), _("This run's scores"), None, key="runs.stale"
    )
    row = st.container(horizontal=True, gap="large")  # metrics as wide as they read, wrapping, never cut
    metric = partial(row.metric, width="content")
    metric(_("Cases"), format_number(summary.case_count))
    metric(_("Mean score (ok cases)"), number(summary.mean))
    metric(_("Scored ok"), share(summary.ok_share))
    metric(_("Failed (error, timeout, invalid)"), share(summary.error_share))
    st.caption(views.statuses_text(summary.statuses))
    frame = case_table(run)
    kept = filters(frame, "runs.case", views.Columns(), list(frame.columns), "score")
    st.dataframe(
        views.shown_frame(kept),
        hide_index=True,
        width="stretch",
        column_config=case_columns(),
    )
    downloads(run, frame)


def compare(summaries: list[RunSummary], names: dict[str, str]) -> None:
    by_id = {summary.id: summary for summary in summaries}
    label = lambda run_id: views.run_label(by_id[run_id], names)  # noqa: E731
    old_id = st.selectbox(_("Run A"), list(by_id), index=1, format_func=label, key="runs.a")
    new_id = st.selectbox(_("Run B"), list(by_id), index=0, format_func=label, key="runs.b")
    old, new = saved_run(old_id, str(ws.directory)), saved_run(new_id, str(ws.directory))
    if old is None or new is None:
        st.info(_("This run is no longer kept."))
        return
    result = views.compare(old, new)
    table = result.table
    if table.empty:
        st.info(_("The two runs have no case in common."))
        return
    row = st.container(horizontal=True, gap="large")  # metrics as wide as they read, wrapping, never cut
    metric = partial(row.metric, width="content")
    change = None if result.old_mean is None or result.new_mean is None else result.new_mean - result.old_mean
    metric(_("Mean score, A"), number(result.old_mean))
    metric(_("Mean score, B"), number(result.new_mean), None if change is None else number(change))
    metric(_("Improved"), format_number(result.improved))
    metric(_("Worsened"), format_number(result.worsened))
    metric(_("Status changed"), format_number(result.status_changed))
    st.caption(_("Means are over cases that scored ok in both runs; score ranges apply to run B."))
    kept = filters(table, "runs.compare", views.COMPARED, [BY_CHANGE, *table.columns], BY_CHANGE)
    st.dataframe(
        views.shown_frame(kept),
        hide_index=True,
        width="stretch",
        column_config=case_columns(),
    )


st.title(_("Runs"))
summaries = ws.runs.list()
if not summaries:
    st.info(_('No saved runs yet. Every "Score all cases" (on the Author or Feedback review page) is kept here.'))
    st.stop()
names = views.version_names(ws.versions(), ws.draft().metric.digest)
st.caption(_("Every scored run, newest first. A run is current when metric.py, the data and the model are unchanged."))
st.dataframe(
    views.runs_table(summaries, names, studio.provenance()),
    hide_index=True,
    width="stretch",
    column_config={
        "run": st.column_config.NumberColumn(_("run"), format="#%d"),
        "when": _("when"),
        "metric": st.column_config.TextColumn(_("metric version"), width="medium"),
        "dataset": _("dataset"),
        "candidate": _("candidate"),
        "split": _("split"),
        "cases": _("cases"),
        "mean": st.column_config.NumberColumn(_("mean"), format="%.3f"),
        "ok_share": st.column_config.NumberColumn(_("ok"), format="percent"),
        "error_share": st.column_config.NumberColumn(_("failed"), format="percent"),
        "statuses": st.column_config.TextColumn(_("statuses"), width="medium"),
        "current": st.column_config.CheckboxColumn(_("current")),
    },
)
views_offered = [OPEN, COMPARE] if len(summaries) > 1 else [OPEN]
view = st.radio(_("View"), views_offered, format_func=_, horizontal=True, key="runs.view", label_visibility="collapsed")
if view == COMPARE:
    compare(summaries, names)
else:
    by_id = {summary.id: summary for summary in summaries}
    chosen = st.selectbox(
        _("Run"), list(by_id), format_func=lambda run_id: views.run_label(by_id[run_id], names), key="runs.open"
    )
    open_run(by_id[chosen], names)

"""Runs: every saved "Score all cases" run, one opened case by case, two compared side by side, and a run's download.

What to show is decided in ``skynet_core.views.runs`` (the tables, filters, sorting and exports); this page
draws the widgets and calls it.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import streamlit as st

from skynet_core.i18n import N_, _, format_number
from skynet_core.runs import RunSummary, SavedRun
from skynet_core.views import runs as views
from skynet_core.workspace import Snapshot
from ui import keys as K
from ui import studio
from ui.widgets.agreement import run_agreement_panel
from ui.widgets.agreement_compare import agreement_change
from ui.widgets.cases import column_config
from ui.widgets.compare import comparison_row
from ui.widgets.stale import stale_banner, stale_changes
from ui.widgets.stress import run_stress_line
from ui.widgets.text import number
from ui.widgets.uplift import run_feedback_value

OPEN, COMPARE = N_("Open a run"), N_("Compare two runs")
FORMATS = {"csv": "CSV", "jsonl": "JSONL", "parquet": "Parquet"}
# Sort choices other than a column: (label, column, magnitude).
BY_CHANGE = N_("size of change")


def share(value: float) -> str:
    return _("{percent}%").format(percent=format_number(100 * value, 1))


@st.cache_data(max_entries=8, show_spinner=False)
def saved_run(run_id: int, directory: str) -> SavedRun | None:
    return studio.session().workspace.runs.get(run_id)


def column_label(column: str) -> str:
    """A sort choice as people read it: the column's label, or "size of change"."""
    if column == BY_CHANGE:
        return _(BY_CHANGE)
    label = column_config().get(column, column)
    return label if isinstance(label, str) else str(label.get("label") or column)


def case_table(run: SavedRun) -> Any:
    cases, where = views.run_cases(run, studio.session().workspace.data.cases_of)
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
        status = st.multiselect(
            _("Status"), statuses, format_func=views.status_word, key=f"{key}.status", placeholder=_("any"), width=200
        )
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
        kept = views.sort_by_change(kept, descending)  # a change of status (error → ok) first
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


def open_run(snap: Snapshot, summary: RunSummary) -> None:
    run = saved_run(summary.id, str(studio.session().workspace.directory))
    if run is None:
        st.info(_("This run is no longer kept."))
        return
    stale_banner(stale_changes(run.provenance, snap.provenance), _("This run's scores"), None, key="runs.stale")
    row = st.container(horizontal=True, gap="large")  # metrics as wide as they read, wrapping, never cut
    metric = partial(row.metric, width="content")
    metric(_("Cases"), format_number(summary.case_count))
    metric(_("Mean score (ok cases)"), number(summary.mean))
    metric(_("Scored ok"), share(summary.ok_share))
    metric(_("Failed (error, timeout, invalid)"), share(summary.error_share))
    st.caption(views.statuses_text(summary.statuses))
    run_feedback_value(summary.provenance.metric if summary.provenance else None, summary.key.dataset)
    run_stress_line(summary.provenance.metric if summary.provenance else None, summary.key.dataset)
    frame = case_table(run)
    kept = filters(frame, "runs.case", views.Columns(), list(frame.columns), "score")
    st.dataframe(views.shown_frame(kept), hide_index=True, width="stretch", column_config=column_config())
    downloads(run, frame)
    run_agreement_panel(run)


def compare(summaries: list[RunSummary], names: dict[str, str]) -> None:
    """Two runs side by side, opening on the two latest of one candidate (:func:`run_views.default_pair`); runs of
    two candidates pair their cases by id when asked."""
    by_id = {summary.id: summary for summary in summaries}
    ids = list(by_id)
    first, second = views.default_pair(summaries) or (ids[1], ids[0])
    label = lambda run_id: views.run_label(by_id[run_id], names)  # noqa: E731
    old_id = st.selectbox(_("Run A"), ids, index=ids.index(first), format_func=label, key="runs.a")
    new_id = st.selectbox(_("Run B"), ids, index=ids.index(second), format_func=label, key="runs.b")
    directory = str(studio.session().workspace.directory)
    old, new = saved_run(old_id, directory), saved_run(new_id, directory)
    if old is None or new is None:
        st.info(_("This run is no longer kept."))
        return
    across = old.key.candidate != new.key.candidate and st.toggle(
        _("Pair the cases by id across the candidates"),
        key=K.RUNS_BY_ID,
        help=_("Run A and run B scored different candidates: compare each case's score for one with the other's."),
    )
    result = views.compare(old, new, by_id=across)
    table = result.table
    if table.empty:
        if old.key.candidate != new.key.candidate:
            st.info(_("The two runs have no case in common: they scored different candidates. Pair them by id above."))
        else:
            st.info(_("The two runs have no case in common."))
        return
    comparison_row(result)
    st.caption(_("Means are over cases that scored ok in both runs; score ranges apply to run B."))
    kept = filters(table, "runs.compare", views.COMPARED, [BY_CHANGE, *table.columns], BY_CHANGE)
    st.dataframe(views.shown_frame(kept), hide_index=True, width="stretch", column_config=column_config())
    if (old.key.dataset, old.key.candidate) == (new.key.dataset, new.key.candidate):
        agreement_change(old.results, new.results, new.key.dataset, new.key.candidate, key="runs.agreement")


def page() -> None:
    snap = studio.snapshot()
    ws = studio.session().workspace
    st.title(_("Runs"))
    summaries = ws.runs.summaries()
    if not summaries:
        st.info(_('No saved runs yet. Every "Score all cases" (on the Author or Feedback review page) is kept here.'))
        return
    names = views.version_names(ws.drafts.versions(), snap.metric.digest)
    st.caption(
        _("Every scored run, newest first. A run is current when metric.py, the data and the model are unchanged.")
    )
    st.dataframe(
        views.runs_table(summaries, names, snap.provenance),
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
    offered = [OPEN, COMPARE] if len(summaries) > 1 else [OPEN]
    view = st.radio(_("View"), offered, format_func=_, horizontal=True, key="runs.view", label_visibility="collapsed")
    by_id = {summary.id: summary for summary in summaries}
    if view == COMPARE:
        compare(summaries, names)
    else:
        label = lambda run_id: views.run_label(by_id[run_id], names)  # noqa: E731
        chosen = st.selectbox(_("Run"), list(by_id), format_func=label, key="runs.open")
        open_run(snap, by_id[chosen])

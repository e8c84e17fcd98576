"""History: saved versions of the metric, a diff between two, and the per-case change in scores between them."""

from __future__ import annotations

from functools import partial

import plotly.graph_objects as go
import streamlit as st

import studio
from skynet_core.history import compare_runs, folder_diff, version_label
from skynet_core.i18n import N_, _, format_number
from skynet_core.metric_source import MetricSource

studio.ensure_router()

CURRENT = N_("Current draft")
S = st.session_state
ws = studio.workspace()
slot = studio.job_slot("history")


def version_labels() -> dict[str, MetricSource]:
    """Label → metric folder: the current draft first, then saved versions, newest first."""
    labels = {_(CURRENT): ws.draft().metric}
    for version in ws.versions():
        labels[version_label(version)] = version.folder
    return labels


def number(value: float | None) -> str:
    return "–" if value is None else format_number(value, 3)


def start_comparison(old: MetricSource, new: MetricSource) -> None:
    ws.compare_versions(slot, old, new, keys=studio.session_keys(), watcher=studio.watcher())


def comparison() -> None:
    job = slot.job
    if job is None:
        st.caption(_("Scores both versions on the cases in use (in the sandbox) and lists what changed, case by case."))
        return
    done = job.finished
    studio.job_progress(slot, "history.compare", _("Scoring both versions"), job, done)
    if not done:
        return
    if job.cancelled:
        st.info(_("The comparison was cancelled."))
        return
    if job.error:
        st.error(_("The comparison could not run."))
        studio.long_text(job.error, key="history.compare_error")
        return
    studio.stale_banner(
        studio.stale_changes(job.provenance, studio.provenance()), _("These scores"), None, key="history.stale"
    )
    before, after = job.result or ([], [])
    result = compare_runs(before, after)
    row = st.container(horizontal=True, gap="large")  # metrics as wide as they read, wrapping, never cut
    metric = partial(row.metric, width="content")
    metric(_("Mean score, A"), number(result.old_mean))
    metric(
        _("Mean score, B"),
        number(result.new_mean),
        None if result.old_mean is None or result.new_mean is None else number(result.new_mean - result.old_mean),
    )
    metric(_("Improved"), format_number(result.improved))
    metric(_("Worsened"), format_number(result.worsened))
    metric(_("Status changed"), format_number(result.status_changed))
    st.caption(_("Means are over cases that scored ok in both versions."))
    deltas = result.table["delta"].dropna()
    if len(deltas):
        figure = go.Figure(go.Histogram(x=deltas, nbinsx=min(40, max(5, len(deltas) // 2)), marker_color="#4c78a8"))
        figure.update_layout(
            title=_("Change in score per case (B − A)"),
            xaxis_title=_("B − A"),
            yaxis_title=_("cases"),
            height=260,
            margin={"t": 40, "b": 40, "l": 40, "r": 10},
        )
        st.plotly_chart(figure, width="stretch")
    st.dataframe(
        result.table,
        hide_index=True,
        width="stretch",
        column_config={
            "id": _("case"),
            "split": _("split"),
            "candidate": _("candidate"),
            "old_score": st.column_config.NumberColumn(_("score A"), format="%.3f"),
            "new_score": st.column_config.NumberColumn(_("score B"), format="%.3f"),
            "delta": st.column_config.NumberColumn(_("change (B − A)"), format="%+.3f"),
            "old_feedback": st.column_config.TextColumn(_("feedback A"), width="large"),
            "new_feedback": st.column_config.TextColumn(_("feedback B"), width="large"),
            "old_status": _("status A"),
            "new_status": _("status B"),
        },
    )


st.title(_("History"))
labels = version_labels()

studio.save_version_control("history")

if len(labels) < 2:
    st.info(
        _(
            "No saved versions yet. Versions are saved when you save one, every few minutes while you type, and "
            "whenever a text is about to be replaced (an example, an upload, a restore, a write from the trade-offs "
            "page); then you can compare them here."
        )
    )
    st.stop()

names = list(labels)
# One above the other: a label ("#5 before … wrote REWARD_SPEC · 11/30/26, 7:28 PM") reads whole at 900 px too.
old_label = st.selectbox(_("Version A"), names, index=1, key="history.a")
new_label = st.selectbox(_("Version B"), names, index=0, key="history.b")
old, new = labels[old_label], labels[new_label]

diff = folder_diff(old, new)
st.subheader(_("Diff"))
if diff:
    st.code(diff, language="diff")
else:
    st.caption(_("The two versions are the same text."))

actions = st.container(horizontal=True)  # buttons as wide as their labels, never cut
if actions.button(_("Compare scores"), type="primary", disabled=not diff):
    start_comparison(old, new)
if old_label != _(CURRENT) and actions.button(_("Restore A into the editor")):
    studio.replace_metric_source(old, _("restoring {version}").format(version=old_label.split(" ", 1)[0]))
    st.toast(_("Version A is now the draft; the text it replaced was saved as a version."))
    st.rerun()

st.subheader(_("Per-case change in scores"))
comparison()

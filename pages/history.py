"""History: saved versions of the metric, a diff between two, and the per-case change in scores between them."""

from __future__ import annotations

from datetime import datetime

import plotly.graph_objects as go
import streamlit as st

import studio
from skynet_core.history import compare_runs, folder_diff
from skynet_core.metric_source import MetricSource

studio.ensure_router()

CURRENT = "Current draft"
KINDS = {"named": "", "auto": " · autosave", "kept": " · kept"}
S = st.session_state
ws = studio.workspace()
slot = studio.job_slot("history")


def version_labels() -> dict[str, MetricSource]:
    """Label → metric folder: the current draft first, then saved versions, newest first."""
    labels = {CURRENT: ws.draft().metric}
    for version in ws.versions():
        stamp = datetime.fromtimestamp(version.created_at).strftime("%Y-%m-%d %H:%M:%S")
        labels[f"#{version.id} {version.name} ({stamp}){KINDS[version.kind.value]}"] = version.folder
    return labels


def start_comparison(old: MetricSource, new: MetricSource) -> None:
    ws.compare_versions(slot, old, new, keys=studio.session_keys(), watcher=studio.watcher())


def comparison() -> None:
    job = slot.job
    if job is None:
        st.caption("Scores both versions on the cases in use (in the sandbox) and lists what changed, case by case.")
        return
    done = job.finished
    studio.job_progress(slot, "history.compare", "Scoring both versions", job, done)
    if not done:
        return
    if job.cancelled:
        st.info("The comparison was cancelled.")
        return
    if job.error:
        st.error("The comparison could not run.")
        studio.long_text(job.error, key="history.compare_error")
        return
    studio.stale_banner(
        studio.stale_changes(job.provenance, studio.provenance()), "These scores", None, key="history.stale"
    )
    before, after = job.result
    result = compare_runs(before, after)
    columns = st.columns(5)
    columns[0].metric("Mean score, A", "–" if result.old_mean is None else f"{result.old_mean:.3f}")
    columns[1].metric(
        "Mean score, B",
        "–" if result.new_mean is None else f"{result.new_mean:.3f}",
        None if result.old_mean is None or result.new_mean is None else f"{result.new_mean - result.old_mean:+.3f}",
    )
    columns[2].metric("Improved", result.improved)
    columns[3].metric("Worsened", result.worsened)
    columns[4].metric("Status changed", result.status_changed)
    st.caption("Means are over cases that scored ok in both versions.")
    deltas = result.table["delta"].dropna()
    if len(deltas):
        figure = go.Figure(go.Histogram(x=deltas, nbinsx=min(40, max(5, len(deltas) // 2)), marker_color="#4c78a8"))
        figure.update_layout(
            title="Change in score per case (B − A)",
            xaxis_title="B − A",
            yaxis_title="cases",
            height=260,
            margin={"t": 40, "b": 40, "l": 40, "r": 10},
        )
        st.plotly_chart(figure, width="stretch")
    st.dataframe(
        result.table,
        hide_index=True,
        width="stretch",
        column_config={
            "old_score": st.column_config.NumberColumn("score A", format="%.3f"),
            "new_score": st.column_config.NumberColumn("score B", format="%.3f"),
            "delta": st.column_config.NumberColumn("B − A", format="%+.3f"),
            "old_feedback": st.column_config.TextColumn("feedback A", width="large"),
            "new_feedback": st.column_config.TextColumn("feedback B", width="large"),
            "old_status": "status A",
            "new_status": "status B",
        },
    )


st.title("History")
labels = version_labels()

studio.save_version_control("history")

if len(labels) < 2:
    st.info(
        "No saved versions yet. Versions are saved when you save one, every few minutes while you type, and "
        "whenever a text is about to be replaced (an example, an upload, a restore, a write from the trade-offs "
        "page); then you can compare them here."
    )
    st.stop()

left, right = st.columns(2)
names = list(labels)
old_label = left.selectbox("Version A", names, index=1, key="history.a")
new_label = right.selectbox("Version B", names, index=0, key="history.b")
old, new = labels[old_label], labels[new_label]

diff = folder_diff(old, new)
st.subheader("Diff")
if diff:
    st.code(diff, language="diff")
else:
    st.caption("The two versions are the same text.")

actions = st.columns([1, 1, 3])
if actions[0].button("Compare scores", type="primary", disabled=not diff):
    start_comparison(old, new)
if old_label != CURRENT and actions[1].button("Restore A into the editor"):
    studio.replace_metric_source(old, f"restoring {old_label.split(' ', 1)[0]}")
    st.toast("Version A is now the draft; the text it replaced was saved as a version.")
    st.rerun()

st.subheader("Per-case change in scores")
comparison()

"""History: saved versions of metric.py, a diff between two, and the per-case change in scores between them."""

from __future__ import annotations

from datetime import datetime

import plotly.graph_objects as go
import streamlit as st

import studio
from skynet_core.history import compare_runs, unified_diff
from skynet_core.jobs import Job
from skynet_core.runner import score_cases

studio.ensure_router()

CURRENT = "Current draft"
S = st.session_state


def version_labels() -> dict[str, str]:
    """Label → metric.py text: the current draft first, then saved versions, newest first."""
    labels = {CURRENT: studio.metric_source()}
    for version in studio.store().versions():
        stamp = datetime.fromtimestamp(version.created_at).strftime("%Y-%m-%d %H:%M:%S")
        labels[f"#{version.id} {version.name} ({stamp})"] = version.source
    return labels


def start_comparison(old: str, new: str) -> None:
    cases = studio.cases_in_use()

    def run(job: Job) -> tuple[list, list]:
        options = {"timeout": studio.timeout_s(), "pool": studio.pool(), "llm": studio.llm_handler(),
                   "cancel": job.cancel, "on_result": job.add_result, "concurrency": studio.calls_in_flight()}
        before = score_cases(old, cases, **options).results
        after = score_cases(new, cases, **options).results
        return before, after

    studio.job_slot("history").submit(Job(kind="compare", total=2 * len(cases), label=f"{len(cases)} cases"), run)


def comparison() -> None:
    slot = studio.job_slot("history")
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
        st.error(f"The comparison could not run: {studio.md(job.error or '')}")
        return
    before, after = job.result
    result = compare_runs(before, after)
    columns = st.columns(5)
    columns[0].metric("Mean score, A", "–" if result.old_mean is None else f"{result.old_mean:.3f}")
    columns[1].metric("Mean score, B", "–" if result.new_mean is None else f"{result.new_mean:.3f}",
                      None if result.old_mean is None or result.new_mean is None
                      else f"{result.new_mean - result.old_mean:+.3f}")
    columns[2].metric("Improved", result.improved)
    columns[3].metric("Worsened", result.worsened)
    columns[4].metric("Status changed", result.status_changed)
    st.caption("Means are over cases that scored ok in both versions.")
    deltas = result.table["delta"].dropna()
    if len(deltas):
        figure = go.Figure(go.Histogram(x=deltas, nbinsx=min(40, max(5, len(deltas) // 2)),
                                        marker_color="#4c78a8"))
        figure.update_layout(title="Change in score per case (B − A)", xaxis_title="B − A",
                             yaxis_title="cases", height=260, margin={"t": 40, "b": 40, "l": 40, "r": 10})
        st.plotly_chart(figure, width="stretch")
    st.dataframe(result.table, hide_index=True, width="stretch", column_config={
        "old_score": st.column_config.NumberColumn("score A", format="%.3f"),
        "new_score": st.column_config.NumberColumn("score B", format="%.3f"),
        "delta": st.column_config.NumberColumn("B − A", format="%+.3f"),
        "old_feedback": st.column_config.TextColumn("feedback A", width="large"),
        "new_feedback": st.column_config.TextColumn("feedback B", width="large"),
        "old_status": "status A", "new_status": "status B",
    })


st.title("History")
labels = version_labels()

with st.form("history.save", border=False):
    name_column, button_column = st.columns([4, 1], vertical_alignment="bottom")
    name = name_column.text_input("Save the current draft as a version", placeholder="e.g. clearer feedback")
    if button_column.form_submit_button("Save version", width="stretch"):
        version = studio.store().save_version(name.strip() or "unnamed", studio.metric_source())
        st.toast(f"Saved version #{version.id}.")
        st.rerun()

if len(labels) < 2:
    st.info("No saved versions yet. Versions are saved when you save one above, load an example over your "
            "text, or write a reward spec from the trade-offs page; then you can compare them here.")
    st.stop()

left, right = st.columns(2)
names = list(labels)
old_label = left.selectbox("Version A", names, index=1, key="history.a")
new_label = right.selectbox("Version B", names, index=0, key="history.b")
old_source, new_source = labels[old_label], labels[new_label]

diff = unified_diff(old_source, new_source, "A/metric.py", "B/metric.py")
st.subheader("Diff")
if diff:
    st.code(diff, language="diff")
else:
    st.caption("The two versions are the same text.")

actions = st.columns([1, 1, 3])
if actions[0].button("Compare scores", type="primary", disabled=not diff):
    start_comparison(old_source, new_source)
if old_label != CURRENT and actions[1].button("Restore A into the editor"):
    studio.replace_metric_source(old_source, f"restoring {old_label.split(' ', 1)[0]}")
    st.toast("Version A is now the draft; the text it replaced was saved as a version.")
    st.rerun()

st.subheader("Per-case change in scores")
comparison()

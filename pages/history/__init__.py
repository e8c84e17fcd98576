"""History: saved versions of the metric, a diff between two, and the per-case change in scores between them."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from skynet_core.i18n import N_, _, with_language
from skynet_core.metric.source import MetricSource
from skynet_core.reward.charts import histogram_bars
from skynet_core.runs.history import compare_runs, comparison_changes, folder_diff, version_label
from skynet_core.views.runs import costs_shown, words_shown
from skynet_core.workspace import Snapshot
from ui import keys as K
from ui import studio
from ui.widgets.agreement_compare import agreement_change
from ui.widgets.cases import column_config
from ui.widgets.compare import comparison_row
from ui.widgets.jobs import job_panel, outcome_panel
from ui.widgets.stale import stale_banner
from ui.widgets.stress import versions_stress
from ui.widgets.uplift import versions_feedback_value
from ui.widgets.versions import save_version_control

CURRENT = N_("Current draft")
DRAFT = 0  # the current draft's id in the version pickers (a saved version's id is 1 or more)
SLOT = "history"


def versions_offered(snap: Snapshot) -> dict[int, tuple[str, MetricSource]]:
    """Version id → (its label in this language, its metric folder): the current draft first (id
    :data:`DRAFT`), then the saved versions, newest first. The pickers choose ids, not labels: a label is
    in the language of the run that drew it, and a choice must outlive a change of language."""
    offered = {DRAFT: (_(CURRENT), snap.metric)}
    for version in studio.session().workspace.drafts.versions():
        offered[version.id] = (version_label(version), version.folder)
    return offered


def start_comparison(old: MetricSource, new: MetricSource) -> None:
    me = studio.session()
    me.workspace.jobs.compare_versions(me.slot(SLOT), old, new, keys=me.keys, watcher=me.watcher)
    st.session_state[K.HISTORY_COMPARED] = (old.digest, new.digest)


def restore(old: MetricSource, label: str) -> None:
    studio.session().replace_draft(old, _("restoring {version}").format(version=label.split(" ", 1)[0]))
    st.toast(_("Version A is now the draft; the text it replaced was saved as a version."))


def comparison(snap: Snapshot, chosen: tuple[MetricSource, MetricSource]) -> None:
    slot = studio.session().slot(SLOT)
    outcome = job_panel(slot, "history.compare")
    job = slot.job
    if outcome is None or job is None:
        st.caption(_("Scores both versions on the cases in use (in the sandbox) and lists what changed, case by case."))
        return
    if not outcome.finished or outcome_panel(outcome, "history.compare"):
        return
    compared = st.session_state.get(K.HISTORY_COMPARED)
    changes = (
        comparison_changes(job.provenance, compared, snap.provenance, (chosen[0].digest, chosen[1].digest))
        if job.provenance is not None and compared is not None
        else [_("it was made before results kept their origin")]
    )
    stale_banner(
        changes,
        _("These scores"),
        None,
        key="history.stale",
        current=_("These scores are of versions A and B, on the current dataset, candidate, split and model."),
    )
    before, after = job.result or ([], [])
    result = compare_runs(before, after)
    comparison_row(result)
    st.caption(_("Means are over cases that scored ok in both versions."))
    deltas = result.table["delta"].dropna()
    if len(deltas):
        bins = min(40, max(5, len(deltas) // 2))
        hover = _("change {x}<br>{y} cases")
        figure = go.Figure(histogram_bars(deltas.to_numpy(dtype=float), "#4c78a8", bins, hover))
        figure.update_layout(
            bargap=0,
            title=_("Change in score per case (B − A)"),
            xaxis_title=_("B − A"),
            yaxis_title=_("cases"),
            height=260,
            margin={"t": 40, "b": 40, "l": 40, "r": 10},
        )
        st.plotly_chart(figure, width="stretch")
    st.dataframe(
        words_shown(costs_shown(result.table)), hide_index=True, width="stretch", column_config=column_config()
    )
    agreement_change(before, after, snap.in_use.data.source, snap.in_use.candidate, key="history.agreement")


def page() -> None:
    snap = studio.snapshot()
    st.title(_("History"))
    offered = versions_offered(snap)
    save_version_control("history")
    if len(offered) < 2:
        st.info(
            _(
                "No saved versions yet. Versions are saved when you save one, every few minutes while you type, "
                "and whenever a text is about to be replaced (an example, an upload, a restore, a write from the "
                "trade-offs page); then you can compare them here."
            )
        )
        return
    ids = list(offered)

    def label(version_id: int) -> str:
        return offered[version_id][0]

    # One above the other: a label ("#5 before … wrote REWARD_SPEC · 11/30/26, 7:28 PM") reads whole at 900 px too.
    old_id = st.selectbox(_("Version A"), ids, index=1, format_func=label, key="history.a")
    new_id = st.selectbox(_("Version B"), ids, index=0, format_func=label, key="history.b")
    (old_label, old), new = offered[old_id], offered[new_id][1]
    diff = folder_diff(old, new)
    st.subheader(_("Diff"))
    if diff:
        st.code(diff, language="diff")
    else:
        st.caption(_("The two versions are the same text."))
    versions_feedback_value(snap, old, new)
    versions_stress(snap, old, new)
    job = studio.session().slot(SLOT).job
    comparing = job is not None and job.running  # as every page's start button: one job of its kind at a time
    with st.container(horizontal=True):  # buttons as wide as their labels, never cut
        st.button(
            _("Compare scores"),
            type="primary",
            disabled=not diff or comparing,
            on_click=with_language(start_comparison),
            args=(old, new),
        )
        if old_id != DRAFT:
            st.button(_("Restore A into the editor"), on_click=with_language(restore), args=(old, old_label))
    st.subheader(_("Per-case change in scores"))
    comparison(snap, (old, new))

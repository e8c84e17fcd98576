"""Reward trade-offs scoring: score every candidate once, in the background, as a workspace job.

Each candidate's run is kept like a "Score all cases" run (``Workspace.jobs.score_candidates``); the scores the
page re-weights come from those runs (``Workspace.runs.scored_candidates``), the one store of scores.
"""

from __future__ import annotations

import streamlit as st

from skynet_core.i18n import _, ngettext, with_language
from skynet_core.reward.candidates import ScoredCandidates, candidate_cases, display_name, metric_key
from skynet_core.workspace import Snapshot
from ui import studio
from ui.widgets.jobs import job_panel, outcome_panel
from ui.widgets.stale import stale_banner
from ui.widgets.text import md

SLOT = "tradeoffs"


def start_scoring() -> None:
    me, snap = studio.session(), studio.snapshot()
    me.workspace.jobs.score_candidates(me.slot(SLOT), snap.metric, keys=me.keys, watcher=me.watcher)


def draw(snap: Snapshot) -> ScoredCandidates | None:
    """The "Score candidates" button, its progress, why it gave nothing (if so), and the scores to re-weight."""
    me = studio.session()
    slot, data, split = me.slot(SLOT), snap.in_use.data, snap.in_use.split
    count = len(candidate_cases(data, split))
    with st.container(horizontal=True, vertical_alignment="center"):
        st.button(
            _("Score candidates"),
            on_click=with_language(start_scoring),
            type="primary",
            icon=":material/play_arrow:",
            disabled=(slot.job is not None and slot.job.running) or count == 0,
            key="tradeoffs.score",
        )
        st.caption(
            _(
                "Runs metric.py once on each of the {count} cases of {candidates} ({names}) in the background. "
                "Moving a control afterwards never runs it again."
            ).format(
                count=count,
                candidates=ngettext("{n} candidate", "{n} candidates", len(data.candidates)).format(
                    n=len(data.candidates)
                ),
                names=", ".join(md(display_name(name)) for name in data.candidates),
            )
        )
    outcome = job_panel(slot, "tradeoffs.job")
    if outcome is not None and outcome.finished:
        outcome_panel(outcome, "tradeoffs.job")
    scored = me.workspace.runs.scored_candidates(snap.draft.source, snap.in_use)
    if scored is not None:
        current = metric_key(snap.draft.source)
        changed = [_("metric.py changed (apart from its weights and references)")] if scored.metric != current else []
        stale_banner(changed, _("These scores"), None, key="tradeoffs.stale")
    return scored

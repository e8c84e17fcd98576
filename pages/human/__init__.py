"""Human scores: a person scores the cases in use one at a time, and sees how far the metric agrees with them.

The labels belong to the case ids of the data in use, the candidate and the rater; they live in the workspace
(``Workspace.human.set_score`` and friends) and do not depend on metric.py. The metric's score and feedback,
from the latest scored run, stay hidden unless asked for. Below the labelling view: label files in and out,
two raters' agreement, the agreement report of the latest run (``ui.widgets.agreement``), and "Align the judge"
(``align.py``).
"""

from __future__ import annotations

import streamlit as st

from pages.human.align import align_panel
from pages.human.controls import choices
from pages.human.files import files_panel, forget_old_news, raters_panel
from pages.human.labelling import labelling
from skynet_core.i18n import _
from skynet_core.workspace import Snapshot
from ui import keys as K
from ui import studio
from ui.widgets.agreement import agreement_report
from ui.widgets.text import md


def header(snap: Snapshot) -> None:
    st.title(_("Human scores"))
    st.caption(
        _(
            "The contract check says whether the metric is well formed, not whether its scores are right. Score "
            "cases yourself: the metric's agreement with you, and the cases where it differs most, show below."
        )
    )
    in_use = snap.in_use
    if in_use.problem:
        st.warning(md(in_use.problem), icon=":material/warning:")
    where = _("{dataset} · candidate {candidate} · split {split} · {count} cases (chosen on the Data page)").format(
        dataset=md(in_use.data.name),
        candidate=md(in_use.candidate or "–"),
        split=md(in_use.split or _("all")),
        count=len(snap.cases),
    )
    st.caption(where)


def page() -> None:
    snap = studio.snapshot()
    ws = studio.session().workspace
    in_use = snap.in_use
    header(snap)
    forget_old_news()
    if not snap.cases:
        st.info(_("The data in use has no cases in this split: choose another on the Data page."))
        return
    labels = ws.human.labels(in_use.data.source)
    run = ws.runs.latest(in_use)
    results = {result.id: result for result in run.results} if run is not None else {}
    scores = {case_id: float(r.score) for case_id, r in results.items() if r.ok and r.score is not None}
    scale, order = choices([case.id for case in snap.cases], scores, ws.human.pass_threshold())
    rater = ws.human.rater()
    anyone = frozenset(labels.values(in_use.candidate))
    labelling(in_use, order, scale, labels.of_rater(rater, in_use.candidate), anyone, results)
    st.divider()
    if run is None:
        st.info(
            _("Score the cases (Score all on the Author page) to see how far the metric agrees with these scores."),
            icon=":material/info:",
        )
    else:
        agreement_report(run.results, run.cases or snap.cases, in_use.data.source, in_use.candidate,
                         key=K.HUMAN_AGREEMENT, here=True)  # fmt: skip
    st.divider()
    files_panel(labels, rater, in_use)
    raters_panel(labels, rater, in_use.candidate)
    align_panel(snap, labels.raters())

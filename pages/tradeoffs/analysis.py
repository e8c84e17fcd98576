"""The Reward trade-offs analysis: what was left out, then who wins (``winner.py``), A vs B (``ab.py``), the
candidates' chart and case by case (``cases.py``).

Everything is computed by ``skynet_core.reward.tradeoffs`` from stored scores; this module only draws.
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from pages.tradeoffs.ab import a_vs_b
from pages.tradeoffs.cases import case_by_case
from pages.tradeoffs.winner import who_wins_section
from skynet_core.i18n import _, ngettext
from skynet_core.reward import NormalizedSpec
from skynet_core.reward.candidates import ScoredCandidates
from skynet_core.reward.charts import candidates_figure
from skynet_core.reward.tradeoffs import summarize
from ui.widgets.text import md


def failures(scored: ScoredCandidates) -> None:
    failed = {name: count for name, count in scored.failed.items() if count}
    if failed:
        counts = ", ".join(f"{md(name or _('(the only candidate)'))} {count}" for name, count in failed.items())
        st.warning(
            _("Cases whose metric failed are left out ({counts}). First: {first}. See them on the Author page.").format(
                counts=counts, first=md(scored.first_error or "")
            ),
            icon=":material/warning:",
        )
    if scored.from_score:
        st.caption(
            ngettext(
                "{count} case returned no “accuracy” score (metric.py does not call reward()), so its score "
                "stands in for accuracy. Return `reward(REWARD_SPEC, accuracy, feedback)` to make the reward "
                "metric.py's score.",
                "{count} cases returned no “accuracy” score (metric.py does not call reward()), so their score "
                "stands in for accuracy. Return `reward(REWARD_SPEC, accuracy, feedback)` to make the reward "
                "metric.py's score.",
                scored.from_score,
            ).format(count=scored.from_score)
        )


def accuracy_notes(scored: ScoredCandidates, norm: NormalizedSpec) -> None:
    if scored.accuracy_ref is None and norm.accuracy_ref is not None:
        st.warning(
            _(
                "When scored, metric.py's accuracy was a score between 0 and 1 (no accuracy reference was "
                "set). With an accuracy reference, reward() reads that value as an error, so a right answer "
                "(1.0) scores lower than a wrong one. Change score() to pass an error before writing this."
            ),
            icon=":material/warning:",
        )
    if scored.accuracy_ref is not None and norm.accuracy_ref is None:
        st.warning(
            _(
                "When scored, metric.py passed an error as accuracy (its `REWARD_SPEC` had an accuracy reference). "
                "Without one, reward() reads that error as a score between 0 and 1, and refuses errors above 1."
            ),
            icon=":material/warning:",
        )


def draw(scored: ScoredCandidates, norm: NormalizedSpec, source_weights: Mapping[str, float]) -> None:
    failures(scored)
    if not scored.candidates:
        st.error(
            _(
                "No case of any candidate was scored, so there is nothing to compare; fix metric.py on the "
                "Author page and score again."
            )
        )
        return
    accuracy_notes(scored, norm)
    try:
        summary = summarize(scored.candidates, norm)
    except ValueError as exc:
        st.error(_("The rewards cannot be computed: {problem}").format(problem=md(str(exc))))
        return
    winner = who_wins_section(scored, summary, norm)
    a_vs_b(scored, summary, norm, source_weights)
    st.plotly_chart(candidates_figure(summary, norm), height=460, key="tradeoffs.candidates")
    case_by_case(scored, norm, winner)

"""Is the metric right? The agreement of one candidate's scored results with the human scores of its dataset, as
one panel (the Human scores page, Feedback review, a run on the Runs page), and its one line beside a run's mean.

The figures come from the workspace (``Workspace.human.agreement``: computed once for the same results and
labels); the tables and charts from ``skynet_core.human``. Case ids, notes and data are shown literally.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st

from skynet_core.cases import Case
from skynet_core.human import (
    Agreement,
    HumanLabels,
    agreement_scatter,
    agreement_summary,
    confusion_figure,
    few_cases_warning,
    figures_table,
    named_table,
    pair_results,
    rater_label,
)
from skynet_core.human.labels import EVERY_RATER_WORDS
from skynet_core.human.text import counts_text
from skynet_core.i18n import _, format_number, ngettext, with_language
from skynet_core.results import CaseResult
from skynet_core.runs import SavedRun
from ui.studio import session
from ui.widgets.disagreements import disagreements, opened_case
from ui.widgets.text import box, md
from ui.widgets.text import number as text_number

S = st.session_state
UNKNOWN_SHOWN = 20
SCATTER_PX, MATRIX_PX = 540, 360  # side by side in the main pane at 1400 px (about 940 px wide)
EVERY_RATER = ""


def agreement_line(results: Sequence[CaseResult], source: str, candidate: str) -> None:
    """One line beside a scored run's mean: its agreement with the human scores now (nothing without any)."""
    found = session().workspace.human.agreement(results, source, candidate)
    if found is not None:
        st.caption(":material/person_check: " + md(agreement_summary(found)))


def recorded_line(run_id: int) -> None:
    """The agreement a run had with the human scores that existed when it was scored (nothing if there were none)."""
    found = session().workspace.human.recorded_agreement(run_id)
    if found is not None:
        st.caption(_("When it was scored: {summary}").format(summary=md(agreement_summary(found))))


def save_threshold(key: str) -> None:
    session().workspace.human.set_pass_threshold(float(S[key]))


def controls(labels: HumanLabels, key: str) -> tuple[float, str | None]:
    """The pass threshold (a setting of the workspace) and whose scores count: every rater's mean or one's."""
    ws = session().workspace
    threshold_key, rater_key = f"{key}.threshold", f"{key}.rater"
    if threshold_key not in S:
        S[threshold_key] = ws.human.pass_threshold()
    raters = labels.raters()
    with st.container(horizontal=True, vertical_alignment="bottom"):
        st.number_input(
            _("Pass threshold"),
            step=0.05,
            format="%.2f",
            key=threshold_key,
            on_change=with_language(save_threshold),
            args=(threshold_key,),
            help=_("A score at or above it passes: Cohen's κ, the confusion counts and the rates use it."),
            width=180,
        )
        rater: str | None = None
        if len(raters) > 1:
            chosen = st.selectbox(
                _("Human scores of"),
                [EVERY_RATER, *raters],
                format_func=lambda name: _(EVERY_RATER_WORDS) if name == EVERY_RATER else rater_label(name),
                key=rater_key,
                width=280,
            )
            rater = chosen or None
    return float(S[threshold_key]), rater


def shown(value: Any) -> str:
    """A figure's number as the report shows it: 3 decimals in the reader's locale, "–" where it is undefined."""
    return "–" if value is None or pd.isna(value) else text_number(float(value))


def figures(agreement: Agreement) -> None:
    """Every figure with its interval and what it means (or why it is undefined), as a table that wraps its
    text; each named score's ρ."""
    number = st.column_config.NumberColumn
    table = figures_table(agreement)
    interval = [
        "–" if pd.isna(low) else f"{shown(low)} – {shown(high)}"
        for low, high in zip(table["low"], table["high"], strict=True)
    ]
    st.table(
        pd.DataFrame(
            {
                _("figure"): table["figure"].map(md),
                _("value"): table["value"].map(shown),
                _("95% interval"): interval,
                _("what it means"): table["note"].map(md),
            }
        ),
        hide_index=True,
    )
    if agreement.named:
        st.markdown("**" + _("Named scores against the human score") + "**")
        st.dataframe(
            named_table(agreement),
            hide_index=True,
            width="stretch",
            column_config={
                "name": st.column_config.TextColumn(_("named score")),
                "spearman": number(_("Spearman ρ"), format="%.3f"),
                "low": number(_("95% low"), format="%.3f"),
                "high": number(_("95% high"), format="%.3f"),
                "note": st.column_config.TextColumn(_("why undefined")),
            },
        )


def clicked_case(event: Any) -> str | None:
    """The case id of the point a click (or a box) selected on the scatter, if any."""
    points = list(getattr(getattr(event, "selection", None), "points", None) or [])
    if not points:
        return None
    data = points[0].get("customdata")
    values = list(data.values()) if isinstance(data, dict) else list(data or [])
    return str(values[0]) if values else None


def charts(agreement: Agreement, results: Sequence[CaseResult], humans: dict[str, float], key: str) -> str | None:
    """The scatter of metric score against human score (a click opens the case) and the confusion matrix."""
    row = st.container(horizontal=True, gap="medium")  # side by side when wide, the matrix below when narrow
    left, right = row.container(width=SCATTER_PX), row.container(width=MATRIX_PX)
    with left:
        scatter = agreement_scatter(pair_results(results, humans), agreement.threshold)
        scatter.update_layout(height=420, margin={"t": 50, "b": 30, "l": 50, "r": 10})
        event = st.plotly_chart(scatter, on_select="rerun", selection_mode="points", key=f"{key}.scatter")
        st.caption(_("Click a point to open its case below. Points that share a place are spread a little."))
    with right:
        matrix = confusion_figure(agreement.confusion, agreement.threshold)
        matrix.update_layout(height=320, margin={"t": 50, "b": 30, "l": 10, "r": 10})
        st.plotly_chart(matrix, key=f"{key}.confusion")
    return clicked_case(event)


def agreement_report(
    results: Sequence[CaseResult], cases: Sequence[Case], source: str, candidate: str, *, key: str, here: bool = False
) -> Agreement | None:
    """The whole report for one candidate's ``results`` on dataset ``source`` (``cases``: what was scored, for
    the disagreements' inputs and outputs). ``here``: drawn on the Human scores page itself (its hint says so).
    Returns the agreement shown (``None``: no human scores yet)."""
    ws = session().workspace
    labels = ws.human.labels(source)
    st.subheader(_("Is the metric right? Agreement with human scores"))
    if not labels.values(candidate):
        hint = (
            _(
                "No human scores of candidate {candidate}'s outputs yet. Score some above, or import a labels file "
                "below: the agreement of the metric with them shows here."
            )
            if here
            else _(
                "No human scores for these cases yet. Score some yourself on the Human scores page, or import a "
                "labels file there: the agreement of the metric with them shows here."
            )
        )
        st.info(hint.format(candidate=md(candidate or "–")), icon=":material/person_check:")
        return None
    threshold, rater = controls(labels, key)
    agreement = ws.human.agreement(results, source, candidate, rater=rater, labels=labels, threshold=threshold)
    if agreement is None:
        st.info(_("The chosen rater scored none of these cases."), icon=":material/info:")
        return None
    st.markdown(md(counts_text(agreement)))
    if agreement.unknown:
        st.caption(
            ngettext(
                "{count} label is for a case id not among the scored cases:",
                "{count} labels are for case ids not among the scored cases:",
                agreement.unknown_total,
            ).format(count=format_number(agreement.unknown_total))
        )
        shown = agreement.unknown[:UNKNOWN_SHOWN]
        box(", ".join(shown) + (" …" if agreement.unknown_total > len(shown) else ""), "agreement.unknown")
    warning = few_cases_warning(agreement)
    if warning:
        st.warning(warning, icon=":material/warning:")
    if agreement.n == 0:
        return agreement
    figures(agreement)
    humans = labels.values(candidate, rater)
    opened = charts(agreement, results, humans, key)
    by_id = {case.id: case for case in cases}
    results_by_id = {result.id: result for result in results}
    notes = labels.notes(candidate, rater)
    if opened is not None:
        opened_case(opened, agreement, by_id, results_by_id, notes)
    disagreements(agreement, by_id, results_by_id, notes, key=key)
    return agreement


def run_agreement_panel(run: SavedRun) -> None:
    """Beside a saved run: the agreement it had when it was scored, and its report with the human scores now."""
    ws = session().workspace
    recorded_line(run.id)
    if not ws.human.labels(run.key.dataset).values(run.key.candidate):
        return
    cases = run.cases or [
        case for case in ws.data.cases_of(run.key.dataset) or [] if case.candidate == run.key.candidate
    ]  # fmt: skip
    with st.expander(_("Agreement with human scores now"), icon=":material/person_check:"):
        agreement_report(run.results, cases, run.key.dataset, run.key.candidate, key=f"runs.agreement.{run.id}")

"""A saved stress report on the Stress test page: the verdict in one sentence, the worst example of each flag side
by side, every perturbation, the examples of one, feedback under stress, the exploit search and what it cost.
Outputs and feedback come from the data and the metric: they are shown literally, never as markdown."""

from __future__ import annotations

from datetime import datetime

import pandas as pd
import streamlit as st

from skynet_core.engines.uplift.stats import Interval
from skynet_core.i18n import _, format_datetime, format_number
from skynet_core.stress import BY_ID, Example, Family, StressReport
from skynet_core.stress.saved import SavedStress
from skynet_core.stress.verdict import SEARCH, percent
from skynet_core.stress.violations import marked
from skynet_core.workspace import Snapshot
from ui import keys as K
from ui.widgets.stale import stale_banner, stale_changes
from ui.widgets.text import box, md, number


def header(snap: Snapshot, saved: SavedStress) -> None:
    report = saved.report
    st.subheader(_("Latest stress test"))
    st.caption(
        _("{when} · {cases} of {total} cases · seed {seed} · `metric.py` `{version}`").format(
            when=format_datetime(datetime.fromtimestamp(saved.created_at)),
            cases=format_number(report.cases),
            total=format_number(report.total),
            seed=report.seed,
            version=saved.metric.digest[:12],
        )
    )
    stale_banner(stale_changes(saved.provenance, snap.provenance), _("These results"), None, key="stress.stale")


def verdict(report: StressReport) -> None:
    if report.verdict.sound:
        st.success(report.headline(), icon=":material/verified:")
        return
    st.error(report.headline(), icon=":material/gpp_bad:")
    st.markdown("  \n".join(f"**{flag.label}**: {flag.meaning}" for flag in report.verdict.flags))


def side_by_side(title: str, example: Example, perturbation: str, key: str) -> None:
    """One example: the output before and after ``perturbation``, each with its score, and the feedback after."""
    shown_before, shown_after = marked(example.before, example.after)
    with st.container(border=True):
        st.markdown(title)
        before, after = st.columns(2)
        with before:
            st.caption(_("Before · score {score}").format(score=number(example.score_before)))
            box(shown_before, f"{key}.before")
        with after:
            after_text = _("After {perturbation} · score {score}") if perturbation else _("After · score {score}")
            st.caption(after_text.format(perturbation=f"`{perturbation}`", score=number(example.score_after)))
            box(shown_after, f"{key}.after")
            st.caption(_("Feedback after"))
            box(example.feedback_after or "–", f"{key}.feedback")


def worst_examples(report: StressReport) -> None:
    """The worst example of each flag, side by side (the search's best rewrite for a gain it found)."""
    for flag, ids in report.verdict.why.items():
        for reason in ids:
            if reason == SEARCH and report.search is not None and report.search.examples:
                rewrite = report.search.examples[0]
                example = Example(
                    rewrite.id,
                    rewrite.before,
                    rewrite.after,
                    rewrite.score_before,
                    rewrite.score_after,
                    "",
                    rewrite.feedback_after,
                    True,
                )
                title = _("**{flag}** · the exploit search's rewrite · case {case}").format(
                    flag=flag.label, case=md(rewrite.id)
                )
                side_by_side(title, example, _("the rewrite"), f"stress.worst.{flag.value}")
                break
            found = report.result(reason)
            if found is not None and found.examples:
                title = _("**{flag}** · {perturbation} ({share} of its cases) · case {case}").format(
                    flag=flag.label,
                    perturbation=f"`{reason}`",
                    share=percent(found.rate),
                    case=md(found.examples[0].id),
                )
                side_by_side(title, found.examples[0], reason, f"stress.worst.{flag.value}")
                break


def interval_text(found: Interval) -> str:
    """A mean change in a cell: "+0.250 [+0.100, +0.400]"."""
    if found.value is None:
        return "–"
    if found.low is None or found.high is None:
        return f"{found.value:+.3f}"
    return f"{found.value:+.3f} [{found.low:+.3f}, {found.high:+.3f}]"


def table(report: StressReport) -> None:
    flagged = {name for ids in report.verdict.why.values() for name in ids}
    # The figures first and the description last: at 1000 px the table shows what it found without scrolling.
    rows = [
        {
            _("flag"): "⚠" if item.id in flagged else "",
            _("family"): item.family.label,
            _("perturbation"): item.id,
            _("cases"): item.n,
            _("violate"): item.violations,
            _("share"): percent(item.rate),
            _("mean change [95% interval]"): interval_text(item.mean_change),
            _("what it does"): BY_ID[item.id].description if item.id in BY_ID else "",
        }
        for item in report.perturbations
    ]
    small = st.column_config.Column(width="small")
    columns = {_(name): small for name in ("flag", "family", "cases", "violate", "share")}
    every_row = 35 * (len(rows) + 1) + 3  # every perturbation in view, no inner scroll
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", height=every_row, column_config=columns)
    st.caption(
        _(
            "preserve: {preserve} (a move over 0.05 violates); degrade: {degrade} (a case above 0 that does not go "
            "down violates); game: {game} (a rise over 0.05 violates). Brittle at 10% of a preserve perturbation's "
            "cases, insensitive at 50% of a degrade one's, hackable at 10% of a game one's."
        ).format(preserve=Family.PRESERVE.rule, degrade=Family.DEGRADE.rule, game=Family.GAME.rule)
    )


def examples(report: StressReport) -> None:
    # The perturbations that violate first: their examples are the ones worth reading.
    ranked = sorted((item for item in report.perturbations if item.examples), key=lambda item: -(item.rate or 0.0))
    with_examples = [item.id for item in ranked]
    if not with_examples:
        return
    chosen = st.selectbox(_("Examples of a perturbation"), with_examples, key=K.STRESS_PERTURBATION)
    found = report.result(chosen) if chosen else None
    for index, example in enumerate(found.examples if found else ()):
        mark = _("violates") if example.violates else _("holds")
        side_by_side(f"{md(example.id)} · {mark}", example, chosen or "", f"stress.example.{index}")


def feedback(report: StressReport) -> None:
    st.markdown("**" + _("Feedback under stress") + "**")
    for finding in report.feedback.findings:
        text = _("{title}: {count} of {checked}").format(
            title=finding.title, count=format_number(finding.count), checked=format_number(finding.checked)
        )
        if finding.count:
            st.warning(f"{text} {finding.advice}", icon=":material/feedback:")
            for index, example in enumerate(finding.examples[:1]):
                side_by_side(md(example.id), example, "", f"stress.feedback.{finding.kind}.{index}")
        else:
            st.caption(":green[:material/check_circle:] " + text)


def search(report: StressReport) -> None:
    found = report.search
    if found is None:
        return
    st.markdown("**" + _("Exploit search") + "**")
    st.markdown(md(found.describe()))
    if found.message():
        st.warning(md(found.message()), icon=":material/warning:")
    box(found.best, "stress.search.best")


def draw_report(snap: Snapshot, saved: SavedStress) -> None:
    report = saved.report
    header(snap, saved)
    verdict(report)
    worst_examples(report)
    for note in report.notes():
        st.warning(note, icon=":material/info:")
    table(report)
    examples(report)
    feedback(report)
    search(report)
    if spent := report.spent():
        st.caption(md(spent))

"""The contract check's verdict: each stage, the cases it ran (and why) in full as text, the editor's marker.

The verdict is ``authoring.contract_verdict``'s: the check's own, unless the last "Score all" of exactly what is
current found failed cases: then it says how many and where ("11 of 40 cases fail at metric.py line 12"),
and the editor marks that line."""

from __future__ import annotations

from typing import Any

import streamlit as st

from skynet_core.display import clipped, markdown_text
from skynet_core.i18n import N_, _, format_number, language, ngettext
from skynet_core.metric.check_cases import CheckCases
from skynet_core.results import CaseResult, CheckReport, OutcomeStatus, StageStatus
from skynet_core.reward.lines import localized_feedback
from skynet_core.views.author import ScoredRun, Verdict, contract_verdict, error_headline
from skynet_core.workspace import Snapshot
from skynet_core.workspace.jobs import Job
from ui import keys as K
from ui import studio
from ui.widgets.jobs import job_panel, outcome_panel
from ui.widgets.text import box, long_text

# A run waits this long for a check it just started, so a quick metric's verdict lands without a poll.
SETTLE_S = 0.35
TIMEOUT_NOTE_AFTER_S = 1.0
STAGE_LINE_CHARS = 240  # a stage's message inline; the whole of a longer one is behind "The full error"
STAGE_ICONS = {
    StageStatus.PASSED: ":green[:material/check_circle:]",
    StageStatus.FAILED: ":red[:material/cancel:]",
    StageStatus.SKIPPED: ":gray[:material/do_not_disturb_on:]",
    StageStatus.NOT_RUN: ":gray[:material/radio_button_unchecked:]",
}
STATUS_WORDS = {
    StageStatus.PASSED: N_("passed"),
    StageStatus.FAILED: N_("failed"),
    StageStatus.SKIPPED: N_("skipped"),
    StageStatus.NOT_RUN: N_("not run"),
}
S = st.session_state


def start(snap: Snapshot, chosen: CheckCases, force: bool) -> None:
    """Check the draft unless this exact metric, dataset, settings, timeout, cases and place were checked already
    in this session (a check another session passed is the workspace's at once); ``force`` runs it again."""
    # The language too: a check on screen is re-drawn in the language just picked (its messages are the job's).
    key = (snap.provenance, snap.timeout_s, tuple(chosen.ids), snap.ray_address, language())
    if not force and S.get(K.AUTHOR_CHECK_KEY) == key:
        return
    S[K.AUTHOR_CHECK_KEY] = key
    me = studio.session()
    job = me.workspace.jobs.check(me.slot("check"), snap.metric, keys=me.keys, watcher=me.watcher, fresh=force)
    job.wait(SETTLE_S)


def latest_report(snap: Snapshot) -> CheckReport | None:
    """The finished check of exactly what the snapshot holds, if there is one."""
    job = studio.session().slot("check").job
    if job is None or not job.finished or job.result is None or job.provenance != snap.provenance:
        return None
    report: CheckReport = job.result
    return report


def verdict_of(snap: Snapshot, report: CheckReport | None, run: ScoredRun | None) -> Verdict | None:
    """The verdict on the draft: the check's (``report``, ``None`` until it finished), with what ``run`` (the last
    scoring of the cases in use) found when it was made from exactly what is current."""
    return None if report is None else contract_verdict(report, snap.provenance, run)


def check_panel(snap: Snapshot, chosen: CheckCases, verdict: Verdict | None) -> None:
    """The check of the current draft: running (polled), replaced, failed to run, or each stage's verdict."""
    if chosen.dropped:
        st.caption(
            _("Pinned cases no longer in the cases in use were left out: {ids}.").format(
                ids=markdown_text(", ".join(chosen.dropped))
            )
        )
    slot = studio.session().slot("check")
    outcome = job_panel(slot, "author.check", lambda job: running(job, snap.timeout_s, chosen))
    job = slot.job
    if outcome is None or job is None:
        st.info(_("Type a metric to check it against the contract."))
    elif outcome.status is OutcomeStatus.CANCELLED:
        st.caption(_("This check was replaced by a newer one."))
    elif outcome.status is OutcomeStatus.COULD_NOT_RUN:
        outcome_panel(outcome, "author.check")
    elif outcome.finished and job.result is not None:
        if verdict is None and job.provenance == snap.provenance:
            st.rerun()  # it finished after the verdict was read: one more run, so the editor marks its line
        draw_report(job.result, job.total, chosen, verdict)


def running(job: Job[CheckReport], timeout: float, chosen: CheckCases) -> None:
    st.markdown(
        ":blue[:material/progress_activity:] "
        + _("Checking… {done} of {total} cases done ({seconds} s)").format(
            done=job.done, total=job.total, seconds=f"{job.elapsed_s:.1f}"
        )
    )
    if job.elapsed_s > TIMEOUT_NOTE_AFTER_S:
        st.caption(
            _(
                "metric.py is still running; each call is stopped after {timeout} s (the timeout). "
                "You can keep editing: a new text cancels this check."
            ).format(timeout=f"{timeout:g}")
        )
    sampled_cases(job.partial, chosen)


def markers(verdict: Verdict | None) -> list[dict[str, Any]]:
    """Ace gutter markers for the metric.py line the verdict names (a helper file's line is named, not marked)."""
    if verdict is None or verdict.ok or verdict.marked_line is None:
        return []
    return [{"row": verdict.marked_line - 1, "column": 0, "type": "error", "text": verdict.message.splitlines()[0]}]


def sampled_cases(results: list[CaseResult], chosen: CheckCases | None, shown_error: str = "") -> None:
    """Each case the check ran, one below the other, as text a person reads whole at any width: its id, split,
    status and why it ran, its score and named scores, and its whole feedback (wrapped, literal). An error the
    verdict already shows (``shown_error``) is not repeated under every case."""
    why = _(chosen.reason) if chosen is not None else _("sampled")
    samples = st.container(key="author-samples")
    for index, result in enumerate(results):
        with samples, st.container(border=True, key=f"author-sample-{index}"):
            lines = [f"{result.id} · {result.split} · {result.status.word} · {why}"]
            lines.append(_("score {value}").format(value=score_text(result.score)))
            lines += [f"score.{name} {score_text(value)}" for name, value in result.scores.items()]
            st.text("\n".join(lines))
            if result.ok or result.feedback:
                long_text(
                    localized_feedback(result.feedback), key=f"author.sample.{index}.feedback", empty=_("(no feedback)")
                )
            if result.error:
                headline = error_headline(result.error)
                st.text(_("same error as above") if headline == shown_error else error_headline(result.error, 240))


def score_text(value: float | None) -> str:
    return "–" if value is None else format_number(value, 3)


def headline(report: CheckReport, verdict: Verdict | None) -> None:
    """The verdict in one line: the check's, or what the last scoring run found (its message, shown literally)."""
    failure = report.first_failure
    if verdict is not None and verdict.from_run:
        (st.success if verdict.ok else st.error)(
            markdown_text(verdict.message), icon=":material/task_alt:" if verdict.ok else ":material/error:"
        )
    elif failure is None:
        st.success(_("The metric meets the contract."), icon=":material/task_alt:")
    elif failure.line:
        st.error(
            _("The metric breaks the contract at **{stage}** ({file} line {line}).").format(
                stage=failure.label, file=markdown_text(failure.file), line=failure.line
            ),
            icon=":material/error:",
        )
    else:
        st.error(
            _("The metric breaks the contract at **{stage}**.").format(stage=failure.label), icon=":material/error:"
        )


def draw_report(report: CheckReport, planned: int, chosen: CheckCases | None, verdict: Verdict | None) -> None:
    headline(report, verdict)
    shown_error = ""
    for stage in report.stages:
        line = ""
        if stage.line and stage.status is StageStatus.FAILED:
            line = " · " + _("{file} line {line}").format(file=markdown_text(stage.file), line=stage.line)
        st.markdown(f"{STAGE_ICONS[stage.status]} **{stage.label}** · {_(STATUS_WORDS[stage.status])}{line}")
        first, *rest = (stage.message or "").splitlines() or [""]
        if first:
            st.text(clipped(first, STAGE_LINE_CHARS))
        if stage.warning:
            st.warning(markdown_text(stage.warning), icon=":material/warning:")
        if stage.status is StageStatus.FAILED:
            failed = next((case for case in report.cases if case.id == stage.case_id), None)
            shown_error = error_headline(failed.error) if failed is not None else ""
            if rest or len(first) > STAGE_LINE_CHARS:
                with st.expander(_("The full error")):
                    box(clipped(stage.message or ""), f"author.stage.{stage.name}")
    if report.cases:
        ran = len(report.cases)
        why = _(chosen.reason) if chosen is not None else _("sampled")
        st.markdown(
            ngettext(
                "**Cases run** · {ran} of {planned} {why} case, in {ms} ms",
                "**Cases run** · {ran} of {planned} {why} cases, in {ms} ms",
                planned,
            ).format(ran=ran, planned=planned, why=why, ms=f"{report.duration_ms:.0f}")
        )
        sampled_cases(report.cases, chosen, shown_error)

"""The contract check's verdict: each stage, the cases it ran (and why), the editor's marker for the failing line."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from skynet_core.authoring import CheckCases, error_headline
from skynet_core.display import clipped, markdown_text
from skynet_core.export import results_frame, score_names
from skynet_core.i18n import N_, _, ngettext
from skynet_core.jobs import Job
from skynet_core.results import CaseResult, CheckReport, StageStatus

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
ROW_NAMES = {"split": N_("split"), "status": N_("status"), "why": N_("why"), "error": N_("error")}


def annotations(report: CheckReport | None) -> list[dict[str, Any]]:
    """Ace gutter markers for the failed stage's metric.py line."""
    failure = report.first_failure if report else None
    if failure is None or not failure.line or failure.file != "metric.py":
        return []  # a line of a helper file is named in the verdict, not marked in metric.py
    return [
        {
            "row": failure.line - 1,
            "column": 0,
            "type": "error",
            "text": f"{failure.label}: {failure.message.splitlines()[0] if failure.message else 'failed'}",
        }
    ]


def sample_table(results: list[CaseResult], chosen: CheckCases | None, shown_error: str = "") -> None:
    """One column per case (it fits the narrow panel however many named scores there are). An error the
    verdict already shows (``shown_error``) is not repeated in every column; others are clipped to one line."""
    frame = results_frame(results)
    names = score_names(results)
    columns = ["id", "split", "status", "score", *[f"score.{n}" for n in names], "feedback", "error"]
    frame = frame[columns].copy()
    if chosen is not None:
        frame.insert(3, "why", _(chosen.reason))
    same = _("same as above")
    frame["error"] = frame["error"].map(
        lambda text: "" if not text else same if error_headline(text) == shown_error else error_headline(text, 80)
    )
    if not (frame["error"].astype(bool) & (frame["error"] != same)).any():
        frame = frame.drop(columns="error")  # no error, or only the one the verdict shows: not once per column
    for column in ["score", *[f"score.{n}" for n in names]]:
        frame[column] = frame[column].map(lambda value: "–" if pd.isna(value) else f"{value:.3f}")
    frame["feedback"] = frame["feedback"].map(lambda text: clipped(text, 200))
    table = frame.astype(str).set_index("id").T
    table.index = [_(ROW_NAMES[name]) if name in ROW_NAMES else name for name in table.index]
    table.columns = [str(column) for column in table.columns]
    st.dataframe(table, width="stretch")


def draw_check(job: Job[CheckReport] | None, timeout: float, chosen: CheckCases | None = None) -> None:
    """The check of the current draft: running, cancelled, failed to run, or each stage's verdict."""
    if chosen is not None and chosen.dropped:
        st.caption(
            _("Pinned cases no longer in the cases in use were left out: {ids}.").format(
                ids=markdown_text(", ".join(chosen.dropped))
            )
        )
    if job is None:
        st.info(_("Type a metric to check it against the contract."))
        return
    if job.running:
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
        if job.partial:
            sample_table(job.partial, chosen)
        return
    if job.cancelled:
        st.caption(_("This check was replaced by a newer one."))
        return
    if job.error or job.result is None:
        st.error(_("The check could not run. Try again; if it repeats, restart the app."))
        st.text(clipped(job.error or ""))
        return
    draw_report(job.result, job.total, chosen)


def draw_report(report: CheckReport, planned: int, chosen: CheckCases | None) -> None:
    failure = report.first_failure
    if failure is None:
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
                    st.code(clipped(stage.message or ""), language=None, wrap_lines=True)
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
        sample_table(report.cases, chosen, shown_error)

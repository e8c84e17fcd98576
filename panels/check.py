"""The contract check's verdict: each stage, the sampled cases, and the editor's marker for the failing line."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from skynet_core.display import clipped, markdown_text
from skynet_core.export import results_frame, score_names
from skynet_core.jobs import Job
from skynet_core.results import CaseResult, CheckReport, StageStatus

TIMEOUT_NOTE_AFTER_S = 1.0
STAGE_ICONS = {
    StageStatus.PASSED: ":green[:material/check_circle:]",
    StageStatus.FAILED: ":red[:material/cancel:]",
    StageStatus.SKIPPED: ":gray[:material/do_not_disturb_on:]",
    StageStatus.NOT_RUN: ":gray[:material/radio_button_unchecked:]",
}
STATUS_WORDS = {
    StageStatus.PASSED: "passed",
    StageStatus.FAILED: "failed",
    StageStatus.SKIPPED: "skipped",
    StageStatus.NOT_RUN: "not run",
}


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


def sample_table(results: list[CaseResult]) -> None:
    """One column per sampled case (it fits the narrow panel however many named scores there are)."""
    frame = results_frame(results)
    names = score_names(results)
    columns = ["id", "split", "status", "score", *[f"score.{n}" for n in names], "feedback", "error"]
    frame = frame[columns].copy()
    frame["error"] = frame["error"].map(lambda text: text.splitlines()[0] if text else "")
    if not frame["error"].any():
        frame = frame.drop(columns="error")
    for column in ["score", *[f"score.{n}" for n in names]]:
        frame[column] = frame[column].map(lambda value: "–" if pd.isna(value) else f"{value:.3f}")
    table = frame.astype(str).set_index("id").T
    table.columns = [str(column) for column in table.columns]
    st.dataframe(table, width="stretch")


def draw_check(job: Job[CheckReport] | None, timeout: float) -> None:
    """The check of the current draft: running, cancelled, failed to run, or each stage's verdict."""
    if job is None:
        st.info("Type a metric to check it against the contract.")
        return
    if job.running:
        st.markdown(
            f":blue[:material/progress_activity:] Checking… {job.done} of {job.total} sampled cases done "
            f"({job.elapsed_s:.1f} s)"
        )
        if job.elapsed_s > TIMEOUT_NOTE_AFTER_S:
            st.caption(
                f"metric.py is still running; each call is stopped after {timeout:g} s (the timeout). "
                "You can keep editing: a new text cancels this check."
            )
        if job.partial:
            sample_table(job.partial)
        return
    if job.cancelled:
        st.caption("This check was replaced by a newer one.")
        return
    if job.error or job.result is None:
        st.error("The check could not run. Try again; if it repeats, restart the app.")
        st.text(clipped(job.error or ""))
        return
    report = job.result
    failure = report.first_failure
    if failure is None:
        st.success("The metric meets the contract.", icon=":material/task_alt:")
    else:
        where = f" ({markdown_text(failure.file)} line {failure.line})" if failure.line else ""
        st.error(f"The metric breaks the contract at **{failure.label}**{where}.", icon=":material/error:")
    for stage in report.stages:
        failed_line = stage.line and stage.status is StageStatus.FAILED
        notes = [f"{markdown_text(stage.file)} line {stage.line}" if failed_line else ""]
        notes_text = " · ".join(note for note in notes if note)
        st.markdown(
            f"{STAGE_ICONS[stage.status]} **{stage.label}** · {STATUS_WORDS[stage.status]}"
            + (f" · {notes_text}" if notes_text else "")
        )
        first, *rest = (stage.message or "").splitlines() or [""]
        if first:
            st.text(clipped(first))
        if rest and stage.status is StageStatus.FAILED:
            st.code(clipped("\n".join(rest)), language=None)
    if report.cases:
        st.markdown(f"**Sampled cases** ({len(report.cases)}, checked in {report.duration_ms:.0f} ms)")
        sample_table(report.cases)

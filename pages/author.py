"""Author: write metric.py, see the contract check on every pause in typing, and score every case.

The metric text lives in the session (``studio.metric_source``) and in the
store's draft; the editor only feeds it. Checks and scoring run as background
jobs; fragments poll them while they run and ask for one full rerun when they
finish (so the editor's error markers follow the verdict).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pandas as pd
import streamlit as st
from code_editor import code_editor

import studio
from panels.packages import draw_packages
from skynet_core.cases import Case
from skynet_core.charts import score_histogram, weights_figure
from skynet_core.contract import MAX_TIMEOUT_S, MIN_TIMEOUT_S
from skynet_core.display import TEXT_CHARS, clipped, markdown_frame
from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.export import results_frame, score_names
from skynet_core.jobs import Job, submit_check, submit_score
from skynet_core.judge import Consistency, JudgeSummary, judge_consistency, judge_summary
from skynet_core.metric_source import MetricSource
from skynet_core.overflow import full_side_information
from skynet_core.results import CaseResult, CheckReport, StageStatus

studio.ensure_router()

POLL_S = 0.2
# A run waits this long for a check it just started, so a quick metric's verdict lands without a poll.
SETTLE_S = 0.35
TIMEOUT_NOTE_AFTER_S = 1.0
STAGE_ICONS = {
    StageStatus.PASSED: ":green[:material/check_circle:]",
    StageStatus.FAILED: ":red[:material/cancel:]",
    StageStatus.SKIPPED: ":gray[:material/do_not_disturb_on:]",
    StageStatus.NOT_RUN: ":gray[:material/radio_button_unchecked:]",
}
STATUS_WORDS = {StageStatus.PASSED: "passed", StageStatus.FAILED: "failed", StageStatus.SKIPPED: "skipped",
                StageStatus.NOT_RUN: "not run"}
SAMPLE_COLUMNS = ["id", "split", "status", "score", "feedback", "error"]

S = st.session_state
check_slot = studio.job_slot("check")
score_slot = studio.job_slot("score")


md = studio.md


def replace_source(new: str, reason: str) -> None:
    """Load ``new`` into the editor; the current text is kept as a saved version first."""
    version = studio.replace_metric_source(new, reason)
    if version is not None:
        st.toast(f"Your previous text was kept as version “{version.name}”.", icon=":material/save:")


def load_example() -> None:
    title = S["author.example"]
    replace_source(studio.example_source(title), f"example {title}")


def save_timeout() -> None:
    studio.set_timeout_s(S["author.timeout"])


def take_upload() -> None:
    upload = S.get("author.upload")
    if upload is None:
        return
    raw = upload.getvalue()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        S["author.upload_error"] = (f"{upload.name} is not UTF-8 text ({exc.reason} at byte {exc.start}); "
                                    "save it as UTF-8 in your editor and upload it again. The editor was not changed.")
        return
    S.pop("author.upload_error", None)
    replace_source(text.removeprefix("\ufeff"), f"upload of {upload.name}")


def take_editor_event(key: str) -> bool:
    """Apply the editor's latest event (debounced change or Ctrl+Enter); True when it asks for a fresh check."""
    event = S.get(key)
    if not isinstance(event, dict) or not event.get("id") or event["id"] == S.get("author.last_event"):
        return False
    S["author.last_event"] = event["id"]
    text = event.get("text")
    if isinstance(text, str) and event.get("type") in ("change", "submit"):
        S["author.editor_text"] = text
        if text != studio.metric_source():
            studio.set_metric_source(text)
        return event["type"] == "submit"
    return False


def start_check(source: str, cases: list[Case], timeout: float, check_key: tuple[Any, ...], force: bool) -> None:
    """Check ``source`` unless this exact text, dataset and timeout were checked already (or ``force``)."""
    if not force and S.get("author.check_key") == check_key:
        return
    S["author.check_key"] = check_key
    S["author.checked_source"] = source
    job = submit_check(check_slot, source, cases, timeout=timeout, pool=studio.pool(), llm=studio.llm_handler())
    job.wait(SETTLE_S)


def start_score() -> None:
    source = studio.metric_source()
    S["author.scored_source"] = source
    submit_score(score_slot, source, studio.cases_in_use(), timeout=studio.timeout_s(), pool=studio.pool(),
                 llm=studio.llm_handler(), concurrency=studio.calls_in_flight())


def latest_report(source: str) -> CheckReport | None:
    """The finished check of exactly this text, if there is one."""
    job = check_slot.job
    if job is None or not job.finished or job.result is None or S.get("author.checked_source") != source:
        return None
    return job.result


def annotations(report: CheckReport | None) -> list[dict[str, Any]]:
    """Ace gutter markers for the failed stage's metric.py line."""
    failure = report.first_failure if report else None
    if failure is None or not failure.line or failure.file != "metric.py":
        return []
    return [{"row": failure.line - 1, "column": 0, "type": "error",
             "text": f"{failure.label}: {failure.message.splitlines()[0] if failure.message else 'failed'}"}]


def sample_table(results: list[CaseResult]) -> None:
    frame = results_frame(results)
    columns = ["id", "split", "status", "score", *[f"score.{n}" for n in score_names(results)], "feedback", "error"]
    frame = frame[columns].copy()
    frame["error"] = frame["error"].map(lambda text: text.splitlines()[0] if text else "")
    if not frame["error"].any():
        frame = frame.drop(columns="error")
    numbers = ["score", *[f"score.{n}" for n in score_names(results)]]
    for column in numbers:
        frame[column] = frame[column].map(lambda value: "–" if pd.isna(value) else f"{value:.3f}")
    # One column per sampled case: it fits the narrow panel however many named scores there are.
    st.table(markdown_frame(frame.set_index("id").T))


def draw_check(job: Job[CheckReport] | None, timeout: float) -> None:
    if job is None:
        st.info("Type a metric to check it against the contract.")
        return
    if job.running:
        st.markdown(f":blue[:material/progress_activity:] Checking… {job.done} of {job.total} sampled cases done "
                    f"({job.elapsed_s:.1f} s)")
        if job.elapsed_s > TIMEOUT_NOTE_AFTER_S:
            st.caption(f"metric.py is still running; each call is stopped after {timeout:g} s (the timeout). "
                       "You can keep editing: a new text cancels this check.")
        if job.partial:
            sample_table(job.partial)
        return
    if job.cancelled:
        st.caption("This check was replaced by a newer one.")
        return
    if job.error or job.result is None:
        st.error(f"The check could not run: {md(job.error or '')}. Try again; if it repeats, restart the app.")
        return
    report = job.result
    failure = report.first_failure
    if failure is None:
        st.success("The metric meets the contract.", icon=":material/task_alt:")
    else:
        where = f" ({failure.file} line {failure.line})" if failure.line else ""
        st.error(f"The metric breaks the contract at **{failure.label}**{where}.", icon=":material/error:")
    for stage in report.stages:
        notes = [f"{stage.file} line {stage.line}" if stage.line and stage.status is StageStatus.FAILED else "",
                 f"case {md(stage.case_id)}" if stage.case_id else ""]
        notes_text = " · ".join(note for note in notes if note)
        first, *rest = (stage.message or "").splitlines() or [""]
        st.markdown(f"{STAGE_ICONS[stage.status]} **{stage.label}** · {STATUS_WORDS[stage.status]}"
                    + (f" · {notes_text}" if notes_text else "") + (f"  \n{md(first)}" if first else ""))
        if rest and stage.status is StageStatus.FAILED:
            st.code("\n".join(rest), language=None)
    if report.cases:
        st.markdown(f"**Sampled cases** ({len(report.cases)}, checked in {report.duration_ms:.0f} ms)")
        sample_table(report.cases)


def check_panel(timeout: float) -> None:
    job = check_slot.job
    if job is not None and job.finished:
        S["author.shown_check"] = job.id

    @st.fragment(run_every=POLL_S if job is not None and job.running else None)
    def panel() -> None:
        current = check_slot.job
        if current is not None and current.finished and S.get("author.shown_check") != current.id:
            S["author.shown_check"] = current.id
            st.rerun()  # a full run stops the polling and moves the editor's markers
        draw_check(current, timeout)

    panel()


def restore_last_run() -> None:
    """Once per session, show the last saved "Score all cases" run of this dataset, candidate and split."""
    if score_slot.job is not None or S.get("author.restore_tried"):
        return
    S["author.restore_tried"] = True
    data, _ = studio.dataset()
    saved = studio.run_store().latest(data.source, studio.candidate(data))
    if saved is None or saved.key.split != studio.split():
        return
    report = CheckReport(stages=[], cases=saved.results)
    job = score_slot.submit(Job(kind="score", total=len(saved.results), label="restored"), lambda _: report)
    job.wait(5)
    S.setdefault("studio.saved_runs", {})[job.id] = saved.id  # already saved: save_scored_run skips it
    S["author.scored_source"] = saved.metric_source
    S["author.restored_at"] = saved.created_at


def score_panel(source: str, case_count: int) -> None:
    restore_last_run()
    job = score_slot.job
    done = job is not None and job.finished
    running = job is not None and not done
    cols = st.columns([2, 5], vertical_alignment="center")
    cols[0].button("Score all cases", on_click=start_score, disabled=running or case_count == 0, type="primary",
                   icon=":material/play_arrow:", key="author.score_all")
    cols[1].caption(f"Runs metric.py on all {case_count} cases of the chosen candidate and split, "
                    "in the background.")
    studio.job_progress(score_slot, "author.score", "Scoring", job, done)
    if job is None or not done:
        if job is None:
            st.caption("No cases scored yet.")
        return
    if job.error:
        st.error(f"Scoring could not run: {md(job.error or '')}. Try again; if it repeats, restart the app.")
        return
    studio.save_scored_run(job, S.get("author.scored_source", ""))  # for Feedback review; once per job
    results = job.result.cases if job.result is not None else job.partial
    if job.cancelled:
        st.warning(f"Scoring was cancelled after {len(results)} of {job.total} cases; the table shows those.")
    if job.result is not None and job.result.first_failure is not None and not results:
        failure = job.result.first_failure
        where = f" ({failure.file} line {failure.line})" if failure.line else ""
        st.error(f"No case was scored: metric.py fails at {failure.label}{where}: {md(failure.message)}")
        return
    if job.label == "restored":
        st.caption(f"Results of the last run, scored {datetime.fromtimestamp(S['author.restored_at']):%Y-%m-%d %H:%M}.")
    if S.get("author.scored_source") != source:
        st.caption(":orange[:material/history: These results come from an earlier text of metric.py; "
                   "score again to update them.]")
    cases_table(job, results)


def frame_for(job: Job[CheckReport], results: list[CaseResult]) -> pd.DataFrame:
    """The per-case table of a finished job, built once."""
    cached = S.get("author.frame")
    if cached is None or cached[0] != (job.id, len(results)):
        cached = ((job.id, len(results)), results_frame(results))
        S["author.frame"] = cached
    return cached[1]


def summary(frame: pd.DataFrame, names: list[str], judge: JudgeSummary | None = None) -> None:
    """Mean score over ok cases, counts by status, each named score's mean, what judging cost, and the histogram."""
    ok = frame[frame["status"] == "ok"]
    counts = frame["status"].value_counts()
    numbers, chart = st.columns([2, 3])
    with numbers:
        top = st.columns(2)
        top[0].metric("Mean score (ok cases)", f"{ok['score'].mean():.3f}" if len(ok) else "–")
        top[1].metric("Cases by status", " · ".join(f"{status} {counts.get(status, 0)}"
                                                    for status in ("ok", "error", "timeout", "invalid")
                                                    if counts.get(status, 0) or status == "ok"))
        for row in range(0, len(names), 3):
            cells = st.columns(3)
            for cell, name in zip(cells, names[row:row + 3], strict=False):
                cell.metric(f"Mean {md(name)}", f"{ok[f'score.{name}'].mean():.3f}" if len(ok) else "–")
        if judge is not None and judge.used:
            st.caption(f":material/gavel: {md(judge.describe())}")
    figure = score_histogram(ok["score"]).update_layout(height=280, margin={"t": 40, "b": 40})
    chart.plotly_chart(figure, width="stretch", key="author.histogram")


def cases_table(job: Job[CheckReport], results: list[CaseResult]) -> None:
    frame = frame_for(job, results)
    names = score_names(results)
    summary(frame, names, judge_summary(results))

    filters = st.columns(2)
    statuses = filters[0].multiselect("Status", sorted(frame["status"].unique()), key="author.filter_status",
                                      placeholder="every status")
    splits = filters[1].multiselect("Split", sorted(frame["split"].unique()), key="author.filter_split",
                                    placeholder="every split")
    view = frame
    if statuses:
        view = view[view["status"].isin(statuses)]
    if splits:
        view = view[view["split"].isin(splits)]
    judged = bool(frame["judge_calls"].sum())
    judge_columns = ["judge_ms", "judge_cost_usd"] if judged else []
    columns = ["id", "split", "status", "score", *[f"score.{n}" for n in names], "feedback", "duration_ms",
               *judge_columns, "error"]
    view = view[columns].reset_index(drop=True)
    st.caption(f"Showing {len(view)} of {len(frame)} scored cases. Select a row to see the case in full.")
    config: dict[str, Any] = {
        "id": st.column_config.TextColumn("id", pinned=True),
        "score": st.column_config.NumberColumn("score", format="%.3f"),
        "feedback": st.column_config.TextColumn("feedback", width="large"),
        "duration_ms": st.column_config.NumberColumn("duration", format="%.2f ms"),
        "judge_ms": st.column_config.NumberColumn("judge time", format="%.0f ms",
                                                  help="Time the metric's llm() calls took for this case"),
        "judge_cost_usd": st.column_config.NumberColumn("judge cost", format="$%.5f",
                                                        help="What the metric's llm() calls cost for this case"),
        "error": st.column_config.TextColumn("error", width="medium"),
    }
    for name in names:
        config[f"score.{name}"] = st.column_config.NumberColumn(name, format="%.3f")
    event = st.dataframe(view, hide_index=True, column_config=config, on_select="rerun",
                         selection_mode="single-row", width="stretch",
                         key=f"author.table.{job.id}.{hash((tuple(statuses), tuple(splits)))}")
    rows = event.selection.rows if event is not None else []
    if rows:
        case_details(view.iloc[rows[0]]["id"], results)


def start_consistency(source: str, cases: list[Case]) -> None:
    repeats, limit = int(S["author.consistency_repeats"]), int(S["author.consistency_cases"])
    chosen = cases[:limit]

    def run(job: Job) -> Consistency:
        return judge_consistency(source, chosen, repeats, llm=studio.llm_handler(), timeout=studio.timeout_s(),
                                 concurrency=studio.calls_in_flight(), pool=studio.pool(), cancel=job.cancel,
                                 on_result=job.add_result)

    studio.job_slot("consistency").submit(Job(kind="consistency", total=len(chosen) * repeats), run)


def consistency_panel(source: str, cases: list[Case]) -> None:
    """Judge each case several times: a judge whose verdict flips on the same case is a weak metric."""
    slot = studio.job_slot("consistency")
    job = slot.job
    done = job is not None and job.finished
    cols = st.columns([1, 1, 2], vertical_alignment="bottom")
    cols[0].number_input("Times per case", min_value=2, max_value=10, value=3, key="author.consistency_repeats")
    cols[1].number_input("Cases", min_value=1, max_value=max(1, len(cases)), value=min(20, max(1, len(cases))),
                         key="author.consistency_cases")
    cols[2].button("Judge each case again", on_click=start_consistency, args=(source, cases),
                   disabled=(job is not None and not done) or not cases, icon=":material/repeat:")

    studio.job_progress(slot, "author.consistency", "Judging again", job, done)
    if job is None or not done:
        return
    if job.error:
        st.error(f"The repeated runs could not run: {md(job.error)}")
        return
    if job.result is None:
        st.info("The repeated runs were cancelled.")
        return
    st.markdown(md(job.result.describe()))
    st.dataframe(pd.DataFrame(job.result.rows()), hide_index=True, width="stretch")


def case_details(case_id: str, results: list[CaseResult]) -> None:
    result = next(r for r in results if r.id == case_id)
    case = next((c for c in studio.cases_in_use() if c.id == case_id), None)
    st.markdown(f"#### Case {md(case_id)} · {md(result.split)} · {result.status.value}")
    cols = st.columns(3)
    with cols[0]:
        st.markdown("**Input**")
        st.json(case.input if case else {}, expanded=True)
    with cols[1]:
        st.markdown("**Output**")
        if case is not None and isinstance(case.output, str):
            st.code(case.output, language=None, wrap_lines=True)
        else:
            st.json(case.output if case else None)
    with cols[2]:
        st.markdown("**Expected**")
        if case is not None and case.expected is None:
            st.caption("None: this case has no expected value.")
        else:
            st.json(case.expected if case else None)
    cols = st.columns(2)
    with cols[0]:
        st.markdown("**Side information**")
        st.json({"feedback": clipped(result.feedback), "scores": result.scores, **result.extra}, expanded=True)
        if len(result.feedback) > TEXT_CHARS:
            studio.long_text(result.feedback, "author.case.feedback")
        if (whole := full_side_information(result)) is not None:
            st.download_button("Download the full side information", whole, file_name=f"side-{case_id[:40]}.json",
                               mime="application/json", on_click="ignore", icon=":material/download:",
                               key="author.case.side")
        if result.error:
            st.markdown("**Error**")
            studio.long_text(result.error, "author.case.error")
    with cols[1]:
        st.markdown("**Printed by metric.py**")
        if result.stdout:
            studio.long_text(result.stdout, "author.case.stdout")
        else:
            st.caption("Nothing was printed.")


# The page.
data, _ = studio.dataset()
cases = studio.cases_in_use()
chosen_candidate, chosen_split = studio.candidate(data), studio.split()
timeout = studio.timeout_s()
S["author.timeout"] = int(round(timeout))  # follows the stored setting (the Settings page may change it too)
force = take_editor_event(f"author.editor.{S.get('author.editor_gen', 0)}")
source = studio.metric_source()
if S.get("author.editor_text") != source:
    # The text changed outside the editor (first open, an example, an upload, History, Trade-offs):
    # a new editor instance shows it.
    S["author.editor_seed"] = S["author.editor_text"] = source
    S["author.editor_gen"] = S.get("author.editor_gen", 0) + 1
editor_key = f"author.editor.{S['author.editor_gen']}"
start_check(source, cases, timeout, (source, data.source, data.name, chosen_candidate, chosen_split, timeout), force)
report = latest_report(source)

st.title("Author metric.py")
tools = st.columns([3, 1.4, 1.6, 1.6], vertical_alignment="bottom")
tools[0].selectbox("Start from an example", list(EXAMPLE_METRICS), key="author.example")
tools[1].button("Load example", on_click=load_example, icon=":material/file_open:",
                help="Replaces the editor's text; your current text is kept as a saved version.")
tools[2].number_input("Timeout per call (s)", min_value=int(MIN_TIMEOUT_S), max_value=int(MAX_TIMEOUT_S), step=1,
                      key="author.timeout", on_change=save_timeout,
                      help="Each call of score (and loading metric.py) is stopped after this many seconds.")
tools[3].download_button("Download metric.py", data=source.encode("utf-8"), file_name="metric.py",
                         mime="text/x-python", on_click="ignore", icon=":material/download:")
with st.expander("Upload metric.py"):
    st.file_uploader("A UTF-8 Python file", type=["py"], key="author.upload", on_change=take_upload)
    if S.get("author.upload_error"):
        st.error(S["author.upload_error"])

editor_col, check_col = st.columns([3, 2], gap="medium")
with editor_col:
    markers = annotations(report)
    code_editor(S["author.editor_seed"], lang="python", height="640px", response_mode="debounce",
                options={"showLineNumbers": True, "wrap": True},
                props={"annotations": markers, "debounceChangePeriod": 250, "scrollMargin": [0, 0, 0, 0]},
                key=editor_key)
    if markers:
        st.markdown(f":red[:material/arrow_right_alt: metric.py line {markers[0]['row'] + 1}: "
                    f"{md(markers[0]['text'])}]")
    st.caption("The check runs when you pause typing (or press Ctrl+Enter). Your text is saved as you type.")
with check_col:
    st.markdown("**Contract check** · "
                f"{len(cases) and min(3, len(cases))} sampled cases of {md(data.name)}")
    check_panel(timeout)
    with st.expander("Packages"):
        draw_packages(MetricSource.of(source))

if report is not None and (weights := studio.reward_weights(source)):
    with check_col:
        st.plotly_chart(weights_figure(weights), width="stretch", key="author.spec_weights")

st.divider()
st.subheader("Every case")
score_panel(source, len(cases))

with st.expander("Judge consistency: score the same cases several times"):
    st.caption("For metrics that call a model: the spread of each case's scores over repeated runs, and how often "
               "a verdict flips. A deterministic metric shows no spread.")
    consistency_panel(source, cases)

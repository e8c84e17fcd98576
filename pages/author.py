"""Author: write metric.py, see the contract check on every pause in typing, and score every case.

The draft lives in the workspace (with its revision); the editor panel keeps this tab in step
with it. Checks and scoring run as workspace jobs; fragments poll them while they run and ask for
one full rerun when they finish (so the editor's error markers follow the verdict). Every result
shown is compared with what the workspace would produce now, and says so when it is out of date.
"""

from __future__ import annotations

import re
from datetime import datetime

import pandas as pd
import streamlit as st

import studio
from panels import editor
from panels.cases import cases_table
from panels.check import annotations, draw_check
from panels.packages import draw_packages
from panels.reflection import draw_reflection_step
from skynet_core.cases import Case
from skynet_core.charts import weights_figure
from skynet_core.contract import MAX_TIMEOUT_S, MIN_TIMEOUT_S
from skynet_core.engines.reflection import dataset_instruction
from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.metric_source import MetricSource, MetricSourceError
from skynet_core.provenance import Provenance
from skynet_core.results import CaseResult, CheckReport
from skynet_core.workspace import example_metric

studio.ensure_router()

POLL_S = 0.2
# A run waits this long for a check it just started, so a quick metric's verdict lands without a poll.
SETTLE_S = 0.35

S = st.session_state
ws = studio.workspace()
check_slot = studio.job_slot("check")
score_slot = studio.job_slot("score")


def replace_source(new: MetricSource, reason: str) -> None:
    """Make ``new`` the draft; the current text is kept as a saved version first."""
    version = studio.replace_metric_source(new, reason)
    if version is not None:
        st.toast(f"Your previous text was kept as version “{version.name}”.", icon=":material/save:")


def load_example() -> None:
    title = S["author.example"]
    replace_source(example_metric(title), f"example {title}")


def save_timeout() -> None:
    ws.set_timeout_s(S["author.timeout"])


def take_upload() -> None:
    """A .py replaces metric.py (helper files stay); a .zip of the folder replaces the whole folder."""
    upload = S.get("author.upload")
    if upload is None:
        return
    raw = upload.getvalue()
    try:
        if upload.name.lower().endswith(".zip"):
            new = MetricSource.from_zip(raw)
        else:
            new = ws.draft().metric.with_file("metric.py", raw.decode("utf-8").removeprefix("\ufeff"))
    except UnicodeDecodeError as exc:
        S["author.upload_error"] = (
            f"{upload.name} is not UTF-8 text ({exc.reason} at byte {exc.start}); "
            "save it as UTF-8 in your editor and upload it again. The editor was not changed."
        )
        return
    except MetricSourceError as exc:
        S["author.upload_error"] = f"{exc} The editor was not changed."
        return
    S.pop("author.upload_error", None)
    replace_source(new, f"upload of {upload.name}")


def start_check(metric: MetricSource, current: Provenance, timeout: float, force: bool) -> None:
    """Check the draft unless this exact metric, dataset, settings and timeout were checked already."""
    if not force and S.get("author.check_key") == (current, timeout):
        return
    S["author.check_key"] = (current, timeout)
    ws.check(check_slot, metric, keys=studio.session_keys(), watcher=studio.watcher()).wait(SETTLE_S)


def latest_report(current: Provenance) -> CheckReport | None:
    """The finished check of exactly what the workspace holds now, if there is one."""
    job = check_slot.job
    if job is None or not job.finished or job.result is None or job.provenance != current:
        return None
    return job.result


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


def start_score() -> None:
    ws.score_all(score_slot, keys=studio.session_keys(), watcher=studio.watcher())


def score_panel(current: Provenance, cases: list[Case]) -> list[CaseResult]:
    """The "Score all" button, its progress and the results table; returns the results shown (none: [])."""
    job = score_slot.job
    done = job is not None and job.finished
    running = job is not None and not done
    cols = st.columns([2, 5], vertical_alignment="center")
    cols[0].button(
        "Score all cases",
        on_click=start_score,
        disabled=running or not cases,
        type="primary",
        icon=":material/play_arrow:",
        key="author.score_all",
    )
    where = f"on the Ray cluster at {ws.ray_address()}" if ws.ray_address() else "in the background"
    cols[1].caption(f"Runs metric.py on all {len(cases)} cases of the chosen candidate and split, {studio.md(where)}.")
    studio.job_progress(score_slot, "author.score", "Scoring", job, done)
    if job is None:
        saved = ws.latest_run()
        if saved is None:
            st.caption("No cases scored yet.")
            return []
        st.caption(f"Results of the last run, scored {datetime.fromtimestamp(saved.created_at):%Y-%m-%d %H:%M}.")
        studio.stale_banner(
            studio.stale_changes(saved.provenance, current), "These results", start_score, key="author.rescore"
        )
        cases_table(("run", saved.id), saved.results, cases, "author")
        return saved.results
    if not done:
        return []
    if job.error:
        if job.error.startswith("ClusterError"):
            message = re.sub(r" \([\w.]+:\d+\)$", "", job.error.removeprefix("ClusterError: "))
            st.error(studio.md(message), icon=":material/hub:")
            return []
        st.error("Scoring could not run. Try again; if it repeats, restart the app.")
        studio.long_text(job.error, key="author.score_error")
        return []
    results = job.result.cases if job.result is not None else job.partial
    if job.cancelled:
        st.warning(f"Scoring was cancelled after {len(results)} of {job.total} cases; the table shows those.")
    if job.result is not None and job.result.first_failure is not None and not results:
        failure = job.result.first_failure
        where = f" ({studio.md(failure.file)} line {failure.line})" if failure.line else ""
        st.error(f"No case was scored: metric.py fails at {studio.md(failure.label)}{where}.")
        studio.long_text(failure.message, key="author.score_failure")
        return []
    studio.stale_banner(
        studio.stale_changes(job.provenance, current), "These results", start_score, key="author.rescore"
    )
    cases_table(("job", job.id), results, cases, "author")
    return results


def start_consistency(metric: MetricSource, cases: list[Case]) -> None:
    repeats, limit = int(S["author.consistency_repeats"]), int(S["author.consistency_cases"])
    ws.judge_consistency(
        studio.job_slot("consistency"),
        metric,
        cases[:limit],
        repeats,
        keys=studio.session_keys(),
        watcher=studio.watcher(),
    )


def consistency_panel(metric: MetricSource, current: Provenance, cases: list[Case]) -> None:
    """Judge each case several times: a judge whose verdict flips on the same case is a weak metric."""
    slot = studio.job_slot("consistency")
    job = slot.job
    done = job is not None and job.finished
    cols = st.columns([1, 1, 2], vertical_alignment="bottom")
    cols[0].number_input("Times per case", min_value=2, max_value=10, value=3, key="author.consistency_repeats")
    cols[1].number_input(
        "Cases",
        min_value=1,
        max_value=max(1, len(cases)),
        value=min(20, max(1, len(cases))),
        key="author.consistency_cases",
    )
    cols[2].button(
        "Judge each case again",
        on_click=start_consistency,
        args=(metric, cases),
        disabled=(job is not None and not done) or not cases,
        icon=":material/repeat:",
    )
    studio.job_progress(slot, "author.consistency", "Judging again", job, done)
    if job is None or not done:
        return
    if job.error:
        st.error("The repeated runs could not run.")
        studio.long_text(job.error, key="author.consistency_error")
        return
    if job.result is None:
        st.info("The repeated runs were cancelled.")
        return
    studio.stale_banner(
        studio.stale_changes(job.provenance, current), "These repeated runs", None, key="author.consistency_stale"
    )
    st.text(job.result.describe())
    st.dataframe(pd.DataFrame(job.result.rows()), hide_index=True, width="stretch")


# The page.
in_use = studio.in_use()
cases = in_use.cases
timeout = ws.timeout_s()
S["author.timeout"] = int(round(timeout))  # follows the stored setting (the Settings page may change it too)
state = editor.sync()
draft = state.draft
current = ws.provenance(draft.metric, studio.session_keys(), in_use)
start_check(draft.metric, current, timeout, state.check_again)
report = latest_report(current)

st.title("Author metric.py")
editor.notices()
tools = st.columns([3, 1.4, 1.6, 1.6], vertical_alignment="bottom")
tools[0].selectbox("Start from an example", list(EXAMPLE_METRICS), key="author.example")
tools[1].button(
    "Load example",
    on_click=load_example,
    icon=":material/file_open:",
    help="Replaces the editor's text; your current text is kept as a saved version.",
)
tools[2].number_input(
    "Timeout per call (s)",
    min_value=int(MIN_TIMEOUT_S),
    max_value=int(MAX_TIMEOUT_S),
    step=1,
    key="author.timeout",
    on_change=save_timeout,
    help="Each call of score (and loading metric.py) is stopped after this many seconds.",
)
if draft.metric.is_single_file:
    tools[3].download_button(
        "Download metric.py",
        data=draft.source.encode("utf-8"),
        file_name="metric.py",
        mime="text/x-python",
        on_click="ignore",
        icon=":material/download:",
    )
else:
    tools[3].download_button(
        "Download the folder (.zip)",
        data=draft.metric.to_zip(),
        file_name="metric.zip",
        mime="application/zip",
        on_click="ignore",
        icon=":material/download:",
    )
with st.expander("Upload metric.py or a .zip of the metric folder"):
    st.file_uploader(
        "A UTF-8 Python file, or a zip of the folder", type=["py", "zip"], key="author.upload", on_change=take_upload
    )
    if S.get("author.upload_error"):
        st.error(studio.md(S["author.upload_error"]))

editor_col, check_col = st.columns([3, 2], gap="medium")
with editor_col:
    markers = annotations(report)
    editor.metric_editor(draft, markers)
    if markers:
        st.markdown(f":red[:material/arrow_right_alt: metric.py line {markers[0]['row'] + 1}:]")
        studio.long_text(markers[0]["text"], key="author.marker")
    studio.save_version_control("author", label_visibility="collapsed")
    st.caption(
        "The check runs when you pause typing (or press Ctrl+Enter). Your text is saved as you type, with "
        "an automatic version every few minutes."
    )
    with st.expander("Packages the metric imports"):
        draw_packages(draft.metric)
with check_col:
    st.markdown(
        f"**Contract check** · {len(cases) and min(3, len(cases))} sampled cases of {studio.md(in_use.data.name)}"
    )
    check_panel(timeout)

if report is not None and (weights := studio.reward_weights(draft.source)):
    with check_col:
        st.plotly_chart(weights_figure(weights), width="stretch", key="author.spec_weights")

st.divider()
st.subheader("Every case")
scored = score_panel(current, cases)

with st.expander("Try one reflection step: would this feedback help an optimizer?"):
    draw_reflection_step(
        draft.metric,
        cases,
        scored,
        studio.model_settings(),
        instruction=dataset_instruction(in_use.data),
        key="author.reflection",
    )

with st.expander("Judge consistency: score the same cases several times"):
    st.caption(
        "For metrics that call a model: the spread of each case's scores over repeated runs, and how often "
        "a verdict flips. A deterministic metric shows no spread."
    )
    consistency_panel(draft.metric, current, cases)

"""Author: write metric.py, see the contract check on every pause in typing, try one case, and score every case.

The draft lives in the workspace (with its revision); the editor panel keeps this tab in step
with it. Checks and scoring run as workspace jobs; fragments poll them while they run and ask for
one full rerun when they finish (so the editor's error markers follow the verdict). Every result
shown is compared with what the workspace would produce now, and says so when it is out of date.
The deciding code is in ``skynet_core.authoring``; the panels draw.
"""

from __future__ import annotations

import streamlit as st

import studio
from panels import editor
from panels.author_tools import tools, upload
from panels.check import annotations, draw_check
from panels.packages import draw_packages
from panels.reflection import draw_reflection_step
from panels.scoring import consistency_panel, score_panel
from panels.try_case import draw_try_case, prefill
from skynet_core.authoring import CheckCases
from skynet_core.charts import weights_figure
from skynet_core.engines.reflection import dataset_instruction
from skynet_core.i18n import _
from skynet_core.metric_source import MetricSource
from skynet_core.provenance import Provenance
from skynet_core.results import CheckReport

studio.ensure_router()

POLL_S = 0.2
# A run waits this long for a check it just started, so a quick metric's verdict lands without a poll.
SETTLE_S = 0.35
# Below this width the editor and the check stack (a media query; Streamlit stacks columns only below 640 px).
STACK_CSS = """<style>
@media (max-width: 1180px) {
  .st-key-author-work [data-testid="stHorizontalBlock"] { flex-direction: column; }
  .st-key-author-work [data-testid="stColumn"] { width: 100%; flex: 1 1 100%; }
}
</style>"""

S = st.session_state
ws = studio.workspace()
check_slot = studio.job_slot("check")


def start_check(metric: MetricSource, current: Provenance, chosen: CheckCases, force: bool) -> None:
    """Check the draft unless this exact metric, dataset, settings, timeout and cases were checked already."""
    key = (current, ws.timeout_s(), tuple(chosen.ids))
    if not force and S.get("author.check_key") == key:
        return
    S["author.check_key"] = key
    ws.check(check_slot, metric, keys=studio.session_keys(), watcher=studio.watcher()).wait(SETTLE_S)


def latest_report(current: Provenance) -> CheckReport | None:
    """The finished check of exactly what the workspace holds now, if there is one."""
    job = check_slot.job
    if job is None or not job.finished or job.result is None or job.provenance != current:
        return None
    return job.result


def check_panel(chosen: CheckCases) -> None:
    job = check_slot.job
    if job is not None and job.finished:
        S["author.shown_check"] = job.id

    @st.fragment(run_every=POLL_S if job is not None and job.running else None)
    def panel() -> None:
        current = check_slot.job
        if current is not None and current.finished and S.get("author.shown_check") != current.id:
            S["author.shown_check"] = current.id
            st.rerun()  # a full run stops the polling and moves the editor's markers
        draw_check(current, ws.timeout_s(), chosen)

    panel()


def toggle_pin(case_id: str) -> None:
    pins = ws.check_pins()
    ws.set_check_pins([pin for pin in pins if pin != case_id] if case_id in pins else [*pins, case_id])


def try_row(case_id: str) -> None:
    case = next((case for case in studio.cases_in_use() if case.id == case_id), None)
    if case is not None:
        prefill(case)
        S["author.try_open"] = True
        from panels.try_case import run

        run(ws.draft().metric)


# The page.
in_use = studio.in_use()
cases = in_use.cases
state = editor.sync()
draft = state.draft
current = ws.provenance(draft.metric, studio.session_keys(), in_use)
chosen = ws.check_cases(in_use)
start_check(draft.metric, current, chosen, state.check_again)
report = latest_report(current)

st.html(STACK_CSS)
st.title(_("Author metric.py"))
editor.notices()
tools(draft.metric, draft.revision, in_use)
upload()

with st.container(key="author-work"):
    editor_col, check_col = st.columns([3, 2], gap="medium")
with editor_col:
    markers = annotations(report)
    editor.metric_editor(draft, markers)
    if markers:
        st.markdown(
            ":red[:material/arrow_right_alt:] "
            + _("metric.py line {line}: see the contract check.").format(line=markers[0]["row"] + 1)
        )
    studio.save_version_control("author", label_visibility="collapsed")
    st.caption(
        _(
            "The check runs when you pause typing (or press Ctrl+Enter); Ctrl+S saves a named version. Your text "
            "is saved as you type, with an automatic version every few minutes."
        )
    )
    with st.expander(_("Packages the metric imports")):
        draw_packages(draft.metric)
with check_col:
    st.markdown(
        "**" + _("Contract check") + "** · " + _("cases of {dataset}").format(dataset=studio.md(in_use.data.name))
    )
    check_panel(chosen)
    if chosen.pinned:
        st.button(
            _("Use the planner's sample again"),
            on_click=lambda: ws.set_check_pins([]),
            icon=":material/shuffle:",
            key="author.unpin_all",
            type="tertiary",
        )
    else:
        st.caption(_("Pin cases from the table of every case to check on them instead of the sample."))
    if report is not None and (weights := studio.reward_weights(draft.source)):
        st.plotly_chart(weights_figure(weights), width="stretch", key="author.spec_weights")

st.divider()
st.subheader(_("Every case"))
scored = score_panel(current, cases, ws.check_pins(in_use), toggle_pin, try_row)

with st.expander(_("Try one case: edit its input, output and expected"), expanded=bool(S.get("author.try_open"))):
    draw_try_case(draft.metric, cases)

with st.expander(_("Try one reflection step: would this feedback help an optimizer?")):
    draw_reflection_step(
        draft.metric,
        cases,
        scored,
        studio.model_settings(),
        instruction=dataset_instruction(in_use.data),
        key="author.reflection",
    )

with st.expander(_("Judge consistency: score the same cases several times")):
    consistency_panel(draft.metric, current, cases)

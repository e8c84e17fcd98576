"""Author: write metric.py, see the contract check on every pause in typing, try one case, and score every case.

The draft lives in the workspace (with its revision); the editor panel keeps this tab in step with it.
Checks and scoring run as workspace jobs, drawn through the one job panel (``ui.widgets.jobs``). Every
result shown is compared with the run's snapshot, and says so when it is out of date. The deciding code
is in ``skynet_core.views.author``; the panels of this package draw.
"""

from __future__ import annotations

import streamlit as st

from pages.author import check, editor, scoring, tools, try_case
from pages.author.packages import draw_packages
from skynet_core.engines.reflection import dataset_instruction
from skynet_core.i18n import _, with_language
from skynet_core.metric.reward_spec import reward_weights
from skynet_core.reward import PARTS, weight_vector
from skynet_core.reward.charts import PART_COLORS
from skynet_core.reward.tradeoffs import PART_LABELS
from ui import keys as K
from ui import studio
from ui.widgets.reflection import draw_reflection_step
from ui.widgets.text import md
from ui.widgets.versions import save_version_control

# Below this width the editor and the check stack (a media query; Streamlit stacks columns only below 640 px).
# Only blocks of columns: a horizontal container in them (a name field and its button) stays a row.
# Each part's weight bar takes the part's colour, as in every chart.
PAGE_CSS = (
    """<style>
@media (max-width: 1180px) {
  .st-key-author-work [data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"]) { flex-direction: column; }
  .st-key-author-work [data-testid="stColumn"] { width: 100%; flex: 1 1 100%; }
}
"""
    + "".join(
        f'.st-key-author-weight-{part} [data-testid="stProgressBarTrack"] > div {{ background-color: {color}; }}\n'
        for part, color in PART_COLORS.items()
    )
    + "</style>"
)
S = st.session_state


def page() -> None:
    snap = studio.refresh() if tools.take_new_upload() else studio.snapshot()
    typed = editor.sync(snap)
    if typed.written:
        snap = studio.refresh()  # this run wrote the typed text
    ws = studio.session().workspace
    chosen = ws.data.check_cases(snap.in_use)
    check.start(snap, chosen, force=typed.check_again)
    report = check.latest_report(snap)
    last = scoring.last_scoring(snap)
    verdict = check.verdict_of(snap, report, last)

    st.html(PAGE_CSS)
    st.title(_("Author metric.py"))
    editor.notices()
    editor.newer_draft_notice()
    tools.tools(snap)
    tools.fields_notice(snap)
    tools.upload(snap.draft.revision)
    with st.container(key="author-work"):
        editor_col, check_col = st.columns([3, 2], gap="medium")
    with editor_col:
        markers = check.markers(verdict)
        editor.metric_editor(snap.draft, markers)
        if markers:
            where = _("metric.py line {line}: see the contract check.").format(line=markers[0]["row"] + 1)
            st.markdown(":red[:material/arrow_right_alt:] " + where)
        save_version_control("author", label_visibility="collapsed")
        st.caption(
            _(
                "The check runs when you pause typing (or press Ctrl+Enter); Ctrl+S saves a named version. Your "
                "text is saved as you type, with an automatic version every few minutes."
            )
        )
        with st.expander(_("Packages the metric imports")):
            draw_packages(snap.metric)
    with check_col:
        in_use = _("cases of {dataset}").format(dataset=md(snap.in_use.data.name))
        st.markdown("**" + _("Contract check") + "** · " + in_use)
        check.check_panel(snap, chosen, verdict)
        if chosen.pinned:
            st.button(
                _("Use the planner's sample again"),
                on_click=with_language(studio.session().workspace.data.set_check_pins),
                args=([],),
                icon=":material/shuffle:",
                key="author.unpin_all",
                type="tertiary",
            )
        else:
            st.caption(_("Pin cases from the table of every case to check on them instead of the sample."))
        if report is not None and (weights := reward_weights(snap.draft.source)):
            draw_weights(weights)

    st.divider()
    st.subheader(_("Every case"))
    scored = scoring.score_panel(snap, ws.data.check_pins(snap.in_use), last)
    with st.expander(_("Try one case: edit its input, output and expected"), expanded=bool(S.get(K.AUTHOR_TRY_OPEN))):
        try_case.draw_try_case(snap)
    with st.expander(_("Try one reflection step: would this feedback help an optimizer?")):
        draw_reflection_step(
            snap.metric,
            snap.cases,
            scored,
            snap.settings,
            dataset=snap.in_use.data.source,
            instruction=dataset_instruction(snap.in_use.data),
            key="author.reflection",
        )
    with st.expander(_("Judge consistency: score the same cases several times")):
        scoring.consistency_panel(snap)


def draw_weights(weights: dict[str, float]) -> None:
    """The reward spec's parts and their shares (the weights scaled to sum to 1) as text with a bar each. A
    chart here loaded plotly's script for this one figure: the reward example's first load took 1.3 s, not 0.5."""
    with st.container(key="author-spec-weights"):
        st.markdown("**" + _("Normalised weights (they sum to 1)") + "**")
        for part, share in zip(PARTS, weight_vector(weights), strict=True):
            with st.container(key=f"author-weight-{part}"):
                st.progress(
                    round(share * 100),
                    text=_("{part}: {share}").format(part=_(PART_LABELS[part]), share=f"{share:.0%}"),
                )

"""An alignment's result on Human scores: the verdict, the test figures before and after with their intervals, the
cases fixed and broken, the prompts' diff, the dev objective round by round, what it cost, and "Save as a version"
(a new version; the draft is replaced only by "Open it in the editor"). Prompts came from a model: they are shown
literally, never as markdown."""

from __future__ import annotations

import streamlit as st

from skynet_core.align import AlignResult, Outcome
from skynet_core.align.charts import before_after_figure, rounds_figure
from skynet_core.align.game import GameCheck
from skynet_core.align.text import FIGURES, figure_label, figure_of, ids_text, round_line, spent_text, verdict
from skynet_core.human import estimate_text
from skynet_core.i18n import _, with_language
from ui import keys as K
from ui import studio
from ui.widgets.text import md

S = st.session_state


def save() -> None:
    ws = studio.session().workspace
    result = ws.align.latest()
    if result is not None:
        saved = ws.align.save_version(result, str(S.get(K.ALIGN_VERSION_NAME, "")))
        S[K.ALIGN_SAVED] = saved.version.id


def open_saved() -> None:
    ws = studio.session().workspace
    version = ws.drafts.version(int(S[K.ALIGN_SAVED]))
    if version is not None:
        ws.align.open(version)


def verdict_box(result: AlignResult) -> None:
    text = md(verdict(result))
    gain = result.gain
    if result.outcome is not Outcome.COMPLETE:
        st.warning(text, icon=":material/flag:")
    elif result.changed and gain is not None and gain.low is not None and gain.low > 0:
        st.success(text, icon=":material/thumb_up:")
    else:
        st.info(text, icon=":material/help:")


def figures_table(result: AlignResult) -> None:
    if result.before is None:
        return
    rows = []
    for name, _label in FIGURES:
        after = figure_of(result.after.test, name) if result.after is not None else None
        rows.append(
            {
                _("on the test cases"): figure_label(name, result.threshold),
                _("before"): estimate_text(figure_of(result.before.test, name), 3),
                _("after"): estimate_text(after, 3) if after is not None else "–",
            }
        )
    st.dataframe(rows, hide_index=True, width="stretch")
    if result.gain is not None:
        st.markdown(
            _("**Gain in κ** (paired, on the same test cases): {gain}").format(gain=estimate_text(result.gain, 3))
        )
    if result.after is not None:
        st.caption(
            _("Disagreements fixed: {fixed} ({fixed_ids}) · made: {broken} ({broken_ids})").format(
                fixed=len(result.fixed),
                fixed_ids=md(ids_text(result.fixed) or "–"),
                broken=len(result.broken),
                broken_ids=md(ids_text(result.broken) or "–"),
            )
        )


def prompts_diff(result: AlignResult) -> None:
    diff = result.diff()
    if not diff:
        st.caption(_("The prompts are unchanged."))
        return
    st.markdown("**" + _("The prompts, before and after") + "**")
    st.code(diff, language="diff", wrap_lines=True, height=min(420, 60 + 22 * diff.count("\n")))


def save_row(result: AlignResult) -> None:
    """ "Save as a version", then "Open it in the editor" once saved (the draft is never replaced unasked)."""
    if result.outcome is not Outcome.COMPLETE or not result.changed:
        return
    left, right = st.columns([3, 2], vertical_alignment="bottom")
    S.setdefault(K.ALIGN_VERSION_NAME, _("aligned judge"))
    left.text_input(_("Version name"), key=K.ALIGN_VERSION_NAME, max_chars=100)
    right.button(_("Save as a version"), on_click=with_language(save), icon=":material/save:", key="human.align.save")
    saved = S.get(K.ALIGN_SAVED)
    version = studio.session().workspace.drafts.version(int(saved)) if saved is not None else None
    if version is None:
        return
    st.success(
        _("Saved as the version “{name}”. The draft in the editor is unchanged.").format(name=md(version.name)),
        icon=":material/check:",
    )
    st.button(_("Open it in the editor"), on_click=with_language(open_saved), icon=":material/edit:",
              key="human.align.open_version")  # fmt: skip


def stress_beside(check: GameCheck | None) -> None:
    """The stress test's ``game`` family on the test cases with the starting and the aligned prompts; an aligned
    judge that became easier to fool is flagged."""
    if check is None:
        return
    text = "  \n".join(md(line) for line in check.lines())
    if check.easier:
        st.warning(text, icon=":material/warning:")
    else:
        st.info(text, icon=":material/shield:")


def draw_result(result: AlignResult) -> None:
    st.markdown("**" + _("Latest alignment") + "**")
    verdict_box(result)
    stress_beside(result.stress)
    figures_table(result)
    if result.before is not None and result.after is not None:
        st.plotly_chart(before_after_figure(result), width="stretch", key="human.align.figures_chart")
    prompts_diff(result)
    if result.rounds:
        st.plotly_chart(rounds_figure(result), width="stretch", key="human.align.rounds_chart")
        with st.expander(_("Each round")):
            st.markdown("  \n".join(md(round_line(record)) for record in result.rounds))
    st.caption(md(spent_text(result)))
    save_row(result)

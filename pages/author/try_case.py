"""Try one case: edit one case's input, output and expected as JSON and see what metric.py makes of it.

The case runs in the sandboxed runner through the workspace (a ``try`` job), never in this process;
"Save as a case" adds it to the user dataset (a JSON Lines file the Data page can open).
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from skynet_core.cases import Case
from skynet_core.datasets.typed_case import CaseJsonError, case_json, parse_case
from skynet_core.i18n import N_, _, format_number, with_language
from skynet_core.results import CaseResult
from skynet_core.reward.lines import localized_feedback
from skynet_core.workspace import Snapshot
from ui import keys as K
from ui import studio
from ui.widgets.jobs import job_panel, outcome_panel
from ui.widgets.messages import say, show
from ui.widgets.text import long_text, md

S = st.session_state
KEY = K.TRY
SETTLE_S = 1.0
PICKER_LIMIT = 1_000
"""The case ids the picker lists (the first, in file order): every id went to the browser on every run, 1.7 s
of a run on 900,000 cases. Any other id can be typed into the picker."""
FIELDS = {
    "input": N_("Input (a JSON object)"),
    "output": N_("Output (any JSON)"),
    "expected": N_("Expected (a JSON object, or empty)"),
}
FIELD_NAMES = {"input": N_("input"), "output": N_("output"), "expected": N_("expected")}


def picked(cases: Sequence[Case]) -> None:
    """The case chosen in the picker, copied into the fields."""
    chosen = S.get(f"{KEY}.pick")
    if chosen:
        case = next((case for case in cases if case.id == chosen), None)
        if case is None:
            S[f"{KEY}.error"] = _("No case has the id {id}.").format(id=md(str(chosen)))
        else:
            prefill(case)


def prefill(case: Case) -> None:
    """Put ``case`` in the panel's fields (call from a callback, before the panel draws)."""
    S[f"{KEY}.id"] = case.id
    S[f"{KEY}.split"] = case.split
    S[f"{KEY}.input"] = case_json(case.input)
    S[f"{KEY}.output"] = case_json(case.output)
    S[f"{KEY}.expected"] = case_json(case.expected) if case.expected is not None else ""
    S.pop(f"{KEY}.error", None)


def typed_case() -> Case | None:
    """The case the fields hold, or None with the error (naming the field) kept for the panel."""
    try:
        case = parse_case(
            S.get(f"{KEY}.id") or "typed-case",
            S.get(f"{KEY}.input", ""),
            S.get(f"{KEY}.output", ""),
            S.get(f"{KEY}.expected", ""),
            split=S.get(f"{KEY}.split") or "train",
        )
    except CaseJsonError as exc:
        S[f"{KEY}.error"] = _("The {field} is not valid: {message}").format(
            field=_(FIELD_NAMES.get(exc.field, exc.field)), message=exc.message
        )
        return None
    S.pop(f"{KEY}.error", None)
    return case


def run() -> None:
    """Run the typed case with the draft (a callback: the draft as stored now)."""
    case = typed_case()
    if case is not None:
        me = studio.session()
        metric = me.workspace.drafts.current().metric
        me.workspace.jobs.try_case(me.slot("try"), metric, case, keys=me.keys, watcher=me.watcher).wait(SETTLE_S)


def save() -> None:
    case = typed_case()
    if case is not None:
        path = studio.session().workspace.data.save_user_case(case)
        message = _("Saved case {id} to {path}: open that file on the Data page to score it with the rest.")
        say(f"{KEY}.saved", typed_fields(), md(message.format(id=case.id, path=path)))


def typed_fields() -> tuple[object, ...]:
    """What the fields hold: "Saved case …" is about them."""
    return tuple(S.get(f"{KEY}.{name}") for name in ("id", "split", "input", "output", "expected"))


def draw_try_case(snap: Snapshot) -> None:
    """The panel: a case to start from, the three JSON fields, Run and Save, then the result at once."""
    cases = snap.cases
    if f"{KEY}.input" not in S and cases:
        prefill(cases[0])
    ids = [case.id for case in cases[:PICKER_LIMIT]]
    many = len(cases) > len(ids)
    top = st.columns([2, 1], vertical_alignment="bottom")
    top[0].selectbox(
        _("Start from a case"),
        ids,
        index=None,
        placeholder=_("pick a case to copy its fields"),
        accept_new_options=many,
        help=(
            _("Lists the first {shown} of {total} cases; type any other case's id.").format(
                shown=format_number(len(ids)), total=format_number(len(cases))
            )
            if many
            else None
        ),
        key=f"{KEY}.pick",
        on_change=with_language(picked),
        args=(cases,),
    )
    top[1].text_input(_("Case id"), key=f"{KEY}.id")
    cols = st.columns(3)
    for col, name in zip(cols, FIELDS, strict=True):
        col.text_area(_(FIELDS[name]), key=f"{KEY}.{name}", height=180)
    with st.container(horizontal=True):
        st.button(
            _("Run this case"),
            on_click=with_language(run),
            type="primary",
            icon=":material/play_arrow:",
            key=f"{KEY}.run",
        )
        st.button(_("Save as a case"), on_click=with_language(save), icon=":material/add_notes:", key=f"{KEY}.save")
    if error := S.get(f"{KEY}.error"):
        st.error(error, icon=":material/data_object:")
    show(f"{KEY}.saved", typed_fields(), icon=":material/check:")
    result_panel()


def result_panel() -> None:
    slot = studio.session().slot("try")
    outcome = job_panel(slot, KEY, running)
    if outcome is None or not outcome.finished or outcome_panel(outcome, KEY):
        return
    if outcome.results:
        draw_result(outcome.results[0])


def running(job: object) -> None:
    st.caption(_("Running the case… ({seconds} s)").format(seconds=f"{getattr(job, 'elapsed_s', 0.0):.1f}"))


def draw_result(result: CaseResult) -> None:
    cols = st.columns([1, 1, 2])
    cols[0].metric(_("Score"), f"{result.score:.3f}" if result.score is not None else "–")
    cols[1].metric(_("Status"), result.status.word)
    with cols[2]:
        if result.scores:
            st.markdown("**" + _("Named scores") + "**")
            st.dataframe(
                {_("named score"): list(result.scores), _("value"): list(result.scores.values())}, hide_index=True
            )
    st.markdown("**" + _("Feedback") + "**")
    long_text(localized_feedback(result.feedback), key=f"{KEY}.feedback", empty=_("(no feedback)"))
    if result.error:
        st.markdown("**" + _("Error") + "**")
        long_text(result.error, key=f"{KEY}.error_text")
    st.markdown("**" + _("Printed by metric.py") + "**")
    long_text(result.stdout, key=f"{KEY}.stdout", empty=_("(nothing was printed)"))

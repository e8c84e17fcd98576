"""Feedback review: the thresholds editor, the rule counts, the filters of the cases table and the case picker."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from pages.feedback.health import Pairs
from skynet_core.display import markdown_frame
from skynet_core.feedback import Review, Thresholds
from skynet_core.i18n import _, with_language
from skynet_core.runs import SavedRun
from skynet_core.views import feedback as fv
from ui import keys as K
from ui.widgets.lazy import lazy_expander
from ui.widgets.text import md

S = st.session_state
# The rules table's headers on one line: the browser gives the long "What it flags" column the width and squeezed
# "Flagged" to its numbers, so a Chinese header, which may break between any two characters, stood one a line.
# (!important: Streamlit's own rule for a markdown paragraph in a table cell wins otherwise.)
RULES_CSS = "<style>.st-key-feedback-rules thead th p { white-space: nowrap !important; }</style>"


def thresholds_editor() -> Thresholds:
    """A number field per rule, in a panel drawn only while it is open; the review reruns on each change. The
    thresholds in use are kept apart from the fields, which show them whenever the panel opens. "Reset to
    defaults" makes new fields (a new key generation), so every field shows its default again, even one the
    browser held at an invalid value."""
    gen = S.setdefault(K.FEEDBACK_THRESHOLD_GEN, 0)
    current: Thresholds = S.get(K.FEEDBACK_THRESHOLDS, Thresholds())

    def reset() -> None:
        S[K.FEEDBACK_THRESHOLDS] = Thresholds()
        S[K.FEEDBACK_THRESHOLD_GEN] = gen + 1

    panel = lazy_expander(_("Thresholds"), key=K.FEEDBACK_THRESHOLDS_OPEN, icon=":material/tune:")
    if panel is None:
        return current
    values = {}
    with panel:
        st.caption(_("Change a number and the review runs again at once over the saved results."))
        cols = st.columns(2)
        shown = fv.threshold_values(current)
        for index, field in enumerate(fv.threshold_fields()):
            key = f"feedback.threshold.{gen}.{field.setting}"
            S.setdefault(key, shown[field.setting])
            step, form = (1, None) if field.whole else (0.05, "%.2f")
            values[field.setting] = cols[index % 2].number_input(
                field.label,
                min_value=0 if field.whole else 0.0,
                max_value=field.top,
                step=step,
                format=form,
                key=key,
                help=field.help,
            )
        st.button(
            _("Reset to defaults"), on_click=with_language(reset), icon=":material/restart_alt:", key="feedback.reset"
        )
    chosen, problem = fv.thresholds_from(values)
    if chosen is None:
        st.error(_("{problem} The review uses the previous thresholds.").format(problem=md(problem)))
        return current
    S[K.FEEDBACK_THRESHOLDS] = chosen
    return chosen


def rule_counts(result: Review) -> None:
    rows = [
        {
            _("Rule"): rule.title,
            _("Flagged"): result.counts[rule.name],
            _("Threshold"): rule.threshold_text,
            _("What it flags"): rule.explanation,
        }
        for rule in result.rules
    ]
    st.html(RULES_CSS)
    with st.container(key="feedback-rules"):
        st.table(markdown_frame(pd.DataFrame(rows).set_index(_("Rule"))))


def case_filter(run: SavedRun, pairs: Pairs, result: Review) -> fv.CaseFilter:
    labels = fv.show_labels(result)
    previous = S.get(K.FEEDBACK_SHOW_CHOICE, fv.SHOW_FLAGGED)
    top, bottom = st.columns(2), st.columns(2)
    show = top[0].selectbox(
        _("Show"),
        list(labels),
        format_func=labels.__getitem__,
        key=fv.show_key(result),
        index=list(labels).index(previous) if previous in labels else 0,
    )
    S[K.FEEDBACK_SHOW_CHOICE] = show
    text = top[1].text_input(_("Search the feedback"), key="feedback.search", placeholder=_("words the feedback has"))
    marks = fv.mark_labels()
    mark = bottom[0].selectbox(_("Mark"), list(marks), format_func=marks.__getitem__, key="feedback.mark_filter")
    span = fv.score_span(result, pairs)
    chosen = None
    if span is not None:
        chosen = bottom[1].slider(_("Score range"), span[0], span[1], span, key=f"feedback.score_range.{run.id}")
    return fv.CaseFilter(show=show, mark=mark, score_range=chosen, text=text)


def pick_case(ids: list[str], pairs: Pairs, result: Review) -> str | None:
    if not ids:
        return None
    if S.get(K.FEEDBACK_CASE) not in ids:
        S[K.FEEDBACK_CASE] = ids[0]
    scores = {case.id: res.score for case, res in pairs}
    broken = result.rules_broken

    def label(case_id: str) -> str:
        return fv.case_label(case_id, scores[case_id], len(broken.get(case_id, [])))

    return st.selectbox(_("Case"), ids, format_func=label, key=K.FEEDBACK_CASE)

"""Reward trade-offs: what the weights and references of REWARD_SPEC do, and which candidate wins where.

Every candidate's cases are scored once with metric.py, in the background; the accuracy each case
passed to ``reward`` is kept with its observation. Every control change (a number box, a slider, a
click on the weight map) then recomputes the rewards from those values (``skynet_core.reward`` and
``skynet_core.reward.tradeoffs``) without running metric.py again. The controls change metric.py only
through "Write to metric.py". The controls are ``controls.py``, the scoring ``scoring.py``, the analysis
``analysis.py`` (what was left out, the chart), ``winner.py`` (who wins, the map), ``ab.py`` (A vs B) and
``cases.py`` (case by case).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from pages.tradeoffs import analysis, controls, scoring
from skynet_core.i18n import _, with_language
from skynet_core.metric.reward_spec import RewardSpecInSource, reward_spec_in
from skynet_core.reward import MetricSourceError, RewardSpecError, replace_reward_spec
from skynet_core.workspace import example_metric
from ui import keys as K
from ui import studio
from ui.widgets.messages import say

EXAMPLE_TITLE = "Accuracy, speed and cost"
S = st.session_state


def example_spec() -> dict[str, Any]:
    spec = reward_spec_in(example_metric(EXAMPLE_TITLE).main).spec
    assert spec is not None, "the bundled reward example must define a literal REWARD_SPEC"
    return spec


def write_spec(base: dict[str, Any]) -> None:
    """Rewrite metric.py's REWARD_SPEC with the controls' values as they are when the button is pressed."""
    me = studio.session()
    try:
        new = replace_reward_spec(me.workspace.drafts.current().source, controls.spec(base))
    except (MetricSourceError, RewardSpecError) as exc:
        line = getattr(exc, "line", None)
        say(
            K.TRADEOFFS_WRITE_RESULT,
            me.workspace.drafts.current().revision,
            (
                _("`REWARD_SPEC` was not written (metric.py line {line}): {problem}")
                if line
                else _("`REWARD_SPEC` was not written: {problem}")
            ).format(line=line, problem=exc),
            "error",
        )
        return
    version = me.replace_draft(new, _("Reward trade-offs wrote REWARD_SPEC"))
    say(
        K.TRADEOFFS_WRITE_RESULT,
        me.workspace.drafts.current().revision,
        _(
            "Wrote `REWARD_SPEC` to metric.py; nothing else in it changed. "
            "The previous text was kept as version “{name}”."
        ).format(name=version.name)
        if version
        else _("Wrote `REWARD_SPEC` to metric.py; nothing else in it changed."),
    )


def start_from_example() -> None:
    S[K.TRADEOFFS_FROM_EXAMPLE] = True


def spec_section(in_source: RewardSpecInSource) -> dict[str, Any] | None:
    """The spec the controls start from: metric.py's, or the example's when the person asked for it."""
    if in_source.spec is not None:
        S[K.TRADEOFFS_FROM_EXAMPLE] = False
        return in_source.spec
    if S.get(K.TRADEOFFS_FROM_EXAMPLE):
        st.info(
            _(
                "{problem} The controls start from the example spec; Write to metric.py puts them into metric.py."
            ).format(problem=in_source.problem),
            icon=":material/info:",
        )
        return example_spec()
    st.warning(
        _(
            "{problem} This page explores the weights and references of a `REWARD_SPEC` "
            "(see the contract's “Accuracy, speed and cost”)."
        ).format(problem=in_source.problem),
        icon=":material/warning:",
    )
    st.button(
        _("Start from the example spec"),
        on_click=with_language(start_from_example),
        icon=":material/start:",
        key="tradeoffs.use_example",
        help=_(
            "Weights 0.7 / 0.2 / 0.1, speed reference 2000 ms, cost reference $0.01. "
            "metric.py changes only when you press Write to metric.py."
        ),
    )
    return None


def page() -> None:
    snap = studio.snapshot()
    st.title(_("Reward trade-offs"))
    st.caption(
        _(
            "How the weights and references of `REWARD_SPEC` change each case's reward, and which candidate wins "
            "under which weights. Nothing here changes metric.py until you press Write to metric.py."
        )
    )
    in_source = reward_spec_in(snap.draft.source)
    base = spec_section(in_source)
    if base is None:
        return
    if controls.needs_seed(base):
        controls.seed(base, example_spec())
    norm = controls.draw(base, in_source.spec, example_spec(), write_spec)
    scored = scoring.draw(snap)
    if scored is None:
        st.info(_("Score the candidates to compare them."), icon=":material/info:")
    elif norm is not None:
        analysis.draw(scored, norm, (in_source.spec or base)["weights"])

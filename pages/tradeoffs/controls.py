"""The Reward trade-offs controls: weights (number boxes and sliders in sync), references, Write and Reset.

The number boxes hold the weights as REWARD_SPEC will have them (any numbers of 0 or more); the
sliders show their shares. Dragging a slider sets that share and rescales the other two so the
shares sum to 1 (``skynet_core.reward.tradeoffs.renormalize``); the number boxes then hold those shares.
A click on the weight map sets the weights too (:func:`set_weights`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

from skynet_core.i18n import _, with_language
from skynet_core.reward import PARTS, NormalizedSpec, RewardSpecError, validate_reward_spec, weight_vector
from skynet_core.reward.tradeoffs import PART_LABELS, controls_from_spec, renormalize, shares_text, spec_from_controls
from ui import keys as K
from ui import studio
from ui.widgets.messages import show

WEIGHT_KEYS = {part: f"tradeoffs.weight.{part}" for part in PARTS}
SHARE_KEYS = {part: f"tradeoffs.share.{part}" for part in PARTS}
REF_KEYS = {part: f"tradeoffs.reference.{part}" for part in PARTS}
S = st.session_state


def seed(spec: Mapping[str, Any], fallback: Mapping[str, Any]) -> None:
    """Set the controls to ``spec``'s values (before they are drawn in this run)."""
    values = controls_from_spec(spec, fallback)
    for part in PARTS:
        S[WEIGHT_KEYS[part]] = values[part]
        S[REF_KEYS[part]] = values[f"{part}_ref"]
    S[K.TRADEOFFS_SEEDED_FROM] = dict(spec)


def needs_seed(spec: Mapping[str, Any]) -> bool:
    return S.get(K.TRADEOFFS_SEEDED_FROM) != spec or any(key not in S for key in WEIGHT_KEYS.values())


def weights() -> dict[str, float]:
    """The weights in the number boxes."""
    return {part: float(S[WEIGHT_KEYS[part]] or 0.0) for part in PARTS}


def set_weights(new: Mapping[str, float]) -> None:
    """Put ``new`` weights into the number boxes (call from a callback, before the controls are drawn)."""
    for part in PARTS:
        S[WEIGHT_KEYS[part]] = float(new[part])


def spec(base: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with the controls' weights and references."""
    return spec_from_controls(base, weights(), S[REF_KEYS["speed"]], S[REF_KEYS["cost"]], S[REF_KEYS["accuracy"]])


def _dragged(part: str) -> None:
    set_weights(renormalize(weights(), part, S[SHARE_KEYS[part]]))


def _sync_sliders() -> None:
    current = weights()
    shares = weight_vector(current) if sum(current.values()) > 0 else [0.0, 0.0, 0.0]
    for part, share in zip(PARTS, shares, strict=True):
        S[SHARE_KEYS[part]] = round(float(share), 3)


def _weights() -> None:
    st.markdown(_("**Weights** · type any numbers of 0 or more, or drag a share: the other two follow"))
    _sync_sliders()
    for column, part in zip(st.columns(3), PARTS, strict=True):
        with column:
            st.number_input(
                _("{part} weight").format(part=_(PART_LABELS[part]).capitalize()),
                min_value=0.0,
                step=0.05,
                format="%g",
                key=WEIGHT_KEYS[part],
                persist_state="session",
            )
            st.slider(
                _("{part} share").format(part=_(PART_LABELS[part]).capitalize()),
                min_value=0.0,
                max_value=1.0,
                step=0.01,
                format="%.2f",
                key=SHARE_KEYS[part],
                on_change=with_language(_dragged),
                args=(part,),
                help=_("The part's share of the reward. Dragging it rescales the other two so the shares sum to 1."),
            )


def _references() -> None:
    st.markdown(_("**References** · the measurement that scores 0.5 on `ref / (ref + x)`"))
    cols = st.columns(3)
    cols[0].number_input(
        _("Speed reference (ms)"),
        min_value=0.0,
        step=100.0,
        format="%g",
        key=REF_KEYS["speed"],
        persist_state="session",
    )
    cols[1].number_input(
        _("Cost reference (USD)"),
        min_value=0.0,
        step=0.001,
        format="%g",
        key=REF_KEYS["cost"],
        persist_state="session",
    )
    cols[2].number_input(
        _("Accuracy reference (optional)"),
        min_value=0.0,
        step=0.1,
        format="%g",
        value=None,
        placeholder=_("none"),
        key=REF_KEYS["accuracy"],
        persist_state="session",
        help=_(
            "Set it when metric.py passes an error (lower is better) as accuracy; "
            "that error then scores `ref / (ref + error)`."
        ),
    )


def draw(
    base: dict[str, Any],
    source_spec: dict[str, Any] | None,
    fallback: dict[str, Any],
    write: Callable[[dict[str, Any]], None],
) -> NormalizedSpec | None:
    """The controls; the spec they make, if valid. ``write`` gets ``base`` when Write to metric.py is pressed;
    Reset goes back to ``source_spec`` (``fallback`` gives the references it lacks)."""
    with st.container(border=True):
        _weights()
        _references()
        current = spec(base)
        try:
            norm: NormalizedSpec | None = validate_reward_spec(current)
        except RewardSpecError as exc:
            norm, problem = None, str(exc)
        if norm is None:
            st.error(problem, icon=":material/error:")
        else:
            st.caption(_("Normalised: {shares}").format(shares=shares_text(norm.weights)))
        unchanged = current == source_spec
        with st.container(horizontal=True, vertical_alignment="center"):
            st.button(
                _("Write to metric.py"),
                on_click=with_language(write),
                args=(base,),
                type="primary",
                icon=":material/save:",
                disabled=unchanged or norm is None,
                key="tradeoffs.write",
                help=_(
                    "Rewrites only the `REWARD_SPEC` assignment in metric.py; "
                    "the previous text is kept as a saved version."
                ),
            )
            st.button(
                _("Reset"),
                on_click=with_language(seed),
                args=(source_spec or base, fallback),
                icon=":material/undo:",
                disabled=unchanged,
                key="tradeoffs.reset",
                help=_("Back to the `REWARD_SPEC` in metric.py."),
            )
            st.caption(
                _("metric.py's `REWARD_SPEC` has these values.")
                if unchanged
                else ":orange[" + _("These values are not in metric.py yet.") + "]"
            )
        show(K.TRADEOFFS_WRITE_RESULT, studio.snapshot().draft.revision)  # what the last write did, while it holds
    return norm

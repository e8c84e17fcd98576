"""The Settings page's model panels: which model answers ``llm()``, and one panel per model (name, API base,
session key, prices, connection test). The form's values and what they mean come from ``skynet_core.views.settings``."""

from __future__ import annotations

import streamlit as st

from skynet_core.i18n import N_, _, format_cost, with_language
from skynet_core.llm import (
    API_BASE_KEY_RULE,
    ConnectionCheck,
    ModelConfig,
    ModelSettings,
    check_connection,
    key_status,
    known_price,
)
from skynet_core.views.settings import check_key, empty_key_means, not_set_note, settings_from_form, typed_keys
from ui import studio
from ui.widgets.text import md

S = st.session_state
TITLES = {"metric": N_("Metric model"), "reflection": N_("Reflection model"), "task": N_("Task model")}
PURPOSE = {
    "metric": N_("Answers the `llm()` calls of metric code (a model as judge)."),
    "reflection": N_("The model the engines use to write new versions; metrics use it when no metric model is set."),
    "task": N_(
        'Runs the instruction on each case\'s input for "Does this feedback help?" (Feedback review); never answers '
        "metrics' `llm()` calls."
    ),
}


def form() -> ModelSettings:
    """What the widgets say now, saved or not, with the session's keys."""
    return settings_from_form(S.to_dict(), studio.session().keys)


def effective_banner(saved: ModelSettings) -> None:
    effective = saved.effective()
    if effective is None:
        st.warning(
            _(
                "No model answers metrics' `llm()` calls: give a metric model (or a reflection model) below and "
                "save, or set SKYNET_METRIC_MODEL in the server's environment."
            ),
            icon=":material/warning:",
        )
        return
    config, _why = effective
    text = (
        _("Metrics' `llm()` calls use **{model}**: the metric model.")
        if config is saved.metric
        else _("Metrics' `llm()` calls use **{model}**: the reflection model (no metric model is set).")
    ).format(model=md(config.model))
    if config.api_base:
        text += " " + _("API base: {base}.").format(base=md(config.api_base))
    st.success(text, icon=":material/model_training:")


def price_text(value: float | None) -> str:
    return format_cost(value)


def draw_check(check: ConnectionCheck) -> None:
    if not check.ok:
        st.error(md(check.error), icon=":material/error:")
        return
    st.success(
        _("**{model}** replied “{reply}” in {ms} ms · {prompt} tokens in, {completion} out · cost {cost}").format(
            model=md(check.model),
            reply=md(check.reply.strip()[:200]),
            ms=f"{check.latency_ms:.0f}",
            prompt=check.prompt_tokens,
            completion=check.completion_tokens,
            cost=price_text(check.cost_usd),
        ),
        icon=":material/check_circle:",
    )
    if check.cost_usd is None:
        st.caption(_("litellm has no price for this model: enter one below to see what judging costs."))


def forget_key(role: str) -> None:
    studio.session().set_key(role, None)
    S.pop(f"settings.{role}.check", None)


def key_line(role: str, config: ModelConfig) -> None:
    status = key_status(config)
    colour = "green" if status.ok else "red"
    text = (
        _("typed ({masked}); “Save settings” keeps it for this session").format(masked=config.masked_key)
        if role in typed_keys(S.to_dict())
        else status.text
    )
    st.markdown(f":{colour}[:material/key: " + _("Key: {text}").format(text=md(text)) + "]")
    if role in studio.session().keys:
        st.button(
            _("Forget this session's key"),
            key=f"settings.{role}.forget",
            on_click=with_language(forget_key),
            args=(role,),
            icon=":material/key_off:",
        )


def price_inputs(role: str, config: ModelConfig) -> None:
    prices = st.columns(2)
    for column, half, label in (
        (prices[0], "in", _("Input $ per 1M tokens")),
        (prices[1], "out", _("Output $ per 1M tokens")),
    ):
        column.number_input(
            label,
            min_value=0.0,
            step=0.05,
            format="%.4f",
            key=f"settings.{role}.price_{half}",
            placeholder=_("litellm price"),
        )
    entered = (S[f"settings.{role}.price_in"], S[f"settings.{role}.price_out"])
    known = known_price(config)
    if (entered[0] is None) != (entered[1] is None):
        st.caption(":orange[" + _("Enter both prices, or neither.") + "]")
    elif config.price_per_million is not None:
        st.caption(_("Costs use the prices entered here."))
    elif known is not None:
        st.caption(
            _("litellm's cost map prices this model at ${price_in} in and ${price_out} out per million tokens.").format(
                price_in=f"{known[0]:g}", price_out=f"{known[1]:g}"
            )
        )
    else:
        st.caption(":orange[" + _("litellm has no price for this model: enter one to see what judging costs.") + "]")


def model_panel(role: str) -> None:
    st.subheader(_(TITLES[role]))
    st.caption(_(PURPOSE[role]))
    name, base = st.columns(2)
    name.text_input(
        _("Model (a litellm model name)"),
        key=f"settings.{role}.model",
        placeholder=_("e.g. openai/gpt-4o-mini"),
        help=_(
            "Any litellm name: openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, ollama/llama3. For an "
            "OpenAI-compatible server (vLLM, llama.cpp, Ollama): openai/<the name it serves>. Empty: not set."
        ),
    )
    base.text_input(
        _("API base (optional)"),
        key=f"settings.{role}.api_base",
        placeholder=_("e.g. http://127.0.0.1:11434/v1"),
        help=_("For a local OpenAI-compatible server. Empty: the provider's own API."),
    )
    settings = form()
    config = settings.config(role)
    if config is None:  # no key, prices or test without a model: what it means is said instead
        st.caption(f":material/info: {not_set_note(role, settings)}")
        return
    st.caption(_(API_BASE_KEY_RULE))
    empty_means, empty_help = empty_key_means(config, studio.session().keys.get(role))
    st.text_input(
        _("API key for this session (optional)"),
        key=f"settings.{role}.key",
        type="password",
        placeholder=empty_means,
        autocomplete="off",
        help=_(
            "Kept in this browser session's memory only: never written to disk, never shown again in full, never "
            "sent into metric code."
        )
        + " "
        + empty_help,
    )
    key_line(role, config)
    price_inputs(role, config)
    if st.button(
        _("Test connection"),
        key=f"settings.{role}.test",
        icon=":material/network_check:",
        help=_("One tiny call with the values above (saved or not)."),
    ):
        with st.spinner(_("Calling {model}…").format(model=config.model)):
            S[f"settings.{role}.check"] = (check_key(settings, role), check_connection(settings, config))
    tested = S.get(f"settings.{role}.check")
    if tested is not None and tested[0] == check_key(settings, role):  # a test of other values says nothing now
        draw_check(tested[1])

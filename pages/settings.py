"""Settings: the metric and reflection models, their keys for this session, how calls are made, and isolation.

Non-secret settings are saved in the store (``skynet_core.llm.save_settings``);
keys typed here live in this session only (``studio.set_session_key``) and are
shown back masked. The model call for a metric's ``llm()`` is made by the
server, so no key ever reaches metric code.
"""

from __future__ import annotations

import os

import pandas as pd
import streamlit as st

import studio
from skynet_core.judge import judge_summary
from skynet_core.llm import (
    API_BASE_KEY_RULE,
    BUDGET_RANGE_USD,
    CALLS_PER_CASE_RANGE,
    CONCURRENCY_RANGE,
    NO_MODEL_MESSAGE,
    RETRIES_RANGE,
    ROLES,
    TEMPERATURE_RANGE,
    TIMEOUT_RANGE_S,
    ConnectionCheck,
    ModelConfig,
    ModelSettings,
    check_connection,
    forget_settings,
    key_status,
    known_price,
    litellm_ready,
    warm_up,
)
from skynet_core.results import Isolation
from skynet_core.workspace import example_metric

studio.ensure_router()

S = st.session_state
TITLES = {"metric": "Metric model", "reflection": "Reflection model"}
PURPOSE = {
    "metric": "Answers the `llm()` calls of metric code (a model as judge).",
    "reflection": "The model the engines use to write new versions; metrics use it when no metric model is set.",
}
ENV_VARIABLES = (
    "SKYNET_METRIC_MODEL",
    "SKYNET_METRIC_API_BASE",
    "SKYNET_REFLECTION_MODEL",
    "SKYNET_REFLECTION_API_BASE",
)
TRY_CASES = 5


def seed(settings: ModelSettings) -> None:
    """Show ``settings`` in the widgets (key fields start empty: a key is never shown back)."""
    for role in ROLES:
        config = settings.config(role)
        price = config.price_per_million if config else None
        S[f"settings.{role}.model"] = config.model if config else ""
        S[f"settings.{role}.api_base"] = (config.api_base or "") if config else ""
        S[f"settings.{role}.key"] = ""
        S[f"settings.{role}.price_in"] = price[0] if price else None
        S[f"settings.{role}.price_out"] = price[1] if price else None
    S["settings.temperature"] = settings.temperature
    S["settings.timeout"] = settings.request_timeout_s
    S["settings.concurrency"] = settings.concurrency
    S["settings.retries"] = settings.max_retries
    S["settings.max_calls"] = settings.max_calls_per_case
    S["settings.budget"] = float(settings.max_cost_usd or 0.0)
    S["settings.ray_address"] = studio.workspace().ray_address()


def typed_keys() -> dict[str, str]:
    return {role: S[f"settings.{role}.key"].strip() for role in ROLES if S[f"settings.{role}.key"].strip()}


def form_settings() -> ModelSettings:
    """What the widgets say now, saved or not, with the session's keys and any key typed but not kept yet."""
    configs: dict[str, ModelConfig | None] = {}
    for role in ROLES:
        model = S[f"settings.{role}.model"].strip()
        price_in, price_out = S[f"settings.{role}.price_in"], S[f"settings.{role}.price_out"]
        price = (float(price_in), float(price_out)) if price_in is not None and price_out is not None else None
        configs[role] = (
            ModelConfig(model, S[f"settings.{role}.api_base"].strip() or None, price_per_million=price)
            if model
            else None
        )
    settings = ModelSettings(
        metric=configs["metric"],
        reflection=configs["reflection"],
        temperature=float(S["settings.temperature"]),
        request_timeout_s=float(S["settings.timeout"]),
        concurrency=int(S["settings.concurrency"]),
        max_retries=int(S["settings.retries"]),
        max_calls_per_case=int(S["settings.max_calls"]),
        max_cost_usd=float(S["settings.budget"]) or None,
    )
    return settings.with_keys({**studio.session_keys(), **typed_keys()})


def save() -> None:
    settings = form_settings()
    studio.save_model_settings(settings)
    studio.workspace().set_ray_address(S["settings.ray_address"])
    for role, key in typed_keys().items():
        studio.set_session_key(role, key)
    for role in ROLES:
        S[f"settings.{role}.key"] = ""
    S["settings.notice"] = "Settings saved. Keys stay in this session only."


def reset() -> None:
    forget_settings(studio.store())
    seed(studio.model_settings())
    S["settings.notice"] = "Saved settings cleared: the environment's defaults apply."


def forget_key(role: str) -> None:
    studio.set_session_key(role, None)
    S.pop(f"settings.{role}.check", None)


def price_text(value: float | None) -> str:
    return "unknown" if value is None else f"${value:.6f}"


def effective_banner(saved: ModelSettings) -> None:
    effective = saved.effective()
    if effective is None:
        st.warning(NO_MODEL_MESSAGE[0].upper() + NO_MODEL_MESSAGE[1:] + ".", icon=":material/warning:")
        return
    config, why = effective
    where = f" at {config.api_base}" if config.api_base else ""
    st.success(
        f"Metrics' `llm()` calls use **{studio.md(config.model)}**{studio.md(where)}: the {why}.",
        icon=":material/model_training:",
    )


def draw_check(check: ConnectionCheck) -> None:
    if not check.ok:
        st.error(check.error, icon=":material/error:")
        return
    cost = price_text(check.cost_usd)
    st.success(
        f"**{studio.md(check.model)}** replied “{studio.md(check.reply.strip()[:200])}” in "
        f"{check.latency_ms:.0f} ms · {check.prompt_tokens} tokens in, {check.completion_tokens} out · "
        f"cost {cost}",
        icon=":material/check_circle:",
    )
    if check.cost_usd is None:
        st.caption("litellm has no price for this model: enter one below to see what judging costs.")


def model_panel(role: str) -> None:
    st.subheader(TITLES[role])
    st.caption(PURPOSE[role])
    st.text_input(
        "Model (a litellm model name)",
        key=f"settings.{role}.model",
        placeholder="openai/gpt-4o-mini",
        help="Any litellm name: openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, ollama/llama3. "
        "For an OpenAI-compatible server (vLLM, llama.cpp, Ollama): openai/<the name it serves>.",
    )
    st.text_input(
        "API base (optional)",
        key=f"settings.{role}.api_base",
        placeholder="http://127.0.0.1:11434/v1",
        help="For a local OpenAI-compatible server. Empty: the provider's own API. " + API_BASE_KEY_RULE,
    )
    st.caption(API_BASE_KEY_RULE)
    st.text_input(
        "API key for this session (optional)",
        key=f"settings.{role}.key",
        type="password",
        placeholder="sk-…",
        autocomplete="off",
        help="Kept in this browser session's memory only: never written to disk, never shown again in "
        "full, never sent into metric code. Empty: the provider's variable on the server "
        "(e.g. OPENAI_API_KEY).",
    )
    config = form_settings().config(role)
    if config is not None:
        status = key_status(config)
        colour = "green" if status.ok else "red"
        text = (
            f"typed ({config.masked_key}); “Save settings” keeps it for this session"
            if role in typed_keys()
            else status.text
        )
        st.markdown(f":{colour}[:material/key: Key: {studio.md(text)}]")
        if role in studio.session_keys():
            st.button(
                "Forget this session's key",
                key=f"settings.{role}.forget",
                on_click=forget_key,
                args=(role,),
                icon=":material/key_off:",
            )
    prices = st.columns(2)
    prices[0].number_input(
        "Input $ per 1M tokens",
        min_value=0.0,
        step=0.05,
        format="%.4f",
        key=f"settings.{role}.price_in",
        placeholder="auto",
    )
    prices[1].number_input(
        "Output $ per 1M tokens",
        min_value=0.0,
        step=0.05,
        format="%.4f",
        key=f"settings.{role}.price_out",
        placeholder="auto",
    )
    if config is not None:
        entered = (S[f"settings.{role}.price_in"], S[f"settings.{role}.price_out"])
        known = known_price(config)
        if (entered[0] is None) != (entered[1] is None):
            st.caption(":orange[Enter both prices, or neither.]")
        elif config.price_per_million is not None:
            st.caption("Costs use the prices entered here.")
        elif known is not None:
            st.caption(
                f"litellm's cost map prices this model at ${known[0]:g} in and ${known[1]:g} out per million tokens."
            )
        else:
            st.caption(":orange[litellm has no price for this model: enter one to see what judging costs.]")
    if st.button(
        "Test connection",
        key=f"settings.{role}.test",
        disabled=config is None,
        icon=":material/network_check:",
        help="One tiny call with the values above (saved or not).",
    ):
        with st.spinner(f"Calling {config.model if config else ''}…"):
            S[f"settings.{role}.check"] = (config, check_connection(form_settings(), config))
    tested = S.get(f"settings.{role}.check")
    if tested is not None and tested[0] == config:  # a test of other values no longer says anything
        draw_check(tested[1])


def calls_panel() -> None:
    st.subheader("How calls are made")
    cols = st.columns(4)
    cols[0].slider(
        "Temperature",
        min_value=TEMPERATURE_RANGE[0],
        max_value=TEMPERATURE_RANGE[1],
        step=0.1,
        key="settings.temperature",
        help="0 makes a judge as repeatable as the model allows.",
    )
    cols[1].number_input(
        "Request timeout (s)",
        min_value=TIMEOUT_RANGE_S[0],
        max_value=TIMEOUT_RANGE_S[1],
        step=1.0,
        format="%g",
        key="settings.timeout",
        help="One model call is given up after this long. The metric's own timeout still "
        "bounds the whole call of score.",
    )
    cols[2].number_input(
        "Calls in flight",
        min_value=CONCURRENCY_RANGE[0],
        max_value=CONCURRENCY_RANGE[1],
        step=1,
        key="settings.concurrency",
        help="Cases scored at once, so a slow judge's calls overlap: 200 cases against a "
        "judge that answers in 200 ms take about 5 s with 8 in flight, not 40 s.",
    )
    cols[3].number_input(
        "Retries",
        min_value=RETRIES_RANGE[0],
        max_value=RETRIES_RANGE[1],
        step=1,
        key="settings.retries",
        help="A rate limit, timeout or server error is tried again this many times, with "
        "growing waits, before the case fails with the provider's message.",
    )
    limits = st.columns(3)
    limits[0].number_input(
        "llm() calls per case",
        min_value=CALLS_PER_CASE_RANGE[0],
        max_value=CALLS_PER_CASE_RANGE[1],
        step=1,
        key="settings.max_calls",
        help="A case that calls llm() more often than this fails with an error naming the cap.",
    )
    limits[1].number_input(
        "Budget per run (USD, 0 = none)",
        min_value=0.0,
        max_value=BUDGET_RANGE_USD[1],
        step=1.0,
        format="%.2f",
        key="settings.budget",
        help="Once a run's llm() calls have cost this much, its remaining cases fail with an error naming "
        "the budget. Calls whose cost is unknown count as free.",
    )
    limits[2].text_input(
        "Ray cluster address",
        key="settings.ray_address",
        placeholder="HEAD_HOST:6379 (empty: this machine)",
        help="“Score all” on the Author page scores on the Ray cluster whose head is at this address "
        "(host:port, as `ray start --head` prints; requirements-ray.txt). Empty: cases are scored on this machine.",
    )


def start_try() -> None:
    """Score the first cases of the bundled tickets with the judge example and the form's settings (unsaved)."""
    from skynet_core.datasets import load_example

    cases = load_example().for_candidate(load_example().candidates[0])[:TRY_CASES]
    studio.workspace().score(
        studio.job_slot("settings.try"),
        example_metric("Model as judge"),
        cases,
        studio.run_options(form_settings()),
        kind="try judge",
        watcher=studio.watcher(),
    )


def try_judge() -> None:
    st.subheader("Try the model-as-judge example")
    st.caption(
        f"Scores the first {TRY_CASES} cases of the bundled tickets with the “Model as judge” example "
        "metric, in the sandbox, with the settings above: the whole path a metric's `llm()` takes."
    )
    slot = studio.job_slot("settings.try")
    job = slot.job
    done = job is not None and job.finished
    st.button(
        "Run the judge example",
        key="settings.try",
        icon=":material/gavel:",
        on_click=start_try,
        disabled=job is not None and not done,
    )
    studio.job_progress(slot, "settings.try_job", "Judging", job, done)
    if job is None or not done:
        return
    if job.error:
        st.error("The judge example could not run.")
        studio.long_text(job.error, key="settings.try_error")
        return
    results = job.result.cases if job.result is not None else job.partial
    if not results:
        return
    summary = judge_summary(results)
    cols = st.columns(3)
    cols[0].metric("Judge calls", summary.calls)
    cols[1].metric("Judge time per 1,000 cases", f"{summary.ms_per_1000 / 1000.0:,.1f} s")
    cols[2].metric(
        "Judge cost per 1,000 cases",
        f"${summary.cost_per_1000:.4f}" if summary.cost_per_1000 is not None else "unknown",
    )
    frame = pd.DataFrame(
        [
            {
                "id": r.id,
                "status": r.status.value,
                "score": r.score,
                "verdict": r.feedback if r.ok else r.error.splitlines()[0] if r.error else "",
                "judge_ms": r.judge.latency_ms,
                "judge_cost_usd": r.judge.cost_usd,
            }
            for r in results
        ]
    )
    st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        column_config={
            "score": st.column_config.NumberColumn("score", format="%.2f"),
            "verdict": st.column_config.TextColumn("verdict or error", width="large"),
            "judge_ms": st.column_config.NumberColumn("judge time", format="%.0f ms"),
            "judge_cost_usd": st.column_config.NumberColumn("judge cost", format="$%.6f"),
        },
    )


def environment_panel() -> None:
    st.subheader("Defaults from the server's environment")
    rows = [{"variable": name, "value": os.environ.get(name, "") or "(not set)"} for name in ENV_VARIABLES]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption(
        "Saved settings win over these; “Reset to the environment's defaults” clears them. Keys come from "
        "the provider's usual variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, …), read by the server only."
    )


def isolation_panel() -> None:
    st.subheader("Isolation of metric code")
    workers = studio.pool()
    if workers.isolation is Isolation.FULL:
        st.markdown(f":green[:material/shield: **full**] · {studio.md(workers.isolation_reason)}")
    else:
        st.markdown(f":orange[:material/warning: **reduced**] · {studio.md(workers.isolation_reason)}")
    st.caption(
        "Read-only: metric code runs in a separate process with no keys in its environment either way; "
        "full isolation also takes away its network and the server's files."
    )


# The page.
saved = studio.model_settings()
if "settings.concurrency" not in S:
    seed(saved)

st.title("Settings")
effective_banner(saved)
if S.get("settings.notice"):
    st.toast(S.pop("settings.notice"), icon=":material/save:")
unsaved = st.empty()  # always there, so the elements below keep their places when it empties
if (
    form_settings().to_stored() != saved.to_stored()
    or typed_keys()
    or S["settings.ray_address"].strip() != studio.workspace().ray_address()
):
    unsaved.caption(":orange[:material/edit: Unsaved changes: “Save settings” makes metrics use them.]")

if not litellm_ready() and any(form_settings().config(role) for role in ROLES):
    with st.spinner("Loading litellm (once per server start; it takes a few seconds)…"):
        warm_up(wait=True)
columns = st.columns(2, gap="large")
for role, column in zip(ROLES, columns, strict=True):
    with column, st.container(border=True, key=f"settings-panel-{role}"):
        model_panel(role)
calls_panel()
with st.container(horizontal=True):
    st.button("Save settings", type="primary", on_click=save, icon=":material/save:", key="settings.save")
    st.button(
        "Reset to the environment's defaults", on_click=reset, icon=":material/restart_alt:", key="settings.reset"
    )
st.divider()
try_judge()
st.divider()
environment_panel()
isolation_panel()

"""The Settings page's form as data: the widget values a ModelSettings shows as, the ModelSettings the
values mean, what an empty model field means, and which connection test still describes the form.

Pages keep the values in their session under ``settings.<name>`` keys; everything here is plain data,
so the page only draws.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..i18n import _
from ..llm import ROLES, ModelConfig, ModelSettings, env_keys_allowed, mask

PREFIX = "settings."
CALL_FIELDS = ("temperature", "timeout", "concurrency", "retries", "max_calls", "budget", "ray_address")


def form_values(settings: ModelSettings, ray_address: str) -> dict[str, Any]:
    """The widget values that show ``settings`` (key fields start empty: a key is never shown back)."""
    values: dict[str, Any] = {}
    for role in ROLES:
        config = settings.config(role)
        price = config.price_per_million if config else None
        values[f"{PREFIX}{role}.model"] = config.model if config else ""
        values[f"{PREFIX}{role}.api_base"] = (config.api_base or "") if config else ""
        values[f"{PREFIX}{role}.key"] = ""
        values[f"{PREFIX}{role}.price_in"] = price[0] if price else None
        values[f"{PREFIX}{role}.price_out"] = price[1] if price else None
    values[f"{PREFIX}temperature"] = settings.temperature
    values[f"{PREFIX}timeout"] = settings.request_timeout_s
    values[f"{PREFIX}concurrency"] = settings.concurrency
    values[f"{PREFIX}retries"] = settings.max_retries
    values[f"{PREFIX}max_calls"] = settings.max_calls_per_case
    values[f"{PREFIX}budget"] = float(settings.max_cost_usd or 0.0)
    values[f"{PREFIX}ray_address"] = ray_address
    return values


def drawn(settings: ModelSettings) -> frozenset[str]:
    """The fields the page draws for what the form says: the call settings and each model's name and API base,
    and a model's key and prices only while it has a model."""
    fields = {f"{PREFIX}{name}" for name in CALL_FIELDS}
    for role in ROLES:
        fields |= {f"{PREFIX}{role}.model", f"{PREFIX}{role}.api_base"}
        if settings.config(role) is not None:
            fields |= {f"{PREFIX}{role}.key", f"{PREFIX}{role}.price_in", f"{PREFIX}{role}.price_out"}
    return frozenset(fields)


def restored(saved: Mapping[str, Any], edits: Mapping[str, Any], live: frozenset[str]) -> dict[str, Any]:
    """The values to give the fields before a run draws them: each field but the ``live`` ones (drawn by an
    earlier run of the same visit, so holding what the person sees) gets the edit kept for it, else the saved
    value (``saved``, as :func:`form_values` gives it).

    Streamlit forgets a field's value once a run does not draw it: every field after a visit to another page,
    and a model's key and prices while its model field is empty."""
    return {key: edits.get(key, value) for key, value in saved.items() if key not in live}


def edits(values: Mapping[str, Any], saved: Mapping[str, Any]) -> dict[str, Any]:
    """The form's fields whose value differs from the saved one: what the session keeps until "Save settings"
    (a typed key too, in this session's memory only, where the key field holds it anyway)."""
    return {key: values[key] for key, value in saved.items() if key in values and values[key] != value}


def typed_keys(values: Mapping[str, Any]) -> dict[str, str]:
    """The keys typed in the form but not kept yet, by role."""
    keys = {role: str(values.get(f"{PREFIX}{role}.key") or "").strip() for role in ROLES}
    return {role: key for role, key in keys.items() if key}


def settings_from_form(values: Mapping[str, Any], session_keys: Mapping[str, str]) -> ModelSettings:
    """What the form says, saved or not: an empty model field is no model ("not set"), a price counts only
    when both halves are given; with the session's keys and any key typed but not kept yet."""
    configs: dict[str, ModelConfig | None] = {}
    for role in ROLES:
        model = str(values.get(f"{PREFIX}{role}.model") or "").strip()
        price_in, price_out = values.get(f"{PREFIX}{role}.price_in"), values.get(f"{PREFIX}{role}.price_out")
        price = (float(price_in), float(price_out)) if price_in is not None and price_out is not None else None
        base = str(values.get(f"{PREFIX}{role}.api_base") or "").strip() or None
        configs[role] = ModelConfig(model, base, price_per_million=price) if model else None
    settings = ModelSettings(
        metric=configs["metric"],
        reflection=configs["reflection"],
        task=configs["task"],
        temperature=float(values[f"{PREFIX}temperature"]),
        request_timeout_s=float(values[f"{PREFIX}timeout"]),
        concurrency=int(values[f"{PREFIX}concurrency"]),
        max_retries=int(values[f"{PREFIX}retries"]),
        max_calls_per_case=int(values[f"{PREFIX}max_calls"]),
        max_cost_usd=float(values[f"{PREFIX}budget"]) or None,
    )
    return settings.with_keys({**session_keys, **typed_keys(values)})


def unsaved(values: Mapping[str, Any], saved: ModelSettings, session_keys: Mapping[str, str], ray: str) -> bool:
    """Whether the form differs from what is saved (a typed key counts: it is kept only on saving)."""
    return (
        settings_from_form(values, session_keys).to_stored() != saved.to_stored()
        or bool(typed_keys(values))
        or str(values.get(f"{PREFIX}ray_address") or "").strip() != ray
    )


def not_set_note(role: str, settings: ModelSettings) -> str | None:
    """What an empty model field means for ``role`` (None when the field names a model)."""
    if settings.config(role) is not None:
        return None
    if role == "task":
        return _(
            'Not set: "Does this feedback help?" (Feedback review) cannot run, since it needs a model to run '
            "the instruction on each case."
        )
    other = settings.config("reflection" if role == "metric" else "metric")
    if role == "metric":
        if other is not None:
            return _("Not set: metrics' `llm()` calls use the reflection model.")
        return _("Not set: no model answers metrics' `llm()` calls until one of the two is set.")
    return _("Not set: no reflection model is given to the engines, and metrics have none to fall back on.")


def check_key(settings: ModelSettings, role: str) -> tuple[Any, ...]:
    """What a connection test of ``role`` depended on: a test made with other values no longer says
    anything about the form, so the page shows a test (its reply or its error) only while this is equal."""
    return (settings.config(role), settings.request_timeout_s, settings.temperature)


def empty_key_means(config: ModelConfig, session_key: str | None) -> tuple[str, str]:
    """What leaving ``config``'s key field empty means, as the field's placeholder and the last sentence of its
    help: the key kept for this session (``session_key``) when there is one, else the rule the key line under the
    field states (:func:`skynet_core.llm.env_keys_allowed`), so the two never contradict each other."""
    if session_key:
        masked = mask(session_key)
        return _("empty: this session's key ({masked})").format(masked=masked), _(
            "Empty: this session's key ({masked}) stays in use; “Forget this session's key” drops it."
        ).format(masked=masked)
    if not env_keys_allowed(config):
        return _("empty: no key is sent to this API base"), _(
            "Empty: no key is sent, since the server's own keys never go to an API base typed in the browser."
        )
    variable = f"{(config.provider or 'openai').upper()}_API_KEY"
    return _("empty: the server's {variable}").format(variable=variable), _(
        "Empty: the server's {variable}, read by the server only."
    ).format(variable=variable)

"""The Settings page's form as data (skynet_core.views.settings): values to settings and back, what an empty
model field means, and which connection test still describes the form."""

from __future__ import annotations

from skynet_core.llm import ModelConfig, ModelSettings
from skynet_core.views.settings import check_key, form_values, not_set_note, settings_from_form, typed_keys, unsaved


def test_values_round_trip_and_an_empty_model_is_not_set() -> None:
    settings = ModelSettings(
        metric=ModelConfig("openai/judge", "http://127.0.0.1:8000/v1", price_per_million=(1.0, 2.0)),
        temperature=0.3,
        max_cost_usd=4.0,
    )
    values = form_values(settings, "head:6379")
    assert values["settings.reflection.model"] == "" and values["settings.metric.key"] == ""
    back = settings_from_form(values, {})
    assert back.to_stored() == settings.to_stored()
    assert back.reflection is None
    assert not unsaved(values, settings, {}, "head:6379")
    assert unsaved(values, settings, {}, "")
    values["settings.metric.model"] = "  "
    assert settings_from_form(values, {}).metric is None


def test_a_typed_key_counts_as_unsaved_and_reaches_its_model_only() -> None:
    values = form_values(ModelSettings(metric=ModelConfig("openai/judge")), "")
    values["settings.metric.key"] = " sk-typed "
    assert typed_keys(values) == {"metric": "sk-typed"}
    settings = settings_from_form(values, {"reflection": "sk-session"})
    assert settings.metric is not None and settings.metric.api_key == "sk-typed"
    assert unsaved(values, settings, {}, "")


def test_one_price_half_is_no_price() -> None:
    values = form_values(ModelSettings(metric=ModelConfig("openai/judge")), "")
    values["settings.metric.price_in"] = 1.0
    assert settings_from_form(values, {}).metric.price_per_million is None  # type: ignore[union-attr]
    values["settings.metric.price_out"] = 3.0
    assert settings_from_form(values, {}).metric.price_per_million == (1.0, 3.0)  # type: ignore[union-attr]


def test_what_an_empty_model_field_means() -> None:
    nothing = ModelSettings()
    assert "no model answers" in (not_set_note("metric", nothing) or "")
    assert "no reflection model" in (not_set_note("reflection", nothing) or "")
    reflection_only = ModelSettings(reflection=ModelConfig("openai/gpt-4o"))
    assert "use the reflection model" in (not_set_note("metric", reflection_only) or "")
    assert not_set_note("reflection", reflection_only) is None


def test_a_connection_test_describes_the_form_only_while_its_values_stay() -> None:
    settings = ModelSettings(metric=ModelConfig("openai/a"))
    key = check_key(settings, "metric")
    assert check_key(settings.with_changes(reflection=ModelConfig("openai/r")), "metric") == key
    assert check_key(settings.with_changes(metric=ModelConfig("openai/b")), "metric") != key
    assert check_key(settings.with_changes(request_timeout_s=5.0), "metric") != key
    assert check_key(settings.with_keys({"metric": "sk-new"}), "metric") != key

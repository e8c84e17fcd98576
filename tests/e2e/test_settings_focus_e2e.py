"""Settings in headless Chromium: every field's value is taken on "Save settings", whatever order a person
moves through the fields in (typing, then Tab to the next field, never Enter).

Leaving a field by Tab sends its value and starts a script run; typing in the next field and leaving it by Tab
starts another one, which may interrupt the first. A fake OpenAI-compatible server on 127.0.0.1 insists on the
typed key, so "Test connection" proves which key the server sent. (That each model's own test sends the key of
its own panel, and the judge calls of "Score all" the session's key, is checked without a browser:
tests/app/test_app_settings.py.)
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from skynet_core.llm import ModelConfig, ModelSettings
from skynet_core.workspace import Workspace
from tests.e2e.browser import wait_for_app_run
from tests.fake_openai import FakeOpenAI

KEY = "sk-e2e-tabbed-through-the-form-7WXYZ"
KEY_AT_ONCE = "sk-e2e-saved-at-once-1111"
ROLES = ("task", "metric", "reflection")
MODEL = "openai/gpt-4o-mini"
CALL_SETTINGS = {
    "Request timeout (s)": "45",
    "Calls in flight": "3",
    "Retries": "4",
    "Budget per run (USD, 0 = none)": "2",
}


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(require_key=KEY) as server:
        yield server


def tab_through(field, value: str, *, replace: bool = False) -> None:
    """Click ``field``, type ``value`` key by key (over what it held, with ``replace``), and leave it by Tab."""
    field.click()
    if replace:
        field.press("ControlOrMeta+a")
    field.press_sequentially(value)
    field.press("Tab")


def test_every_field_typed_then_tabbed_past_or_saved_at_once_is_saved_and_the_key_sent(
    page: Page, server: str, workspace: Workspace, fake: FakeOpenAI
):
    """One session on the Settings page (each step once had a test and a page load of its own), in turn:

    - a key typed in the task model's panel, left by Tab and saved at once is saved (a key of its own, so the
      next step's key shows it replaced);
    - the reflection model, which has none yet: its model and API base typed and tabbed through;
    - for each model (task, metric, reflection): a key typed then tabbed past, then the prices typed and tabbed
      through; then the call settings, each typed over its value and tabbed past but the last, followed by the
      click on "Save settings" with nothing between. That one "Save settings" keeps them all: each panel says
      its key and prices are used, the models, prices and call settings are stored, and "Test connection"
      sends the key (the fake server answers only to it).
    """
    workspace.settings.save_models(ModelSettings(**{role: ModelConfig(MODEL, fake.url) for role in ROLES[:2]}))
    page.goto(f"{server}/settings")
    expect(page.get_by_role("heading", name="Settings")).to_be_visible(timeout=30_000)
    wait_for_app_run(page)

    # Saved at once: typed, left by Tab, then "Save settings" with no other field between.
    panel = page.locator(".st-key-settings-panel-task")
    tab_through(panel.get_by_label("API key for this session (optional)", exact=True), KEY_AT_ONCE)
    page.get_by_role("button", name="Save settings").click()
    wait_for_app_run(page)
    expect(panel.get_by_text("Key: typed in for this session (…1111)")).to_be_visible()

    # The reflection model's own fields, then each model's key and prices: Tab from one field to the next.
    panel = page.locator(".st-key-settings-panel-reflection")
    tab_through(panel.get_by_label("Model (a litellm model name)", exact=True), MODEL)
    tab_through(panel.get_by_label("API base (optional)", exact=True), fake.url)
    for role in ROLES:
        panel = page.locator(f".st-key-settings-panel-{role}")
        # Leaves the field (to the next one; the key field has no show-password button): the value is sent.
        tab_through(panel.get_by_label("API key for this session (optional)", exact=True), KEY)
        tab_through(panel.get_by_label("Input $ per 1M tokens", exact=True), "0.15")
        tab_through(panel.get_by_label("Output $ per 1M tokens", exact=True), "0.6")
    *tabbed, (last, value) = CALL_SETTINGS.items()
    for label, typed in tabbed:
        tab_through(page.get_by_label(label, exact=True), typed, replace=True)
    budget = page.get_by_label(last, exact=True)
    budget.click()
    budget.press("ControlOrMeta+a")
    budget.press_sequentially(value)  # and straight to "Save settings"
    expect(page.get_by_text("Key: typed in for this session (…WXYZ)")).to_have_count(0)  # not saved yet
    page.get_by_role("button", name="Save settings").click()
    wait_for_app_run(page)

    expect(page.get_by_text(re.compile(r"Metrics' llm\(\) calls use openai/gpt-4o-mini"))).to_be_visible()
    saved = workspace.settings.models()
    for role in ROLES:
        panel = page.locator(f".st-key-settings-panel-{role}")
        expect(panel.get_by_text("Key: typed in for this session (…WXYZ)")).to_be_visible()
        expect(panel.get_by_text("Costs use the prices entered here.")).to_be_visible()
        assert saved.config(role) == ModelConfig(MODEL, fake.url, price_per_million=(0.15, 0.6)), role
    assert (saved.request_timeout_s, saved.concurrency, saved.max_retries, saved.max_cost_usd) == (45, 3, 4, 2)
    panel.get_by_role("button", name="Test connection").click()
    expect(panel.get_by_text(re.compile(r"replied “PASS\. The triage fits\.”"))).to_be_visible()
    assert fake.requests[-1].authorization == f"Bearer {KEY}"

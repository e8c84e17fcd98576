"""Settings in headless Chromium: every field's value is taken on "Save settings", whatever order a person
moves through the fields in (typing, then Tab to the next field, never Enter).

Leaving a field by Tab sends its value and starts a script run; typing in the next field and leaving it by Tab
starts another one, which may interrupt the first. A fake OpenAI-compatible server on 127.0.0.1 insists on the
typed key, so "Test connection" proves which key the server sent.
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


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(require_key=KEY) as server:
        yield server


def open_settings(page: Page, server: str) -> None:
    page.goto(f"{server}/settings")
    expect(page.get_by_role("heading", name="Settings")).to_be_visible(timeout=30_000)
    wait_for_app_run(page)


def test_a_key_typed_then_saved_at_once_or_tabbed_past_is_saved_and_sent(
    page: Page, server: str, workspace: Workspace, fake: FakeOpenAI
):
    """One session on the Settings page (each step once had a test and a page load of its own), in turn:

    - a key typed in the task model's panel, left by Tab and saved at once is saved (a key of its own, so the
      next step's key shows it replaced);
    - for each model (task, metric, reflection): a key typed then tabbed past, then the prices typed and tabbed
      through, are saved on "Save settings"; the panel says the key and the prices are used, the prices are
      stored, and "Test connection" sends that key (the fake server answers only to it).
    """
    workspace.settings.save_models(ModelSettings(**{role: ModelConfig(MODEL, fake.url) for role in ROLES}))
    open_settings(page, server)

    # Saved at once: typed, left by Tab, then "Save settings" with no other field between.
    panel = page.locator(".st-key-settings-panel-task")
    key = panel.get_by_label("API key for this session (optional)", exact=True)
    key.click()
    key.press_sequentially(KEY_AT_ONCE)
    key.press("Tab")
    page.get_by_role("button", name="Save settings").click()
    wait_for_app_run(page)
    expect(panel.get_by_text("Key: typed in for this session (…1111)")).to_be_visible()

    for role in ROLES:
        panel = page.locator(f".st-key-settings-panel-{role}")
        expect(panel.get_by_text("Key: typed in for this session (…WXYZ)")).to_have_count(0)  # not yet
        key = panel.get_by_label("API key for this session (optional)", exact=True)
        key.click()
        key.press_sequentially(KEY)
        key.press("Tab")  # leaves the field (to its show-password button): the value is sent, a run starts
        price = panel.get_by_label("Input $ per 1M tokens", exact=True)
        price.click()
        price.press_sequentially("0.15")
        price.press("Tab")
        panel.get_by_label("Output $ per 1M tokens", exact=True).press_sequentially("0.6")
        page.get_by_role("button", name="Save settings").click()
        wait_for_app_run(page)

        expect(panel.get_by_text("Key: typed in for this session (…WXYZ)")).to_be_visible()
        expect(panel.get_by_text("Costs use the prices entered here.")).to_be_visible()
        assert workspace.settings.models().config(role).price_per_million == (0.15, 0.6), role
        panel.get_by_role("button", name="Test connection").click()
        expect(panel.get_by_text(re.compile(r"replied “PASS\. The triage fits\.”"))).to_be_visible()
        assert fake.requests[-1].authorization == f"Bearer {KEY}", role


def test_every_other_field_tabbed_through_is_saved(page: Page, server: str, workspace: Workspace, fake: FakeOpenAI):
    """The model's fields and the call settings, each typed and left by Tab (no Enter, no wait), then saved."""
    open_settings(page, server)
    panel = page.locator(".st-key-settings-panel-reflection")
    for label, value in (("Model (a litellm model name)", MODEL), ("API base (optional)", fake.url)):
        field = panel.get_by_label(label, exact=True)
        field.click()
        field.press_sequentially(value)
        field.press("Tab")
    changes = {
        "Input $ per 1M tokens": "0.15",
        "Output $ per 1M tokens": "0.6",
        "Request timeout (s)": "45",
        "Calls in flight": "3",
        "Retries": "4",
        "Budget per run (USD, 0 = none)": "2",
    }
    for label, value in changes.items():
        field = page.get_by_label(label, exact=True)
        field.click()
        field.press("ControlOrMeta+a")
        field.press_sequentially(value)
        field.press("Tab")
    page.get_by_role("button", name="Save settings").click()
    wait_for_app_run(page)

    expect(page.get_by_text(re.compile(r"Metrics' llm\(\) calls use openai/gpt-4o-mini"))).to_be_visible()
    saved = workspace.settings.models()
    assert saved.reflection == ModelConfig(MODEL, fake.url, price_per_million=(0.15, 0.6))
    assert (saved.request_timeout_s, saved.concurrency, saved.max_retries, saved.max_cost_usd) == (45, 3, 4, 2)

"""The Settings page through Streamlit's AppTest: models saved, keys kept in the session only (and sent: by each
model's "Test connection", and with every judge call of the Author page's "Score all cases"), test connection."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.llm import STORE_KEY, ModelConfig, ModelSettings, load_settings, save_settings
from skynet_core.store import Store
from skynet_core.store.runs import RunStore
from tests.app.harness import button, go_to, open_app, run_until
from tests.fake_openai import FakeOpenAI
from ui.keys import RUN_NUMBER

SECRET = "sk-typed-secret-0123456789WXYZ"


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(latency_s=0.02) as fake:
        yield fake


def open_page() -> AppTest:
    return open_app("settings")


def plain(markdown: str) -> str:
    """Markdown escaped by ``display.markdown_text``, as the reader sees it."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")


def texts(at: AppTest) -> str:
    """Everything the page shows as text, for asserting what a user can read."""
    parts = [
        element.value
        for kind in ("markdown", "caption", "success", "error", "warning", "info")
        for element in getattr(at.main, kind)
    ]
    parts += [toast.value for toast in at.toast]
    parts += [str(widget.value) for widget in at.text_input]
    return "\n".join(str(part) for part in parts)


def sent_to_the_browser(at: AppTest) -> bytes:
    """Every element the last run drew, as the messages the browser gets (their fields, whatever their kind)."""
    from google.protobuf.message import Message

    found, stack = [], [at._tree]
    while stack:
        node = stack.pop()
        proto = getattr(node, "proto", None)
        if isinstance(proto, Message):
            found.append(proto.SerializeToString())
        stack += list(getattr(node, "children", {}).values())
    return b"".join(found)


def configure(at: AppTest, server: FakeOpenAI, model: str = "openai/gpt-4o-mini") -> AppTest:
    at.text_input(key="settings.metric.model").input(model)
    at.text_input(key="settings.metric.api_base").input(server.url)
    return at.run()


def test_without_any_model_the_page_says_how_to_set_one(data_dir) -> None:
    at = open_page()
    assert at.main.warning[0].value.startswith("No model answers metrics' `llm()` calls: give a metric model")
    assert "SKYNET_METRIC_MODEL" in at.main.warning[0].value


def test_the_environment_gives_the_defaults(data_dir, monkeypatch) -> None:
    monkeypatch.setenv("SKYNET_REFLECTION_MODEL", "openai/gpt-4o")
    monkeypatch.setenv("SKYNET_REFLECTION_API_BASE", "http://127.0.0.1:11434/v1")
    at = open_page()
    assert at.text_input(key="settings.reflection.model").value == "openai/gpt-4o"
    assert at.text_input(key="settings.metric.model").value == ""
    assert "openai/gpt-4o" in at.main.success[0].value and "reflection model" in at.main.success[0].value


def test_the_environment_panel_is_text_that_shows_each_value_literally(data_dir, monkeypatch) -> None:
    """The server's defaults are a few lines a person reads: text in the page (a canvas grid would load the table
    component for them), each value as written, even one that looks like markdown."""
    monkeypatch.setenv("SKYNET_METRIC_API_BASE", "http://127.0.0.1:8000/v1|*x*")
    at = open_page()
    assert not at.main.dataframe
    table = next(m.value for m in at.main.markdown if "SKYNET_METRIC_API_BASE" in m.value)
    row = next(line for line in table.splitlines() if "SKYNET_METRIC_API_BASE" in line)
    assert plain(row.split(" | ", 1)[1]).startswith("http://127.0.0.1:8000/v1|*x*")
    assert "(not set)" in next(line for line in table.splitlines() if "SKYNET_METRIC_MODEL" in line)


def test_settings_round_trip_through_the_store(data_dir, server) -> None:
    at = configure(open_page(), server)
    at.text_input(key="settings.reflection.model").input("openai/reflector").run()  # its prices show then
    at.number_input(key="settings.reflection.price_in").set_value(0.5)
    at.number_input(key="settings.reflection.price_out").set_value(1.5)
    at.slider(key="settings.temperature").set_value(0.3)
    at.number_input(key="settings.timeout").set_value(12.0)
    at.number_input(key="settings.concurrency").set_value(4)
    at.number_input(key="settings.retries").set_value(3)
    at.run()
    assert "Unsaved changes" in texts(at)
    at.button(key="settings.save").click().run()
    assert not at.exception

    saved = load_settings(Store(data_dir))
    assert saved.metric == ModelConfig("openai/gpt-4o-mini", server.url)
    assert saved.reflection == ModelConfig("openai/reflector", price_per_million=(0.5, 1.5))
    assert (saved.temperature, saved.request_timeout_s, saved.concurrency, saved.max_retries) == (0.3, 12.0, 4, 3)
    assert "Unsaved changes" not in texts(at)
    assert "openai/gpt-4o-mini" in at.main.success[0].value and "the metric model" in at.main.success[0].value

    again = open_page()  # a new session reads what was saved
    assert again.text_input(key="settings.metric.api_base").value == server.url
    assert again.number_input(key="settings.reflection.price_out").value == 1.5
    assert again.number_input(key="settings.concurrency").value == 4

    again.button(key="settings.reset").click().run()
    assert Store(data_dir).get(STORE_KEY) is None
    assert again.text_input(key="settings.metric.model").value == ""


def test_a_typed_key_is_masked_kept_in_the_session_and_never_written(data_dir, server) -> None:
    at = configure(open_page(), server)
    at.text_input(key="settings.metric.key").input(SECRET)
    at.button(key="settings.save").click().run()
    assert not at.exception
    shown = texts(at)
    assert "typed in for this session (…WXYZ)" in shown
    assert SECRET not in shown and at.text_input(key="settings.metric.key").value == ""
    assert "(…WXYZ)".encode() in sent_to_the_browser(at) and SECRET.encode() not in sent_to_the_browser(at)
    assert at.session_state["studio.llm_keys"] == {"metric": SECRET}
    for path in data_dir.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), f"the key was written to {path.name}"
            assert b"0123456789WXYZ" not in path.read_bytes()

    at.button(key="settings.metric.test").click().run()
    assert server.requests[-1].authorization == f"Bearer {SECRET}"
    assert "replied" in at.main.success[-1].value

    at.button(key="settings.metric.forget").click().run()
    assert at.session_state["studio.llm_keys"] == {}
    assert "typed in for this session" not in texts(at)


def test_each_models_test_connection_sends_the_key_typed_in_its_own_panel(data_dir, server) -> None:
    roles = ("task", "metric", "reflection")
    save_settings(Store(data_dir), ModelSettings(**{role: ModelConfig(f"openai/{role}", server.url) for role in roles}))
    at = open_page()
    for role in roles:
        at.text_input(key=f"settings.{role}.key").input(f"sk-{role}-key-0123456789")
    at.button(key="settings.save").click().run()
    for role in roles:
        at.button(key=f"settings.{role}.test").click().run()
        assert (server.requests[-1].model, server.requests[-1].authorization) == (
            role,
            f"Bearer sk-{role}-key-0123456789",
        )


def test_the_key_typed_here_goes_with_every_judge_call_of_score_all_on_the_author_page(data_dir) -> None:
    """The same session on the Author page, the model-as-judge example as the draft: its contract check and
    "Score all cases" ask the local server, which answers only to the key typed on the Settings page."""
    from tests.i18n_scan import texts as shown

    Store(data_dir).save_draft(EXAMPLE_METRICS["Model as judge"].read_text(encoding="utf-8"))
    with FakeOpenAI(require_key=SECRET) as judge:
        at = configure(open_page(), judge)
        at.text_input(key="settings.metric.key").input(SECRET)
        at.button(key="settings.save").click().run()
        go_to(at, "author")
        run_until(at, lambda at: any("meets the contract" in item.value for item in at.success), what="the check")
        checked = len(judge.requests)
        button(at, "Score all cases").click().run()
        scored = "Showing 72 of 72 scored cases"
        run_until(at, lambda at: any(scored in text for text in shown(at, "main")), 120, what="the scored cases")
        requests = list(judge.requests)
    results = RunStore(data_dir).latest("example").results
    assert len(results) == 72 and all(r.ok and r.feedback == "PASS. The triage fits." for r in results)
    assert checked > 0 and len(requests) >= 72  # the check's answers are cached: Score all asks the rest
    assert {request.authorization for request in requests} == {f"Bearer {SECRET}"}


def test_test_connection_shows_reply_latency_and_cost(data_dir, server) -> None:
    at = configure(open_page(), server)
    at.button(key="settings.metric.test").click().run()
    message = at.main.success[-1].value
    assert "replied “PASS. The triage fits.”" in message and " ms " in message and "cost $0.0000" in message
    assert server.requests[-1].system.startswith("This is a connection test")


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        (lambda s: setattr(s, "require_key", "sk-other-key-0000"), "rejected the API key"),
        (lambda s: setattr(s, "models", {"something-else"}), "does not know the model"),
        (lambda s: setattr(s, "script", [503]), "failed to answer"),
    ],
)
def test_test_connection_shows_each_failure_clearly(data_dir, server, setup, expected) -> None:
    setup(server)
    at = configure(open_page(), server)
    at.button(key="settings.metric.test").click().run()
    assert expected in plain(at.main.error[-1].value)


def test_test_connection_reports_an_unreachable_server_and_a_timeout(data_dir, server) -> None:
    at = open_page()
    at.text_input(key="settings.metric.model").input("openai/judge")
    at.text_input(key="settings.metric.api_base").input("http://127.0.0.1:9/v1").run()
    at.button(key="settings.metric.test").click().run()
    assert "could not reach http://127.0.0.1:9/v1" in plain(at.main.error[-1].value)
    server.latency_s = 2.5
    configure(at, server, "openai/judge")
    at.number_input(key="settings.timeout").set_value(1.0)
    at.button(key="settings.metric.test").click().run()
    assert "did not answer within 1 s" in plain(at.main.error[-1].value)


def test_a_model_without_a_known_price_asks_for_one(data_dir, server) -> None:
    at = configure(open_page(), server, "openai/local-judge")
    assert "litellm has no price for this model" in texts(at)
    at.number_input(key="settings.metric.price_in").set_value(1.0)
    at.run()
    assert "Enter both prices, or neither." in texts(at)


def test_the_judge_example_shows_judge_cost_and_time(data_dir, server) -> None:
    at = configure(open_page(), server)
    at.button(key="settings.try").click().run()
    assert at.session_state["studio.jobs.settings.try"].job.wait(60)  # it runs in the background
    at.run()
    assert not at.exception
    metrics = {metric.label: metric.value for metric in at.metric}
    assert metrics["Judge calls"] == "5"
    assert metrics["Judge time per 1,000 cases"].endswith(" s")
    assert metrics["Judge cost per 1,000 cases"].startswith("$")
    assert len(server.requests) == 5


def test_the_isolation_level_is_shown(data_dir) -> None:
    at = open_page()
    assert any("full" in element.value or "reduced" in element.value for element in at.main.markdown)


def test_a_connection_test_of_other_values_is_not_shown_after_the_model_changes(data_dir, server) -> None:
    at = configure(open_page(), server, "openai/first")
    at.button(key="settings.metric.test").click().run()
    assert at.main.success or at.main.error
    shown = len(at.main.success) + len(at.main.error)
    at.text_input(key="settings.metric.model").input("openai/second").run()
    assert len(at.main.success) + len(at.main.error) == shown - 1


def test_call_cap_budget_and_ray_address_are_saved(data_dir: Path) -> None:
    at = open_page()
    from skynet_core.llm import API_BASE_KEY_RULE

    assert API_BASE_KEY_RULE not in [c.value for c in at.main.caption]  # said beside a key field: none without a model
    at.text_input(key="settings.metric.model").input("openai/gpt-4o-mini").run()
    assert [c.value for c in at.main.caption].count(API_BASE_KEY_RULE) == 1
    at.number_input(key="settings.max_calls").set_value(7)
    at.number_input(key="settings.budget").set_value(2.5)
    at.text_input(key="settings.ray_address").input("127.0.0.2:1")
    at.button(key="settings.save").click().run()
    assert not at.exception, at.exception
    saved = load_settings(Store(data_dir))
    assert saved.max_calls_per_case == 7 and saved.max_cost_usd == 2.5
    from skynet_core.workspace import Workspace

    assert Workspace(data_dir).settings.ray_address() == "127.0.0.2:1"
    at.number_input(key="settings.budget").set_value(0.0)
    at.text_input(key="settings.ray_address").input("")
    at.button(key="settings.save").click().run()
    assert load_settings(Store(data_dir)).max_cost_usd is None
    assert Workspace(data_dir).settings.ray_address() == ""


def test_placeholders_read_as_examples_and_empty_means_not_set(data_dir) -> None:
    at = open_page()
    for role in ("metric", "reflection"):
        model = at.text_input(key=f"settings.{role}.model")
        assert model.value == "" and model.placeholder.startswith("e.g. openai/gpt-4o-mini")
        assert at.text_input(key=f"settings.{role}.api_base").placeholder.startswith("e.g. http://")
    assert at.text_input(key="settings.ray_address").placeholder.startswith("e.g. ")
    notes = [item.value for item in at.main.caption if "Not set" in item.value]
    assert len(notes) == 3 and "no model answers metrics' `llm()` calls" in notes[0]  # metric, reflection, task
    assert '"Does this feedback help?"' in notes[2]

    at.text_input(key="settings.reflection.model").input("openai/gpt-4o").run()
    notes = [item.value for item in at.main.caption if "Not set" in item.value]
    assert notes[0] == ":material/info: Not set: metrics' `llm()` calls use the reflection model."
    assert len(notes) == 2 and '"Does this feedback help?"' in notes[1]  # the task model is still not set
    at.button(key="settings.save").click().run()
    saved = load_settings(Store(data_dir))
    assert saved.metric is None and saved.reflection is not None  # the empty field is saved as "not set"


def test_an_old_connection_error_goes_when_the_model_or_timeout_changes(data_dir, server) -> None:
    at = open_page()
    at.text_input(key="settings.metric.model").input("openai/judge")
    at.text_input(key="settings.metric.api_base").input("http://127.0.0.1:9/v1").run()
    at.button(key="settings.metric.test").click().run()
    assert len(at.main.error) == 1 and "could not reach" in plain(at.main.error[0].value)
    at.text_input(key="settings.metric.model").input("openai/other").run()
    assert not at.main.error  # the error was about other values
    at.button(key="settings.metric.test").click().run()
    assert len(at.main.error) == 1
    at.number_input(key="settings.timeout").set_value(5.0).run()
    assert not at.main.error
    at.button(key="settings.save").click().run()
    assert not at.main.error and not at.exception


def test_the_settings_page_reads_in_chinese(data_dir, server) -> None:
    from tests.i18n_scan import english_words, render

    at = render("settings")
    assert at.title[0].value == "设置"
    names = {"skynet_metric_model", "skynet_metric_api_base", "skynet_reflection_model", "skynet_reflection_api_base"}
    names |= {"head", "host", "usd", "key", "variable", "value", "token", "off"}  # a placeholder's name, units, terms
    assert english_words(at, allowed=names, where="main") == []


def fields(at: AppTest) -> set[str]:
    return {str(widget.key) for kind in ("text_input", "number_input", "button") for widget in getattr(at.main, kind)}


def test_a_model_s_key_prices_and_test_are_drawn_once_it_has_a_model(data_dir) -> None:
    """A key, prices and a connection test mean nothing without a model: a panel whose model field is empty says
    what that means and draws the model and API base fields only."""
    at = open_page()
    for role in ("metric", "reflection", "task"):
        assert {f"settings.{role}.model", f"settings.{role}.api_base"} <= fields(at)
        assert not {f"settings.{role}.{name}" for name in ("key", "price_in", "price_out", "test")} & fields(at)
    at.text_input(key="settings.reflection.model").input("openai/gpt-4o").run()
    for name in ("key", "price_in", "price_out", "test"):
        assert f"settings.reflection.{name}" in fields(at)
    assert not at.text_input(key="settings.reflection.key").placeholder.startswith("sk-")
    assert "settings.metric.key" not in fields(at)


def test_prices_typed_for_a_model_come_back_with_it(data_dir) -> None:
    at = open_page()
    at.text_input(key="settings.task.model").input("openai/task").run()
    at.number_input(key="settings.task.price_in").set_value(0.25)
    at.number_input(key="settings.task.price_out").set_value(2.0).run()
    at.text_input(key="settings.task.model").input("").run()
    assert "settings.task.price_in" not in fields(at)
    at.run()  # a run more: Streamlit has forgotten the fields it did not draw
    at.text_input(key="settings.task.model").input("openai/task").run()
    assert at.number_input(key="settings.task.price_in").value == 0.25
    assert at.number_input(key="settings.task.price_out").value == 2.0


def test_unsaved_edits_outlive_a_visit_to_another_page(data_dir, server) -> None:
    """Nothing typed is lost across navigation: the form's edits are there on coming back, still unsaved."""
    at = configure(open_page(), server)
    at.number_input(key="settings.concurrency").set_value(5)
    at.text_input(key="settings.metric.key").input(SECRET).run()
    go_to(at, "history")
    go_to(at, "runs")  # two runs elsewhere: Streamlit forgets a field after one run that does not draw it
    go_to(at, "settings")
    assert not at.exception
    assert at.text_input(key="settings.metric.model").value == "openai/gpt-4o-mini"
    assert at.text_input(key="settings.metric.api_base").value == server.url
    assert at.number_input(key="settings.concurrency").value == 5
    assert at.text_input(key="settings.metric.key").value == SECRET
    assert "Unsaved changes" in texts(at)
    assert Store(data_dir).get(STORE_KEY) is None  # nothing saved meanwhile

    at.button(key="settings.save").click().run()
    assert load_settings(Store(data_dir)).concurrency == 5
    go_to(at, "history")
    go_to(at, "settings")
    assert "Unsaved changes" not in texts(at) and at.text_input(key="settings.metric.key").value == ""

    at.number_input(key="settings.concurrency").set_value(6).run()
    at.button(key="settings.reset").click().run()
    go_to(at, "history")
    go_to(at, "settings")  # a reset leaves no edit to bring back
    assert "Unsaved changes" not in texts(at) and at.number_input(key="settings.concurrency").value != 6


def test_values_sent_after_an_interrupted_run_are_kept(data_dir) -> None:
    """A run that the next keystroke interrupts (Tab out of one field while the run of the field before goes on)
    never finishes. The run after it got the browser's values and must keep them: the page wrote the saved ones
    over them instead (it trusted only the fields noted by the run just before, noted at its end), and prices
    typed and left by Tab while runs came one after another were saved as none (tests/e2e/
    test_settings_focus_e2e.py, on a busy machine)."""
    at = open_page()
    at.text_input(key="settings.reflection.model").input("openai/gpt-4o").run()
    at.session_state[RUN_NUMBER] = at.session_state[RUN_NUMBER] + 1  # a run of this page began, then was interrupted
    at.number_input(key="settings.reflection.price_in").set_value(0.15)
    at.number_input(key="settings.reflection.price_out").set_value(0.6).run()
    assert (at.number_input(key="settings.reflection.price_in").value, at.number_input(
        key="settings.reflection.price_out").value) == (0.15, 0.6)  # fmt: skip
    at.button(key="settings.save").click().run()
    assert load_settings(Store(data_dir)).reflection.price_per_million == (0.15, 0.6)

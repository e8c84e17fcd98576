"""The Settings page's key field says what leaving it empty means, and says the same as the key line under it:
the server's own key goes to the provider's endpoint, never to an API base typed in the browser. In Chinese, the
key line of a key typed for the session reads in Chinese."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.harness import open_app


def key_line(at: AppTest) -> str:
    return next(m.value for m in at.main.markdown if "Key:" in m.value).replace("\\", "")


def test_an_empty_key_for_a_typed_api_base_is_said_to_send_no_key(data_dir, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-server-own-0123456789")
    at = open_app("settings")
    at.text_input(key="settings.metric.model").input("openai/judge")
    at.text_input(key="settings.metric.api_base").input("http://127.0.0.1:8000/v1").run()
    field = at.text_input(key="settings.metric.key")
    assert "server's own keys do not go to an API base typed in the browser" in key_line(at)
    assert field.placeholder == "empty: no key is sent to this API base"
    assert "Empty: no key is sent" in field.help
    assert "OPENAI_API_KEY" not in field.placeholder + field.help


def test_an_empty_key_for_the_providers_endpoint_is_the_servers_variable(data_dir, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-server-own-0123456789")
    at = open_app("settings")
    at.text_input(key="settings.metric.model").input("openai/judge").run()
    field = at.text_input(key="settings.metric.key")
    assert "OPENAI_API_KEY from the server's environment" in key_line(at)
    assert field.placeholder == "empty: the server's OPENAI_API_KEY"
    assert "Empty: the server's OPENAI_API_KEY" in field.help


def test_an_empty_key_field_after_saving_a_key_keeps_this_sessions_key(data_dir) -> None:
    at = open_app("settings")
    at.text_input(key="settings.metric.model").input("openai/judge")
    at.text_input(key="settings.metric.api_base").input("http://127.0.0.1:8000/v1").run()
    at.text_input(key="settings.metric.key").input("sk-typed-0123456789WXYZ")
    next(button for button in at.button if button.label == "Save settings").click().run()
    field = at.text_input(key="settings.metric.key")
    assert field.value == ""
    assert "typed in for this session (…WXYZ)" in key_line(at)
    assert field.placeholder == "empty: this session's key (…WXYZ)"
    assert "Empty: this session's key (…WXYZ)" in field.help


def test_the_key_line_of_a_key_typed_for_this_session_reads_in_chinese(data_dir) -> None:
    at = open_app("settings", language="zh_CN")
    at.text_input(key="settings.metric.model").input("openai/judge").run()
    at.text_input(key="settings.metric.key").input("sk-typed-in-the-browser-1234")
    at.button(key="settings.save").click().run()
    line = next(m.value for m in at.main.markdown if "密钥：" in m.value).replace("\\", "")
    assert "已为本会话输入（…1234）" in line, line
    assert "typed in for this session" not in line

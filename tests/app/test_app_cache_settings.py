"""The Settings page's answer cache and sandbox cap through AppTest: the switch and the bound saved at once, the
cache's size and its "Clear" button, the cap saved and applied to the process, back to the default; in Chinese."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from streamlit.testing.v1 import AppTest

from skynet_core.cases import Case
from skynet_core.llm.cache import CachedAnswer, CacheSetting
from skynet_core.metric.source import MetricSource
from skynet_core.scoring.runner.limit import default_capacity, sandbox_limit
from skynet_core.workspace import Workspace
from skynet_core.workspace.jobs import JobSlot
from tests.app.harness import button, open_app, run_until
from ui import keys as K
from ui.studio import open_workspace


@pytest.fixture(autouse=True)
def cap_restored() -> Iterator[None]:
    """The process's sandbox cap as it was (the cap is process-wide; the page sets it)."""
    before = sandbox_limit().capacity
    yield
    sandbox_limit().set_capacity(before)


def captions(at: AppTest) -> str:
    return "\n".join(str(item.value) for item in at.main.caption)


def test_the_cache_is_on_by_default_and_its_switch_and_bound_are_saved(data_dir) -> None:
    at = open_app("settings")
    toggle = at.toggle(key=K.SETTINGS_CACHE_ON)
    assert toggle.value is True and toggle.label == "Reuse the model's answers"
    assert "0 answers kept: 0.0 MB of 100.0 MB" in captions(at)
    toggle.set_value(False).run()
    assert Workspace(data_dir, env={}).bounds.cache_setting() == CacheSetting(enabled=False)
    assert Workspace(data_dir, env={}).settings.models().cache is False
    assert at.toggle(key=K.SETTINGS_CACHE_ON).value is False
    at.number_input(key=K.SETTINGS_CACHE_MB).set_value(250.0).run()
    assert Workspace(data_dir, env={}).bounds.cache_setting() == CacheSetting(enabled=False, max_mb=250.0)
    assert "of 250.0 MB" in captions(at) and not at.exception


def test_the_caches_size_is_shown_and_clear_empties_it(data_dir) -> None:
    cache = Workspace(data_dir, env={}).bounds.answer_cache()
    for number in range(3):
        cache.store(f"key-{number}", CachedAnswer("PASS " * 1000, "openai/judge", 10, 2, 0.001, 200.0))
    at = open_app("settings")
    assert "3 answers kept" in captions(at)
    clear = button(at, "Clear")
    assert not clear.disabled
    clear.click().run()
    assert cache.usage().entries == 0
    assert "0 answers kept" in captions(at) and button(at, "Clear").disabled
    assert "Answer cache cleared" in at.toast[0].value


def test_the_sandbox_cap_is_raised_applied_and_set_back_to_the_default(data_dir) -> None:
    default = default_capacity()
    at = open_app("settings")
    cap = at.number_input(key=K.SETTINGS_SANDBOX_CAP)
    assert cap.value == default and button(at, f"Use the default ({default})").disabled
    # The Author page's first run (open_app starts there) checks the draft in a sandbox: wait for it to end.
    idle = f"Now: 0 of {default} in use; 0 jobs wait."
    run_until(at, lambda at: idle in captions(at), what="no sandbox in use")
    cap.set_value(default + 5).run()
    assert sandbox_limit().capacity == default + 5 == Workspace(data_dir, env={}).bounds.sandbox_cap()
    assert f"of {default + 5} in use" in captions(at)
    button(at, f"Use the default ({default})").click().run()
    assert sandbox_limit().capacity == default and at.number_input(key=K.SETTINGS_SANDBOX_CAP).value == default


def test_the_panel_in_chinese(data_dir) -> None:
    at = open_app("settings", language="zh_CN")
    assert at.toggle(key=K.SETTINGS_CACHE_ON).label == "复用模型的回答"
    assert any(item.value == "回答缓存" for item in at.main.subheader)
    assert "已保存 0 条回答" in captions(at) and "默认值为本机核心数的两倍" in captions(at)


def test_a_job_waiting_for_a_sandbox_says_so_in_the_sidebar(data_dir) -> None:
    """Two jobs of the studio's workspace (the one its pages use), one holding the only sandbox place: the
    sidebar of a page opened directly marks the other as waiting. (With ``workspace_for``'s workspace, another
    object on the same folder, the jobs were not the page's: the test passed only because the Author page, run
    first, queued its own check.)"""
    ws = open_workspace()
    ws.bounds.apply_sandbox_cap()
    ws.bounds.set_sandbox_cap(1)
    ws.settings.set_timeout_s(600)
    hangs = MetricSource.of("def score(input, output, expected=None):\n    while True:\n        pass\n")
    jobs = [
        ws.jobs.score(JobSlot(), hangs, [Case(id="a", input={"q": "x"}, output="y")], ws.settings.run_options())
        for _ in "ab"
    ]
    try:
        at = open_app("settings")

        def marked(at: AppTest) -> list[str]:
            return [item.value for item in at.sidebar.caption if "waiting for a sandbox" in item.value]

        run_until(at, lambda at: bool(marked(at)), timeout=120, what="a job marked as waiting for a sandbox")
        assert len(marked(at)) == 1
    finally:
        for job in jobs:
            job.cancel.set()
        assert all(job.wait(60) for job in jobs)

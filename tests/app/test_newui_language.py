"""Issue 23 ("Chinese left in English"): a button's callback runs before the page sets the session's language, so
a job it starts must be bound to the page's language (``i18n.with_language``): reward()'s feedback lines of a
Chinese session's "Score all" are Chinese."""

from __future__ import annotations

import re
from pathlib import Path

from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.i18n import use_language
from skynet_core.workspace import Workspace
from tests.app.harness import open_app, run_until

CHINESE = re.compile(r"[\u4e00-\u9fff]")


def test_score_all_in_a_chinese_session_writes_chinese_feedback(data_dir: Path) -> None:
    ws = Workspace(data_dir)
    ws.save_dataset_choice("example")
    ws.store.save_draft(EXAMPLE_METRICS["Accuracy, speed and cost"].read_text(encoding="utf-8"))
    at = open_app(language="zh_CN")
    with use_language("zh_CN"):  # AppTest formats the pickers' choices in the test's language
        at.button(key="author.score_all").click().run()
        run_until(at, lambda at: bool(Workspace(data_dir).run_summaries()), what="the saved run")
    run = Workspace(data_dir).run(Workspace(data_dir).run_summaries()[0].id)
    assert run is not None
    feedback = [result.feedback for result in run.results if result.feedback]
    assert feedback and all(CHINESE.search(text) and "Speed:" not in text for text in feedback), feedback[:2]

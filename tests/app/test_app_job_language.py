"""Issue 23 ("Chinese left in English"): a button's callback runs before the page sets the session's language, so
a job it starts must be bound to the page's language (``i18n.with_language``): reward()'s feedback lines of a
Chinese session's "Score all" are Chinese."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from streamlit.testing.v1 import AppTest

from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.i18n import use_language
from skynet_core.workspace import Workspace
from tests.app.harness import open_app, run_until, running_job

CHINESE = re.compile(r"[\u4e00-\u9fff]")


def scored(data_dir: Path) -> Callable[[AppTest], bool]:
    """Score all has ended and the page drew its end: its run is kept, and the session's job no longer runs.

    The run is kept a moment before the job ends; a page drawn in that moment still shows the progress line
    ("评分 · 72 / 72"), not the results' tally (CI failed once reading the page then)."""
    return lambda at: running_job(at) is None and bool(Workspace(data_dir).runs.summaries())


def test_score_all_in_a_chinese_session_writes_chinese_feedback(data_dir: Path) -> None:
    ws = Workspace(data_dir)
    ws.data.save_choice("example")
    ws.store.save_draft(EXAMPLE_METRICS["Accuracy, speed and cost"].read_text(encoding="utf-8"))
    at = open_app(language="zh_CN")
    with use_language("zh_CN"):  # AppTest formats the pickers' choices in the test's language
        at.button(key="author.score_all").click().run()
        run_until(at, scored(data_dir), what="the end of Score all")
    run = Workspace(data_dir).runs.get(Workspace(data_dir).runs.summaries()[0].id)
    assert run is not None
    feedback = [result.feedback for result in run.results if result.feedback]
    assert feedback and all(CHINESE.search(text) and "Speed:" not in text for text in feedback), feedback[:2]


def test_the_chinese_author_page_names_the_case_statuses_in_chinese(data_dir: Path) -> None:
    """The results' tally said "error 11 · ok 29" on the Chinese Author page: the status codes, not words."""
    ws = Workspace(data_dir)
    ws.data.save_choice("example")
    # A metric that fails on some cases (a KeyError on outputs of odd length) and scores the others.
    ws.store.save_draft(
        "def score(input, output, expected=None):\n"
        "    return (1.0, {'feedback': 'fine'}) if len(str(output)) % 2 else {}['x']\n"
    )
    at = open_app(language="zh_CN")
    with use_language("zh_CN"):
        at.button(key="author.score_all").click().run()
        run_until(at, scored(data_dir), what="the end of Score all")
        at.run()  # the run that ended the wait may have started before the job ended
    tallies = [caption.value for caption in at.caption if " · " in caption.value and re.search(r"\d", caption.value)]
    tally = next((text for text in tallies if "错误" in text), None)
    assert tally is not None and "成功" in tally, tallies
    assert not re.search(r"\b(ok|error|timeout|invalid)\b", tally), tally
    # Nor any other line that names a case's status (the check's sampled cases: "T-017 · train · ok · 抽样").
    shown = [element.value for kind in ("text", "markdown", "caption") for element in getattr(at, kind)]
    codes = [text for text in shown if re.search(r" · (ok|error|timeout|invalid)( ·|$)", str(text))]
    assert not codes, codes

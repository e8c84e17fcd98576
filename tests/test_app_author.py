"""The Author page through Streamlit's AppTest: the editor's text is fed through session state."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from skynet_core.datasets import load_example
from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.store import Store

APP = str(Path(__file__).resolve().parents[1] / "app.py")
SOURCE_KEY = "studio.metric_source"
SYNTAX_ERROR = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'ok'\n"
NEW_SCORE = ("def score(input, output, expected=None):\n"
             "    return 0.5, {'feedback': 'Half marks for trying.', 'scores': {'tone': 0.25}}\n")
LOOPS = "def score(input, output, expected=None):\n    while True:\n        pass\n"


@pytest.fixture
def app(tmp_path, monkeypatch) -> AppTest:
    monkeypatch.setenv("SKYNET_DATA_DIR", str(tmp_path))
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    return at


def run_until(at: AppTest, done: Callable[[AppTest], bool], timeout: float = 30.0) -> AppTest:
    """Rerun the page until ``done`` holds: the check and scoring run in background threads."""
    deadline = time.monotonic() + timeout
    while not done(at):
        assert time.monotonic() < deadline, "the page did not reach the expected state in time"
        time.sleep(0.1)
        at.run()
    assert not at.exception, at.exception
    return at


def verdict(at: AppTest) -> str:
    return " ".join([s.value for s in at.success] + [e.value for e in at.error])


def stage_lines(at: AppTest) -> dict[str, str]:
    lines = {}
    for block in at.markdown:
        for label in ("load", "signature", "reward spec", "metric return value"):
            if block.value.split("  \n")[0].endswith(tuple(f"**{label}** · {w}" for w in
                                                           ("passed", "skipped", "not run"))) \
                    or f"**{label}** · failed" in block.value:
                lines[label] = block.value
    return lines


def test_the_example_metric_passes_the_contract_on_first_open(app):
    run_until(app, lambda at: "meets the contract" in verdict(at))
    stages = stage_lines(app)
    assert "passed" in stages["load"] and "passed" in stages["signature"]
    assert "skipped" in stages["reward spec"] and "passed" in stages["metric return value"]
    assert app.session_state[SOURCE_KEY] == EXAMPLE_METRICS["Exact match"].read_text()
    assert len(app.table) == 1 and len(app.table[0].value.columns) == 3


def test_a_syntax_error_fails_load_with_its_line_and_later_stages_do_not_run(app, tmp_path):
    app.session_state[SOURCE_KEY] = SYNTAX_ERROR
    app.run()
    run_until(app, lambda at: "breaks the contract at **load**" in verdict(at))
    assert "metric.py line 2" in verdict(app)
    stages = stage_lines(app)
    assert "failed" in stages["load"] and "metric.py line 2" in stages["load"]
    assert all("not run" in stages[label] for label in ("signature", "reward spec", "metric return value"))
    assert any("metric.py line 2" in block.value for block in app.markdown if "arrow_right_alt" in block.value)


def test_fixing_the_metric_shows_new_feedback_and_named_score(app):
    app.session_state[SOURCE_KEY] = NEW_SCORE
    app.run()
    run_until(app, lambda at: "meets the contract" in verdict(at))
    sampled = app.table[0].value  # one column per sampled case
    assert "score.tone" in sampled.index
    assert set(sampled.loc["feedback"]) == {"Half marks for trying."}
    assert set(sampled.loc["score.tone"]) == {"0.250"}


def test_typed_text_is_saved_as_the_draft(app, tmp_path):
    app.session_state[SOURCE_KEY] = NEW_SCORE
    app.run()
    assert Store(tmp_path).draft() == NEW_SCORE
    fresh = AppTest.from_file(APP, default_timeout=30)
    fresh.run()
    assert fresh.session_state[SOURCE_KEY] == NEW_SCORE


def test_score_all_fills_the_table_with_every_case(app):
    run_until(app, lambda at: "meets the contract" in verdict(at))
    app.button(key="author.score_all").click().run()
    run_until(app, lambda at: len(at.dataframe) > 0, timeout=60)
    expected = len(load_example().for_candidate(load_example().candidates[0]))
    assert len(app.dataframe[0].value) == expected
    assert any(f"Showing {expected} of {expected} scored cases" in c.value for c in app.caption)
    assert any(m.label == "Mean score (ok cases)" for m in app.metric)


def test_status_filter_narrows_the_table(app):
    run_until(app, lambda at: "meets the contract" in verdict(at))
    app.button(key="author.score_all").click().run()
    run_until(app, lambda at: len(at.dataframe) > 0, timeout=60)
    app.multiselect(key="author.filter_status").select("ok").run()
    assert set(app.dataframe[0].value["status"]) == {"ok"}


def test_a_hanging_metric_times_out_with_a_clear_message(app):
    app.number_input(key="author.timeout").set_value(1).run()
    app.session_state[SOURCE_KEY] = LOOPS
    app.run()
    run_until(app, lambda at: "breaks the contract" in verdict(at), timeout=30)
    stages = stage_lines(app)
    assert "did not finish within 1 s" in stages["metric return value"]
    assert "case " in stages["metric return value"]  # the case that hung is named


def test_loading_the_reward_example_draws_the_weights_and_keeps_the_old_text(app, tmp_path):
    app.session_state[SOURCE_KEY] = NEW_SCORE
    app.run()
    app.selectbox(key="author.example").select("Accuracy, speed and cost").run()
    app.button[0].click().run()
    run_until(app, lambda at: "meets the contract" in verdict(at))
    assert app.session_state[SOURCE_KEY] == EXAMPLE_METRICS["Accuracy, speed and cost"].read_text()
    assert "passed" in stage_lines(app)["reward spec"]
    assert len(app.get("plotly_chart")) == 1
    assert [v.source for v in Store(tmp_path).versions()] == [NEW_SCORE]


def test_cancel_stops_scoring_and_keeps_the_cases_done(app):
    slow = ("import time\n\ndef score(input, output, expected=None):\n"
            "    time.sleep(0.1)\n    return 1.0, {'feedback': 'slow but fine'}\n")
    app.session_state[SOURCE_KEY] = slow
    app.run()
    run_until(app, lambda at: "meets the contract" in verdict(at))
    app.button(key="author.score_all").click().run()
    run_until(app, lambda at: any(b.key == "author.score.cancel" for b in at.button))
    app.button(key="author.score.cancel").click().run()
    run_until(app, lambda at: any("cancelled" in w.value for w in at.warning))
    warning = next(w.value for w in app.warning if "cancelled" in w.value)
    assert "of 72 cases" in warning
    assert len(app.dataframe) == 1 and len(app.dataframe[0].value) < 72


def test_litellm_is_not_imported_by_opening_the_app(tmp_path):
    # A fresh interpreter: other tests in this session may have imported litellm already.
    import os
    import subprocess
    import sys

    script = (
        "import sys, time\n"
        "from streamlit.testing.v1 import AppTest\n"
        f"at = AppTest.from_file({APP!r}, default_timeout=30)\n"
        "at.run()\n"
        "print('litellm' in sys.modules, not at.exception)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "SKYNET_DATA_DIR": str(tmp_path)}, cwd=Path(APP).parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-2:] == ["False", "True"]


def test_editor_events_set_the_text_and_ctrl_enter_checks_again(app):
    editor = f"author.editor.{app.session_state['author.editor_gen']}"
    app.session_state[editor] = {"id": "e1", "type": "change", "text": NEW_SCORE, "lang": "python"}
    app.run()
    run_until(app, lambda at: "meets the contract" in verdict(at))
    assert app.session_state[SOURCE_KEY] == NEW_SCORE
    assert app.session_state["author.editor_gen"] == int(editor.rsplit(".", 1)[1])  # the editor was not rebuilt
    first = app.session_state["studio.jobs.check"].job.id
    app.run()
    assert app.session_state["studio.jobs.check"].job.id == first  # same text: no new check
    app.session_state[editor] = {"id": "e2", "type": "submit", "text": NEW_SCORE, "lang": "python"}
    app.run()
    assert app.session_state["studio.jobs.check"].job.id != first  # Ctrl+Enter: checked again


def test_a_new_session_shows_the_last_scored_run(app, tmp_path):
    run_until(app, lambda at: "meets the contract" in verdict(at))
    app.button(key="author.score_all").click().run()
    run_until(app, lambda at: len(at.dataframe) > 0, timeout=60)
    scored = app.dataframe[0].value
    fresh = AppTest.from_file(APP, default_timeout=30)
    fresh.run()
    assert len(fresh.dataframe) == 1
    assert fresh.dataframe[0].value["id"].tolist() == scored["id"].tolist()
    assert any("Results of the last run, scored" in c.value for c in fresh.caption)
    from skynet_core.runs import RunStore

    runs = RunStore(tmp_path)
    assert runs.latest("example").id == 1  # the restored run was not saved a second time

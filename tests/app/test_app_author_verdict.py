"""Issue 23 on the Author page, through AppTest: the verdict takes what "Score all" found (item 6)."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from skynet_core.workspace import Workspace
from tests.app.harness import button, open_app, run_until
from tests.review_data import KEY_ERROR_METRIC, key_error_reviews, reviews_csv

FAILS_AT_12 = "11 of 40 cases fail at metric.py line 12"


def verdict(at: AppTest) -> str:
    return " ".join([item.value for item in at.success] + [item.value for item in at.error])


def marked_line(at: AppTest) -> str:
    """The note under the editor that names the line it marks ("" when none is marked)."""
    return next((block.value for block in at.markdown if "arrow_right_alt" in block.value), "")


def test_failures_of_score_all_become_the_verdict_and_mark_their_line(data_dir: Path, tmp_path: Path) -> None:
    ws = Workspace(data_dir)
    ws.data.save_choice(str(key_error_reviews(tmp_path)))
    ws.store.save_draft(KEY_ERROR_METRIC)
    at = open_app()
    run_until(at, lambda at: "The metric meets the contract." in verdict(at), what="the check's verdict")
    assert marked_line(at) == ""  # the three sampled cases all score
    button(at, "Score all cases").click()
    run_until(at, lambda at: FAILS_AT_12 in verdict(at), what="the verdict of Score all")
    assert "KeyError" in verdict(at) and "The metric meets the contract." not in verdict(at)
    assert "metric.py line 12" in marked_line(at)

    again = open_app()  # a new session: the saved run gives the same verdict
    run_until(again, lambda at: FAILS_AT_12 in verdict(at), what="the verdict of the saved run")
    assert "metric.py line 12" in marked_line(again)


def test_a_run_of_another_text_leaves_the_checks_verdict(data_dir: Path, tmp_path: Path) -> None:
    ws = Workspace(data_dir)
    ws.data.save_choice(str(key_error_reviews(tmp_path)))
    ws.store.save_draft(KEY_ERROR_METRIC)
    at = open_app()
    button(at, "Score all cases").click()
    run_until(at, lambda at: FAILS_AT_12 in verdict(at), what="the verdict of Score all")
    ws.store.save_draft(KEY_ERROR_METRIC.replace('expected["label"]', 'expected.get("label")'))
    fixed = open_app()
    run_until(fixed, lambda at: "The metric meets the contract." in verdict(at), what="the check's own verdict")
    assert FAILS_AT_12 not in verdict(fixed) and marked_line(fixed) == ""


def test_an_example_names_the_fields_it_needs_and_maps_them_to_the_data(data_dir: Path, tmp_path: Path) -> None:
    Workspace(data_dir).data.save_choice(str(reviews_csv(tmp_path)))
    at = open_app()
    at.selectbox(key="author.example").set_value("Model as judge").run()
    button(at, "Load").click()
    at.run()
    notice = " ".join(item.value for item in at.warning)
    assert "reads input\\['subject'\\], input\\['message'\\]" in notice
    assert "input\\['message'\\] → input\\['text'\\]" in notice
    button(at, "Map").click()
    at.run()
    draft = Workspace(data_dir).drafts.current().source
    assert "input['text']" in draft and "input['message']" not in draft
    assert [version.name.split(" (")[0] for version in Workspace(data_dir).drafts.versions()][:1] == [
        "before mapping the fields of Model as judge"
    ]

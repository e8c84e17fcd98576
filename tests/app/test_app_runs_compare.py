"""Issue 23 item 8 on the Runs page, through AppTest: Compare opens on two runs of one candidate, runs of two
candidates pair their cases by id when asked, and "size of change" puts the status changes first."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from skynet_core.workspace import Workspace
from tests.app.harness import open_app
from tests.review_data import four_runs, reviews_csv


def compare_page(data_dir: Path, tmp_path: Path) -> tuple[AppTest, list[int]]:
    ws = Workspace(data_dir)
    path = reviews_csv(tmp_path)
    ws.data.save_choice(str(path))
    kept = four_runs(ws.runs.store, str(path))
    at = open_app("runs")
    at.radio(key="runs.view").set_value("Compare two runs").run()
    assert not at.exception, at.exception
    return at, kept


def infos(at: AppTest) -> str:
    return " ".join(item.value for item in at.main.info)


def test_compare_opens_on_the_two_latest_runs_of_one_candidate(data_dir: Path, tmp_path: Path) -> None:
    at, (_small_1, large_1, _small_2, large_2) = compare_page(data_dir, tmp_path)
    assert (at.selectbox(key="runs.a").value, at.selectbox(key="runs.b").value) == (large_1, large_2)
    assert "no case in common" not in infos(at)
    assert [metric.value for metric in at.metric][-1] == "1"  # Status changed: r07, error → ok
    table = at.dataframe[1].value
    assert len(table) == 40
    assert list(table["id"])[0] == "r07" and list(table["status_change"])[0] == "error → ok"


def test_runs_of_two_candidates_pair_their_cases_by_id_when_asked(data_dir: Path, tmp_path: Path) -> None:
    at, (small_1, _large_1, small_2, _large_2) = compare_page(data_dir, tmp_path)
    at.selectbox(key="runs.a").set_value(small_1).run()
    assert "they scored different candidates" in infos(at)
    at.toggle(key="runs.by_id").set_value(True).run()
    assert not at.exception, at.exception
    assert "no case in common" not in infos(at)
    assert len(at.dataframe[1].value) == 40
    assert [metric.value for metric in at.metric][-1] == "1"
    at.selectbox(key="runs.b").set_value(small_2).run()  # one candidate again: nothing to pair across
    assert [toggle for toggle in at.toggle if toggle.key == "runs.by_id"] == []
    assert len(at.dataframe[1].value) == 40

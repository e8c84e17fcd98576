"""The Runs page through AppTest: the list of saved runs, opening one, comparing two, downloads and filters."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from skynet_core.cases import Case
from skynet_core.i18n import use_language
from skynet_core.provenance import Provenance
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.runs import RunKey, metric_hash
from skynet_core.store import Store
from skynet_core.store.runs import RunStore
from tests.app.harness import LANGUAGE_KEY, open_app
from tests.i18n_scan import english_words, render

SOURCE = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'Right.'}\n"
CASES = [
    Case("T-1", {"question": "refund?"}, {"label": "billing"}, {"label": "refund"}, "train"),
    Case("T-2", {"question": "hello"}, {"label": "other"}, {"label": "other"}, "val"),
    Case("T-3", {"question": "bye"}, {"label": "other"}, {"label": "other"}, "test"),
]
# User data and code words the zh scan must not count as untranslated English.
DATA_WORDS = {"refund", "billing", "other", "question", "label", "hello", "bye", "right", "wrong", "clear", "draft"}
# "Support tickets (example)" is the dataset's name.
DATA_WORDS |= {"support", "tickets", "example"}


def results(first: float, second_status: CaseStatus = CaseStatus.OK) -> list[CaseResult]:
    return [
        CaseResult("T-1", "train", score=first, scores={"label": first}, feedback="Wrong label: refund."),
        CaseResult(
            "T-2",
            "val",
            second_status,
            score=0.5 if second_status is CaseStatus.OK else None,
            scores={"label": 0.5} if second_status is CaseStatus.OK else {},
            feedback="Clear.",
            error="" if second_status is CaseStatus.OK else "KeyError: 'label'",
        ),  # fmt: skip
        CaseResult("T-3", "test", score=1.0, scores={"label": 1.0}, feedback="Right."),
    ]


@pytest.fixture
def seeded(data_dir) -> Path:
    """Two runs of the same dataset and metric.py, and that metric.py as a saved version."""
    Store(data_dir).save_version("clear feedback", SOURCE)
    runs = RunStore(data_dir)
    key = RunKey("/data/tickets.jsonl", "", None, metric_hash(SOURCE), "Tickets")
    made_by = Provenance("old-digest", "/data/tickets.jsonl", "Tickets", "", None)
    runs.save(key, results(0.0), metric_source=SOURCE, provenance=made_by, cases=CASES)
    runs.save(key, results(1.0, CaseStatus.ERROR), metric_source=SOURCE, provenance=made_by, cases=CASES)
    return data_dir


def open_page(**state) -> AppTest:
    return open_app("runs", state=state)


def test_with_no_runs_the_page_says_how_to_make_one():
    at = open_page()
    assert "Score all cases" in at.main.info[0].value


def test_the_list_shows_every_run_with_its_mean_statuses_and_whether_it_is_current(seeded):
    at = open_page()
    runs = at.dataframe[0].value
    assert list(runs["run"]) == [2, 1]
    assert list(runs["statuses"]) == ["ok 2 · error 1", "ok 3"]
    assert list(runs["dataset"]) == ["Tickets", "Tickets"] and not runs["current"].any()
    assert runs["mean"].iloc[1] == pytest.approx(0.5)


def test_opening_a_run_shows_its_cases_with_inputs_and_the_error_share(seeded):
    at = open_page()
    at.selectbox(key="runs.open").set_value(1).run()
    table = at.dataframe[1].value
    assert list(table["id"]) == ["T-3", "T-2", "T-1"]  # highest score first
    assert table.set_index("id").loc["T-1", "input"] == '{"question":"refund?"}'
    assert [metric.value for metric in at.metric][:4] == ["3", "0.500", "100.0%", "0.0%"]
    at.selectbox(key="runs.open").set_value(2).run()
    assert [metric.value for metric in at.metric][2:4] == ["66.7%", "33.3%"]
    assert any("out of date" in warning.value for warning in at.warning)  # the run's metric is not the draft


def test_filters_on_one_run(seeded):
    at = open_page()
    at.multiselect(key="runs.case.status").set_value(["error"]).run()
    assert list(at.dataframe[1].value["id"]) == ["T-2"]
    at.multiselect(key="runs.case.status").set_value([]).run()
    at.text_input(key="runs.case.text").input("REFUND").run()
    assert list(at.dataframe[1].value["id"]) == ["T-1"]
    at.text_input(key="runs.case.text").input("").run()
    at.multiselect(key="runs.case.split").set_value(["test", "val"]).run()
    assert sorted(at.dataframe[1].value["id"]) == ["T-2", "T-3"]
    at.multiselect(key="runs.case.split").set_value([]).run()
    at.selectbox(key="runs.open").set_value(1).run()
    at.selectbox(key="runs.case.named").set_value("label").run()
    at.slider(key="runs.case.named_range").set_range(0.5, 1.0).run()
    assert sorted(at.dataframe[1].value["id"]) == ["T-2", "T-3"]
    at.selectbox(key="runs.case.sort").set_value("id").run()
    at.toggle(key="runs.case.descending").set_value(False).run()
    assert list(at.dataframe[1].value["id"]) == ["T-2", "T-3"]
    assert "Showing 2 of 3 cases" in [caption.value for caption in at.caption]


def test_the_score_range_filter_on_one_run(seeded):
    at = open_page()
    at.selectbox(key="runs.open").set_value(1).run()
    at.slider(key="runs.case.score").set_range(0.4, 0.6).run()
    assert list(at.dataframe[1].value["id"]) == ["T-2"]


def test_a_run_offers_csv_jsonl_and_parquet_downloads(seeded):
    at = open_page()
    labels = [element.proto.label for element in at.get("download_button")]
    assert labels == ["Download CSV", "Download JSONL", "Download Parquet"]


def test_comparing_two_runs_case_by_case_sorted_by_change(seeded):
    at = open_page()
    at.radio(key="runs.view").set_value("Compare two runs").run()
    assert not at.exception, at.exception
    table = at.dataframe[1].value
    assert list(table["id"])[:2] == ["T-2", "T-1"]  # a change of status first (issue 23 item 8), then the largest
    by_id = table.set_index("id")
    assert by_id.loc["T-1", "delta"] == pytest.approx(1.0)
    assert by_id.loc["T-2", "status_change"] == "ok → error"
    assert [metric.value for metric in at.metric][2:] == ["1", "0", "1"]
    at.multiselect(key="runs.compare.status").set_value(["error"]).run()
    assert list(at.dataframe[1].value["id"]) == ["T-2"]
    at.multiselect(key="runs.compare.status").set_value([]).run()
    at.toggle(key="runs.compare.descending").set_value(False).run()
    assert list(at.dataframe[1].value["id"])[0] == "T-3"  # the smallest change first, the unscored last
    assert list(at.dataframe[1].value["id"])[-1] == "T-2"


def left_in_english(at) -> list[tuple[str, str]]:
    found = english_words(at, allowed=DATA_WORDS, where="main")
    # A table's column configuration is JSON keyed by the frame's column names (code), beside the labels.
    return [(word, text) for word, text in found if not text.startswith('{"')]


def test_the_runs_page_in_chinese_has_no_english_left_in_the_main_area(seeded):
    at = render("runs")
    assert not at.exception, at.exception
    assert at.title[0].value == "运行"
    assert left_in_english(at) == []
    with use_language("zh_CN"):  # AppTest formats the pickers' options (run labels) in the test's language
        at.radio(key="runs.view").set_value("比较两次运行").run()
    assert not at.exception, at.exception
    assert left_in_english(at) == []


def test_the_filters_chosen_outlive_a_change_of_language(seeded):
    """The run opened, the statuses, the sort and its order chosen in English hold after 简体中文 is picked, and the
    choice widgets are sent their choices again in Chinese (tests/app/test_language_switch.py says why)."""
    at = open_page()
    at.selectbox(key="runs.open").set_value(2).run()
    at.multiselect(key="runs.case.status").set_value(["ok"]).run()
    at.selectbox(key="runs.case.sort").set_value("id").run()
    at.toggle(key="runs.case.descending").set_value(False).run()
    shown = list(at.dataframe[1].value["id"])
    assert shown == ["T-1", "T-3"]
    at.selectbox(key=LANGUAGE_KEY).set_value("zh_CN").run()
    assert not at.exception, at.exception
    assert list(at.dataframe[1].value["id"]) == shown and at.title[0].value == "运行"
    status = at.multiselect(key="runs.case.status")
    assert status.value == ["ok"] and status.proto.set_value and list(status.proto.raw_values) == ["成功"]
    with use_language("zh_CN"):
        at.run()
    assert list(at.dataframe[1].value["id"]) == shown and not at.exception

"""Saved runs as tables: the list, one run's cases, two runs compared, filters, sorting and the exports."""

from __future__ import annotations

import io

import orjson
import pandas as pd
import pytest

from skynet_core.cases import Case
from skynet_core.i18n import use_language
from skynet_core.provenance import Provenance
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.runs import RunKey, metric_hash
from skynet_core.store import Store
from skynet_core.store.runs import RunStore
from skynet_core.views.runs import (
    COMPARED,
    CaseFilter,
    bounds,
    compare_frame,
    costs_shown,
    export_bytes,
    filter_frame,
    narrowed,
    run_cases,
    run_frame,
    run_label,
    runs_table,
    shown_frame,
    sort_frame,
    statuses_text,
    version_names,
)

SOURCE = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'Correct.'}\n"
MADE_BY = Provenance("digest-a", "example", "Tickets", "fast", None)


def cases() -> list[Case]:
    return [
        Case("c1", {"question": "=1+1"}, {"label": "billing"}, {"label": "billing"}, "train", candidate="fast"),
        Case("c2", {"question": "refund?"}, {"label": "other"}, {"label": "refund"}, "val", candidate="fast"),
        Case("c3", {"question": "hi"}, "plain text", None, "test", candidate="fast"),
    ]


def results(shift: float = 0.0) -> list[CaseResult]:
    return [
        CaseResult("c1", "train", score=0.9 + shift, scores={"label": 1.0}, feedback="Right label.", candidate="fast"),
        CaseResult("c2", "val", score=0.2, scores={"label": 0.0}, feedback="=Expected refund", candidate="fast"),
        CaseResult("c3", "test", CaseStatus.ERROR, error="KeyError: 'label'", candidate="fast"),
    ]


@pytest.fixture
def store(tmp_path) -> RunStore:
    return RunStore(tmp_path)


def save(store: RunStore, shift: float = 0.0, *, kept: bool = True) -> int:
    key = RunKey("example", "fast", None, metric_hash(SOURCE), "Tickets")
    return store.save(key, results(shift), metric_source=SOURCE, provenance=MADE_BY, cases=cases() if kept else None)


def test_a_run_keeps_the_cases_it_scored_and_lists_without_its_results(store) -> None:
    first = save(store)
    second = save(store, -0.5, kept=False)
    listed = store.list()
    assert [summary.id for summary in listed] == [second, first]  # newest first
    summary = listed[1]
    assert summary.case_count == 3 and summary.statuses == {"ok": 2, "error": 1}
    assert summary.mean == pytest.approx(0.55)
    assert summary.score_names == ("label",)
    assert summary.ok_share == pytest.approx(2 / 3) and summary.error_share == pytest.approx(1 / 3)
    assert summary.has_cases and not listed[0].has_cases
    run = store.get(first)
    assert run is not None and run.cases == cases()
    assert store.get(second).cases is None
    assert store.get(999) is None


def test_a_run_saved_before_summaries_gets_one_from_its_results(store) -> None:
    run_id = save(store)
    import sqlite3

    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE scored_runs SET summary = NULL, cases = NULL")
    summary = store.list()[0]
    assert summary.id == run_id and summary.statuses == {"ok": 2, "error": 1} and not summary.has_cases


def test_cases_come_from_the_run_else_from_its_dataset_else_are_missing(store) -> None:
    kept, old = store.get(save(store)), store.get(save(store, kept=False))
    assert run_cases(kept, lambda source: None)[1] == "kept"
    found, where = run_cases(old, lambda source: cases()[:1] if source == "example" else None)
    assert where == "dataset" and list(found) == [("fast", "c1")]
    assert run_cases(old, lambda source: None) == ({}, "missing")


def test_the_run_frame_has_inputs_outputs_expected_and_one_column_per_named_score(store) -> None:
    run = store.get(save(store))
    frame = run_frame(run, run_cases(run, lambda source: None)[0])
    assert list(frame.columns) == [
        "id", "status", "score", "score.label", "feedback", "error",
        "input", "output", "expected", "split", "candidate", "latency_ms", "cost_usd", "duration_ms", "judge_cost_usd",
    ]  # fmt: skip
    assert frame.loc[1, "input"] == {"question": "refund?"} and frame.loc[1, "expected"] == {"label": "refund"}
    assert pd.isna(frame.loc[2, "score"]) and frame.loc[2, "error"] == "KeyError: 'label'"
    shown = shown_frame(frame)
    assert shown.loc[0, "input"] == '{"question":"=1+1"}' and shown.loc[2, "expected"] == ""


def test_exports_carry_everything_and_csv_cells_cannot_run_as_formulas(store) -> None:
    run = store.get(save(store))
    frame = run_frame(run, run_cases(run, lambda source: None)[0])
    text = export_bytes(frame, "csv").decode()
    assert "'=Expected refund" in text and "\n=" not in text and ",=" not in text
    back = pd.read_csv(io.StringIO(text))
    assert list(back["score.label"].dropna()) == [1.0, 0.0]
    lines = [orjson.loads(line) for line in export_bytes(frame, "jsonl").splitlines()]
    assert lines[0]["input"] == {"question": "=1+1"} and lines[2]["score"] is None
    assert lines[1]["feedback"] == "=Expected refund"  # JSONL is data, not a spreadsheet
    table = pd.read_parquet(io.BytesIO(export_bytes(frame, "parquet")))
    assert orjson.loads(table.loc[1, "output"]) == {"label": "other"} and table.loc[0, "score.label"] == 1.0
    with pytest.raises(ValueError):
        export_bytes(frame, "xlsx")


def frame_of(store: RunStore) -> pd.DataFrame:
    run = store.get(save(store))
    return run_frame(run, run_cases(run, lambda source: None)[0])


def test_filters_answer_questions(store) -> None:
    frame = frame_of(store)
    assert list(filter_frame(frame, CaseFilter(score=(0.5, 1.0)))["id"]) == ["c1"]
    assert list(filter_frame(frame, CaseFilter(named="label", named_range=(0.0, 0.5)))["id"]) == ["c2"]
    assert filter_frame(frame, CaseFilter(named="absent", named_range=(0.0, 1.0))).empty
    assert list(filter_frame(frame, CaseFilter(statuses=("error",)))["id"]) == ["c3"]
    assert list(filter_frame(frame, CaseFilter(splits=("val", "test")))["id"]) == ["c2", "c3"]
    assert list(filter_frame(frame, CaseFilter(text="EXPECTED"))["id"]) == ["c2"]
    assert list(filter_frame(frame, CaseFilter(text="keyerror"))["id"]) == ["c3"]  # errors are searched too
    assert list(filter_frame(frame, CaseFilter(statuses=("ok",), text="label"))["id"]) == ["c1"]
    assert len(filter_frame(frame, CaseFilter())) == 3


def test_a_slider_spanning_every_score_keeps_unscored_cases(store) -> None:
    frame = frame_of(store)
    whole = bounds(frame, "score")
    assert whole == (0.2, 0.9)
    assert narrowed((0.0, 1.0), whole) is None and narrowed(whole, whole) is None
    assert narrowed((0.3, 0.9), whole) == (0.3, 0.9)
    assert bounds(frame.iloc[2:], "score") is None and bounds(frame, "nothing") is None


def test_sort_by_any_column_keeps_empty_values_last(store) -> None:
    frame = frame_of(store)
    assert list(sort_frame(frame, "score")["id"]) == ["c2", "c1", "c3"]
    assert list(sort_frame(frame, "score", descending=True)["id"]) == ["c1", "c2", "c3"]
    assert list(sort_frame(frame, "id", descending=True)["id"]) == ["c3", "c2", "c1"]
    assert sort_frame(frame, "unknown") is frame


def test_compare_pairs_cases_with_the_change_and_the_status_change(store) -> None:
    old = store.get(save(store))
    new_results = results(-0.4)
    new_results[1] = CaseResult("c2", "val", CaseStatus.TIMEOUT, error="too slow", candidate="fast")
    new_results[2] = CaseResult("c3", "test", score=0.7, scores={"label": 0.5}, feedback="Now ok.", candidate="fast")
    key = RunKey("example", "fast", None, "other", "Tickets")
    new = store.get(store.save(key, new_results, provenance=MADE_BY))
    table = compare_frame(old, new)
    by_id = table.set_index("id")
    assert by_id.loc["c1", "delta"] == pytest.approx(-0.4)
    assert by_id.loc["c2", "status_change"] == "ok → timeout" and pd.isna(by_id.loc["c2", "delta"])
    assert by_id.loc["c3", "status_change"] == "error → ok" and by_id.loc["c1", "status_change"] == ""
    assert by_id.loc["c3", "score.label"] == 0.5  # run B's named scores
    assert list(sort_frame(table, "delta")["id"])[0] == "c1"
    assert list(sort_frame(table, "delta", descending=True, magnitude=True)["id"])[0] == "c1"
    assert list(filter_frame(table, CaseFilter(statuses=("timeout",)), COMPARED)["id"]) == ["c2"]
    assert list(filter_frame(table, CaseFilter(statuses=("error",)), COMPARED)["id"]) == ["c3"]  # either run
    assert list(filter_frame(table, CaseFilter(score=(0.6, 1.0)), COMPARED)["id"]) == ["c3"]  # run B's score
    assert list(filter_frame(table, CaseFilter(text="now ok"), COMPARED)["id"]) == ["c3"]


def test_the_list_of_runs_names_versions_and_says_which_runs_are_current(store, tmp_path) -> None:
    save(store)
    versions = Store(tmp_path)
    version = versions.save_version("clear feedback", SOURCE)
    names = version_names([version], draft_digest="")
    digest = version.folder.digest
    summary = store.list()[0]
    summary = type(summary)(
        **{**summary.__dict__, "provenance": Provenance(digest, "example", "Tickets", "fast", None)}
    )
    table = runs_table([summary], names, Provenance(digest, "example", "Tickets", "fast", None))
    row = table.iloc[0]
    assert row["metric"] == f"#{version.id} clear feedback" and row["statuses"] == "ok 2 · error 1"
    assert bool(row["current"]) and row["split"] == "all" and row["cases"] == 3
    stale = runs_table([summary], names, Provenance(digest, "example", "Tickets", "slow", None))
    assert not bool(stale.iloc[0]["current"])
    assert version_names([version], draft_digest=digest)[digest] == "current draft"
    assert run_label(summary, names).startswith(f"#{summary.id} · #{version.id} clear feedback · fast · ")
    unknown = runs_table([summary], {}, None).iloc[0]
    assert unknown["metric"].startswith("metric.py ") and not bool(unknown["current"])


def test_statuses_text_puts_ok_first_is_never_cut_and_speaks_the_language() -> None:
    assert statuses_text({"error": 39, "ok": 33, "timeout": 1}) == "ok 33 · error 39 · timed out 1"
    with use_language("zh_CN"):
        # The words, not the codes: the Chinese Author page said "error 11 · ok 29" (issue 23).
        assert statuses_text({"ok": 1234, "error": 11, "invalid": 2}) == "成功 1,234 · 错误 11 · 无效 2"


def test_costs_on_screen_read_as_everywhere_else() -> None:
    """A per-case cost showed "$0.002000" in the table and "$0.0020" in the trace and on Settings (issue 23:
    one precision everywhere)."""
    frame = pd.DataFrame({"judge_cost_usd": [0.000045, 0.002, None, 1234.5], "score": [1.0, 0.5, 0.0, 1.0]})
    shown = costs_shown(frame)
    assert list(shown["judge_cost_usd"]) == ["$0.000045", "$0.0020", "", "$1,234.50"]
    assert frame["judge_cost_usd"].iloc[1] == 0.002  # the run's own frame (and its downloads) keep numbers
    assert list(shown_frame(frame)["judge_cost_usd"]) == list(shown["judge_cost_usd"])

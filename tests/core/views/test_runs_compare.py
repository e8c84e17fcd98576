"""Item 8 of issue 23 (Runs compare: the default pair, across candidates by id, status changes first) and the
Runs polish (a new run keeps its cases; downloads carry latency and cost)."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from skynet_core.cases import Case, Observation
from skynet_core.provenance import Provenance
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.runs import RunKey, by_candidate, metric_hash
from skynet_core.store.runs import RunStore
from skynet_core.views.runs import compare, default_pair, export_bytes, run_cases, run_frame, sort_by_change

SOURCE = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'Correct.'}\n"
IDS = [f"r{n:02d}" for n in range(1, 41)]


def results(candidate: str, score: float = 0.5, errors: tuple[str, ...] = ()) -> list[CaseResult]:
    return [
        CaseResult(case_id, status=CaseStatus.ERROR, error="KeyError: 'label'", candidate=candidate)
        if case_id in errors
        else CaseResult(case_id, score=score, feedback="ok", candidate=candidate)
        for case_id in IDS
    ]


def cases(candidate: str) -> list[Case]:
    return [
        Case(
            case_id,
            {"text": case_id},
            "positive",
            {"label": "positive"},
            candidate=candidate,
            observation=Observation(100.0 + n, 0.000045),
        )
        for n, case_id in enumerate(IDS)
    ]


@pytest.fixture
def store(tmp_path) -> RunStore:
    return RunStore(tmp_path)


def save(store: RunStore, candidate: str, found: list[CaseResult]) -> int:
    made_by = Provenance("digest", "/data/reviews.csv", "reviews", candidate, None)
    key = RunKey("/data/reviews.csv", candidate, None, metric_hash(SOURCE), "reviews")
    return store.save(key, found, metric_source=SOURCE, provenance=made_by, cases=cases(candidate))


def test_compare_defaults_to_the_two_latest_runs_of_one_candidate(store: RunStore) -> None:
    small_1 = save(store, "small", results("small", 0.5))
    large_1 = save(store, "large", results("large", 0.9))
    small_2 = save(store, "small", results("small", 0.6))
    large_2 = save(store, "large", results("large", 0.8))  # newest
    assert default_pair(store.list()) == (large_1, large_2)
    save(store, "other", results("other"))  # the newest run's candidate has one run: the latest pair that has two
    assert default_pair(store.list()) == (large_1, large_2)
    assert default_pair(store.list()[:1]) is None
    old, new = store.get(small_1), store.get(small_2)
    assert old is not None and new is not None
    assert len(compare(old, new).table) == 40


def test_runs_of_two_candidates_compare_by_id_when_asked(store: RunStore) -> None:
    small, large = (
        store.get(save(store, "small", results("small", 0.5))),
        store.get(save(store, "large", results("large", 0.9))),
    )
    assert small is not None and large is not None
    assert compare(small, large).table.empty  # by (candidate, id): nothing in common
    by_id = compare(small, large, by_id=True)
    assert len(by_id.table) == 40
    assert by_id.table["delta"].round(3).eq(0.4).all()
    assert by_id.improved == 40


def test_sorting_by_the_size_of_change_puts_status_changes_first(store: RunStore) -> None:
    old = store.get(save(store, "small", results("small", 0.5, errors=("r07", "r09"))))
    new_results = results("small", 0.5, errors=("r30",))
    new_results[0] = CaseResult("r01", score=0.9, candidate="small")  # +0.4
    new_results[1] = CaseResult("r02", score=0.45, candidate="small")  # -0.05
    new = store.get(save(store, "small", new_results))
    assert old is not None and new is not None
    table = compare(old, new).table
    ordered = sort_by_change(table)
    assert list(ordered["id"][:3]) == ["r07", "r09", "r30"]  # error → ok first, then ok → error
    assert list(ordered["status_change"][:3]) == ["error → ok", "error → ok", "ok → error"]
    assert list(ordered["id"][3:5]) == ["r01", "r02"]
    assert list(sort_by_change(table, descending=False)["id"][-3:]) == ["r30", "r07", "r09"]


def test_a_run_kept_per_candidate_keeps_its_cases(store: RunStore) -> None:
    found = results("small") + results("large")
    scored = cases("small") + cases("large")
    split = by_candidate(found, scored, ["small", "large"])
    assert list(split) == ["small", "large"]
    for name, (their_results, their_cases) in split.items():
        assert {result.candidate for result in their_results} == {name} and len(their_cases) == 40
        run = store.get(save_with(store, name, their_results, their_cases))
        assert run is not None
        assert run_cases(run, lambda source: None)[1] == "kept"


def save_with(store: RunStore, candidate: str, found: list[CaseResult], kept: list[Case]) -> int:
    made_by = Provenance("digest", "/data/reviews.csv", "reviews", candidate, None)
    key = RunKey("/data/reviews.csv", candidate, None, metric_hash(SOURCE), "reviews")
    return store.save(key, found, metric_source=SOURCE, provenance=made_by, cases=kept)


def test_a_downloaded_run_has_latency_and_cost_columns(store: RunStore) -> None:
    run = store.get(save(store, "small", results("small")))
    assert run is not None
    frame = run_frame(run, run_cases(run, lambda source: None)[0])
    for form in ("csv", "parquet", "jsonl"):
        data = export_bytes(frame, form)
        table = (
            pd.read_csv(io.BytesIO(data))
            if form == "csv"
            else pd.read_parquet(io.BytesIO(data))
            if form == "parquet"
            else pd.read_json(io.BytesIO(data), lines=True)
        )
        assert {"latency_ms", "cost_usd", "judge_cost_usd"} <= set(table.columns), form
        assert table["latency_ms"].iloc[1] == 101.0 and table["cost_usd"].iloc[0] == pytest.approx(0.000045)

"""Writing results as they come: the files match the per-case table the app shows."""

from __future__ import annotations

import json

import pandas as pd

from skynet_core.results import CaseResult, CaseStatus, JudgeUsage
from skynet_core.runs.export import open_results, results_frame, write_results


def results() -> list[CaseResult]:
    return [
        CaseResult(
            id=f"c{n}",
            status=CaseStatus.OK if n % 3 else CaseStatus.ERROR,
            score=n / 7 if n % 3 else None,
            scores=({"a": n / 10} if n % 2 else {"b": 1.0}) if n % 3 else {},
            feedback='line one\nline, "two"',
            extra={"k": n} if n % 4 else {},
            error="" if n % 3 else "ValueError: boom",
            duration_ms=1.23456 * n,
            judge=JudgeUsage(calls=n % 2, latency_ms=2.345, cost_usd=0.001 if n % 5 else None),
        )
        for n in range(9)
    ]


def test_streamed_csv_is_the_table_pandas_writes(tmp_path):
    write_results(results(), tmp_path / "r.csv")
    assert (tmp_path / "r.csv").read_text() == results_frame(results()).to_csv(index=False)


def test_streamed_parquet_reads_back_as_the_table(tmp_path):
    write_results(results(), tmp_path / "r.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "r.parquet"), results_frame(results()), check_dtype=False)


def test_jsonl_lines_are_the_results_json_in_order(tmp_path):
    with open_results(tmp_path / "r.jsonl") as writer:
        for result in results():
            writer.write(result)
    lines = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert lines == [json.loads(json.dumps(result.to_json())) for result in results()]


def test_a_run_with_no_results_still_writes_the_header(tmp_path):
    write_results([], tmp_path / "r.csv")
    assert (tmp_path / "r.csv").read_text().startswith("id,split,candidate,status,score,feedback")

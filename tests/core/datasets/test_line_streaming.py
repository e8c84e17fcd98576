"""A JSON Lines file's cases go to the sandbox as their lines (CaseLines.line_batch): the same results,
in case order, none lost, whatever fails on the way; and the child's shorter replies read as before."""

from __future__ import annotations

import json
from pathlib import Path

import orjson

from skynet_core.cases import Case
from skynet_core.datasets import read_case_lines
from skynet_core.datasets.lines import LineCase
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner.replies import reply_to_result
from skynet_core.scoring.runner.run import score_cases

# Scores the case's number; crashes its child at 1500 and raises at 700; says what it got as expected.
METRIC = (
    "import os\n\ndef score(input, output, expected=None):\n"
    "    n = input['n']\n"
    "    if n == 1500:\n        os._exit(3)\n"
    "    if n == 700:\n        raise ValueError('seven hundred')\n"
    "    if n == 9:\n        return 1.0, {'feedback': 'named', 'scores': {'a': 0.5}, 'note': [1, 2]}\n"
    "    if n == 11:\n        print('printed')\n"
    "    return float(n), {'feedback': f'{output}|{expected!r}'}\n"
)


def nested(depth: int) -> object:
    value: object = 0
    for _ in range(depth):
        value = [value]
    return value


def cases_file(path: Path, count: int) -> Path:
    rows: list[dict[str, object]] = []
    for n in range(count):
        row: dict[str, object] = {"id": f" c{n} ", "input": {"n": n}, "output": f"out{n}"}
        if n % 3:
            row["expected"] = {"label": n % 2}  # the others have none: the metric gets None
        if n == 40:
            row["observation"] = {"latency_ms": 12, "cost_usd": None}  # not sent as it is
        if n == 41:
            row["input"] = {"n": n, "deep": nested(300)}  # deeper than the channel carries
        if n == 42:
            row["notes"] = "a column the metric never sees"
        rows.append(row)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_line_batches_carry_the_cases_ids_splits_and_payloads(tmp_path):
    lines = read_case_lines(cases_file(tmp_path / "cases.jsonl", 120))
    assert lines is not None
    batch = lines.line_batch(0, len(lines))
    assert all(isinstance(item, LineCase) for item in batch)
    assert [(item.id, item.split, item.candidate) for item in batch] == [(c.id, c.split, c.candidate) for c in lines]
    for item, case in zip(batch, lines, strict=True):
        if item is batch[41]:
            continue  # too deep to encode: the runner refuses it (below)
        sent = orjson.loads(item.payload_json())
        wanted = case.call_payload()
        # What the child reads of a payload: input, output, expected (absent = None), observation (absent = none).
        assert (sent["input"], sent["output"], sent.get("expected")) == (
            wanted["input"],
            wanted["output"],
            wanted["expected"],
        )
        assert (sent.get("observation") or {}).get("latency_ms") == wanted["observation"]["latency_ms"]
        assert item.call_payload() == wanted
    assert batch[40].line is None and batch[41].line is None  # the observation, the deep nesting
    assert batch[42].line is not None
    test_split = lines.in_split("test")
    assert [(item.id, item.split) for item in test_split.line_batch(0, len(test_split))] == [
        (c.id, c.split) for c in test_split
    ]


def test_lines_stream_in_case_order_with_a_crash_and_an_error_mid_stream(tmp_path, pool):
    lines = read_case_lines(cases_file(tmp_path / "cases.jsonl", 3000))
    assert lines is not None
    streamed: list[CaseResult] = []
    run = score_cases(METRIC, lines, RunOptions(timeout_s=10, pool=pool, in_order=streamed.append, keep=False))
    as_cases = score_cases(
        METRIC, list(lines), RunOptions(timeout_s=10, pool=pool)
    )  # the Case objects' path, for comparison
    assert run.results == []
    assert [result.id for result in streamed] == [f"c{n}" for n in range(3000)]
    assert streamed[1500].status is CaseStatus.ERROR and "exited with code 3" in streamed[1500].error
    assert streamed[700].status is CaseStatus.ERROR and "seven hundred" in streamed[700].error
    assert streamed[41].status is CaseStatus.INVALID and "250 levels" in streamed[41].error
    assert streamed[1].feedback == "out1|{'label': 1}" and streamed[3].feedback == "out3|None"
    assert (streamed[9].scores, streamed[9].extra) == ({"a": 0.5}, {"note": [1, 2]})
    assert streamed[11].stdout == "printed\n" and streamed[12].stdout == ""
    assert run.tally.total == 3000 and run.tally.by_status == {"ok": 2997, "error": 2, "invalid": 1}

    def comparable(result):
        return (result.id, result.split, result.status, result.score, result.scores, result.feedback, result.extra)

    assert [comparable(result) for result in streamed] == [comparable(result) for result in as_cases.results]


def test_a_reply_without_empty_fields_reads_as_one_with_them():
    case = Case(id="c1", input={}, output="x")
    full = {"status": "ok", "score": 0.5, "scores": {}, "feedback": "f", "extra": {}, "stdout": "", "duration_ms": 1.0}
    short = {"status": "ok", "score": 0.5, "feedback": "f", "duration_ms": 1.0}
    assert reply_to_result(case, short) == reply_to_result(case, full)
    for forged in (
        {**short, "scores": None},  # present but not a dict: refused as before
        {**short, "score": float("nan")},
        {**short, "duration_ms": -1.0},
        {**short, "duration_ms": 1e12},
    ):
        assert reply_to_result(case, forged).status is CaseStatus.ERROR, forged
    long_feedback = {**short, "feedback": "x" * 100_000}  # over what a result keeps: cut, the whole kept aside
    assert reply_to_result(case, long_feedback).feedback.endswith("more characters cut from this result)")

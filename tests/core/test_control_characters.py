"""Control and invisible characters in what the studio writes from hostile values: CSV files escape them in
headers and cells, and the terminal and the command line's text report show control characters and invisible ones
(such as U+200B) as escapes."""

from __future__ import annotations

import csv
import io

from skynet_core.cli import EXIT_OK, run
from skynet_core.display import terminal_text
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.runs.export import write_results


def test_csv_headers_and_cells_hold_no_raw_control_characters(tmp_path):
    result = CaseResult(
        id="a\x1b[31mred",
        status=CaseStatus.OK,
        score=1.0,
        scores={"bell\x07\nname": 0.5},
        feedback="first line\nsecond\x1b]52;c;AAAA\x07 \u202eevil",
    )
    path = write_results([result], tmp_path / "r.csv")
    text = path.read_text()
    assert not any(char in text for char in "\x1b\x07\u202e")
    header, row = list(csv.reader(io.StringIO(text)))
    assert "score.bell\\x07\\nname" in header
    cells = dict(zip(header, row, strict=True))
    assert cells["id"] == "a\\e[31mred"
    assert cells["feedback"] == "first line\nsecond\\e]52;c;AAAA\\x07 \\u202eevil"  # a cell keeps its line breaks


def test_the_terminal_shows_invisible_characters_as_escapes():
    for char in "\u200b\u200c\u200d\u200e\u200f\u2060\ufeff\u2028\u2029":
        assert terminal_text(f"a{char}b") == f"a\\u{ord(char):04x}b"
    assert terminal_text("soft\u00adhyphen") == "soft\\xadhyphen"


def test_the_cli_prints_a_zero_width_id_as_an_escape(tmp_path):
    metric = 'def score(input, output, expected=None):\n    return 1.0, {"feedback": "ok"}\n'
    (tmp_path / "metric.py").write_text(metric)
    data = tmp_path / "cases.jsonl"
    data.write_text('{"id": "ad\u200bmin", "input": {"q": "1"}, "output": "x"}\n')
    out, err = io.StringIO(), io.StringIO()
    assert run(["check", str(tmp_path / "metric.py"), "--data", str(data)], stdout=out, stderr=err) == EXIT_OK
    assert "ad\\u200bmin" in out.getvalue() and "\u200b" not in out.getvalue()


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

"""Issue 21 items 11 and 12, and the data files of "Also seen": what a case file holds is refused or converted
when it is read, naming the line or column, never a traceback later."""

from __future__ import annotations

import io

import pytest

from skynet_core.cli import EXIT_USAGE, run
from skynet_core.datasets import DatasetError, load_dataset, read_table

METRIC = 'def score(input, output, expected=None):\n    return 1.0, {"feedback": str(input)}\n'
GOOD = '{"id": "a", "input": {"q": "1"}, "output": "x"}\n'


def cli(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(args), stdout=out, stderr=err)
    return code, out.getvalue() + err.getvalue()


@pytest.mark.parametrize(
    "line",
    [
        '{"id": "\\ud800", "input": {"q": "1"}, "output": "x"}',
        '{"id": "b", "input": {"q": "\\udc00 tail"}, "output": "x"}',
        '{"id": "b", "input": {"q": "1"}, "output": {"\\ud83d": 1}}',
    ],
)
@pytest.mark.parametrize("extra", [(), ("--json",), ("--out", "r.csv")])
def test_a_lone_surrogate_refuses_its_line_by_number(tmp_path, line, extra):
    (tmp_path / "metric.py").write_text(METRIC)
    data = tmp_path / "cases.jsonl"
    data.write_text(GOOD + line + "\n")
    args = [a if a != "r.csv" else str(tmp_path / "r.csv") for a in extra]
    code, text = cli("score", str(tmp_path / "metric.py"), "--data", str(data), *args)
    assert code == EXIT_USAGE, text
    assert "cases.jsonl, line 2" in text and "surrogate" in text
    assert not (tmp_path / "r.csv").exists()


def test_the_data_page_reader_refuses_it_with_a_message(tmp_path):
    data = tmp_path / "cases.jsonl"
    data.write_text(GOOD + '{"id": "\\ud800", "input": {"q": "1"}, "output": "x"}\n')
    with pytest.raises(DatasetError, match="line 2") as caught:
        read_table(data)
    assert caught.value.line == 2


def test_a_proper_surrogate_pair_is_a_character(tmp_path):
    data = tmp_path / "cases.jsonl"
    data.write_text('{"id": "\\ud83d\\ude00", "input": {"q": "1"}, "output": "x"}\n')
    assert load_dataset(data).cases[0].id == "😀"

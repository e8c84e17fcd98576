"""Issue 21 items 11 and 12, and the data files of "Also seen": what a case file holds is refused or converted
when it is read, naming the line or column, never a traceback later."""

from __future__ import annotations

from pathlib import Path

import pytest

from skynet_core.cli import EXIT_USAGE
from skynet_core.datasets import DatasetError, load_dataset, read_table
from tests.core.command_line import cli

METRIC = 'def score(input, output, expected=None):\n    return 1.0, {"feedback": str(input)}\n'
GOOD = '{"id": "a", "input": {"q": "1"}, "output": "x"}\n'


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


def parquet(path: Path, columns: dict[str, object]) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table(columns), path)
    return path


def base(**more: object) -> dict[str, object]:
    import pyarrow as pa

    return {"id": pa.array(["a", "b"]), "output": pa.array(["x", "y"]), **more}


@pytest.mark.parametrize(
    ("column", "words"),
    [
        ("binary", "binary data"),
        ("duration", "durations"),
        ("nested", "binary data"),
    ],
)
def test_a_parquet_column_json_cannot_carry_is_refused_when_read_naming_it(tmp_path, column, words):
    import datetime

    import pyarrow as pa

    values = {
        "binary": pa.array([b"\xff\xfe", b"\x00"], pa.binary()),
        "duration": pa.array([datetime.timedelta(seconds=1), datetime.timedelta(0)], pa.duration("ms")),
        "nested": pa.array([[b"\xff"], []], pa.list_(pa.binary())),
    }[column]
    path = parquet(tmp_path / "cases.parquet", base(**{"input.q": pa.array(["1", "2"]), "input.blob": values}))
    with pytest.raises(DatasetError, match=words) as caught:
        read_table(path)
    assert "'input.blob'" in str(caught.value) and caught.value.column == "input.blob"
    (tmp_path / "metric.py").write_text(METRIC)
    code, text = cli("score", str(tmp_path / "metric.py"), "--data", str(path))
    assert code == EXIT_USAGE and "input.blob" in text and "metric return value" not in text, text


def test_a_binary_column_of_utf8_text_is_read_as_text(tmp_path):
    import pyarrow as pa

    path = parquet(tmp_path / "cases.parquet", base(**{"input.q": pa.array([b"hello", "caf\u00e9".encode()])}))
    cases = load_dataset(path).cases
    assert [case.input["q"] for case in cases] == ["hello", "caf\u00e9"]


def test_decimals_beyond_float_precision_pass_as_text_and_others_as_numbers(tmp_path):
    import decimal

    import pyarrow as pa

    big = pa.array([decimal.Decimal("99999999999999999999.99"), decimal.Decimal("0.10")], pa.decimal128(22, 2))
    small = pa.array([decimal.Decimal("12.50"), decimal.Decimal("0.10")], pa.decimal128(6, 2))
    path = parquet(tmp_path / "cases.parquet", base(**{"input.big": big, "input.small": small}))
    cases = load_dataset(path).cases
    assert cases[0].input["big"] == "99999999999999999999.99" and cases[1].input["big"] == "0.10"
    assert cases[0].input["small"] == 12.5 and isinstance(cases[1].input["small"], float)

"""Parquet files read within limits: a decompression bomb is refused by its row count before it is read, and the
decoded size and row limits are configurable."""

from __future__ import annotations

import io

import pytest

from skynet_core.cli import run
from skynet_core.datasets import DatasetError, load_dataset


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

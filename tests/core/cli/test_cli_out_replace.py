"""Issue 21 item 2: ``score --out`` never replaces the data, the metric or a file of its folder, and an
interrupted write never leaves a half-written file over an old one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skynet_core.cli import EXIT_OK, EXIT_USAGE
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.runs.export import open_results
from tests.core.command_line import cli

METRIC = 'def score(input, output, expected=None):\n    return 1.0, {"feedback": "ok"}\n'
CASES = "".join(f'{{"id": "{n}", "input": {{"q": "1"}}, "output": "x", "expected": {{"a": 1}}}}\n' for n in "abc")
CSV = "id,input.q,output,expected.a\na,1,x,1\nb,2,y,2\n"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "metric.py").write_text(METRIC)
    (tmp_path / "cases.jsonl").write_text(CASES)
    (tmp_path / "cases.csv").write_text(CSV)
    return tmp_path


@pytest.mark.parametrize("data", ["cases.jsonl", "cases.csv"])
def test_out_naming_the_data_file_is_refused_and_the_data_kept(folder, data):
    before = (folder / data).read_bytes()
    code, text = cli("score", str(folder / "metric.py"), "--data", str(folder / data), "--out", str(folder / data))
    assert code == EXIT_USAGE and "--data" in text and "cases scored" not in text, text
    assert (folder / data).read_bytes() == before


def test_out_through_another_path_or_a_hard_link_is_the_same_file(folder, monkeypatch):
    os.link(folder / "cases.jsonl", folder / "linked.jsonl")
    monkeypatch.chdir(folder)
    for out in ("linked.jsonl", "./sub/../cases.jsonl"):
        (folder / "sub").mkdir(exist_ok=True)
        code, text = cli("score", "metric.py", "--data", "cases.jsonl", "--out", out)
        assert code == EXIT_USAGE, (out, text)
    assert (folder / "cases.jsonl").read_text() == CASES


def test_out_naming_a_file_of_the_metric_folder_is_refused(tmp_path):
    metric = tmp_path / "m"
    metric.mkdir()
    (metric / "metric.py").write_text("import json\nLABELS = json.load(open('labels.jsonl'))\n" + METRIC)
    (metric / "labels.jsonl").write_text('["a"]\n')
    (tmp_path / "cases.jsonl").write_text(CASES)
    data = str(tmp_path / "cases.jsonl")
    code, text = cli("score", str(metric), "--data", data, "--out", str(metric / "labels.jsonl"))
    assert code == EXIT_USAGE and "labels.jsonl" in text, text
    assert (metric / "labels.jsonl").read_text() == '["a"]\n'


def test_out_replaces_an_old_file_only_when_the_run_ends(folder, pool):
    out = folder / "results.jsonl"
    out.write_text("old results\n")
    code, text = cli("score", str(folder / "metric.py"), "--data", str(folder / "cases.jsonl"), "--out", str(out))
    assert code == EXIT_OK, text
    assert len(out.read_text().splitlines()) == 3
    assert sorted(path.name for path in folder.iterdir()) == ["cases.csv", "cases.jsonl", "metric.py", "results.jsonl"]


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_a_writer_that_stops_midway_leaves_the_old_file_and_no_partial_one(tmp_path, suffix):
    out = tmp_path / f"results{suffix}"
    out.write_text("old results\n")
    result = CaseResult(id="a", status=CaseStatus.OK, score=1.0, feedback="ok")
    with pytest.raises(KeyboardInterrupt), open_results(out) as writer:
        writer.write(result)
        raise KeyboardInterrupt
    assert out.read_bytes() == b"old results\n"
    assert [path.name for path in tmp_path.iterdir()] == [out.name]
    with open_results(out) as writer:
        writer.write(result)
    assert out.read_bytes() != b"old results\n" and [path.name for path in tmp_path.iterdir()] == [out.name]

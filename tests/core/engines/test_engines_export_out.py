"""Issue 21 item 1: ``export --out`` never replaces what the user owns, and never truncates its ``--data``."""

from __future__ import annotations

from pathlib import Path

from skynet_core.cli import EXIT_OK, EXIT_USAGE
from tests.core.command_line import cli

METRIC = 'def score(input, output, expected=None):\n    return 1.0, {"feedback": "ok"}\n'
CASES = '{"id": "a", "input": {"q": "1"}, "output": "x", "expected": {"label": "x"}}\n'


def project(tmp_path: Path) -> Path:
    """A user's project folder: their metric, their data, their README and requirements."""
    (tmp_path / "metric.py").write_text(METRIC)
    (tmp_path / "cases.jsonl").write_text(CASES)
    (tmp_path / "README.md").write_text("# My project\n")
    (tmp_path / "requirements.txt").write_text("numpy\n")
    return tmp_path


def test_export_into_a_project_folder_replaces_nothing_and_names_the_files(tmp_path, monkeypatch):
    folder = project(tmp_path)
    monkeypatch.chdir(folder)
    before = {path.name: path.read_bytes() for path in folder.iterdir()}
    code, text = cli("export", "metric.py", "--engine", "gepa", "--out", ".", "--data", "cases.jsonl")
    assert code == EXIT_USAGE, text
    assert "README.md" in text and "requirements.txt" in text and "cases.jsonl" in text
    assert {path.name: path.read_bytes() for path in folder.iterdir()} == before


def test_export_refuses_a_folder_that_holds_other_files_even_without_a_clash(tmp_path):
    (tmp_path / "metric.py").write_text(METRIC)
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.md").write_text("mine\n")
    code, text = cli("export", str(tmp_path / "metric.py"), "--engine", "gepa", "--out", str(out))
    assert code == EXIT_USAGE and "not empty" in text
    assert sorted(path.name for path in out.iterdir()) == ["notes.md"]


def test_export_writes_a_new_folder_and_may_write_it_again(tmp_path):
    (tmp_path / "metric.py").write_text(METRIC)
    (tmp_path / "cases.jsonl").write_text(CASES)
    out = tmp_path / "out"
    args = ("export", str(tmp_path / "metric.py"), "--engine", "gepa", "--out", str(out), "--data")
    assert cli(*args, str(tmp_path / "cases.jsonl"))[0] == EXIT_OK
    (out / "best_instruction.txt").write_text("what a run left\n")
    code, text = cli(*args, str(tmp_path / "cases.jsonl"))
    assert code == EXIT_OK, text
    assert (out / "best_instruction.txt").read_text() == "what a run left\n"
    assert (out / "metric" / "metric.py").read_text() == METRIC


def test_export_never_truncates_the_data_file_it_reads(tmp_path):
    (tmp_path / "metric.py").write_text(METRIC)
    out = tmp_path / "out"
    assert cli("export", str(tmp_path / "metric.py"), "--engine", "gepa", "--out", str(out))[0] == EXIT_OK
    # The user keeps their cases in the exported folder and exports again from them.
    data = out / "cases.jsonl"
    text = "".join(CASES.replace('"a"', f'"{name}"') for name in "abc")
    data.write_text(text)
    code, said = cli("export", str(tmp_path / "metric.py"), "--engine", "gepa", "--out", str(out), "--data", str(data))
    assert code == EXIT_USAGE and "cases.jsonl" in said, said
    assert data.read_text() == text

"""``export --out DIR`` into a folder an export wrote before: ``DIR/metric/`` becomes exactly the new metric (no
module of the earlier one is left for it to import), what the earlier export wrote and no longer writes goes,
and nothing the studio did not write is deleted: a user's file beside the export is kept, one inside ``metric/``
(or a file there changed since the export wrote it) refuses the export, naming it."""

from __future__ import annotations

import io
from pathlib import Path

from skynet_core.cli import EXIT_OK, EXIT_USAGE, run

WITH_HELPER = "from helper import verdict\n\ndef score(input, output, expected=None):\n    return verdict(output)\n"
HELPER = 'def verdict(output):\n    return 1.0, {"feedback": "helper"}\n'
PLAIN = 'def score(input, output, expected=None):\n    return 0.5, {"feedback": "plain"}\n'


def cli(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(args), stdout=out, stderr=err)
    return code, out.getvalue() + err.getvalue()


def metric_folder(path: Path, files: dict[str, str]) -> Path:
    path.mkdir()
    for name, text in files.items():
        (path / name).write_text(text)
    return path


def export(metric: Path, out: Path, engine: str = "gepa") -> tuple[int, str]:
    return cli("export", str(metric), "--engine", engine, "--out", str(out))


def files_under(folder: Path) -> list[str]:
    return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*") if not path.is_dir())


def test_a_second_export_leaves_no_module_of_the_first_in_metric(tmp_path: Path) -> None:
    first = metric_folder(tmp_path / "a", {"metric.py": WITH_HELPER, "helper.py": HELPER})
    second = metric_folder(tmp_path / "b", {"metric.py": PLAIN})
    out = tmp_path / "out"
    assert export(first, out)[0] == EXIT_OK
    assert files_under(out / "metric") == ["helper.py", "metric.py"]
    code, text = export(second, out)
    assert code == EXIT_OK, text
    assert files_under(out / "metric") == ["metric.py"]
    assert (out / "metric" / "metric.py").read_text() == PLAIN
    assert not [path for path in out.iterdir() if path.name.startswith(".metric")]  # no half-swapped copy left


def test_files_the_first_export_wrote_and_the_second_does_not_are_removed(tmp_path: Path) -> None:
    metric = metric_folder(tmp_path / "m", {"metric.py": PLAIN})
    out = tmp_path / "out"
    (tmp_path / "cases.jsonl").write_text('{"id": "a", "input": {"q": "1"}, "output": "x", "expected": {"l": "x"}}\n')
    assert (
        cli("export", str(metric), "--engine", "dspy", "--out", str(out), "--data", str(tmp_path / "cases.jsonl"))[0]
        == 0
    )
    assert (out / "run_dspy.py").exists() and (out / "fields.json").exists()
    code, text = export(metric, out, "gepa")
    assert code == EXIT_OK, text
    assert (out / "run_gepa.py").exists()
    assert not (out / "run_dspy.py").exists() and not (out / "fields.json").exists()


def test_a_users_file_beside_the_export_is_kept_and_one_they_changed_too(tmp_path: Path) -> None:
    metric = metric_folder(tmp_path / "m", {"metric.py": PLAIN})
    out = tmp_path / "out"
    assert cli("export", str(metric), "--engine", "dspy", "--out", str(out))[0] == EXIT_USAGE  # dspy needs data
    assert export(metric, out)[0] == EXIT_OK
    (out / "best_instruction.txt").write_text("what a run left\n")
    (out / "run_gepa.py").write_text("# my own changes\n")
    second = metric_folder(tmp_path / "b", {"metric.py": WITH_HELPER, "helper.py": HELPER})
    code, text = export(second, out)
    assert code == EXIT_OK, text
    assert (out / "best_instruction.txt").read_text() == "what a run left\n"
    assert files_under(out / "metric") == ["helper.py", "metric.py"]


def test_a_users_module_inside_metric_refuses_the_export_and_is_kept(tmp_path: Path) -> None:
    first = metric_folder(tmp_path / "a", {"metric.py": WITH_HELPER, "helper.py": HELPER})
    out = tmp_path / "out"
    assert export(first, out)[0] == EXIT_OK
    (out / "metric" / "mine.py").write_text("X = 1\n")
    second = metric_folder(tmp_path / "b", {"metric.py": PLAIN})
    code, text = export(second, out)
    assert code == EXIT_USAGE, text
    assert "mine.py" in text and "helper.py" not in text, text
    assert files_under(out / "metric") == ["helper.py", "metric.py", "mine.py"]
    assert (out / "metric" / "metric.py").read_text() == WITH_HELPER  # nothing of the second export was written


def test_a_metric_module_changed_since_the_export_refuses_the_export(tmp_path: Path) -> None:
    first = metric_folder(tmp_path / "a", {"metric.py": WITH_HELPER, "helper.py": HELPER})
    out = tmp_path / "out"
    assert export(first, out)[0] == EXIT_OK
    (out / "metric" / "helper.py").write_text(HELPER + "# tuned by hand\n")
    code, text = export(metric_folder(tmp_path / "b", {"metric.py": PLAIN}), out)
    assert code == EXIT_USAGE and "helper.py" in text, text
    assert (out / "metric" / "helper.py").read_text().endswith("# tuned by hand\n")


def test_an_export_of_the_earlier_kind_without_a_list_of_its_files_refuses_leftover_modules(tmp_path: Path) -> None:
    first = metric_folder(tmp_path / "a", {"metric.py": WITH_HELPER, "helper.py": HELPER})
    out = tmp_path / "out"
    assert export(first, out)[0] == EXIT_OK
    (out / ".skynet-export.json").write_text('{"written_by": "Skynet Metric Studio export"}\n')
    code, text = export(metric_folder(tmp_path / "b", {"metric.py": PLAIN}), out)
    assert code == EXIT_USAGE and "helper.py" in text, text
    assert (out / "metric" / "helper.py").read_text() == HELPER
    code, text = export(metric_folder(tmp_path / "c", {"metric.py": WITH_HELPER, "helper.py": HELPER + "#\n"}), out)
    assert code == EXIT_OK, text  # the same names: written again, as before
    assert (out / "metric" / "helper.py").read_text() == HELPER + "#\n"

"""Issue 23 item 13: metric.py in a busy folder brings only what it needs, and says which files came."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from skynet_core.cli import EXIT_OK, EXIT_USAGE, run
from skynet_core.metric.archive import read_zip
from skynet_core.metric.folder import read_metric_folder
from skynet_core.metric.source import MetricSourceError

METRIC = (
    "import json\n"
    "from pathlib import Path\n\n"
    "from grading import grade\n\n"
    "LABELS = json.loads((Path(__file__).parent / 'labels.json').read_text())\n\n\n"
    "def score(input, output, expected=None):\n"
    "    return grade(output, LABELS), {'feedback': 'graded'}\n"
)
GRADING = (
    "from rules.exact import same\n\n\ndef grade(output, labels):\n    return 1.0 if same(output, labels) else 0.0\n"
)
NEEDED = ["grading.py", "labels.json", "metric.py", "rules/__init__.py", "rules/exact.py"]
EXACT = "def same(output, labels):\n    return output in labels\n"
CASE = '{"id": "a", "input": {"q": "1"}, "output": "x"}\n'


def busy(folder: Path, clutter: int = 80) -> Path:
    """A project's root: the metric with its helpers and data, and many other files."""
    (folder / "metric.py").write_text(METRIC)
    (folder / "grading.py").write_text(GRADING)
    (folder / "rules").mkdir()
    (folder / "rules" / "__init__.py").write_text("")
    (folder / "rules" / "exact.py").write_text(EXACT)
    (folder / "labels.json").write_text('["x"]')
    for index in range(clutter):
        (folder / f"script_{index}.py").write_text("import os\n")
        (folder / f"notes_{index}.md").write_text("notes\n")
    return folder


def test_a_metric_file_in_a_busy_folder_brings_what_it_imports_and_names(tmp_path):
    read = read_metric_folder(busy(tmp_path) / "metric.py")
    assert read.by_need
    assert sorted(read.source.files) == NEEDED
    assert any("grading.py" in note and "labels.json" in note for note in read.notes)


def test_the_cli_scores_it_and_says_which_files_came_along(tmp_path, pool):
    (tmp_path / "project").mkdir()
    folder = busy(tmp_path / "project")
    data = tmp_path / "cases.jsonl"
    data.write_text(CASE)
    out, err = io.StringIO(), io.StringIO()
    code = run(["score", str(folder / "metric.py"), "--data", str(data)], stdout=out, stderr=err)
    assert code == EXIT_OK, err.getvalue() + out.getvalue()
    assert "only what metric.py imports or names came along" in err.getvalue()
    assert "rules/exact.py" in err.getvalue()


def test_the_folder_itself_stays_refused_when_busy(tmp_path):
    with pytest.raises(MetricSourceError, match="in a folder of their own"):
        read_metric_folder(busy(tmp_path))


def test_what_metric_py_needs_is_refused_when_it_is_over_the_limits_naming_the_files(tmp_path):
    folder = busy(tmp_path)
    imports = "".join(f"import helper_{index}\n" for index in range(70))
    (folder / "metric.py").write_text(imports + METRIC)
    for index in range(70):
        (folder / f"helper_{index}.py").write_text("")
    out, err = io.StringIO(), io.StringIO()
    data = folder / "cases.jsonl"
    data.write_text(CASE)
    code = run(["check", str(folder / "metric.py"), "--data", str(data)], stdout=out, stderr=err)
    assert code == EXIT_USAGE
    assert "helper_69.py" in err.getvalue() and "at most 64 files" in err.getvalue()


def test_a_zip_of_a_busy_folder_brings_what_metric_py_needs(tmp_path):
    folder = busy(tmp_path)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, "project/" + path.relative_to(folder).as_posix())
    source = read_zip(buffer.getvalue())
    assert sorted(source.files) == NEEDED

"""Issue 21 item 3: links in a metric folder are never followed (CLI, upload, zip)."""

from __future__ import annotations

import io
import os
import stat
import zipfile
from pathlib import Path

import pytest

from skynet_core.cli import EXIT_USAGE
from skynet_core.metric.archive import read_zip
from skynet_core.metric.folder import read_metric
from skynet_core.metric.source import MetricSourceError
from tests.core.command_line import cli

LEAKY = (
    "from pathlib import Path\n\n"
    "def score(input, output, expected=None):\n"
    "    return 1.0, {'feedback': Path('notes.txt').read_text()[:2000]}\n"
)
CASE = '{"id": "a", "input": {"q": "1"}, "output": "x"}\n'


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "elsewhere" / "secret.txt"
    path.parent.mkdir()
    path.write_text("OPENAI_API_KEY=sk-test-leaked-through-a-link-0123456789\n")
    return path


@pytest.mark.parametrize("given", ["folder", "file"])
def test_a_link_beside_metric_py_is_refused_by_name_and_not_read(tmp_path, secret, given):
    folder = tmp_path / "metric"
    folder.mkdir()
    (folder / "metric.py").write_text(LEAKY)
    (folder / "notes.txt").symlink_to(secret)
    (tmp_path / "cases.jsonl").write_text(CASE)
    target = folder if given == "folder" else folder / "metric.py"
    code, text = cli("score", str(target), "--data", str(tmp_path / "cases.jsonl"), "--json")
    assert code == EXIT_USAGE, text
    assert "notes.txt is a symbolic link" in text
    assert "sk-test-leaked" not in text


def test_a_link_to_proc_environ_never_reaches_the_metric(tmp_path):
    folder = tmp_path / "metric"
    folder.mkdir()
    (folder / "metric.py").write_text(LEAKY)
    (folder / "notes.txt").symlink_to("/proc/self/environ")
    with pytest.raises(MetricSourceError, match="notes.txt is a symbolic link"):
        read_metric(folder)


def test_metric_py_itself_a_link_is_refused(tmp_path, secret):
    folder = tmp_path / "metric"
    folder.mkdir()
    (folder / "metric.py").symlink_to(secret)
    with pytest.raises(MetricSourceError, match="metric.py is a symbolic link"):
        read_metric(folder)


def test_a_linked_folder_is_left_out_with_a_note(tmp_path, secret):
    folder = tmp_path / "metric"
    folder.mkdir()
    (folder / "metric.py").write_text(LEAKY.replace("notes.txt", "data/secret.txt"))
    (folder / "data").symlink_to(secret.parent, target_is_directory=True)
    (tmp_path / "cases.jsonl").write_text(CASE)
    code, text = cli("check", str(folder), "--data", str(tmp_path / "cases.jsonl"), "--json")
    assert "data/ was left out: it is a link to a folder" in text
    assert "sk-test-leaked" not in text


def test_a_link_in_a_zip_is_refused_by_name():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("metric.py", LEAKY)
        link = zipfile.ZipInfo("notes.txt")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/proc/self/environ")
    with pytest.raises(MetricSourceError, match="notes.txt in the archive is a symbolic link"):
        read_zip(buffer.getvalue())


def test_a_file_replaced_by_a_link_after_the_walk_is_not_followed(tmp_path, secret, monkeypatch):
    """The file is opened without following links, so a link swapped in after the check is refused too."""
    from skynet_core.metric import folder as metric_folder

    folder = tmp_path / "metric"
    folder.mkdir()
    (folder / "metric.py").write_text(LEAKY)
    (folder / "notes.txt").write_text("fine\n")
    real_lstat = os.lstat

    def swap(path, *args, **kwargs):
        info = real_lstat(path, *args, **kwargs)
        if str(path).endswith("notes.txt") and not stat.S_ISLNK(info.st_mode):
            os.unlink(path)
            os.symlink(secret, path)
        return info

    monkeypatch.setattr(metric_folder.os, "lstat", swap)
    with pytest.raises(MetricSourceError, match="symbolic link"):
        read_metric(folder)

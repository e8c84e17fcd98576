"""``score --out`` never writes over a file the run reads: the data, the human labels (``--labels``), the column
roles (``--roles``), a candidate's file (``--candidate-file``) or the metric (its file, or a file of its folder),
whether named by the same path, another spelling, a symbolic link or a hard link. Refused with exit 2 before
anything runs, and the file is left as it was."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from skynet_core.cli import EXIT_OK, EXIT_USAGE, run

METRIC = 'def score(input, output, expected=None):\n    return 1.0, {"feedback": "ok"}\n'
CSV = "id,input.q,output,expected.a\na,1,x,1\nb,2,y,2\n"
LABELS = "id,human\na,1\nb,0\n"
ROLES = '{"input.q": ["input", "q"]}\n'
CANDIDATE = "id,output\na,x\nb,z\n"


def cli(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(args), stdout=out, stderr=err)
    return code, out.getvalue() + err.getvalue()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "metric.py").write_text(METRIC)
    (tmp_path / "cases.csv").write_text(CSV)
    (tmp_path / "labels.csv").write_text(LABELS)
    (tmp_path / "roles.json").write_text(ROLES)
    (tmp_path / "large.csv").write_text(CANDIDATE)
    return tmp_path


def score(folder: Path, out: str) -> tuple[int, str]:
    return cli(
        "score",
        str(folder / "metric.py"),
        "--data",
        str(folder / "cases.csv"),
        "--labels",
        str(folder / "labels.csv"),
        "--roles",
        str(folder / "roles.json"),
        "--candidate-file",
        f"large={folder / 'large.csv'}",
        "--out",
        out,
    )


def same_path(path: Path) -> str:
    return str(path)


def other_spelling(path: Path) -> str:
    (path.parent / "sub").mkdir(exist_ok=True)
    return str(path.parent / "sub" / ".." / path.name)


def symbolic_link(path: Path) -> str:
    link = path.with_name("link.csv")
    link.symlink_to(path)
    return str(link)


def hard_link(path: Path) -> str:
    link = path.with_name("hard.csv")
    os.link(path, link)
    return str(link)


INPUTS = [("labels.csv", "--labels"), ("large.csv", "--candidate-file"), ("cases.csv", "--data")]


@pytest.mark.parametrize("way", [same_path, other_spelling, symbolic_link, hard_link], ids=lambda way: way.__name__)
@pytest.mark.parametrize(("name", "option"), INPUTS, ids=[option for _name, option in INPUTS])
def test_out_over_an_input_file_is_refused_and_the_file_kept(folder: Path, name: str, option: str, way) -> None:
    target = folder / name
    before = target.read_bytes()
    code, text = score(folder, way(target))
    assert code == EXIT_USAGE, text
    assert option in text and "which this run reads" in text, text
    assert target.read_bytes() == before


@pytest.mark.parametrize("way", [symbolic_link, hard_link], ids=lambda way: way.__name__)
def test_out_over_the_roles_file_by_a_link_is_refused(folder: Path, way) -> None:
    code, text = score(folder, way(folder / "roles.json"))
    assert code == EXIT_USAGE and "--roles" in text and "which this run reads" in text, text
    assert (folder / "roles.json").read_text() == ROLES


def test_out_over_the_metric_file_through_a_link_is_refused(folder: Path) -> None:
    link = folder / "metric_link.jsonl"
    link.symlink_to(folder / "metric.py")
    code, text = cli("score", str(folder / "metric.py"), "--data", str(folder / "cases.csv"), "--out", str(link))
    assert code == EXIT_USAGE and "a file of the metric" in text, text
    assert (folder / "metric.py").read_text() == METRIC


def test_out_over_a_file_inside_the_metric_folder_by_a_hard_link_is_refused(tmp_path: Path) -> None:
    metric = tmp_path / "m"
    metric.mkdir()
    (metric / "metric.py").write_text("import helper\n" + METRIC)
    (metric / "helper.py").write_text("X = 1\n")
    (tmp_path / "cases.csv").write_text(CSV)
    os.link(metric / "helper.py", tmp_path / "results.csv")
    data, out = tmp_path / "cases.csv", tmp_path / "results.csv"
    code, text = cli("score", str(metric), "--data", str(data), "--out", str(out))
    assert code == EXIT_USAGE and "a file of the metric" in text, text
    assert (metric / "helper.py").read_text() == "X = 1\n"


def test_out_beside_the_labels_is_written(folder: Path, pool) -> None:
    code, text = score(folder, str(folder / "results.csv"))
    assert code == EXIT_OK, text
    assert (folder / "labels.csv").read_text() == LABELS
    assert (folder / "results.csv").read_text().startswith("id,")

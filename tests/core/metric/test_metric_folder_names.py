"""Issue 21 item 4: names in a metric folder are plain, and requirements.txt holds validated requirements only."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from skynet_core.cli import EXIT_USAGE, run
from skynet_core.engines import export as engine_export
from skynet_core.metric.packages import PackageStatus
from skynet_core.metric.source import MetricSource, MetricSourceError

SCORE = 'def score(input, output, expected=None):\n    return 1.0, {"feedback": "ok"}\n'
EVIL = "x\nattacker-typosquat-pkg==6.6.6\n--pre\n#.py"


@pytest.mark.parametrize(
    "name",
    [EVIL, "my helpers.py", "tab\there.py", "a/b/c.py", "x" * 300 + ".py", "bell\x07.txt", "é\u200b.py"],
)
def test_a_name_that_is_not_plain_is_refused(name):
    with pytest.raises(MetricSourceError):
        MetricSource({"metric.py": SCORE, name: "import missing_module\n"})


@pytest.mark.parametrize("name", ["helpers.py", "data/labels.json", "checks/__init__.py", "grading-v2.py", "été.txt"])
def test_plain_names_are_kept(name):
    assert name in MetricSource({"metric.py": SCORE, name: ""}).files


def test_a_helper_named_to_inject_requirements_is_refused_by_the_cli(tmp_path):
    folder = tmp_path / "metric"
    folder.mkdir()
    (folder / "metric.py").write_text(SCORE)
    (folder / EVIL).write_text("import missing_module\n")
    out, err = io.StringIO(), io.StringIO()
    code = run(["export", str(folder), "--engine", "gepa", "--out", str(tmp_path / "out")], stdout=out, stderr=err)
    assert code == EXIT_USAGE
    assert "is not a plain file name" in err.getvalue() and "\n--pre" not in err.getvalue()
    assert not (tmp_path / "out").exists()


def test_requirements_hold_only_validated_requirements_and_no_file_names(monkeypatch):
    report = [
        PackageStatus("numpy", "numpy", "metric.py", 1, "studio", "2.4.0"),
        PackageStatus("evil", "evil\n--index-url http://attacker", "metric.py", 2, "packages", "1.0"),
        PackageStatus("bad", "bad", "metric.py", 3, "packages", "1.0\n--pre"),
        PackageStatus("missing_mod", "missing-mod", "helpers.py", 4, None, None),
    ]
    monkeypatch.setattr(engine_export, "package_report", lambda source: report)
    text = engine_export.requirements(MetricSource({"metric.py": SCORE, "helpers.py": ""}), "gepa")
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert "numpy==2.4.0" in lines
    assert not any("attacker" in line or "--" in line or line.startswith("bad==") for line in text.splitlines())
    comments = [line for line in text.splitlines() if line.startswith("#")]
    assert not any("helpers.py" in line or "metric.py" in line for line in comments)
    assert any("missing_mod" in line and "missing-mod" in line for line in comments)


def test_a_saved_draft_with_names_no_longer_allowed_still_opens_and_writes(tmp_path: Path):
    from skynet_core.store import Store

    store = Store(tmp_path)
    store.save_draft(MetricSource({"metric.py": SCORE, "helpers.py": "X = 1\n"}))
    # A draft saved by an older studio, before names were checked as they are now.
    import orjson

    from skynet_core.store import connect

    bad = {"metric.py": SCORE, "helpers.py": "X = 1\n", "helpers.py/inner.py": "Y = 2\n", "a/b/c.py": "Z = 3\n"}
    with connect(store.path) as db:
        db.execute("UPDATE drafts SET files = ?", (orjson.dumps(bad).decode(),))
    draft = store.draft_record()
    assert draft is not None
    files = dict(draft.metric.files)
    assert files["metric.py"] == SCORE and files["helpers.py"] == "X = 1\n"
    assert sorted(files.values()) == sorted(bad.values())  # every text kept, under plain names
    draft.metric.write_to(tmp_path / "written")  # can be written to disk: no FileExistsError

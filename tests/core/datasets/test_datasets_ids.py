"""Issue 21, "Also seen": ids that look the same after Unicode normalisation are warned about, and a missing id
that collides with an explicit one is named for what it is."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from skynet_core.cli import EXIT_OK, run
from skynet_core.datasets import DatasetError, load_dataset, read_case_lines, read_table
from skynet_core.views.data.preview import preview_warnings

METRIC = 'def score(input, output, expected=None):\n    return 1.0, {"feedback": "ok"}\n'


def jsonl(path: Path, *ids: str | None) -> Path:
    import json

    lines = [
        json.dumps({**({"id": case_id} if case_id is not None else {}), "input": {"q": str(n)}, "output": "x"})
        for n, case_id in enumerate(ids)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_ids_equal_after_nfc_are_warned_about_in_the_dataset_and_the_cli(tmp_path):
    data = jsonl(tmp_path / "cases.jsonl", "caf\u00e9", "cafe\u0301", "other")
    dataset = load_dataset(data)
    assert len(dataset.cases) == 3  # still two cases: the warning says so
    assert any("line 1" in text and "line 2" in text and "NFC" in text for text in dataset.warnings)
    lines = read_case_lines(data)
    assert lines is not None and lines.warnings == dataset.warnings
    (tmp_path / "metric.py").write_text(METRIC)
    out, err = io.StringIO(), io.StringIO()
    assert run(["score", str(tmp_path / "metric.py"), "--data", str(data)], stdout=out, stderr=err) == EXIT_OK
    assert "warning:" in err.getvalue() and "NFC" in err.getvalue()


def test_the_data_preview_warns_without_refusing(tmp_path):
    data = jsonl(tmp_path / "cases.jsonl", "caf\u00e9", "cafe\u0301")
    frame = read_table(data)
    warnings = preview_warnings(frame, None, str(data))
    assert len(warnings) == 1 and "NFC" in warnings[0]


def test_plain_ids_bring_no_warning(tmp_path):
    assert load_dataset(jsonl(tmp_path / "cases.jsonl", "a", "b", "\u00e9")).warnings == []


@pytest.mark.parametrize("ids", [("2", None), (None, "1")])
def test_a_missing_id_beside_an_explicit_one_is_named_for_what_it_is(tmp_path, ids):
    data = jsonl(tmp_path / "cases.jsonl", *ids)
    with pytest.raises(DatasetError) as caught:
        load_dataset(data)
    text = str(caught.value)
    missing, given = (2, 1) if ids[1] is None else (1, 2)
    assert f"line {missing} has no id" in text and f"line {given}" in text, text
    assert "appears twice" not in text

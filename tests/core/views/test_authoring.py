"""The Author page's deciding logic (skynet_core.views.author): check cases and pins, typed cases, return lines."""

from __future__ import annotations

import orjson
import pytest

from skynet_core.cases import Case
from skynet_core.datasets import load_dataset, sample_for_check
from skynet_core.datasets.typed_case import CaseJsonError, parse_case, save_user_case
from skynet_core.metric.check_cases import MAX_PINS, check_cases, pins_for, with_pins
from skynet_core.metric.lines import return_line
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.views.author import error_headline, example_shown, run_numbers, side_information
from skynet_core.workspace import Workspace


def cases(n: int = 10) -> list[Case]:
    return [Case(f"c{i}", {"q": i}, i, {"a": i}) for i in range(n)]


def test_no_pins_means_the_planners_sample():
    chosen = check_cases(cases(), [])
    assert not chosen.pinned and chosen.reason == "sampled"
    assert chosen.ids == [c.id for c in sample_for_check(cases(), 3)]


def test_pins_are_used_in_pin_order_and_vanished_ids_are_named():
    chosen = check_cases(cases(), ["c7", "gone", "c2", "c7"])
    assert chosen.pinned and chosen.reason == "pinned"
    assert chosen.ids == ["c7", "c2"]
    assert chosen.dropped == ["gone"]


def test_when_every_pin_vanished_the_sample_comes_back_and_says_so():
    chosen = check_cases(cases(), ["x", "y"])
    assert not chosen.pinned and chosen.dropped == ["x", "y"] and len(chosen.cases) == 3


def test_pins_are_stored_per_dataset_and_bounded():
    stored = with_pins(None, "a.jsonl", ["1", "2", "1"])
    stored = with_pins(stored, "b.jsonl", [str(i) for i in range(50)])
    assert pins_for(stored, "a.jsonl") == ["1", "2"]
    assert len(pins_for(stored, "b.jsonl")) == MAX_PINS
    assert pins_for(with_pins(stored, "a.jsonl", []), "a.jsonl") == []
    assert pins_for("garbage", "a.jsonl") == [] and pins_for({"a.jsonl": "x"}, "a.jsonl") == []


def test_the_workspace_keeps_pins_and_the_check_runs_them(tmp_path):
    ws = Workspace(tmp_path)
    in_use = ws.data.in_use()
    ids = [c.id for c in in_use.cases[5:7]]
    ws.data.set_check_pins(ids)
    assert Workspace(tmp_path).data.check_pins() == ids
    assert ws.data.check_cases().ids == ids and ws.data.check_cases().pinned


def test_a_typed_case_parses():
    assert parse_case("t1", '{"q": "hi"}', '"hello"', "") == Case("t1", {"q": "hi"}, "hello", None)


@pytest.mark.parametrize(
    ("typed", "field"),
    [
        (('{"q": ', '"x"', ""), "input"),
        (("{}", "not json", ""), "output"),
        (("{}", "1", "[1]"), "expected"),
        (("[1]", "1", ""), "input"),
    ],
)
def test_a_typed_case_with_bad_json_names_its_field(typed: tuple[str, str, str], field: str):
    with pytest.raises(CaseJsonError) as bad:
        parse_case("t1", *typed)
    assert bad.value.field == field


def test_saved_cases_make_a_loadable_dataset_with_unique_ids(tmp_path):
    case = Case("t1", {"q": "hi"}, "hello", {"label": "hello"})
    save_user_case(tmp_path, case)
    path = save_user_case(tmp_path, case)
    rows = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    assert [row["id"] for row in rows] == ["t1", "t1-2"]
    data = load_dataset(str(path))
    assert sorted(c.id for c in data.for_candidate(data.candidates[0])) == ["t1", "t1-2"]


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("def score(input, output, expected=None):\n    x = 1\n    return 1.0\n", 3),
        (
            "def score(input, output, expected=None):\n    if input:\n        return 0.0, {}\n    return 1.0, {}\n",
            4,
        ),
        (
            "def score(input, output, expected=None):\n    def helper():\n        return 2\n    return helper()\n",
            4,
        ),
        (
            "def score(input, output, expected=None):\n    if input:\n        return 1\n    else:\n        return 2\n",
            None,
        ),
        ("def score(:\n", None),
        ("x = 1\n", None),
    ],
)
def test_the_obvious_return_line(source, line):
    assert return_line(source) == line


def test_run_numbers_put_the_failures_beside_the_mean():
    results = [
        CaseResult("a", score=1.0),
        CaseResult("b", score=0.5),
        CaseResult("c", status=CaseStatus.ERROR, error="boom"),
    ]
    numbers = run_numbers(results)
    assert numbers.mean == pytest.approx(0.75) and numbers.failed == 1
    assert numbers.failed_share == pytest.approx(1 / 3)
    assert numbers.by_status == {"ok": 2, "error": 1}
    assert run_numbers([]).mean is None and run_numbers([]).failed_share == 0.0


def test_an_errored_case_has_no_side_information():
    assert side_information(CaseResult("c", status=CaseStatus.ERROR, error="boom")) is None
    assert side_information(CaseResult("a", score=1.0, feedback="f")) == {"feedback": "f", "scores": {}}


def test_error_headline_is_one_clipped_line():
    assert error_headline("KeyError: 'x'\n  File ...") == "KeyError: 'x'"
    assert len(error_headline("x" * 500)) == 160
    assert error_headline("") == ""


def test_example_shown_only_when_the_text_is_the_example():
    examples = {"Exact match": "def score(): ...\n", "Other": "pass\n"}
    assert example_shown("def score(): ...", examples) == "Exact match"
    assert example_shown("def score(): ...  # edited", examples) is None


def test_completions_are_python_3_only():
    from skynet_core.views.author import python_completions

    words = {item["value"] for item in python_completions()}
    assert {"def", "return", "print", "isinstance", "match"} <= words
    assert not {"raw_input", "unicode", "xrange", "basestring"} & words

"""The contract check, stage by stage: every row of the seed's return-value table and every Part B rule."""

from __future__ import annotations

import textwrap

import pytest

from skynet_core.metric.contract import check_metric, validate_timeout
from skynet_core.results import CaseStatus, StageName, StageStatus
from skynet_core.scoring import RunOptions
from skynet_core.scoring.sandbox.returns import check_return
from tests.case_factory import make_cases


def metric_returning(expression: str, imports: str = "") -> str:
    return f"{imports}\ndef score(input, output, expected=None):\n    return {expression}\n"


def check(pool, source: str, cases=None, timeout: float = 10):
    cases = cases if cases is not None else make_cases()
    options = RunOptions(timeout_s=timeout, pool=pool, stop_on_timeout=True)
    return check_metric(textwrap.dedent(source), cases, options, sample=cases)


@pytest.mark.parametrize(
    "expression",
    [
        '(0.8, {"feedback": "Close. Missing the date."})',
        '[1.0, {"feedback": "OK", "scores": {"format": 1.0}}]',
    ],
)
def test_valid_pairs_from_the_seed_table_pass(pool, expression):
    report = check(pool, metric_returning(expression))
    assert report.ok
    assert [stage.status for stage in report.stages] == [
        StageStatus.PASSED,
        StageStatus.PASSED,
        StageStatus.SKIPPED,
        StageStatus.PASSED,
    ]
    assert all(case.status is CaseStatus.OK for case in report.cases)


@pytest.mark.parametrize(
    ("expression", "words"),
    [
        ("0.8", "bare number (0.8) with no side information"),
        ('(0.8, "Close.")', "side information is a string, not a dict"),
        ("(0.8, {})", "no 'feedback' key"),
        ('("0.8", {"feedback": "OK"})', "score is a string ('0.8'); return a number: 0.8"),
        ('(0.8, {"feedback": "OK", "scores": {"a": "high"}})', "named score 'a' is a string ('high')"),
    ],
)
def test_invalid_returns_from_the_seed_table_fail_at_metric_return_value(pool, expression, words):
    report = check(pool, metric_returning(expression))
    stage = report.stage(StageName.RETURN_VALUE)
    assert stage.status is StageStatus.FAILED
    assert stage.label == "metric return value"
    assert words in stage.message
    assert stage.case_id == "case-0"
    assert report.cases[0].status is CaseStatus.INVALID


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (True, "score is a bool (True); return 1.0 or 0.0"),
        (None, "score is None"),
        (float("nan"), "score is NaN"),
        (float("inf"), "infinite"),
        (-float("inf"), "-infinite"),
        ([1], "score is a list"),
        ("high", "score is a string ('high'); return a number, not text"),
    ],
)
def test_bad_score_values_are_rejected_with_hints(value, words):
    result = check_return((value, {"feedback": "x"}))
    assert result["status"] == "invalid"
    assert words in result["error"]


def test_numpy_scalars_and_ints_are_real_numbers():
    numpy = pytest.importorskip("numpy")
    assert check_return((numpy.float32(0.5), {"feedback": ""}))["score"] == 0.5
    assert check_return((1, {"feedback": "", "scores": {"n": numpy.int64(2)}}))["scores"] == {"n": 2.0}
    assert "bool" in check_return((numpy.bool_(True), {"feedback": ""}))["error"]


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (None, "is a `return` missing?"),
        ({"score": 1.0}, "returned a dict, not a pair"),
        ((1.0, {"feedback": "a"}, 3), "tuple of 3 items"),
        ("text", "returned a string"),
    ],
)
def test_non_pairs_name_the_likely_mistake(value, words):
    assert words in check_return(value)["error"]


def test_a_returned_generator_names_a_stray_yield(pool):
    source = "def helper():\n    yield 1\n\ndef score(input, output, expected=None):\n    return helper()\n"
    assert "stray `yield`" in check(pool, source).stage(StageName.RETURN_VALUE).message


def test_a_returned_coroutine_says_metric_code_must_be_synchronous(pool):
    source = "async def helper():\n    return 1\n\ndef score(input, output, expected=None):\n    return helper()\n"
    assert "must be synchronous" in check(pool, source).stage(StageName.RETURN_VALUE).message


def test_extra_side_information_keys_are_allowed_and_kept(pool):
    report = check(pool, metric_returning('(1.0, {"feedback": "ok", "trace": {"steps": 2}, "tags": ["a"]})'))
    assert report.ok
    assert report.cases[0].extra == {"trace": {"steps": 2}, "tags": ["a"]}


def test_empty_feedback_is_valid_for_the_contract(pool):
    assert check(pool, metric_returning('(0.0, {"feedback": ""})')).ok


@pytest.mark.parametrize(("feedback", "words"), [("3", "feedback is a int (3)"), ("None", "feedback is a NoneType")])
def test_feedback_must_be_a_string(pool, feedback, words):
    message = check(pool, metric_returning(f'(0.0, {{"feedback": {feedback}}})')).stage(StageName.RETURN_VALUE).message
    assert words in message


@pytest.mark.parametrize(
    ("scores", "words"),
    [
        ('{"": 1.0}', "is not a non-empty string"),
        ("{1: 1.0}", "named score key 1"),
        ('{"a": True}', "named score 'a' is a bool"),
        ('{"a": float("nan")}', "named score 'a' is NaN"),
        ('[("a", 1.0)]', "'scores' is a list"),
    ],
)
def test_named_scores_must_be_names_to_numbers(pool, scores, words):
    message = check(pool, metric_returning(f'(1.0, {{"feedback": "x", "scores": {scores}}})'))
    assert words in message.stage(StageName.RETURN_VALUE).message


def test_a_syntax_error_fails_load_naming_the_line(pool):
    report = check(pool, "def score(input, output, expected=None):\n    return (1.0, {'feedback': 'x'}\n\nx = 1\n")
    load = report.stage(StageName.LOAD)
    assert load.status is StageStatus.FAILED
    assert load.line == 2
    assert "metric.py line 2" in load.message
    assert [stage.status for stage in report.stages[1:]] == [StageStatus.NOT_RUN] * 3


def test_an_import_time_exception_names_its_line(pool):
    report = check(pool, "import json\n\nVALUE = 1 / 0\n\ndef score(i, o, e=None):\n    return 1.0, {'feedback': ''}\n")
    load = report.stage(StageName.LOAD)
    assert load.status is StageStatus.FAILED
    assert load.line == 3
    assert "ZeroDivisionError" in load.message


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("x = 1\n", "defines no function named score"),
        ("async def score(input, output, expected=None):\n    return 1.0, {'feedback': ''}\n", "`async def`"),
        ("def score(input, output, expected=None):\n    yield 1.0\n", "generator function"),
        ("def score(input):\n    return 1.0, {'feedback': ''}\n", "score(input)"),
        ("def score(a, b, c, d):\n    return 1.0, {'feedback': ''}\n", "score(a, b, c, d)"),
        ("class score:\n    pass\n", "not a function"),
        ("def score(input, output, *, strict):\n    return 1.0, {'feedback': ''}\n", "keyword-only"),
    ],
)
def test_bad_signatures_fail_at_signature_showing_what_was_found(pool, source, words):
    report = check(pool, source)
    stage = report.stage(StageName.SIGNATURE)
    assert stage.status is StageStatus.FAILED
    assert words in stage.message
    assert report.stage(StageName.RETURN_VALUE).status is StageStatus.NOT_RUN


def test_two_parameter_score_is_called_with_input_and_output(pool):
    source = "def score(input, output):\n    return 1.0, {'feedback': f'{input[\"question\"]}:{output}'}\n"
    report = check(pool, source)
    assert report.ok
    assert "score(input, output)" in report.stage(StageName.SIGNATURE).message
    assert report.cases[0].feedback == "q0:billing"


def test_three_parameter_score_receives_expected_or_none(pool):
    source = "def score(input, output, expected=None):\n    return 1.0, {'feedback': repr(expected)}\n"
    cases = make_cases(1) + make_cases(1, with_expected=False)
    report = check(pool, source, cases)
    assert [case.feedback for case in report.cases] == ["{'label': 'billing'}", "None"]


def test_a_raising_case_names_the_case_and_the_line_with_a_trimmed_traceback(pool):
    source = "import json\n\ndef score(input, output, expected=None):\n    return json.loads(output), {}\n"
    report = check(pool, source)
    stage = report.stage(StageName.RETURN_VALUE)
    assert stage.case_id == "case-0"
    assert stage.line == 4
    assert "JSONDecodeError" in stage.message
    error = report.cases[0].error
    assert 'File "metric.py", line 4, in score' in error
    assert "json/decoder.py" not in error  # frames outside metric.py are trimmed


def test_reward_spec_stage_is_skipped_without_reward_spec(pool):
    assert (
        check(pool, metric_returning('(1.0, {"feedback": ""})')).stage(StageName.REWARD_SPEC).status
        is StageStatus.SKIPPED
    )


def test_an_invalid_reward_spec_fails_its_stage_with_the_line(pool):
    source = (
        "\nREWARD_SPEC = {'weights': {'accuracy': 0, 'speed': 0, 'cost': 0}, 'accuracy': {},\n"
        "    'speed': {'reference': 2000}, 'cost': {'reference': 0.01}}\n\n"
        "def score(input, output, expected=None):\n    return 1.0, {'feedback': ''}\n"
    )
    report = check(pool, source)
    stage = report.stage(StageName.REWARD_SPEC)
    assert stage.status is StageStatus.FAILED
    assert stage.line == 2
    assert report.stage(StageName.RETURN_VALUE).status is StageStatus.NOT_RUN


def test_the_seed_reward_metric_passes_and_reports_three_parts(pool):
    source = """
        from skynet import reward

        REWARD_SPEC = {
            "weights": {"accuracy": 0.7, "speed": 0.2, "cost": 0.1},
            "accuracy": {},
            "speed": {"reference": 2000},
            "cost": {"reference": 0.01},
        }

        def score(input, output, expected=None):
            ok = output == expected["label"]
            return reward(REWARD_SPEC, 1.0 if ok else 0.0, "Correct." if ok else "Wrong label.")
    """
    report = check(pool, source)
    assert report.ok, report.to_json()
    case = report.cases[0]
    assert set(case.scores) == {"accuracy", "speed", "cost"}
    assert case.scores["speed"] == pytest.approx(2000 / (2000 + 850))
    assert case.scores["cost"] == pytest.approx(0.01 / (0.01 + 0.002))
    expected = 0.7 * 1.0 + 0.2 * case.scores["speed"] + 0.1 * case.scores["cost"]
    assert case.score == pytest.approx(expected)


def test_observation_and_service_cost_read_the_case_measurement(pool):
    source = """
        from skynet import observation, service_cost

        def score(input, output, expected=None):
            seen = observation()
            seen["latency_ms"] = 0  # a copy: the metric cannot change what was measured
            return observation()["latency_ms"], {"feedback": str(service_cost())}
    """
    report = check(pool, source)
    assert report.cases[0].score == 850.0
    assert report.cases[0].feedback == "0.002"


def test_a_timeout_fails_the_case_naming_the_stuck_line(pool):
    report = check(pool, "def score(input, output, expected=None):\n    while True:\n        pass\n", timeout=1)
    stage = report.stage(StageName.RETURN_VALUE)
    assert stage.status is StageStatus.FAILED
    assert "did not finish within 1 s" in stage.message
    assert stage.line in (2, 3)
    assert report.cases[0].status is CaseStatus.TIMEOUT


@pytest.mark.parametrize("value", [0, 0.5, 601, -3, "soon"])
def test_timeouts_outside_1_to_600_seconds_are_refused(value):
    with pytest.raises(ValueError, match="1 to 600|from 1 to 600"):
        validate_timeout(value)


def test_prints_are_captured_per_case(pool):
    report = check(
        pool, "def score(i, o, e=None):\n    print('looking at', i['question'])\n    return 1.0, {'feedback': ''}\n"
    )
    assert [case.stdout for case in report.cases] == [f"looking at q{n}\n" for n in range(3)]


def test_a_case_that_prints_nothing_after_one_that_printed_has_no_output(pool):
    # The child keeps its capture buffer between calls and empties it only after a call that wrote to it.
    metric = (
        "def score(i, o, e=None):\n"
        "    if i['question'] == 'q0':\n"
        "        print('only the first')\n"
        "    if i['question'] == 'q1':\n"
        "        print(end='')\n"
        "    return 1.0, {'feedback': i['question']}\n"
    )
    report = check(pool, metric)
    assert [case.stdout for case in report.cases] == ["only the first\n", "", ""]
    assert [case.feedback for case in report.cases] == ["q0", "q1", "q2"]


def test_an_empty_dataset_fails_return_value_with_a_fix(pool):
    report = check_metric(
        metric_returning('(1.0, {"feedback": ""})'), [], RunOptions(timeout_s=5, pool=pool, stop_on_timeout=True)
    )
    assert "no cases to sample" in report.stage(StageName.RETURN_VALUE).message


def test_the_check_samples_three_cases_when_not_told_which(pool):
    report = check_metric(
        metric_returning('(1.0, {"feedback": ""})'),
        make_cases(10),
        RunOptions(timeout_s=5, pool=pool, stop_on_timeout=True),
    )
    assert report.ok
    assert len(report.cases) == 3


def test_the_report_states_its_isolation_level(pool):
    report = check(pool, metric_returning('(1.0, {"feedback": ""})'))
    assert report.isolation is pool.isolation
    assert report.to_json()["isolation"] in ("full", "reduced")

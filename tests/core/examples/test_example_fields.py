"""Item 10 of issue 23: an example says which fields it reads, checks them against the data in use, and
proposes a mapping to the data's own fields (applied by rewriting the example's keys)."""

from __future__ import annotations

from skynet_core.cases import Case
from skynet_core.examples import EXAMPLE_METRICS, apply_field_mapping, example_fields, fields_read, fit_fields
from skynet_core.metric.source import MetricSource
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner.run import score_cases

OUTPUT = '{"label": "positive"}'


def reviews(expected_key: str = "label") -> list[Case]:
    return [
        Case(f"r{n:02d}", {"text": f"Review {n}: it was good."}, OUTPUT, {expected_key: "positive"})
        for n in range(1, 11)
    ]


def test_every_example_declares_the_fields_it_reads() -> None:
    assert example_fields("Model as judge").input == ("subject", "message")
    assert example_fields("Model as judge").expected == ("label",)
    assert example_fields("Exact match").input == () and example_fields("Exact match").expected == ("label",)
    assert example_fields("Several checks (JSON)").expected == ("fields",)
    assert example_fields("Accuracy, speed and cost").expected == ("label",)
    assert set(EXAMPLE_METRICS) == {title for title in EXAMPLE_METRICS if example_fields(title) is not None}


def test_fields_are_read_from_the_score_functions_own_parameter_names() -> None:
    source = (
        "def score(inp, out, gold=None):\n"
        "    a = inp['question'] + inp.get('context', '')\n"
        "    other = {}\n"
        "    return float(gold['answer'] == out and other['x'] is None), {'feedback': ''}\n"
    )
    needs = fields_read(source)
    assert needs.input == ("question", "context") and needs.expected == ("answer",)


def test_the_judge_example_on_other_data_names_the_missing_fields_and_proposes_a_mapping() -> None:
    fit = fit_fields(example_fields("Model as judge"), reviews())
    assert not fit.ok
    assert fit.missing == {"input": ("subject", "message")}
    assert fit.mapping == {("input", "message"): "text", ("input", "subject"): None}
    assert "input['subject']" in fit.message and "input['message']" in fit.message
    assert "text" in fit.message


def test_an_expected_key_of_another_name_is_mapped_and_the_rewritten_example_runs(pool) -> None:
    cases = reviews("sentiment")
    fit = fit_fields(example_fields("Exact match"), cases)
    assert fit.missing == {"expected": ("label",)}
    assert fit.mapping == {("expected", "label"): "sentiment"}
    source = EXAMPLE_METRICS["Exact match"].read_text()
    mapped = apply_field_mapping(source, fit.mapping)
    assert 'expected["sentiment"]' in mapped and 'expected["label"]' not in mapped
    assert fit_fields(fields_read(mapped), cases).ok
    before = score_cases(MetricSource.of(source), cases, RunOptions(pool=pool)).results
    after = score_cases(MetricSource.of(mapped), cases, RunOptions(pool=pool)).results
    assert "KeyError" in before[0].error and "'label'" in before[0].error
    assert all(result.ok for result in after)


def test_data_that_has_every_field_fits() -> None:
    cases = [Case("t1", {"subject": "s", "message": "m"}, "x", {"label": "billing"})]
    fit = fit_fields(example_fields("Model as judge"), cases)
    assert fit.ok and fit.message == "" and fit.mapping == {}

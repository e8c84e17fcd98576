"""The uplift experiment's parts without a model: config checks, the split, the seeded choices, what each arm
shows, the intervals, the plan's call count, the JSON shape, the store and the figures."""

from __future__ import annotations

import itertools
import math

import pytest
from scipy import stats

from skynet_core.cases import Case
from skynet_core.engines.sandboxed import Verdict
from skynet_core.engines.uplift import (
    Arm,
    Calls,
    Outcome,
    Round,
    SeedRun,
    UpliftConfig,
    UpliftResult,
    mean_interval,
    split_cases,
)
from skynet_core.engines.uplift.arms import SCORE_ONLY_FEEDBACK, treated
from skynet_core.engines.uplift.cases import check_split, derangement, draw, minibatch
from skynet_core.engines.uplift.charts import gains_figure, instruction_diff, scores_figure
from skynet_core.engines.uplift.plan import planned_calls
from skynet_core.metric.source import MetricSource
from skynet_core.provenance import Provenance
from skynet_core.store.uplift import UpliftStore, from_record, to_record

START = "Classify the ticket."


def result(
    ends: dict[Arm, list[float]], start: float = 0.25, outcome: Outcome = Outcome.COMPLETE, text: str = "{start} {arm}"
) -> UpliftResult:
    runs = tuple(
        SeedRun(arm, seed, (Round(0, ("a", "b"), start, final, end, True),), final, end)
        for arm, values in ends.items()
        for seed, end in enumerate(values)
        for final in [text.format(start=START, arm=arm)]
    )
    return UpliftResult(UpliftConfig(START, seeds=len(ends[Arm.FEEDBACK])), start, runs, Calls(40, 9), 0.5, outcome)


THREE = {Arm.FEEDBACK: [0.75, 0.5, 1.0], Arm.SCORE_ONLY: [0.25, 0.5, 0.25], Arm.SHUFFLED: [0.5, 0.25, 0.25]}


# --- config -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"instruction": "  "}, "Give the instruction"),
        ({"rounds": 0}, "rounds must be a whole number from 1 to 50"),
        ({"seeds": True}, "seeds must be a whole number"),
        ({"minibatch": 1}, "at least 2 cases"),
        ({"arms": (Arm.FEEDBACK, Arm.SHUFFLED)}, "include feedback and score_only"),
        ({"max_cost_usd": -1.0}, "0 or more"),
        ({"max_cost_usd": math.nan}, "0 or more"),
    ],
)
def test_an_impossible_config_is_refused_with_a_reason(changes, words) -> None:
    values = {"instruction": START, **changes}
    with pytest.raises(ValueError, match=words):
        UpliftConfig(**values)


def test_a_minibatch_of_one_is_fine_without_the_shuffled_arm() -> None:
    assert UpliftConfig(START, minibatch=1, arms=(Arm.FEEDBACK, Arm.SCORE_ONLY)).minibatch == 1


# --- cases --------------------------------------------------------------------------------------------------


def cases(splits: list[str]) -> list[Case]:
    return [
        Case(id=f"c{i}", input={"q": i}, output="x", expected={"a": i}, split=split) for i, split in enumerate(splits)
    ]


def test_the_datasets_train_and_val_splits_are_used_when_it_has_both() -> None:
    split = split_cases(cases(["train", "val", "test", "train", "val"]))
    assert split.from_dataset
    assert [e["id"] for e in split.train] == ["c0", "c3"] and [e["id"] for e in split.val] == ["c1", "c4"]
    assert "output" not in split.train[0]


def test_without_a_val_split_the_cases_are_halved_by_seed() -> None:
    every = cases(["train"] * 9)
    split = split_cases(every, seed=4)
    ids = lambda examples: [example["id"] for example in examples]  # noqa: E731
    assert not split.from_dataset and len(split.val) == 4 and len(split.train) == 5
    assert set(ids(split.train)).isdisjoint(ids(split.val))
    assert split_cases(every, seed=4) == split and split_cases(every, seed=5) != split


def test_too_few_training_cases_for_the_minibatch_says_what_to_do() -> None:
    with pytest.raises(ValueError, match="There are 2 training cases, fewer than the minibatch of 3"):
        check_split(split_cases(cases(["train", "train", "val"])), 3)


def test_a_derangement_moves_every_case_and_is_seeded() -> None:
    found = {derangement(draw("derangement", 0, seed, 0), 3) for seed in range(40)}
    assert found == {(1, 2, 0), (2, 0, 1)}  # the only two derangements of three
    for size in (2, 5, 8):
        order = derangement(draw("derangement", 1, 2, 3), size)
        assert sorted(order) == list(range(size)) and all(i != j for i, j in enumerate(order))
    assert derangement(draw("x", 1), 5) == derangement(draw("x", 1), 5)


def test_a_minibatch_is_distinct_cases_drawn_by_its_seed_and_round() -> None:
    batch = minibatch(draw("minibatch", 0, 1, 2), 3, 10)
    assert len(set(batch)) == 3 and batch == minibatch(draw("minibatch", 0, 1, 2), 3, 10)
    assert batch != minibatch(draw("minibatch", 0, 1, 3), 3, 10)


# --- arms ---------------------------------------------------------------------------------------------------

VERDICTS = [
    Verdict(0.0, "Expected 'billing'.", {"label": 0.0}, {"hint": "a charge"}),
    Verdict(1.0, "Correct.", {"label": 1.0}),
    Verdict(0.5, "Half right.", {"label": 0.5}, {"hint": "the date"}),
]


def test_the_feedback_arm_shows_the_metric_verdicts_as_they_are() -> None:
    assert treated(Arm.FEEDBACK, VERDICTS, (1, 2, 0)) == VERDICTS


def test_the_score_only_arm_shows_dspys_sentence_and_nothing_else_the_metric_said() -> None:
    shown = treated(Arm.SCORE_ONLY, VERDICTS, (1, 2, 0))
    assert [v.feedback for v in shown] == [SCORE_ONLY_FEEDBACK.format(score=s) for s in (0.0, 1.0, 0.5)]
    assert shown[0].feedback == "This trajectory got a score of 0.0."
    assert all(not v.scores and not v.extra for v in shown)


def test_the_shuffled_arm_moves_the_words_and_keeps_each_case_score() -> None:
    shown = treated(Arm.SHUFFLED, VERDICTS, (1, 2, 0))
    assert [v.feedback for v in shown] == ["Correct.", "Half right.", "Expected 'billing'."]
    assert [v.extra for v in shown] == [{}, {"hint": "the date"}, {"hint": "a charge"}]
    assert [(v.score, v.scores) for v in shown] == [(v.score, v.scores) for v in VERDICTS]


# --- statistics ---------------------------------------------------------------------------------------------


def test_the_interval_is_students_t_interval_across_seeds() -> None:
    values = [0.2, 0.5, 0.65]
    interval = mean_interval(values)
    low, high = stats.t.interval(0.95, 2, loc=sum(values) / 3, scale=stats.sem(values))
    assert interval.value == pytest.approx(0.45) and interval.n == 3
    assert (interval.low, interval.high) == (pytest.approx(low), pytest.approx(high))


def test_equal_values_give_a_zero_width_interval_and_one_value_none() -> None:
    assert mean_interval([0.5, 0.5]).to_json() == {"value": 0.5, "low": 0.5, "high": 0.5}
    assert mean_interval([0.5]).to_json() == {"value": 0.5, "low": None, "high": None}
    assert mean_interval([]).value is None and not mean_interval([]).excludes_zero


# --- plan ---------------------------------------------------------------------------------------------------


def test_the_planned_calls_count_every_call_a_run_can_make() -> None:
    config = UpliftConfig(START, rounds=2, seeds=3, minibatch=4)
    # start 10; per seed: round 1's parent (once at temperature 0, per arm otherwise), round 2's parents,
    # every proposal, each arm's validation; one reflection per arm, seed and round.
    assert planned_calls(config, 10, deterministic=True) == (10 + 3 * (4 + 3 * 4 + 3 * 4 * 2 + 3 * 10), 18)
    assert planned_calls(config, 10, deterministic=False) == (10 + 3 * (12 + 3 * 4 + 3 * 4 * 2 + 3 * 10), 18)


# --- the result ---------------------------------------------------------------------------------------------


def test_the_json_has_exactly_the_documented_shape() -> None:
    found = result(THREE).to_json()
    assert list(found) == ["start", "arms", "feedback_value", "instructions", "calls", "cost_usd"]
    assert list(found["arms"]) == ["feedback", "score_only", "shuffled"]
    assert found["arms"]["feedback"]["end"] == [0.75, 0.5, 1.0]
    assert list(found["arms"]["feedback"]["gain"]) == ["value", "low", "high"]
    assert found["arms"]["feedback"]["gain"]["value"] == pytest.approx(0.5)
    assert found["feedback_value"]["value"] == pytest.approx(0.75 - 1 / 3)
    assert found["instructions"]["score_only"] == [f"{START} score_only"] * 3
    assert found["calls"] == {"task": 40, "reflection": 9} and found["cost_usd"] == 0.5


def test_the_feedback_value_pairs_the_seeds() -> None:
    # Each seed's feedback arm beats its score-only arm by exactly 0.25, though the seeds differ a lot.
    paired = result({Arm.FEEDBACK: [0.5, 0.9, 0.3], Arm.SCORE_ONLY: [0.25, 0.65, 0.05]})
    assert paired.feedback_value.value == pytest.approx(0.25)
    assert paired.feedback_value.high - paired.feedback_value.low == pytest.approx(0.0, abs=1e-9)
    assert paired.verdict().startswith("The feedback helps")


# --- store --------------------------------------------------------------------------------------------------


def test_a_saved_result_comes_back_whole_with_its_metric_version(tmp_path) -> None:
    store = UpliftStore(tmp_path)
    metric = MetricSource(
        {"metric.py": "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'x'}\n"}
    )
    edited = metric.with_file("metric.py", metric.main + "# clearer feedback\n")
    made_by = Provenance(metric.digest, "tickets.jsonl", "tickets", "", None)
    first = store.save(result(THREE), metric, made_by)
    second = store.save(
        result(THREE, start=0.5, outcome=Outcome.BUDGET),
        edited,
        Provenance(edited.digest, "tickets.jsonl", "tickets", "", None),
    )

    listed = store.list()
    assert [item.id for item in listed] == [second, first]
    assert listed[1].metric == metric.digest and listed[1].outcome is Outcome.COMPLETE and listed[1].seeds == 3
    assert listed[1].feedback_value.value == pytest.approx(result(THREE).feedback_value.value)
    assert listed[0].gains[Arm.SCORE_ONLY].value == pytest.approx(1 / 3 - 0.5)
    assert [item.id for item in store.list(metric=edited.digest)] == [second]
    saved = store.get(first)
    assert saved is not None and saved.metric == metric and saved.provenance == made_by
    assert saved.result == result(THREE) and saved.result.arms == result(THREE).arms
    assert store.get(999) is None


def test_a_record_reads_back_to_an_equal_result() -> None:
    original = result(THREE, outcome=Outcome.CANCELLED)
    assert from_record(to_record(original)) == original


# --- figures ------------------------------------------------------------------------------------------------


def test_the_scores_figure_has_a_point_per_seed_a_mean_per_arm_and_the_start() -> None:
    figure = scores_figure(result(THREE))
    points = [trace for trace in figure.data if trace.mode == "markers"]
    means = [trace for trace in figure.data if trace.mode == "lines"]
    assert [list(trace.y) for trace in points] == list(THREE.values())
    assert [trace.y[0] for trace in means] == pytest.approx([0.75, 1 / 3, 1 / 3])
    assert figure.layout.shapes[0].y0 == 0.25
    assert list(figure.layout.xaxis.range) == [-0.5, 2.5] and figure.layout.showlegend is False  # no arm cut off


def test_the_gains_figure_shows_the_feedback_value_with_its_interval() -> None:
    found = result(THREE)
    figure = gains_figure(found)
    rows = {trace.y[0]: trace for trace in figure.data}
    assert list(rows) == ["with feedback", "score only", "shuffled feedback", "feedback value"]
    value = found.feedback_value
    assert rows["feedback value"].x[0] == pytest.approx(value.value)
    assert rows["feedback value"].error_x.array[0] == pytest.approx(value.high - value.value)


def test_the_instruction_diff_is_from_the_start_to_the_arms_final_text() -> None:
    diff = instruction_diff(result(THREE), Arm.FEEDBACK, 1)
    assert diff.startswith("--- start\n+++ with feedback, seed 2\n")
    assert f"-{START}\n" in diff and f"+{START} feedback\n" in diff


def test_model_text_in_the_figures_is_shown_literally() -> None:
    figure = scores_figure(result(THREE, text="<img src=x onerror=alert(1)> {arm}"))
    assert "&lt;img" in figure.data[0].text[0] and "<img" not in figure.data[0].text[0]


def test_every_arm_appears_in_the_order_of_the_config() -> None:
    config = UpliftConfig(START, arms=(Arm.SCORE_ONLY, Arm.FEEDBACK))
    found = UpliftResult(config, 0.0, (), Calls(), 0.0, Outcome.BUDGET)
    assert list(found.arms) == [Arm.SCORE_ONLY, Arm.FEEDBACK]
    assert all(not arm.ends and arm.gain.value is None for arm in found.arms.values())
    assert found.message().startswith("The run stopped at its budget")
    assert list(itertools.chain.from_iterable(t.y for t in gains_figure(found).data)) == []

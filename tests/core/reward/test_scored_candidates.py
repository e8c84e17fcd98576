"""The trade-offs page's scoring model: results become per-candidate arrays; REWARD_SPEC edits keep them current."""

from __future__ import annotations

import math

from skynet_core.cases import Case, Observation
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.reward.candidates import ONLY_CANDIDATE, collect, from_saved_runs, metric_key
from skynet_core.runs import RunKey, SavedRun

SPEC_A = "REWARD_SPEC = {'weights': {'accuracy': 1, 'speed': 0, 'cost': 0}, 'accuracy': {}}\n"
SPEC_B = (
    "REWARD_SPEC = {'weights': {'accuracy': 1, 'speed': 1, 'cost': 0}, 'accuracy': {}, 'speed': {'reference': 100}}\n"
)
BODY = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'x'}\n"


def case(candidate: str, case_id: str, latency: float | None = 10.0) -> Case:
    return Case(
        id=case_id,
        input={},
        output="o",
        expected=None,
        candidate=candidate,
        observation=Observation(latency_ms=latency, cost_usd=0.001),
    )


def test_metric_key_sets_reward_spec_aside_but_not_the_rest():
    assert metric_key(SPEC_A + BODY) == metric_key(SPEC_B + BODY)
    assert metric_key(SPEC_A + BODY) != metric_key(SPEC_A + BODY.replace("1.0", "0.5"))


def test_collect_keeps_accuracy_and_observations_and_counts_failures():
    cases = [case("a", "1"), case("a", "2", latency=None), case("b", "1"), case("b", "2")]
    results = [
        CaseResult(id="1", candidate="a", score=0.2, scores={"accuracy": 0.5}),
        CaseResult(id="2", candidate="a", score=0.7),
        CaseResult(id="1", candidate="b", score=0.9, scores={"accuracy": 1.0}),
        CaseResult(id="2", candidate="b", status=CaseStatus.ERROR, error="boom\nmore"),
    ]
    scored = collect(results, cases, ["a", "b"], None, "key")
    first, second = scored.candidates
    assert list(first.accuracy) == [0.5, 0.7] and math.isnan(first.latency_ms[1])
    assert list(second.ids) == ["1"] and scored.failed == {"a": 0, "b": 1}
    assert scored.from_score == 1 and scored.first_error == "case 2 (b): boom"


def test_saved_runs_count_only_when_every_candidate_was_scored_by_this_metric_on_this_split():
    from skynet_core.datasets import load_example

    data = load_example()
    source = SPEC_A + BODY
    runs = [
        SavedRun(
            index,
            RunKey(data.source, name, None, "h"),
            0.0,
            [CaseResult(id=c.id, candidate=name, score=1.0) for c in data.for_candidate(name)],
            metric_source=source,
        )
        for index, name in enumerate(data.candidates)
    ]
    scored = from_saved_runs(runs, data, None, metric_key(SPEC_B + BODY))
    assert scored is not None and [c.name for c in scored.candidates] == list(data.candidates)
    assert from_saved_runs(runs, data, "val", metric_key(source)) is None
    assert from_saved_runs([*runs[:-1], None], data, None, metric_key(source)) is None
    assert ONLY_CANDIDATE == "(the only candidate)"

"""The reward: REWARD_SPEC rules, the part score, reward_pair, its vectorised twin, and writing the spec back."""

from __future__ import annotations

import ast
import math

import numpy as np
import pytest

from skynet_core.reward import (
    MetricSourceError,
    NormalizedSpec,
    RewardSpecError,
    error_from_part_score,
    part_score,
    replace_reward_spec,
    reward_pair,
    reward_parts,
    spec_to_source,
    validate_reward_spec,
)

SPEC = {
    "weights": {"accuracy": 0.7, "speed": 0.2, "cost": 0.1},
    "accuracy": {},
    "speed": {"reference": 2000},
    "cost": {"reference": 0.01},
}


def spec_with(**changes: object) -> dict:
    """SPEC with top-level keys replaced; a value of None removes the key."""
    spec = {key: value for key, value in SPEC.items()}
    for key, value in changes.items():
        if value is None:
            spec.pop(key, None)
        else:
            spec[key] = value
    return spec


def weights(accuracy: object = 0.7, speed: object = 0.2, cost: object = 0.1) -> dict:
    return {"accuracy": accuracy, "speed": speed, "cost": cost}


# --- validate_reward_spec -------------------------------------------------------------------


def test_valid_spec_is_normalised_with_weights_summing_to_one() -> None:
    norm = validate_reward_spec(spec_with(weights=weights(7, 2, 1)))
    assert norm.weights == pytest.approx({"accuracy": 0.7, "speed": 0.2, "cost": 0.1})
    assert math.fsum(norm.weights.values()) == pytest.approx(1.0)
    assert (norm.speed_ref, norm.cost_ref, norm.accuracy_ref) == (2000.0, 0.01, None)


def test_normalized_spec_is_accepted_as_is() -> None:
    norm = validate_reward_spec(SPEC)
    assert validate_reward_spec(norm) is norm


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        pytest.param([1, 2], "REWARD_SPEC must be a dict like", id="not-a-dict"),
        pytest.param({"speed": {"reference": 1}}, "REWARD_SPEC has no 'weights'; add 'weights'", id="no-weights"),
        pytest.param(
            {"weight": weights(), "speed": {"reference": 1}, "cost": {"reference": 1}},
            "REWARD_SPEC has 'weight' but no 'weights'; rename 'weight' to 'weights'.",
            id="misspelt-weights",
        ),
        pytest.param(
            spec_with(weights={"accuracy": 0.7, "speed": 0.3}),
            "REWARD_SPEC['weights'] is missing 'cost'; give all three of accuracy, speed and cost "
            "(0 turns a part off).",
            id="weight-missing",
        ),
        pytest.param(
            spec_with(weights={"accuracy": 0.7, "sped": 0.2, "cost": 0.1}),
            "REWARD_SPEC['weights'] is missing 'speed' (it has 'sped'; a typo?)",
            id="weight-misspelt",
        ),
        pytest.param(
            spec_with(weights={**weights(), "quality": 0.5}),
            "REWARD_SPEC['weights'] has 'quality', which is not a part of the reward",
            id="unknown-weight",
        ),
        pytest.param(spec_with(weights=[0.7, 0.2, 0.1]), "REWARD_SPEC['weights'] must be a dict", id="weights-list"),
        pytest.param(
            spec_with(weights=weights(speed=True)),
            "REWARD_SPEC['weights']['speed'] is True, a bool; give a weight of 0 or more",
            id="bool-weight",
        ),
        pytest.param(
            spec_with(weights=weights(speed="0.2")),
            "REWARD_SPEC['weights']['speed'] is the string '0.2'; write it as a number without quotes: 0.2.",
            id="string-weight",
        ),
        pytest.param(spec_with(weights=weights(speed=None)), "is None (NoneType)", id="none-weight"),
        pytest.param(spec_with(weights=weights(speed=math.nan)), "give a finite number", id="nan-weight"),
        pytest.param(spec_with(weights=weights(speed=math.inf)), "give a finite number", id="inf-weight"),
        pytest.param(
            spec_with(weights=weights(speed=-0.2)),
            "REWARD_SPEC['weights']['speed'] is -0.2; weights must be 0 or more",
            id="negative-weight",
        ),
        pytest.param(
            spec_with(weights=weights(0, 0, 0)),
            "All three weights in REWARD_SPEC['weights'] are 0; give at least one",
            id="all-zero",
        ),
        pytest.param(
            spec_with(speed=None),
            "REWARD_SPEC has no 'speed'; speed has a weight above 0, so add 'speed': {'reference': 2000}",
            id="speed-missing",
        ),
        pytest.param(spec_with(speed=2000), "REWARD_SPEC['speed'] must be a dict like {'reference': 2000}", id="bare"),
        pytest.param(
            spec_with(cost={}),
            "REWARD_SPEC['cost']['reference'] is missing; cost has a weight above 0, so give a reference such as 0.01",
            id="cost-reference-missing",
        ),
        pytest.param(
            spec_with(speed={"ref": 2000}),
            "REWARD_SPEC['speed'] has 'ref' but no 'reference'; rename 'ref' to 'reference'.",
            id="misspelt-reference",
        ),
        pytest.param(
            spec_with(speed={"reference": 0}),
            "REWARD_SPEC['speed']['reference'] is 0; give a positive number such as 2000",
            id="zero-reference",
        ),
        pytest.param(spec_with(cost={"reference": -0.01}), "['reference'] is -0.01; give a positive", id="negative"),
        pytest.param(spec_with(cost={"reference": math.nan}), "give a finite number", id="nan-reference"),
        pytest.param(spec_with(cost={"reference": True}), "is True, a bool", id="bool-reference"),
        pytest.param(spec_with(accuracy=0.5), "REWARD_SPEC['accuracy'] must be a dict", id="accuracy-not-dict"),
        pytest.param(
            spec_with(accuracy={"reference": 0}),
            "REWARD_SPEC['accuracy']['reference'] is 0; give a positive number such as 1.0 (the error that scores 0.5)",
            id="accuracy-reference-zero",
        ),
        pytest.param(
            {"weights": weights(1, 1, 0), "speed": {"reference": 1}, "cots": {"reference": 0.01}},
            "REWARD_SPEC has 'cots' but no 'cost'; rename 'cots' to 'cost'.",
            id="misspelt-part",
        ),
    ],
)
def test_invalid_spec_is_refused_with_a_message_naming_key_and_fix(spec: object, message: str) -> None:
    with pytest.raises(RewardSpecError) as caught:
        validate_reward_spec(spec)
    assert message in str(caught.value)


def test_spec_error_is_a_value_error() -> None:
    assert issubclass(RewardSpecError, ValueError)


def test_part_with_weight_zero_needs_no_reference_and_is_off() -> None:
    spec = {"weights": weights(0.8, 0.2, 0), "speed": {"reference": 2000}}
    norm = validate_reward_spec(spec)
    assert norm.cost_ref is None
    reward, side = reward_pair(spec, 1.0, "Correct.", 850, 0.002)
    assert set(side["scores"]) == {"accuracy", "speed"}
    assert "Cost" not in side["feedback"]
    assert reward == pytest.approx(0.8 + 0.2 * 2000 / 2850)


def test_reference_is_checked_even_when_its_weight_is_zero() -> None:
    with pytest.raises(RewardSpecError, match="'cost'\\]\\['reference'\\] is -1"):
        validate_reward_spec(spec_with(weights=weights(1, 0, 0), cost={"reference": -1}))


def test_unknown_top_level_and_part_keys_are_allowed() -> None:
    norm = validate_reward_spec(spec_with(notes="tuned for the demo", speed={"reference": 2000, "unit": "ms"}))
    assert norm.speed_ref == 2000.0


def test_huge_weights_keep_their_ratios() -> None:
    norm = validate_reward_spec(spec_with(weights=weights(1e308, 1e308, 0)))
    assert norm.weights == pytest.approx({"accuracy": 0.5, "speed": 0.5, "cost": 0.0})


# --- part_score -----------------------------------------------------------------------------


def test_part_score_matches_hand_computed_values() -> None:
    assert part_score(850, 2000) == pytest.approx(0.70175438596, abs=1e-10)
    assert part_score(0, 2000) == 1.0
    assert part_score(2000, 2000) == 0.5
    assert part_score(0.002, 0.01) == pytest.approx(0.8333333333)


def test_part_score_counts_negative_measurement_as_zero_and_infinite_as_zero_score() -> None:
    assert part_score(-50, 2000) == 1.0
    assert part_score(math.inf, 2000) == 0.0


def test_part_score_refuses_nan_measurement_and_non_positive_reference() -> None:
    with pytest.raises(ValueError, match="NaN"):
        part_score(math.nan, 2000)
    with pytest.raises(ValueError, match="positive finite"):
        part_score(1, 0)


# --- reward_pair ----------------------------------------------------------------------------


def test_reward_pair_matches_hand_computed_example_and_feedback_format() -> None:
    reward, side = reward_pair(SPEC, 1.0, "Correct.", 850, 0.002)
    assert reward == pytest.approx(0.7 * 1.0 + 0.2 * 2000 / 2850 + 0.1 * 0.01 / 0.012)
    assert reward == pytest.approx(0.923684210526, abs=1e-11)
    assert side == {
        "feedback": (
            "Correct.\nSpeed: 850 ms against a 2000 ms reference, 0.70.\nCost: $0.0020 against a $0.01 reference, 0.83."
        ),
        "scores": {"accuracy": 1.0, "speed": pytest.approx(0.7017543859), "cost": pytest.approx(0.8333333333)},
    }


def test_reward_pair_returns_a_valid_contract_pair() -> None:
    result = reward_pair(SPEC, 0.5, "Half right.", 100.0, 0.001)
    assert isinstance(result, tuple) and len(result) == 2
    score, side = result
    assert isinstance(score, float) and math.isfinite(score)
    assert isinstance(side["feedback"], str)
    assert all(isinstance(value, float) for value in side["scores"].values())


def test_weights_seven_two_one_give_the_same_reward_as_point_seven_two_one() -> None:
    scaled = reward_pair(spec_with(weights=weights(7, 2, 1)), 0.4, "", 1234.0, 0.03)
    plain = reward_pair(SPEC, 0.4, "", 1234.0, 0.03)
    assert scaled[0] == pytest.approx(plain[0], abs=1e-15)
    assert scaled[1] == plain[1]


def test_missing_latency_scores_speed_zero_and_says_so() -> None:
    reward, side = reward_pair(SPEC, 1.0, "Correct.", None, 0.002)
    assert side["scores"]["speed"] == 0.0
    assert reward == pytest.approx(0.7 + 0.1 * 0.01 / 0.012)
    assert side["feedback"].splitlines() == [
        "Correct.",
        "Speed was not measured for this case, so it scored 0.",
        "Cost: $0.0020 against a $0.01 reference, 0.83.",
    ]


def test_nan_measurement_counts_as_not_measured() -> None:
    _, side = reward_pair(SPEC, 1.0, "", 850, math.nan)
    assert side["scores"]["cost"] == 0.0
    assert "Cost was not measured for this case, so it scored 0." in side["feedback"]


def test_empty_feedback_gives_only_the_part_lines() -> None:
    _, side = reward_pair(SPEC, 1.0, "", 850, 0.002)
    assert side["feedback"].startswith("Speed: 850 ms")


def test_part_with_weight_zero_is_scored_and_its_line_says_it_does_not_count() -> None:
    reward, side = reward_pair(spec_with(weights=weights(0.9, 0.1, 0)), 1.0, "Correct.", 850, None)
    assert side["scores"]["cost"] == 0.0
    assert side["feedback"].splitlines()[1:] == [
        "Speed: 850 ms against a 2000 ms reference, 0.70.",
        "Cost was not measured for this case, so it scored 0 (weight 0, so it does not count).",
    ]
    assert reward == pytest.approx(0.9 + 0.1 * 2000 / 2850)


def test_feedback_uses_an_before_a_reference_read_with_a_vowel() -> None:
    _, side = reward_pair(spec_with(speed={"reference": 800}), 1.0, "", 1234.5678, 0.002)
    assert "Speed: 1235 ms against an 800 ms reference, 0.39." in side["feedback"]


@pytest.mark.parametrize("accuracy", [1.5, -0.1])
def test_accuracy_outside_zero_one_raises_naming_the_value(accuracy: float) -> None:
    with pytest.raises(ValueError, match=f"accuracy={accuracy!r}, outside \\[0, 1\\]"):
        reward_pair(SPEC, accuracy, "", 850, 0.002)


def test_nan_accuracy_raises() -> None:
    with pytest.raises(ValueError, match="accuracy=nan"):
        reward_pair(SPEC, math.nan, "", 850, 0.002)


def test_bool_accuracy_is_refused_with_the_one_or_zero_hint() -> None:
    with pytest.raises(TypeError, match="pass 1.0 or 0.0"):
        reward_pair(SPEC, True, "", 850, 0.002)


def test_string_accuracy_is_refused() -> None:
    with pytest.raises(TypeError, match="accuracy='0.5' \\(str\\)"):
        reward_pair(SPEC, "0.5", "", 850, 0.002)


def test_non_string_feedback_is_refused() -> None:
    with pytest.raises(TypeError, match="pass a string"):
        reward_pair(SPEC, 1.0, None, 850, 0.002)


def test_accuracy_reference_turns_accuracy_into_an_error() -> None:
    spec = spec_with(accuracy={"reference": 1.0})
    reward, side = reward_pair(spec, 0.25, "Off by a quarter.", 850, 0.002)
    assert side["scores"]["accuracy"] == pytest.approx(0.8)
    assert side["feedback"].splitlines()[1] == "Error: 0.25 against a 1 reference, 0.80."
    assert reward == pytest.approx(0.7 * 0.8 + 0.2 * 2000 / 2850 + 0.1 * 0.01 / 0.012)


def test_error_above_one_is_allowed_with_an_accuracy_reference() -> None:
    reward, side = reward_pair(spec_with(accuracy={"reference": 2.0}), 6.0, "", 0, 0)
    assert side["scores"]["accuracy"] == pytest.approx(0.25)
    assert reward == pytest.approx(0.7 * 0.25 + 0.2 + 0.1)


def test_negative_error_raises_with_abs_hint() -> None:
    with pytest.raises(ValueError, match="negative error.*abs\\(\\)"):
        reward_pair(spec_with(accuracy={"reference": 1.0}), -0.2, "", 850, 0.002)


def test_invalid_spec_in_reward_pair_raises_spec_error() -> None:
    with pytest.raises(RewardSpecError):
        reward_pair(spec_with(weights=weights(0, 0, 0)), 1.0, "", 850, 0.002)


# --- reward_parts -----------------------------------------------------------------------------


def random_spec(rng: np.random.Generator) -> dict:
    raw = rng.choice([0.0, 0.0, 0.3, 1.0, 7.0], size=3)
    if raw.sum() == 0:
        raw[0] = 1.0
    spec: dict = {"weights": dict(zip(("accuracy", "speed", "cost"), raw.tolist(), strict=True))}
    for part, scale in (("speed", 2000.0), ("cost", 0.01)):
        # A part with weight 0 may leave its reference out (that part is then off).
        if raw[["accuracy", "speed", "cost"].index(part)] > 0 or rng.random() < 0.5:
            spec[part] = {"reference": float(rng.uniform(0.1, 3) * scale)}
    if rng.random() < 0.4:
        spec["accuracy"] = {"reference": float(rng.uniform(0.1, 5))}
    return spec


def test_reward_parts_equals_reward_pair_exactly_on_random_cases() -> None:
    rng = np.random.default_rng(20240601)
    for _ in range(40):
        spec = random_spec(rng)
        norm = validate_reward_spec(spec)
        n = 50
        if norm.accuracy_ref is None:
            accuracy = rng.choice([0.0, 1.0, 0.5, rng.random()], size=n)
        else:
            accuracy = rng.exponential(norm.accuracy_ref, size=n)
            accuracy[0] = math.inf
        latency = rng.exponential(1500, size=n)
        cost = rng.exponential(0.01, size=n)
        latency[rng.random(n) < 0.2] = np.nan
        cost[rng.random(n) < 0.2] = np.nan
        latency[1], cost[2] = -5.0, math.inf
        rewards, parts = reward_parts(accuracy, latency, cost, spec)
        for i in range(n):
            expected, side = reward_pair(
                spec,
                float(accuracy[i]),
                "",
                None if np.isnan(latency[i]) else float(latency[i]),
                None if np.isnan(cost[i]) else float(cost[i]),
            )
            assert rewards[i] == expected
            for column, part in enumerate(("accuracy", "speed", "cost")):
                if part in side["scores"]:
                    assert parts[i, column] == side["scores"][part]
                else:
                    assert np.isnan(parts[i, column])


def test_reward_parts_scores_a_missing_measurement_zero() -> None:
    rewards, parts = reward_parts([1.0, 1.0], [850.0, np.nan], [0.002, None], SPEC)
    assert parts[1].tolist() == [1.0, 0.0, 0.0]
    assert rewards[1] == pytest.approx(0.7)
    assert rewards[0] == pytest.approx(0.923684210526, abs=1e-11)


def test_reward_parts_marks_a_part_that_is_off_as_nan() -> None:
    rewards, parts = reward_parts([1.0], [850.0], [0.002], {"weights": weights(1, 1, 0), "speed": {"reference": 2000}})
    assert np.isnan(parts[0, 2])
    assert rewards[0] == pytest.approx(0.5 + 0.5 * 2000 / 2850)


def test_reward_parts_names_the_first_accuracy_outside_zero_one() -> None:
    with pytest.raises(ValueError, match="accuracy of case 2 \\(0-based\\) is 1.5"):
        reward_parts([0.0, 1.0, 1.5, 2.0], [1.0] * 4, [1.0] * 4, SPEC)


def test_reward_parts_refuses_missing_accuracy() -> None:
    with pytest.raises(ValueError, match="case 1 \\(0-based\\) is missing"):
        reward_parts([0.0, np.nan], [1.0] * 2, [1.0] * 2, SPEC)


def test_reward_parts_refuses_arrays_of_different_lengths() -> None:
    with pytest.raises(ValueError, match="one length"):
        reward_parts([0.0, 1.0], [1.0], [1.0, 1.0], SPEC)


def test_error_from_part_score_inverts_part_score() -> None:
    errors = np.array([0.0, 0.3, 2.0, 10.0])
    scores = np.array([part_score(e, 1.5) for e in errors])
    assert error_from_part_score(scores, 1.5) == pytest.approx(errors)
    assert error_from_part_score([0.0], 1.5)[0] == math.inf


# --- writing REWARD_SPEC into metric.py ---------------------------------------------------------

METRIC = '''"""Label accuracy, with speed and cost."""
from skynet import reward

# Tuned on the demo data.
REWARD_SPEC = {
    "weights": {"accuracy": 0.5, "speed": 0.25, "cost": 0.25},  # équilibré
    "speed": {"reference": 1000},
    "cost": {"reference": 0.02},
}  # keep this comment


def score(input, output, expected=None):
    ok = output == expected["label"]
    return reward(REWARD_SPEC, 1.0 if ok else 0.0, "Correct." if ok else "Wrong label.")
'''

NEW_SPEC = {
    "weights": {"accuracy": 0.6, "speed": 0.3, "cost": 0.1},
    "accuracy": {},
    "speed": {"reference": 1500.0},
    "cost": {"reference": 0.005},
}


def assigned_spec(source: str) -> object:
    tree = ast.parse(source)
    values = [node.value for node in tree.body if isinstance(node, ast.Assign) and node.targets[0].id == "REWARD_SPEC"]
    return ast.literal_eval(values[-1])


def test_spec_to_source_renders_a_readable_statement_that_round_trips() -> None:
    source = spec_to_source(NEW_SPEC)
    assert source == (
        "REWARD_SPEC = {\n"
        '    "weights": {"accuracy": 0.6, "speed": 0.3, "cost": 0.1},\n'
        '    "accuracy": {},\n'
        '    "speed": {"reference": 1500},\n'
        '    "cost": {"reference": 0.005},\n'
        "}"
    )
    assert assigned_spec(source) == NEW_SPEC


def test_spec_to_source_puts_known_keys_in_contract_order_and_keeps_others() -> None:
    spec = {"cost": {"reference": 0.01}, "notes": "demo", "weights": {"cost": 1, "speed": 0, "accuracy": 1}}
    source = spec_to_source(spec)
    assert source.index('"weights"') < source.index('"cost"') < source.index('"notes"')
    assert '{"accuracy": 1, "speed": 0, "cost": 1}' in source
    assert assigned_spec(source) == spec


def test_spec_to_source_refuses_values_without_a_literal() -> None:
    with pytest.raises(ValueError, match="finite"):
        spec_to_source({"weights": {"accuracy": math.nan}})


def test_replace_reward_spec_rewrites_a_multi_line_spec_and_keeps_the_rest_byte_identical() -> None:
    result = replace_reward_spec(METRIC, NEW_SPEC)
    start = METRIC.index("REWARD_SPEC = {") + len("REWARD_SPEC = ")
    end = METRIC.index("}  # keep this comment") + 1
    rendered = spec_to_source(NEW_SPEC).removeprefix("REWARD_SPEC = ")
    assert result == METRIC[:start] + rendered + METRIC[end:]
    assert assigned_spec(result) == NEW_SPEC


def test_replace_reward_spec_counts_columns_in_characters_after_non_ascii_text() -> None:
    source = 'LABEL = "café"; REWARD_SPEC = {"weights": {"accuracy": 1, "speed": 0, "cost": 0}}  # é\nx = 1\n'
    result = replace_reward_spec(source, NEW_SPEC)
    assert result.startswith('LABEL = "café"; REWARD_SPEC = {\n')
    assert result.endswith("}  # é\nx = 1\n")
    assert assigned_spec(result) == NEW_SPEC


def test_replace_reward_spec_keeps_windows_line_endings() -> None:
    source = METRIC.replace("\n", "\r\n")
    result = replace_reward_spec(source, NEW_SPEC)
    assert "\n" not in result.replace("\r\n", "")
    assert result.startswith(source[: source.index("REWARD_SPEC = {")])
    assert result.endswith(source[source.index("}  # keep this comment") + 1 :])


def test_replace_reward_spec_rewrites_the_last_assignment_and_keeps_annotations() -> None:
    source = 'REWARD_SPEC = {"old": 1}\nREWARD_SPEC: dict = {"older": 2}\n'
    result = replace_reward_spec(source, NEW_SPEC)
    assert result.startswith('REWARD_SPEC = {"old": 1}\nREWARD_SPEC: dict = {\n')
    assert ast.literal_eval(ast.parse(result).body[1].value) == NEW_SPEC


def test_replace_reward_spec_inserts_after_the_imports_when_missing() -> None:
    source = '"""Doc."""\nimport json\nfrom skynet import reward\n\n\ndef score(input, output):\n    return 1.0, {}\n'
    result = replace_reward_spec(source, NEW_SPEC)
    head = '"""Doc."""\nimport json\nfrom skynet import reward\n\n'
    assert result == head + spec_to_source(NEW_SPEC) + "\n\n\ndef score(input, output):\n    return 1.0, {}\n"


def test_replace_reward_spec_inserts_at_the_top_without_imports_and_adds_a_blank_line() -> None:
    result = replace_reward_spec("def score(i, o):\n    return 1.0, {}", NEW_SPEC)
    assert result == spec_to_source(NEW_SPEC) + "\n\ndef score(i, o):\n    return 1.0, {}"


def test_replace_reward_spec_inserts_after_a_last_line_without_newline() -> None:
    result = replace_reward_spec("import json", NEW_SPEC)
    assert result == "import json\n\n" + spec_to_source(NEW_SPEC) + "\n"


def test_replace_reward_spec_raises_when_the_source_does_not_parse() -> None:
    with pytest.raises(MetricSourceError, match="does not parse \\(line 2") as caught:
        replace_reward_spec("x = 1\ndef score(:\n", NEW_SPEC)
    assert caught.value.line == 2


def test_replace_reward_spec_refuses_a_spec_assigned_only_inside_a_block() -> None:
    source = "if True:\n    REWARD_SPEC = {}\n"
    with pytest.raises(MetricSourceError, match="inside a block at line 2") as caught:
        replace_reward_spec(source, NEW_SPEC)
    assert caught.value.line == 2


def test_replace_reward_spec_never_writes_an_invalid_spec() -> None:
    with pytest.raises(RewardSpecError, match="are 0"):
        replace_reward_spec(METRIC, {**NEW_SPEC, "weights": weights(0, 0, 0)})


def test_normalized_spec_keeps_none_for_parts_without_reference() -> None:
    norm = NormalizedSpec(weights={"accuracy": 1.0, "speed": 0.0, "cost": 0.0}, speed_ref=None, cost_ref=None)
    assert norm.reference("speed") is None and norm.reference("accuracy") is None

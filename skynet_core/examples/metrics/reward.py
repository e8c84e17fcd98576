"""Accuracy, speed and cost: the label's accuracy combined with the measured latency and cost.

Accuracy is 1.0 when the output's label is the expected label. A case with no
expected value (expected is None) cannot be judged for accuracy, so accuracy
counts only whether the output has a label at all; speed and cost still count.
"""

import json

from skynet import reward

REWARD_SPEC = {
    "weights": {"accuracy": 0.7, "speed": 0.2, "cost": 0.1},
    "accuracy": {},
    "speed": {"reference": 2000},
    "cost": {"reference": 0.01},
}


def score(input, output, expected=None):
    try:
        data = json.loads(output) if isinstance(output, str) else output
    except ValueError as exc:
        return reward(REWARD_SPEC, 0.0, f"The output is not valid JSON ({exc}), so it has no label.")
    got = data.get("label") if isinstance(data, dict) else None
    if expected is None:
        has_label = got is not None
        return reward(
            REWARD_SPEC,
            1.0 if has_label else 0.0,
            "This case has no expected label, so accuracy only checks that the output has one"
            + (f" (it is {got!r})." if has_label else "; it does not."),
        )
    want = expected["label"]
    ok = got == want
    return reward(REWARD_SPEC, 1.0 if ok else 0.0, "Correct." if ok else f"Expected {want!r}, got {got!r}.")

"""Exact match: 1.0 when the label in the output is the expected label, else 0.0.

The output is the JSON text the model returned, such as
'{"label": "billing", "priority": "high", "reply": "..."}'. A case with no expected
value (expected is None) is scored on format alone: 1.0 when the output has a label.
"""

import json


def score(input, output, expected=None):
    try:
        data = json.loads(output) if isinstance(output, str) else output
    except ValueError as exc:
        return 0.0, {
            "feedback": f"The output is not valid JSON ({exc}), so it has no label. "
            'Return one JSON object such as {"label": "billing", "priority": "high", "reply": "..."}.'
        }
    got = data.get("label") if isinstance(data, dict) else None
    if expected is None:
        if got is None:
            return 0.0, {"feedback": 'This case has no expected label, and the output has no "label" field either.'}
        return 1.0, {"feedback": f"This case has no expected label, so only the format was checked: label {got!r}."}
    want = expected["label"]
    if got == want:
        return 1.0, {"feedback": f"Correct: the label is {want!r}."}
    return 0.0, {"feedback": f"Expected {want!r}, got {got!r}."}

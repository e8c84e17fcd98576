"""Several checks: the output must be a JSON object with the fields in expected["fields"].

Reports two named scores: "format" (the output parses as a JSON object) and
"fields" (the share of expected fields present). A case with no expected value
(expected is None) has no fields to check, so only the format counts.
"""

import json


def score(input, output, expected=None):
    try:
        data = json.loads(output) if isinstance(output, str) else output
    except ValueError as exc:
        return 0.0, {"feedback": f"Output is not valid JSON: {exc}", "scores": {"format": 0.0, "fields": 0.0}}
    if not isinstance(data, dict):
        return 0.0, {
            "feedback": f"Output is JSON but not an object (it is {type(data).__name__}). "
            'Return one object such as {"label": "billing", "priority": "high", "reply": "..."}.',
            "scores": {"format": 0.0, "fields": 0.0},
        }
    want = expected["fields"] if expected is not None else []
    found = [key for key in want if key in data]
    fields = len(found) / len(want) if want else 1.0
    missing = [key for key in want if key not in data]
    if expected is None:
        feedback = "Valid JSON. This case has no expected fields, so only the format was checked."
    else:
        feedback = "All fields present." if not missing else f"Missing fields: {', '.join(missing)}."
    return 0.5 + 0.5 * fields, {"feedback": feedback, "scores": {"format": 1.0, "fields": fields}}

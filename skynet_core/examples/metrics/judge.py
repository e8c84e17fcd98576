"""A model as judge: the metric model reads the ticket and the triage and answers PASS or FAIL.

Uses the metric model (or, when none is chosen, the reflection model). When the
case has an expected label it is given to the judge as a hint; without one
(expected is None) the judge decides from the ticket alone.
"""

from skynet import llm

INSTRUCTIONS = (
    "You review how a support ticket was triaged. The triage should be one JSON object with a label "
    "(billing, technical, account, shipping, refund or other), a priority (low, medium or high) and a short, "
    "polite reply to the customer that fits the ticket. Answer PASS or FAIL, then give one sentence of reasons."
)


def score(input, output, expected=None):
    hint = f"\nExpected label: {expected['label']}" if expected is not None else ""
    verdict = llm(
        INSTRUCTIONS,
        input=f"Subject: {input['subject']}\nMessage: {input['message']}\nTriage: {output}{hint}",
    )
    passed = str(verdict).strip().upper().startswith("PASS")
    return (1.0 if passed else 0.0), {"feedback": str(verdict)}

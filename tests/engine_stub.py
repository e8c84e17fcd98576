"""A task-and-reflection model for the engine tests, served by FakeOpenAI on 127.0.0.1.

The task model answers a ticket with the label ``billing`` only when its
instruction carries ``HINT``; the reflection model (GEPA's ``optimize_anything``
prompt, or DSPy's JSON-adapter proposal) always proposes ``IMPROVED``, the seed
plus that hint. So an engine run improves exactly when the reflection step ran.
"""

from __future__ import annotations

import json

from tests.fake_openai import FakeOpenAI, Received

SEED = "Classify the support ticket. Answer with JSON holding a label."
HINT = "Tickets about a charge or a refund are billing."
IMPROVED = f"{SEED} {HINT}"
FEEDBACK_MARK = "The message mentions a charge"

METRIC = (
    """import json

def score(input, output, expected=None):
    want = (expected or {}).get("label", "billing")
    try:
        got = json.loads(output).get("label")
    except (ValueError, AttributeError):
        return 0.0, {"feedback": f"The output is not JSON: {output!r}.", "scores": {"format": 0.0, "label": 0.0}}
    if got == want:
        return 1.0, {"feedback": "Correct label.", "scores": {"format": 1.0, "label": 1.0}}
    return 0.0, {"feedback": f"Expected {want!r}, got {got!r}. """
    + FEEDBACK_MARK
    + """.",
                 "scores": {"format": 1.0, "label": 0.0}}
"""
)

TICKETS = [
    {
        "id": f"T{index}",
        "input": {"subject": subject, "message": f"{subject}, please help."},
        "expected": {"label": "billing"},
    }
    for index, subject in enumerate(
        ["Charged twice", "Refund please", "Card charged after cancel", "Invoice shows a wrong charge"]
    )
]


def text_of(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return " ".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content or "")


def reply(received: Received) -> str:
    everything = "\n".join(text_of(message) for message in received.messages)
    system = "\n".join(text_of(m) for m in received.messages if m.get("role") == "system")
    if "new_instruction" in system:  # DSPy GEPA's reflection, through its JSON adapter
        return json.dumps({"new_instruction": IMPROVED})
    if "I am optimizing a parameter" in everything or "propose an improved version" in everything:
        return f"```\n{IMPROVED}\n```"
    label = "billing" if HINT in system else "other"
    answer = json.dumps({"label": label})
    if "[[ ## output ## ]]" in system and "JSON object" not in system:  # DSPy's chat adapter
        return f"[[ ## output ## ]]\n{answer}\n\n[[ ## completed ## ]]"
    if "[[ ## output ## ]]" in system or "JSON object" in system:
        return json.dumps({"output": answer})
    return answer


def stub_server() -> FakeOpenAI:
    return FakeOpenAI(reply=reply)


def reflection_prompts(server: FakeOpenAI) -> list[str]:
    """The text of every request the reflection model received."""
    prompts = []
    for request in server.requests:
        text = "\n".join(text_of(message) for message in request.messages)
        if "I am optimizing a parameter" in text or "new_instruction" in text:
            prompts.append(text)
    return prompts

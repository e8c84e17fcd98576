"""A world where people fail answers for a reason the judge's starting rubric does not state: scripted judge and
reflection models on 127.0.0.1.

- Support replies to customers. People pass the polite replies that answer the question, and fail the rude ones
  (the judge fails those too) and the ones that promise a refund without asking for the order number: a policy
  nobody wrote in the rubric. Each failing label's note names its reason.
- The judge model answers FAIL for a rude reply, and for a refund promised without an order number only once its
  system message (the rubric) states that policy; PASS otherwise.
- The reflection model reads GEPA's prompt: when a human note of its examples names the order number, it adds the
  policy to the rubric; otherwise it adds a sentence that changes nothing.

So the starting judge's κ with people is about 0.2, and a rubric that states the policy agrees with them on every
case. Without the notes, the reflection model has nothing to learn the policy from.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.fake_openai import FakeOpenAI, Received

RUBRIC = (
    "You review a support agent's reply to a customer.\n"
    "Answer PASS if the reply is polite and answers the question, FAIL otherwise.\n"
    "Then give one sentence of reasons.\n"
)
POLICY = "FAIL any reply that promises a refund without first asking for the customer's order number."
IDLE = "Be thorough."
METRIC = f'''"""A support reply judged by a model."""

from skynet import llm

RUBRIC = """{RUBRIC}"""


def score(input, output, expected=None):
    verdict = llm(RUBRIC, input=f"Question: {{input['question']}}\\nReply: {{output}}")
    passed = str(verdict).strip().upper().startswith("PASS")
    return (1.0 if passed else 0.0), {{"feedback": str(verdict)}}
'''
ITEMS = ["kettle", "lamp", "backpack", "charger", "blender", "jacket", "monitor", "speaker"]
GOOD = [
    "Thank you for writing. Please send us your order number and we will refund the {item} today.",
    "Sorry to hear about the {item}. Reply with your order number and the refund goes out at once.",
    "Thanks for your patience: the {item} ships on Monday and arrives within three days.",
    "Happy to help. The {item} has a two year warranty, so a repair is free of charge.",
]
PROMISE = [
    "So sorry about the {item}! We will refund you right away, no questions asked.",
    "Apologies for the trouble with the {item}. Your money is being refunded now.",
]
RUDE = "Figure it out yourself, the {item} manual explains everything."
NOTES = {
    "promise": "Promised a refund without asking for the order number.",
    "rude": "Rude to the customer.",
}


def rows(count: int = 48) -> list[dict[str, object]]:
    """The cases with their human labels: half good replies, five rude ones, the rest refunds promised blindly."""
    found = []
    for index in range(count):
        item = ITEMS[index % len(ITEMS)]
        question = f"Ticket {index}: my {item} stopped working after a week. What can you do?"
        if index % 2 == 0:
            kind, reply = "good", GOOD[(index // 2) % len(GOOD)]
        elif index % 10 == 1:
            kind, reply = "rude", RUDE
        else:
            kind, reply = "promise", PROMISE[(index // 2) % len(PROMISE)]
        found.append(
            {
                "id": f"t{index:02d}",
                "input": {"question": question},
                "output": reply.format(item=item),
                "human": 1.0 if kind == "good" else 0.0,
                "note": NOTES.get(kind, ""),
            }
        )
    return found


def write(folder: Path, *, notes: bool = True, count: int = 48) -> tuple[Path, Path, Path]:
    """The metric folder, the cases and the labels (by rater ana) under ``folder``."""
    (folder / "judge").mkdir(parents=True, exist_ok=True)
    metric = folder / "judge" / "metric.py"
    metric.write_text(METRIC)
    cases, labels = folder / "replies.jsonl", folder / "labels.jsonl"
    with cases.open("w") as data, labels.open("w") as scores:
        for row in rows(count):
            data.write(json.dumps({"id": row["id"], "input": row["input"], "output": row["output"]}) + "\n")
            label = {"id": row["id"], "human": row["human"], "rater": "ana"}
            if notes and row["note"]:
                label["note"] = row["note"]
            scores.write(json.dumps(label) + "\n")
    return folder / "judge", cases, labels


def judge_answer(rubric: str, user: str) -> str:
    reply = user.split("Reply:", 1)[-1].lower()
    if "figure it out" in reply:
        return "FAIL. The reply is rude."
    if "order number" in rubric.lower() and "refund" in reply and "order number" not in reply:
        return "FAIL. It promises a refund without asking for the order number."
    return "PASS. The reply is polite and answers the question."


def current_text(prompt: str) -> str:
    """The text being optimized, as GEPA's template shows it (the first fenced block)."""
    return prompt.split("```\n", 1)[1].split("\n```", 1)[0]


def notes_in(prompt: str) -> list[str]:
    return re.findall(r"## Human note\n(.*?)\n\n", prompt, flags=re.S)


def reflection_answer(prompt: str) -> str:
    current = current_text(prompt)
    learned = any("order number" in note for note in notes_in(prompt))
    addition = POLICY if learned else IDLE
    text = current if addition in current else f"{current.rstrip()}\n{addition}"
    return f"```\n{text}\n```"


def reply(received: Received) -> str:
    if received.model == "reflect":
        return reflection_answer(received.user or "")
    return judge_answer(received.system or "", received.user or "")


def server() -> FakeOpenAI:
    return FakeOpenAI(reply=reply, usage=(100, 20))


def environment(url: str) -> dict[str, str]:
    """The variables that give the judge and reflection models on the fake server."""
    return {
        "SKYNET_METRIC_MODEL": "openai/judge",
        "SKYNET_METRIC_API_BASE": url,
        "SKYNET_REFLECTION_MODEL": "openai/reflect",
        "SKYNET_REFLECTION_API_BASE": url,
    }


def requests_by_model(server: FakeOpenAI) -> dict[str, int]:
    counts = {"judge": 0, "reflect": 0}
    for request in server.requests:
        counts[request.model] = counts.get(request.model, 0) + 1
    return counts

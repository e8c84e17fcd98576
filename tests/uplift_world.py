"""A world where informative feedback provably helps: scripted task and reflection models on 127.0.0.1.

- Tickets belong to one of four labels, each marked by one cue word in the message ("invoice" marks
  billing). Nothing else in the data says which word decides: the expected value is the label alone.
- The task model answers a ticket with the label of the first rule of its instruction ("Tickets that
  mention 'invoice' are billing.") whose cue is in the message, else "other".
- The metric's feedback on a wrong answer names the label and the cue of *its* case.
- The reflection model reads each example of GEPA's prompt and adds a rule only when the feedback's cue
  is in that example's input: it relates the feedback to the case, as a careful reader would. Otherwise
  it returns the instruction unchanged.

So with the metric's feedback a round teaches the rules of the minibatch's wrong answers; with the score
only it learns nothing; with another case's feedback it learns a rule only when that case has the same label.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from skynet_core.cases import Case
from skynet_core.cli import run
from skynet_core.engines.uplift import Models
from skynet_core.llm import ModelConfig, ModelSettings
from skynet_core.results import CaseResult, CaseStatus
from tests.fake_openai import FakeOpenAI, Received

CUES = {"billing": "invoice", "shipping": "parcel", "account": "password", "technical": "crash"}
FILLERS = ["Hello team", "Good morning", "Hi there", "Dear support", "Urgent", "Quick question"]
START = "Classify the support ticket. Answer with its label only."
RULE = "Tickets that mention '{cue}' are {label}."
_RULE = re.compile(r"Tickets that mention '(\w+)' are (\w+)\.")
_FEEDBACK = re.compile(r"Expected '(\w+)', got '[^']*'\. The message mentions '(\w+)'")

METRIC = f"""CUES = {CUES!r}

def score(input, output, expected=None):
    want = expected["label"]
    got = str(output).strip()
    if got == want:
        return 1.0, {{"feedback": f"Correct: {{want!r}}."}}
    return 0.0, {{"feedback": f"Expected {{want!r}}, got {{got!r}}. The message mentions {{CUES[want]!r}}, "
                              f"which marks {{want}}."}}
"""

# The same verdicts, asked of the metric's model (see :func:`reply`): a metric whose llm() calls cost money.
JUDGED_METRIC = """
from skynet import llm

def score(input, output, expected=None):
    verdict = llm("Answer PASS if the label is right, else FAIL.", input=f"{expected['label']} / {output}")
    return (1.0 if verdict.startswith("PASS") else 0.0), {"feedback": verdict}
"""


def cases(train_per_label: int = 3, val_per_label: int = 2) -> list[Case]:
    """Tickets with the dataset's own train and val splits, labels interleaved."""
    found = []
    for index in range(train_per_label + val_per_label):
        for label, cue in CUES.items():
            filler = FILLERS[(index + len(found)) % len(FILLERS)]
            split = "train" if index < train_per_label else "val"
            found.append(
                Case(
                    id=f"{label}-{index}",
                    input={"message": f"{filler}, my {cue} is the problem since ticket {len(found)}."},
                    output=None,
                    expected={"label": label},
                    split=split,
                )
            )
    return found


def one_wrong_answer() -> tuple[list[Case], list[CaseResult]]:
    """One billing ticket answered "other", and the metric's feedback on it (naming the cue): what one reflection
    step reads."""
    cases = [Case(id="a", input={"message": "my invoice"}, output="other", expected={"label": "billing"})]
    feedback = "Expected 'billing', got 'other'. The message mentions 'invoice', which marks billing."
    return cases, [CaseResult(id="a", status=CaseStatus.OK, score=0.0, feedback=feedback)]


def write_cases(path: Path) -> Path:
    """The cases as a JSON Lines case file (outputs null: the task makes them)."""
    with path.open("w") as handle:
        for case in cases():
            row = {"id": case.id, "input": case.input, "output": None, "expected": case.expected, "split": case.split}
            handle.write(json.dumps(row) + "\n")
    return path


MODEL_VARIABLES = ("SKYNET_TASK_MODEL", "SKYNET_TASK_API_BASE", "SKYNET_REFLECTION_MODEL", "SKYNET_REFLECTION_API_BASE")


def write_folder(folder: Path) -> Path:
    """The metric in ``folder/metric`` and the cases in ``folder/cases.jsonl``, as the command line reads them."""
    (folder / "metric").mkdir()
    (folder / "metric" / "metric.py").write_text(METRIC)
    write_cases(folder / "cases.jsonl")
    return folder


def use_server(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    """The environment's task and reflection models: the scripted ones at ``url``."""
    for role, model in (("TASK", "openai/task"), ("REFLECTION", "openai/reflect")):
        monkeypatch.setenv(f"SKYNET_{role}_MODEL", model)
        monkeypatch.setenv(f"SKYNET_{role}_API_BASE", url)


def run_cli(folder: Path, *args: str, data: str = "cases.jsonl") -> tuple[int, str, str]:
    """``uplift`` of the metric of :func:`write_folder` on ``folder/data``, then ``args``: the exit status and
    what it printed to standard output and standard error."""
    out, err = io.StringIO(), io.StringIO()
    code = run(["uplift", str(folder / "metric"), "--data", str(folder / data), *args], out, err)
    return code, out.getvalue(), err.getvalue()


def task_answer(instruction: str, message: str) -> str:
    for cue, label in _RULE.findall(instruction):
        if cue in message:
            return label
    return "other"


def reflection_answer(prompt: str) -> str:
    current = prompt.split("```\n", 1)[1].split("\n```", 1)[0]
    rules = []
    for example in prompt.split("# Example ")[1:]:
        sections = dict(part.split("\n", 1) for part in example.split("\n## ")[1:] if "\n" in part)
        found = _FEEDBACK.search(sections.get("Feedback", ""))
        if found and found.group(2) in sections.get("Input", ""):
            rule = RULE.format(label=found.group(1), cue=found.group(2))
            if rule not in current and rule not in rules:
                rules.append(rule)
    return "```\n" + " ".join([current, *rules]) + "\n```"


def reply(received: Received) -> str:
    if received.model == "reflect":
        return reflection_answer(received.user or "")
    if received.model == "judge":  # JUDGED_METRIC's verdict
        want, _, got = (received.user or "").partition(" / ")
        return "PASS" if want == got else "FAIL"
    return task_answer(received.system or "", received.user or "")


def server() -> FakeOpenAI:
    return FakeOpenAI(reply=reply, usage=(100, 20))


def models(url: str, *, price: tuple[float, float] | None = None, temperature: float = 0.0) -> Models:
    return Models(
        ModelConfig("openai/task", url, api_key="unused", price_per_million=price),
        ModelConfig("openai/reflect", url, api_key="unused", price_per_million=price),
        ModelSettings(temperature=temperature, max_retries=0),
    )


def judge_settings(url: str, price: tuple[float, float]) -> ModelSettings:
    """Settings whose metric model (``judge``, answering JUDGED_METRIC) has ``price``."""
    return ModelSettings(
        metric=ModelConfig("openai/judge", url, api_key="unused", price_per_million=price), max_retries=0
    )


def requests_by_model(server: FakeOpenAI) -> dict[str, int]:
    counts = {"task": 0, "reflect": 0}
    for request in server.requests:
        counts[request.model] = counts.get(request.model, 0) + 1
    return counts

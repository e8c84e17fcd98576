"""What the reflection model reads about the judge, and how its proposal is asked for.

Each case of a minibatch becomes side information GEPA's ``optimize_anything`` puts in its reflective dataset:
the case's input and output (and expected value), the human score and the human note, the judge's score and its
answer (the ``llm()`` reply), and the direction of a disagreement ("too lenient" / "too strict"). The proposal
is asked for with GEPA's own reflection template (written from an objective and a background, as
``optimize_anything`` writes it) over the disagreements only, sent by the studio's one reflection call
(:func:`skynet_core.engines.reflection.reflect`) and extracted with GEPA's extractor.

The human notes are what lets a reflection model learn a policy: without them it sees only that people
disagreed, not why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .judge import Verdict
from .labelled import HumanCase, Scale

DIRECTION = "Direction"
ANSWER_CHARS = 2_000  # of the judge's answer, in the reflection prompt

OBJECTIVE = (
    "Rewrite the instructions a judge model reads so that its verdicts agree with the human raters' scores on "
    "cases like these."
)
BACKGROUND = """The text is the system message of a model that judges outputs; a metric turns its answer into a \
score ({scale}). Each example is a case where the judge disagreed with the people who scored it: the human score and \
the human note say what they expected and why, and the direction says whether the judge was too lenient (scored \
higher than the people) or too strict. State the policies the notes reveal as general rules a judge can apply to \
new cases. Keep the answer format the metric reads (the words it looks for, such as PASS and FAIL). Keep every \
{{placeholder}} exactly as it is: the metric fills them in. Do not quote the examples' text: state rules, not \
examples.{others}"""


def side_info(item: HumanCase, verdict: Verdict, scale: Scale) -> dict[str, Any]:
    """What the reflection model reads about one case (a case the metric could not score says why)."""
    case = item.case
    info: dict[str, Any] = {"Input": dict(case.input), "Output": case.output}
    if case.expected is not None:
        info["Expected"] = case.expected
    info["Human score"] = scale.shown(item.human)
    if item.note.strip():
        info["Human note"] = item.note.strip()
    if verdict.score is None:
        info["Judge score"] = f"none: the metric failed ({verdict.error})"
        return info
    info["Judge score"] = scale.shown(verdict.score)
    info["Judge answer"] = verdict.answer[:ANSWER_CHARS]
    if scale.disagrees(verdict.score, item.human):
        info[DIRECTION] = scale.direction(verdict.score, item.human)
    return info


def reflection_prompt(name: str, current: Mapping[str, str], records: Sequence[Mapping[str, Any]], scale: Scale) -> str:
    """GEPA's reflection prompt for the prompt ``name`` of the candidate ``current``, over ``records`` (the
    disagreements of the minibatch)."""
    from gepa.optimize_anything import _build_reflection_prompt_template
    from gepa.strategies.instruction_proposal import InstructionProposalSignature

    others = "".join(
        f"\n\nThe judge's other instructions, {other} (not changed now):\n{text}"
        for other, text in current.items()
        if other != name
    )
    rule = f"at or above {scale.threshold:g} passes" if scale.pass_fail else f"{scale.low:g} to {scale.high:g}"
    background = BACKGROUND.format(scale=rule, others=others)
    template = _build_reflection_prompt_template(objective=OBJECTIVE, background=background)
    prompt = InstructionProposalSignature.prompt_renderer(
        {"current_instruction_doc": current[name], "dataset_with_feedback": list(records), "prompt_template": template}
    )
    return prompt if isinstance(prompt, str) else str(prompt)


def disagreements(records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The records of the reflective dataset where the judge and the people disagree."""
    return [record for record in records if DIRECTION in record]

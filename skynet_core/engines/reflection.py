"""One GEPA reflection step on cases the studio has scored: the prompt the engine would send, and its answer.

The step takes the artifact's text (the instruction the candidates answered),
the lowest-scoring cases (3 by default, like GEPA's minibatch), and builds the
reflection prompt with GEPA's own code: ``optimize_anything``'s reflective
dataset and reflection template, rendered by ``InstructionProposalSignature``.
With a reflection model configured it sends the prompt the way GEPA does
(``gepa.lm.LM``, one user message) and extracts the proposal with GEPA's
extractor. Without one, the prompt is still built: it is what the engine reads.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..cases import Case
from ..i18n import _, format_number
from ..llm import LlmError, ModelConfig, ModelSettings, chat
from ..results import CaseResult
from .gepa_adapter import reflective_dataset, side_info
from .sandboxed import Verdict

if TYPE_CHECKING:
    from ..datasets import Dataset

DEFAULT_MINIBATCH = 3
MIN_PROPOSAL_CHARS = 16_000
PROPOSAL_GROWTH = 4
"""A proposal may have :data:`MIN_PROPOSAL_CHARS` characters, or this many times the instruction it replaces if
that is more (:func:`proposal_limit`); a longer one is refused."""
EXAMPLE_INSTRUCTION = Path(__file__).resolve().parents[1] / "examples" / "tickets_instruction.txt"
NO_REFLECTION_MODEL = (
    "No reflection model is configured, so nothing was proposed. Choose one on the Settings page (reflection "
    "model), or set SKYNET_REFLECTION_MODEL (and SKYNET_REFLECTION_API_BASE for a local OpenAI-compatible server)."
)


def dataset_instruction(dataset: Dataset) -> str | None:
    """The instruction the dataset's candidates answered, when the dataset carries one (the bundled example does)."""
    from ..datasets import EXAMPLE_PATH

    bundled = dataset.source == "example" or Path(dataset.source).resolve() == EXAMPLE_PATH.resolve()
    return EXAMPLE_INSTRUCTION.read_text(encoding="utf-8").strip() if bundled else None


def pick_minibatch(
    cases: Sequence[Case], results: Sequence[CaseResult], size: int = DEFAULT_MINIBATCH
) -> list[tuple[Case, CaseResult]]:
    """The ``size`` scored cases with the lowest scores (a case the metric failed on counts as 0), in case order
    among equals. Results are matched to cases by id and candidate."""
    by_key = {(case.id, case.candidate): case for case in cases}
    pairs = [(by_key[(r.id, r.candidate)], r) for r in results if (r.id, r.candidate) in by_key]
    pairs.sort(key=lambda pair: Verdict.from_result(pair[1]).score)
    return pairs[: max(1, size)]


def reflection_prompt(instruction: str, picked: Sequence[tuple[Case, CaseResult]]) -> str:
    """The reflection prompt GEPA's ``optimize_anything`` would send for ``instruction`` and these scored cases."""
    verdicts = [Verdict.from_result(result) for _, result in picked]
    infos = [
        side_info({"input": case.input, "expected": case.expected}, case.output, verdict)
        for (case, _), verdict in zip(picked, verdicts, strict=True)
    ]
    return gepa_prompt(instruction, [v.score for v in verdicts], infos)


def gepa_prompt(instruction: str, scores: Sequence[float], infos: Sequence[Mapping[str, Any]]) -> str:
    """GEPA's reflection prompt for ``instruction``: ``optimize_anything``'s reflective dataset of these side
    informations (:func:`~skynet_core.engines.gepa_adapter.side_info`), rendered with its template."""
    from gepa.optimize_anything import _STR_CANDIDATE_KEY, optimize_anything_reflection_prompt_template
    from gepa.strategies.instruction_proposal import InstructionProposalSignature

    records = reflective_dataset({_STR_CANDIDATE_KEY: instruction}, scores, infos, [_STR_CANDIDATE_KEY])
    prompt = InstructionProposalSignature.prompt_renderer(
        {
            "current_instruction_doc": instruction,
            "dataset_with_feedback": records[_STR_CANDIDATE_KEY],
            "prompt_template": optimize_anything_reflection_prompt_template,
        }
    )
    return prompt if isinstance(prompt, str) else str(prompt)


@dataclass(frozen=True)
class Reflection:
    """The reflection model's answer to one prompt: its text, the proposal GEPA's extractor finds in it, and the
    tokens it took (0 when the provider reported none)."""

    raw: str
    proposed: str
    prompt_tokens: int
    completion_tokens: int


def reflect(prompt: str, config: ModelConfig, settings: ModelSettings, max_tokens: int | None = None) -> Reflection:
    """Send ``prompt`` to the reflection model ``config`` the way GEPA does (one user message, as ``gepa.lm.LM``
    sends it) and extract the proposal with GEPA's extractor. The call is the studio's own
    (:func:`skynet_core.llm.provider.chat`: retries, a bound ``max_tokens`` when given, and the answer redacted of
    keys before anything reads it). Raises :class:`LlmError`, with a message for people, when the key is missing
    or the call fails."""
    from gepa.strategies.instruction_proposal import InstructionProposalSignature

    reply = chat(settings, [{"role": "user", "content": prompt}], config=config, max_tokens=max_tokens)
    proposed = InstructionProposalSignature.output_extractor(reply.text.strip())["new_instruction"]
    return Reflection(reply.text, proposed, reply.prompt_tokens, reply.completion_tokens)


def proposal_limit(instruction: str) -> int:
    """The most characters a proposal replacing ``instruction`` may have: 16,000, or 4× the instruction."""
    return max(MIN_PROPOSAL_CHARS, PROPOSAL_GROWTH * len(instruction))


def proposal_problem(proposed: str, instruction: str) -> str | None:
    """Why ``proposed`` cannot replace ``instruction`` (it is too long: a runaway answer, not an instruction),
    for people; None when it can."""
    limit = proposal_limit(instruction)
    if len(proposed) <= limit:
        return None
    return _(
        "The reflection model proposed {size} characters, more than the {limit} a proposal may have (the larger "
        "of 16,000 and 4 times the instruction it replaces), so the proposal was refused."
    ).format(size=format_number(len(proposed)), limit=format_number(limit))


@dataclass(frozen=True)
class ReflectionStep:
    """One step: the prompt, and (with a model) the proposed text, or why there is none.

    ``proposed`` is ``None`` when no model is configured or the call failed; ``message`` then says
    what to do. ``case_ids`` are the cases of the minibatch, lowest score first.
    """

    instruction: str
    prompt: str
    case_ids: tuple[str, ...]
    model: str | None = None
    proposed: str | None = None
    raw_reply: str = ""
    message: str = ""

    @property
    def diff(self) -> str:
        """A unified diff from the old text to the proposed one (empty without a proposal)."""
        if self.proposed is None:
            return ""
        old, new = self.instruction.splitlines(keepends=True), self.proposed.splitlines(keepends=True)
        lines = difflib.unified_diff(old, new, _("current"), _("proposed"), lineterm="\n")  # the reader's language
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def reflection_step(
    instruction: str,
    cases: Sequence[Case],
    results: Sequence[CaseResult],
    settings: ModelSettings,
    *,
    size: int = DEFAULT_MINIBATCH,
) -> ReflectionStep:
    """Build the reflection prompt for the lowest-scoring cases and, with a reflection model, ask it once."""
    if not instruction.strip():
        raise ValueError(_("Give the text being optimized (the instruction or prompt) to reflect on."))
    picked = pick_minibatch(cases, results, size)
    if not picked:
        raise ValueError(_("No scored cases to reflect on. Score the dataset with the metric first."))
    prompt = reflection_prompt(instruction, picked)
    ids = tuple(case.id for case, _ in picked)
    config = settings.reflection
    if config is None or not config.model:
        return ReflectionStep(instruction, prompt, ids, message=NO_REFLECTION_MODEL)
    try:
        reply = reflect(prompt, config, settings)
    except LlmError as exc:
        return ReflectionStep(instruction, prompt, ids, config.model, message=str(exc))
    if problem := proposal_problem(reply.proposed, instruction):
        raw = reply.raw[: proposal_limit(instruction)] + "…"
        return ReflectionStep(instruction, prompt, ids, config.model, raw_reply=raw, message=problem)
    return ReflectionStep(instruction, prompt, ids, config.model, reply.proposed, reply.raw)

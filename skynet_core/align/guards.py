"""What a proposal must pass before GEPA scores it: it is a rule, not a copy of an example; it keeps the prompt's
``{placeholders}``; it is not too long; and no key survives in it.

- **Copying** (GEPA issue 261: optimized prompts that memorize examples): a proposal holding
  :data:`COPIED_WORDS` or more consecutive words of a training case's input, output or expected value is
  rejected, unless the starting prompt already held those words. Words are compared lower-cased, punctuation
  aside.
- **Placeholders**: the ``{names}`` the code fills with ``.format`` must all stay, and no new one may appear
  (``.format`` would raise on it).
- **Size**: at most :data:`PROMPT_CHARS` characters, or :data:`GROWTH` times the starting prompt when that is
  longer: a judge's instructions that grow without bound cost every later call.
- **Keys**: the text is redacted as ``llm()`` answers are (:func:`skynet_core.redact.redact`) before anything
  else reads it, so a key the reflection model echoed never reaches a file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..i18n import N_, _, format_number
from ..redact import redact
from .labelled import HumanCase
from .prompts import placeholders

COPIED_WORDS = 8
PROMPT_CHARS = 4_000
GROWTH = 3
_WORD = re.compile(r"\w+")
PARTS = {"input": N_("input"), "output": N_("output"), "expected": N_("expected value")}


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def ngrams(tokens: Sequence[str], size: int = COPIED_WORDS) -> set[tuple[str, ...]]:
    return {tuple(tokens[index : index + size]) for index in range(len(tokens) - size + 1)}


def _texts(value: Any) -> Iterable[str]:
    """Every text in a case's value (a dict's values, a list's items, a scalar as written)."""
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _texts(item)
    elif value is not None:
        yield str(value)


@dataclass(frozen=True)
class CopyIndex:
    """The runs of :data:`COPIED_WORDS` words of the training cases' inputs, outputs and expected values, each with
    the case and the part it comes from (the first one found)."""

    runs: Mapping[tuple[str, ...], tuple[str, str]]

    @classmethod
    def of(cls, cases: Iterable[HumanCase]) -> CopyIndex:
        runs: dict[tuple[str, ...], tuple[str, str]] = {}
        for item in cases:
            for part, value in (
                ("input", item.case.input),
                ("output", item.case.output),
                ("expected", item.case.expected),
            ):
                for text in _texts(value):
                    for run in ngrams(words(text)):
                        runs.setdefault(run, (item.id, part))
        return cls(runs)

    def copied(self, text: str, allowed: str) -> tuple[tuple[str, ...], str, str] | None:
        """The first passage of ``text`` made of runs found in a training case and not in ``allowed`` (the starting
        prompts), as long as it goes on, with the case id and the part of the run it starts with; ``None`` when
        there is none."""
        tokens, known = words(text), ngrams(words(allowed))

        def copied_at(index: int) -> bool:
            run = tuple(tokens[index : index + COPIED_WORDS])
            return len(run) == COPIED_WORDS and run in self.runs and run not in known

        first = next((index for index in range(len(tokens)) if copied_at(index)), None)
        if first is None:
            return None
        last = first
        while copied_at(last + 1):
            last += 1
        return (tuple(tokens[first : last + COPIED_WORDS]), *self.runs[tuple(tokens[first : first + COPIED_WORDS])])


def size_cap(start: str) -> int:
    """The most characters a proposal for a prompt that started as ``start`` may have."""
    return max(PROMPT_CHARS, GROWTH * len(start))


def cleaned(proposed: str, start: str, secrets: Iterable[str | None] = ()) -> str:
    """The proposal redacted of keys, with the starting prompt's leading and trailing whitespace (GEPA's extractor
    strips it; a rubric that ended with a newline keeps it, so the file changes only where the words do)."""
    text = redact(proposed, secrets).strip()
    lead = start[: len(start) - len(start.lstrip())]
    trail = start[len(start.rstrip()) :]
    return f"{lead}{text}{trail}" if text else ""


def rejection(name: str, text: str, start: str, index: CopyIndex, allowed: str) -> str | None:
    """Why the proposal ``text`` for the prompt ``name`` (which started as ``start``) is rejected, for people;
    ``None`` when it may be scored. ``allowed``: the starting prompts, whose words a proposal may keep."""
    if not text.strip():
        return _("The proposal for {name} is empty.").format(name=name)
    cap = size_cap(start)
    if len(text) > cap:
        return _(
            "The proposal for {name} has {length} characters, over the cap of {cap} (the larger of {chars} and "
            "{growth} times the starting text)."
        ).format(
            name=name,
            length=format_number(len(text)),
            cap=format_number(cap),
            chars=format_number(PROMPT_CHARS),
            growth=GROWTH,
        )
    kept, now = placeholders(start), placeholders(text)
    if kept != now:
        lost, added = sorted(kept - now), sorted(now - kept)
        changes = [_("drops {names}").format(names=", ".join("{" + item + "}" for item in lost))] if lost else []
        changes += [_("adds {names}").format(names=", ".join("{" + item + "}" for item in added))] if added else []
        return _(
            "The proposal for {name} {changes}: the code fills the prompt's placeholders, so they must stay as they "
            "are."
        ).format(name=name, changes=_(" and ").join(changes))
    found = index.copied(text, allowed)
    if found is not None:
        run, case_id, part = found
        return _(
            "The proposal for {name} copies {count} consecutive words of training case {case}'s {part} (“{words}”): "
            "a judge's instructions must state a rule, not memorize an example."
        ).format(name=name, count=len(run), case=case_id, part=_(PARTS[part]), words=" ".join(run))
    return None

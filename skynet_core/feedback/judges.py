"""What each feedback rule finds in a scored run: one function per rule, given the run and the rule's
threshold, returning at most one flag per ``ok`` case."""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Sequence

from skynet_core.i18n import _, ngettext

from .scored_run import Flag, _Item, _Run
from .text import (
    _EPS,
    _GENERIC_FILLER,
    _MIN_ECHO_WORDS,
    GENERIC_PHRASES,
    _fmt,
    _leaves,
    _mentions_name,
    _polarity,
    _say_what,
    _show,
    _words,
)


def _judge_short(run: _Run, min_words: float) -> list[Flag]:
    """Empty feedback on any case; fewer than ``min_words`` words on a case below the top score.

    A top-scored case may say just "Correct.": the engines learn most from what went wrong.
    """
    flags = []
    for item in run.items:
        count = len(item.words)
        if not item.feedback.strip():
            detail = _("The feedback is empty.")
            suggestion = (
                _("Say in a few words what this output got right, so the engine keeps it.")
                if run.is_top(item.score)
                else _say_what(item.case)
            )
        elif count < min_words and not run.is_top(item.score):
            detail = ngettext(
                "The feedback has {count} word: {text}.", "The feedback has {count} words: {text}.", count
            ).format(count=count, text=_show(item.feedback.strip()))
            suggestion = _say_what(item.case)
        else:
            continue
        flags.append(Flag(item.case.id, "short", detail, suggestion))
    return flags


_GENERIC_SEQUENCES = sorted((tuple(_words(phrase)) for phrase in GENERIC_PHRASES), key=len, reverse=True)


def _generic_parts(words: Sequence[str]) -> tuple[list[str], int]:
    """The stock phrases found in ``words`` and how many other, non-filler words there are."""
    phrases: list[str] = []
    extra = 0
    i = 0
    while i < len(words):
        match = next((seq for seq in _GENERIC_SEQUENCES if tuple(words[i : i + len(seq)]) == seq), None)
        if match:
            phrases.append(" ".join(match))
            i += len(match)
            continue
        if words[i] not in _GENERIC_FILLER:
            extra += 1
        i += 1
    return phrases, extra


def _judge_generic(run: _Run, extra_words: float) -> list[Flag]:
    """Feedback made of stock phrases ("Wrong.", "Bad format.", "Try again") with at most
    ``extra_words`` other words besides filler; case- and punctuation-insensitive."""
    flags = []
    for item in run.items:
        phrases, extra = _generic_parts(item.words)
        if not phrases or extra > extra_words:
            continue
        flags.append(
            Flag(
                item.case.id,
                "generic",
                _("The feedback {text} is a stock phrase that names no specifics.").format(
                    text=_show(item.feedback.strip())
                ),
                _("Replace it with the specifics. {advice}").format(advice=_say_what(item.case)),
            )
        )
    return flags


def _judge_same_text(run: _Run, gap: float) -> list[Flag]:
    """The same feedback text (ignoring case and punctuation) on cases whose scores differ by more than ``gap``."""
    groups: dict[tuple[str, ...], list[_Item]] = defaultdict(list)
    for item in run.items:
        if item.words:
            groups[item.words].append(item)
    flags = []
    for group in groups.values():
        scores = [item.score for item in group]
        if len(group) < 2 or max(scores) - min(scores) <= gap + _EPS:
            continue
        for item in group:
            others = [other for other in group if abs(other.score - item.score) > gap + _EPS]
            if not others:
                continue
            sample = ", ".join(f"{other.case.id} ({_fmt(other.score)})" for other in others[:3])
            if len(others) > 3:
                sample = _("{cases} and {count} more").format(cases=sample, count=len(others) - 3)
            advice = _("Name what this output got right.") if run.is_top(item.score) else _say_what(item.case)
            flags.append(
                Flag(
                    item.case.id,
                    "same_text",
                    _("The same feedback is on {count} cases scored {low} to {high}; this one scored {score}.").format(
                        count=len(group), low=_fmt(min(scores)), high=_fmt(max(scores)), score=_fmt(item.score)
                    ),
                    _("Say what sets this case apart from {cases}. {advice}").format(cases=sample, advice=advice),
                )
            )
    return flags


def _judge_no_specifics(run: _Run, fraction: float) -> list[Flag]:
    """A low score (below ``fraction`` of the range) whose feedback shares no word with the
    expected values or the output (see ``_output_stems`` for what counts as the output's)."""
    flags = []
    for item in run.items:
        if not item.words or not run.is_low(item.score, fraction):
            continue
        if item.stems & (item.expected_stems | item.output_stems):
            continue
        flags.append(
            Flag(
                item.case.id,
                "no_specifics",
                _(
                    "The case scored {score}, but the feedback names nothing from the expected value or the output."
                ).format(score=_fmt(item.score)),
                _say_what(item.case),
            )
        )
    return flags


def _judge_contradiction(run: _Run, margin: float) -> list[Flag]:
    """A top score with only negative verdicts ("wrong", "incorrect", "missing", "fail"),
    or a lowest score with only positive ones ("correct", "perfect", "exactly right").

    Feedback with both kinds ("Correct label, but the date is missing.") is mixed, not a contradiction.
    """
    flags = []
    for item in run.items:
        positive, negative = _polarity(item.feedback)
        if run.is_top(item.score, margin) and negative and not positive:
            words = ", ".join(repr(word) for word in dict.fromkeys(negative))
            flags.append(
                Flag(
                    item.case.id,
                    "contradiction",
                    _("The case got the top score ({score}), but the feedback says {words}.").format(
                        score=_fmt(item.score), words=words
                    ),
                    _("If the output has that fault, lower the score; if not, say what this output got right."),
                )
            )
        elif run.is_lowest(item.score, margin) and positive and not negative:
            words = ", ".join(repr(word) for word in dict.fromkeys(positive))
            flags.append(
                Flag(
                    item.case.id,
                    "contradiction",
                    _("The case got the lowest score ({score}), but the feedback says {words}.").format(
                        score=_fmt(item.score), words=words
                    ),
                    _("If the output is right, fix the score; if not, say what was wrong. {advice}").format(
                        advice=_say_what(item.case)
                    ),
                )
            )
    return flags


def _judge_named_score(run: _Run, fraction: float) -> list[Flag]:
    """Named scores below ``fraction`` of their range whose name (a part of it, or a synonym
    from ``NAMED_SCORE_SYNONYMS``) the non-empty feedback never mentions; one flag per case."""
    flags = []
    for item in run.items:
        if not item.words:
            continue
        unexplained = []
        for name, value in item.result.scores.items():
            low, high = run.named_ranges[name]
            if value < low + fraction * (high - low) - _EPS and not _mentions_name(name, item.stems):
                unexplained.append((name, value))
        if not unexplained:
            continue
        listed = ", ".join(f"{name!r} = {_fmt(value)}" for name, value in unexplained)
        names = ", ".join(name for name, _value in unexplained)
        flags.append(
            Flag(
                item.case.id,
                "named_score",
                ngettext(
                    "The named score {scores} is low, but the feedback never mentions it.",
                    "The named scores {scores} are low, but the feedback never mentions them.",
                    len(unexplained),
                ).format(scores=listed),
                _("Add a sentence on {names}: what in the output lowered it.").format(names=names),
            )
        )
    return flags


def _judge_too_long(run: _Run, max_chars: float) -> list[Flag]:
    """Feedback longer than ``max_chars`` characters (surrounding blanks not counted)."""
    flags = []
    for item in run.items:
        length = len(item.feedback.strip())
        if length <= max_chars:
            continue
        flags.append(
            Flag(
                item.case.id,
                "too_long",
                _("The feedback is {length} characters long; the limit is {limit}.").format(
                    length=f"{length:,}", limit=f"{int(max_chars):,}"
                ),
                _(
                    "Cut it to the sentences that say what was wrong and what the right output looks like; "
                    "the engine reads every case's feedback."
                ),
            )
        )
    return flags


def _judge_echoes_input(run: _Run, overlap: float) -> list[Flag]:
    """Feedback of at least three content words of which at least ``overlap`` come from the
    input's values and not from the expected values or the output."""
    flags = []
    for item in run.items:
        if len(item.stems) < _MIN_ECHO_WORDS:
            continue
        echoed = (item.stems & item.input_stems) - (item.expected_stems | item.output_stems)
        if len(echoed) < overlap * len(item.stems) - _EPS:
            continue
        flags.append(
            Flag(
                item.case.id,
                "echoes_input",
                _(
                    "{echoed} of the feedback's {count} words come from the input and it says nothing about the output."
                ).format(echoed=len(echoed), count=len(item.stems)),
                _("Say how the output differs from what was wanted, not what the input was. {advice}").format(
                    advice=_say_what(item.case)
                ),
            )
        )
    return flags


MIN_QUOTED_WORDS = 12
"""The fewest words of an expected value that feedback must quote to give the answer away: class labels and
other short values are never flagged ("Expected 'billing', got 'other'." is good feedback)."""


_QUOTE_RUN = 3  # words in a row: shorter runs in common are shared words, not a quote


def _quoted(answer: Sequence[str], feedback: Sequence[str]) -> int:
    """How many of ``answer``'s words ``feedback`` repeats in order, in runs of at least three words."""
    blocks = difflib.SequenceMatcher(None, answer, feedback, autojunk=False).get_matching_blocks()
    return sum(block.size for block in blocks if block.size >= _QUOTE_RUN)


def _judge_gives_answer(run: _Run, share: float) -> list[Flag]:
    """Feedback that quotes at least ``share`` of a long expected value, and at least ``MIN_QUOTED_WORDS`` of its
    words: the reflection would learn to copy training answers into the instruction (an overfitting path)."""
    flags = []
    for item in run.items:
        for leaf in _leaves(item.case.expected):
            answer = _words(leaf)
            quoted = _quoted(answer, item.words)
            if quoted < MIN_QUOTED_WORDS or quoted < share * len(answer) - _EPS:
                continue
            flags.append(
                Flag(
                    item.case.id,
                    "gives_answer",
                    _("The feedback quotes {quoted} of the expected answer's {count} words.").format(
                        quoted=quoted, count=len(answer)
                    ),
                    _(
                        "Say what the output missed or got wrong, in your own words, without pasting the expected "
                        "answer: the engine would copy training answers into the instruction."
                    ),
                )
            )
            break
    return flags

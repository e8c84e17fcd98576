"""Which cases the Feedback review page lists: flagged or all, by mark, by score, and the note when none matches."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from skynet_core.i18n import _

from ...feedback.marks import Mark, MarkValue
from ...feedback.rules import Review
from ...feedback.text import Pair

SHOW_FLAGGED, SHOW_ALL = "flagged", "all"
MARK_ANY, MARK_NONE = "any", "none"
MARK_CHOICES: tuple[str, ...] = (MARK_ANY, MARK_NONE, MarkValue.USEFUL.value, MarkValue.WEAK.value)


def show_labels(result: Review) -> dict[str, str]:
    """The "Show" box's choices (flagged, each rule by name, all) and their labels with today's counts."""
    labels = {
        SHOW_FLAGGED: _("Every flagged case ({count})").format(count=len(result.flagged_ids)),
        **{
            rule.name: _("{rule} ({count})").format(rule=rule.title, count=result.counts[rule.name])
            for rule in result.rules
        },
        SHOW_ALL: _("Every judged case, flagged or not ({count})").format(count=len(result.case_ids)),
    }
    return labels


def show_key(result: Review, prefix: str = "feedback.show") -> str:
    """A widget key that changes with the counts, so the box shows the new counts after a rescore or a
    threshold change (issue 10, fix 7); the choice itself is kept apart and carried over."""
    counts = (len(result.flagged_ids), len(result.case_ids), *result.counts.values())
    return f"{prefix}.{'.'.join(str(count) for count in counts)}"


def mark_labels() -> dict[str, str]:
    return {
        MARK_ANY: _("Any mark"),
        MARK_NONE: _("Not marked"),
        MarkValue.USEFUL.value: _("Marked useful"),
        MarkValue.WEAK.value: _("Marked weak"),
    }


@dataclass(frozen=True)
class CaseFilter:
    """Which judged cases the table lists.

    ``show``: ``flagged``, ``all`` or a rule's name; ``mark``: one of :data:`MARK_CHOICES`;
    ``score_range``: inclusive ``(low, high)`` or ``None`` for any score; ``text``: words the
    feedback (or the case id) must contain, case-insensitive; blank for any.
    """

    show: str = SHOW_FLAGGED
    mark: str = MARK_ANY
    score_range: tuple[float, float] | None = None
    text: str = ""


def filter_ids(result: Review, pairs: Sequence[Pair], marks: Mapping[str, Mark], chosen: CaseFilter) -> list[str]:
    """The judged case ids the filter keeps, in run order."""
    if chosen.show == SHOW_FLAGGED:
        ids = result.flagged_ids
    elif chosen.show == SHOW_ALL:
        ids = list(result.case_ids)
    else:
        ids = [case_id for case_id in result.case_ids if chosen.show in result.rules_broken[case_id]]
    by_id = {case.id: res for case, res in pairs}
    words = chosen.text.casefold().split()
    kept = []
    for case_id in ids:
        res, mark = by_id[case_id], marks.get(case_id)
        if chosen.mark == MARK_NONE and mark is not None:
            continue
        if chosen.mark not in (MARK_ANY, MARK_NONE) and (mark is None or mark.value.value != chosen.mark):
            continue
        if chosen.score_range is not None and res.score is not None:
            low, high = chosen.score_range
            if not low - 1e-9 <= res.score <= high + 1e-9:
                continue
        haystack = f"{case_id}\n{res.feedback}".casefold()
        if any(word not in haystack for word in words):
            continue
        kept.append(case_id)
    return kept


def score_span(result: Review, pairs: Sequence[Pair]) -> tuple[float, float] | None:
    """The lowest and highest score of the judged cases, for a range filter; ``None`` when they are all equal."""
    judged = set(result.case_ids)
    scores = [res.score for case, res in pairs if case.id in judged and res.score is not None]
    if not scores or min(scores) == max(scores):
        return None
    return min(scores), max(scores)


def no_match_note(chosen: CaseFilter) -> str:
    if chosen.show == SHOW_ALL and chosen == CaseFilter(show=SHOW_ALL):
        return _("No case was judged.")
    return _("No case matches these filters. Choose “Every judged case” and clear the others to see every case.")

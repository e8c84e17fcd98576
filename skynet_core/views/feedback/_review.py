"""The optional model review (which cases are graded and the grades' summary) and the export's name and note."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from skynet_core.i18n import _, format_number, ngettext

from ...feedback.grading import Grade
from ...feedback.rules import Review
from ...feedback.text import Pair

MAX_GRADED = 100


def to_grade(result: Review, pairs: Sequence[Pair], limit: int = MAX_GRADED) -> tuple[list[Pair], bool]:
    """The flagged cases a model review grades (the first ``limit``), and whether some were left out."""
    flagged = set(result.flagged_ids)
    chosen = [(case, res) for case, res in pairs if case.id in flagged]
    return chosen[:limit], len(chosen) > limit


def grade_summary(grades: Mapping[str, Grade]) -> tuple[str, str]:
    """(what the grades say, what the failed calls say); either is empty when there is nothing to say."""
    graded = [grade.grade for grade in grades.values() if grade.grade is not None]
    failed = [grade for grade in grades.values() if grade.grade is None]
    said = ""
    if graded:
        said = ngettext(
            "Graded {count} feedback text: mean {mean} of 5. The grades are in the table and beside each case's rules.",
            "Graded {count} feedback texts: mean {mean} of 5. The grades are in the table and beside each case's "
            "rules.",
            len(graded),
        ).format(count=len(graded), mean=format_number(sum(graded) / len(graded), 1))
    problem = ""
    if failed:
        problem = ngettext(
            "{count} without a grade; the last said: {error}",
            "{count} without a grade; the last said: {error}",
            len(failed),
        ).format(count=len(failed), error=failed[-1].error)
    return said, problem


def export_stem(run_id: int | str) -> str:
    return f"feedback-review-run-{run_id}"


def export_note(with_grades: bool) -> str:
    if with_grades:
        return _(
            "Every case of the run with its input, output, expected value, score, feedback, the rules it broke "
            "(titles and ids), your mark and note, and the model's grade."
        )
    return _(
        "Every case of the run with its input, output, expected value, score, feedback, the rules it broke "
        "(titles and ids), and your mark and note."
    )

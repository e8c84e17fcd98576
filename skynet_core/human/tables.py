"""The agreement report's tables, one builder per shape, as the pages show them (and the tests read them).

Every builder returns a pandas DataFrame of plain values: numbers stay numbers (empty, NaN, where a
figure is undefined), texts are the data's own (the page shows them literally).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from skynet_core.i18n import _

from .report import FIGURES, Agreement, by_gap
from .text import figure_label, figure_meaning

if TYPE_CHECKING:
    import pandas as pd

    from skynet_core.cases import Case
    from skynet_core.results import CaseResult

    from .interrater import RaterAgreement
    from .rule_marks import RuleAgreement
    from .versions import AgreementComparison


def _frame(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(list(rows), columns=list(columns))


def figures_table(agreement: Agreement) -> pd.DataFrame:
    """One row per figure: ``figure`` (its name for people), ``value``, ``low``, ``high``, ``note`` (why it is
    undefined, else what it means)."""
    rows = []
    for name in FIGURES:
        found = agreement.figure(name)
        note = found.reason.message if found.reason is not None else figure_meaning(name)
        rows.append({"figure": figure_label(name), "value": found.value, "low": found.low, "high": found.high,
                     "note": note})  # fmt: skip
    return _frame(rows, ("figure", "value", "low", "high", "note"))


def named_table(agreement: Agreement) -> pd.DataFrame:
    """One row per named score: ``name``, its Spearman ρ with the human score (``spearman``, ``low``, ``high``) and
    ``note`` (why it is undefined)."""
    rows = [
        {
            "name": name,
            "spearman": value.value,
            "low": value.low,
            "high": value.high,
            "note": value.reason.message if value.reason is not None else "",
        }  # fmt: skip
        for name, value in agreement.named
    ]
    return _frame(rows, ("name", "spearman", "low", "high", "note"))


def disagreements_table(
    agreement: Agreement,
    cases: Mapping[str, Case],
    results: Mapping[str, CaseResult],
    notes: Mapping[str, str] | None = None,
    *,
    limit: int | None = None,
    largest_gap_first: bool = False,
) -> pd.DataFrame:
    """The disagreements side by side: ``id``, ``score``, ``human``, ``gap``, ``false_pass``, the case's
    ``input``, ``output`` and ``expected``, the metric's ``feedback`` and the rater's ``note``.

    False passes first, then the largest gap (or only the largest gap first); at most ``limit`` rows.
    ``cases`` and ``results`` are by case id; a case missing from them leaves its cells empty.
    """
    chosen = by_gap(agreement.disagreements) if largest_gap_first else list(agreement.disagreements)
    rows = []
    for item in chosen[:limit]:
        case, result = cases.get(item.id), results.get(item.id)
        rows.append(
            {
                "id": item.id,
                "score": item.score,
                "human": item.human,
                "gap": item.gap,
                "false_pass": item.false_pass,
                "input": case.input if case is not None else None,
                "output": case.output if case is not None else None,
                "expected": case.expected if case is not None else None,
                "feedback": result.feedback if result is not None else "",
                "note": (notes or {}).get(item.id, ""),
            }
        )
    columns = ("id", "score", "human", "gap", "false_pass", "input", "output", "expected", "feedback", "note")
    return _frame(rows, columns)


def rules_table(found: Sequence[RuleAgreement]) -> pd.DataFrame:
    """One row per feedback rule against the marks: ``rule`` (its title), the counts ``flagged_weak``,
    ``flagged_useful``, ``missed_weak``, and ``precision`` and ``recall`` with their intervals."""
    rows = [
        {
            "rule": item.title,
            "flagged_weak": item.confusion.tp,
            "flagged_useful": item.confusion.fp,
            "missed_weak": item.confusion.fn,
            "precision": item.precision.value,
            "precision_low": item.precision.low,
            "precision_high": item.precision.high,
            "recall": item.recall.value,
            "recall_low": item.recall.low,
            "recall_high": item.recall.high,
        }
        for item in found
    ]
    columns = ("rule", "flagged_weak", "flagged_useful", "missed_weak", "precision", "precision_low",
               "precision_high", "recall", "recall_low", "recall_high")  # fmt: skip
    return _frame(rows, columns)


def comparison_table(comparison: AgreementComparison) -> pd.DataFrame:
    """Run A against run B, one row per figure: ``figure``, ``a``, ``b`` and ``change`` (B minus A; ``None`` when
    either is undefined)."""
    rows = [
        {
            "figure": figure_label(name),
            "a": comparison.a.figure(name).value,
            "b": comparison.b.figure(name).value,
            "change": comparison.change(name),
        }
        for name in FIGURES
    ]
    return _frame(rows, ("figure", "a", "b", "change"))


def moves_table(comparison: AgreementComparison, *, limit: int | None = None) -> pd.DataFrame:
    """The labelled cases whose score changed between the runs, the largest change of gap first: ``id``,
    ``human``, ``score_a``, ``score_b``, ``change`` (gap B minus gap A) and ``movement`` (toward / away, in words)."""
    words = {"toward": _("toward the person's score"), "away": _("away from the person's score")}
    rows = [
        {
            "id": move.id,
            "human": move.human,
            "score_a": move.score_a,
            "score_b": move.score_b,
            "change": move.change,
            "movement": words[move.movement.value],
        }  # fmt: skip
        for move in comparison.moves[:limit]
    ]
    return _frame(rows, ("id", "human", "score_a", "score_b", "change", "movement"))


RATER_COLUMNS = ("id", "first", "second", "gap")
"""The two raters' table's columns: fixed keys, never the raters' names (a rater may be named ``id`` or ``gap``);
the page labels ``first`` and ``second`` with the names."""


def raters_table(found: RaterAgreement, *, limit: int | None = None) -> pd.DataFrame:
    """The cases two raters disagree on, the largest gap first: ``id``, the ``first`` and the ``second`` rater's
    score and ``gap`` (:data:`RATER_COLUMNS`)."""
    rows = [{"id": item.id, "first": item.first, "second": item.second, "gap": item.gap}
            for item in found.disagreements[:limit]]  # fmt: skip
    return _frame(rows, RATER_COLUMNS)

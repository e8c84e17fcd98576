"""Metric health: saturation, too few distinct scores, named scores that move together, errors, reward hacks."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from typing import Any

import numpy as np

from skynet_core.i18n import _, ngettext
from skynet_core.results import CaseStatus

from .rules import _score, _score_range
from .text import _EPS, Pair, _differences, _fmt, _pct, _show


class Severity(StrEnum):
    """``warning``: the metric will likely mislead the engines; ``info``: worth a look."""

    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class HealthFinding:
    """One finding about the metric as a whole: a machine ``name``, its ``severity``, a
    message in plain words with the numbers behind it, and the cases it is about."""

    name: str
    severity: Severity
    message: str
    case_ids: tuple[str, ...] = ()


SATURATION_SHARE = 0.9
SATURATION_MIN_CASES = 5
FEW_DISTINCT_MIN_CASES = 10
FEW_DISTINCT_VALUES = 3
TOGETHER_CORRELATION = 0.98
TOGETHER_MIN_CASES = 5


def health(pairs: Sequence[Pair]) -> list[HealthFinding]:
    """The metric's health over a scored run, as findings (an empty list: nothing found).

    - ``errors`` (warning): any case that errored, timed out or returned an invalid value, with the rate.
    - ``saturation`` (warning): at least 90% of at least 5 ``ok`` cases share one score.
    - ``few_distinct_scores`` (info): fewer than 3 distinct scores among at least 10 ``ok`` cases.
    - ``named_scores_together`` (info): two named scores, on at least 5 common cases and not
      both constant, that are identical or correlate at 0.98 or more.
    - ``reward_hack`` (warning): cases with the top score whose output does not show an
      expected value (expected label 'billing' absent from the output).
    """
    findings = _errors(pairs)
    ok = [(case, result) for case, result in pairs if result.ok and result.score is not None]
    findings += _saturation(ok)
    findings += _few_distinct(ok)
    findings += _named_together(ok)
    findings += _reward_hacks(ok)
    return findings


def _errors(pairs: Sequence[Pair]) -> list[HealthFinding]:
    failed = [result for _case, result in pairs if not result.ok]
    if not failed:
        return []
    by_status = Counter(result.status for result in failed)
    errors, timeouts, invalid = (
        by_status[status] for status in (CaseStatus.ERROR, CaseStatus.TIMEOUT, CaseStatus.INVALID)
    )
    said = [
        ngettext("{count} error", "{count} errors", errors).format(count=errors) if errors else "",
        ngettext("{count} timeout", "{count} timeouts", timeouts).format(count=timeouts) if timeouts else "",
        ngettext("{count} invalid return", "{count} invalid returns", invalid).format(count=invalid) if invalid else "",
    ]
    parts = ", ".join(part for part in said if part)
    return [
        HealthFinding(
            "errors",
            Severity.WARNING,
            _(
                "{failed} of {total} cases ({share}) did not score: {parts}. "
                "Feedback review skips them; open them on the Author page to see the error."
            ).format(failed=len(failed), total=len(pairs), share=_pct(len(failed), len(pairs)), parts=parts),
            tuple(result.id for result in failed),
        )
    ]


def _rounded(score: float) -> float:
    return round(score, 9)


def _saturation(ok: Sequence[Pair]) -> list[HealthFinding]:
    if len(ok) < SATURATION_MIN_CASES:
        return []
    scores = [_score(result) for _case, result in ok]
    value, count = Counter(_rounded(score) for score in scores).most_common(1)[0]
    if count < SATURATION_SHARE * len(ok) - _EPS:
        return []
    low, high = _score_range(scores)
    if value >= high - _EPS:
        why = _("nearly every output looks perfect, so the metric may be too lenient")
    elif value <= low + _EPS:
        why = _("nearly every output gets nothing, so the metric may be too strict")
    else:
        why = _("the engines cannot tell better outputs from worse ones")
    return [
        HealthFinding(
            "saturation",
            Severity.WARNING,
            _(
                "{count} of {total} scored cases ({share}) share the score {score}: {why}. "
                "Give partial credit, or check more than one thing."
            ).format(count=count, total=len(ok), share=_pct(count, len(ok)), score=_fmt(value), why=why),
            tuple(case.id for case, result in ok if _rounded(_score(result)) == value),
        )
    ]


def _few_distinct(ok: Sequence[Pair]) -> list[HealthFinding]:
    if len(ok) < FEW_DISTINCT_MIN_CASES:
        return []
    distinct = sorted({_rounded(_score(result)) for _case, result in ok})
    if len(distinct) >= FEW_DISTINCT_VALUES:
        return []
    return [
        HealthFinding(
            "few_distinct_scores",
            Severity.INFO,
            ngettext(
                "Only {count} distinct score ({values}) over {total} cases: a candidate that fixes some faults "
                "scores like one that fixes none. Partial credit (for example the share of fields right) lets "
                "the engines rank candidates.",
                "Only {count} distinct scores ({values}) over {total} cases: a candidate that fixes some faults "
                "scores like one that fixes none. Partial credit (for example the share of fields right) lets "
                "the engines rank candidates.",
                len(distinct),
            ).format(count=len(distinct), values=", ".join(_fmt(v) for v in distinct), total=len(ok)),
        )
    ]


def _named_together(ok: Sequence[Pair]) -> list[HealthFinding]:
    names = sorted({name for _case, result in ok for name in result.scores})
    findings = []
    for first, second in combinations(names, 2):
        joint = [(r.scores[first], r.scores[second]) for _case, r in ok if first in r.scores and second in r.scores]
        if len(joint) < TOGETHER_MIN_CASES:
            continue
        xs = np.array([x for x, _y in joint], dtype=float)
        ys = np.array([y for _x, y in joint], dtype=float)
        # Constant scores do not move at all; saturation is a different problem.
        if np.ptp(xs) <= _EPS or np.ptp(ys) <= _EPS:
            if np.ptp(xs) <= _EPS and np.ptp(ys) <= _EPS:
                continue
            correlation = 0.0
        else:
            correlation = float(np.corrcoef(xs, ys)[0, 1])
        if np.allclose(xs, ys, rtol=0.0, atol=_EPS):
            how = _(
                "The named scores {first} and {second} were identical on all {count} cases: one of them adds "
                "nothing the engines can use. Drop one, or make them measure different things."
            )
        elif correlation >= TOGETHER_CORRELATION:
            how = _(
                "The named scores {first} and {second} moved together on {count} cases (correlation "
                "{correlation}): one of them adds nothing the engines can use. Drop one, or make them measure "
                "different things."
            )
        else:
            continue
        findings.append(
            HealthFinding(
                "named_scores_together",
                Severity.INFO,
                how.format(first=repr(first), second=repr(second), count=len(joint), correlation=f"{correlation:.2f}"),
            )
        )
    return findings


def _reward_hacks(ok: Sequence[Pair]) -> list[HealthFinding]:
    if not ok:
        return []
    high = _score_range([_score(result) for _case, result in ok])[1]
    suspects: list[str] = []
    # Per expected field: how many top-scored cases miss it, and the first example.
    by_field: dict[str, list[tuple[str, Any, Any]]] = defaultdict(list)
    for case, result in ok:
        if _score(result) < high - _EPS:
            continue
        differences = _differences(case.expected, case.output)
        if differences:
            suspects.append(case.id)
        for key, want, got in differences:
            by_field[key].append((case.id, want, got))
    if not suspects:
        return []
    ranked = sorted(by_field.items(), key=lambda entry: -len(entry[1]))
    parts = []
    for key, misses in ranked:
        case_id, want, got = misses[0]
        parts.append(
            ngettext(
                "{field} differs in {count} case (e.g. {case}: expected {want}, the output has {got})",
                "{field} differs in {count} cases (e.g. {case}: expected {want}, the output has {got})",
                len(misses),
            ).format(field=key, count=len(misses), case=case_id, want=_show(want), got=_show(got))
        )
    fields_named = ", ".join(key for key, _misses in ranked)
    return [
        HealthFinding(
            "reward_hack",
            Severity.WARNING,
            ngettext(
                "{count} case got the top score ({score}) although the output differs from the expected value: "
                "{parts}. The metric may reward wrong outputs; if it is meant to ignore {fields}, this is expected.",
                "{count} cases got the top score ({score}) although the output differs from the expected value: "
                "{parts}. The metric may reward wrong outputs; if it is meant to ignore {fields}, this is expected.",
                len(suspects),
            ).format(count=len(suspects), score=_fmt(high), parts="; ".join(parts), fields=fields_named),
            tuple(suspects),
        )
    ]

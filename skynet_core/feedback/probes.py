"""Trivial-output probes: cases a metric should not reward, and the verdict on their scores."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from skynet_core.cases import Case
from skynet_core.i18n import N_, _, ngettext
from skynet_core.results import CaseResult

from .health import HealthFinding, Severity
from .rules import _score, _score_range
from .text import _EPS, _fmt

PROBE_KINDS: tuple[str, ...] = ("empty", "echo_json", "echo_text", "dont_know")

# What each probe's output is, as the subject of a finding's sentence.
_PROBE_LABELS = {
    "empty": N_("An empty output"),
    "echo_json": N_("The input echoed back as JSON"),
    "echo_text": N_("The input's text echoed back"),
    "dont_know": N_('"I don\'t know"'),
}

PROBE_REWARD_SHARE = 0.5


def _probe_outputs(case: Case) -> list[tuple[str, str]]:
    """The trivial texts for one case: empty, the input as JSON, the input's longest text field, "I don't know"."""
    texts = [("empty", ""), ("echo_json", json.dumps(case.input, ensure_ascii=False, default=str))]
    strings = [value for value in case.input.values() if isinstance(value, str) and value.strip()]
    if strings:
        texts.append(("echo_text", max(strings, key=len)))
    texts.append(("dont_know", "I don't know"))
    return texts


def probe_cases(cases: Sequence[Case], max_cases: int = 20) -> list[Case]:
    """Copies of up to ``max_cases`` dataset cases whose output is replaced by a trivial one.

    The choice is deterministic and independent of the dataset's order: distinct case ids
    ranked by SHA-256, cases with an expected value first (a metric that ignores the
    expected value is what probes catch). Each chosen case gives, in :data:`PROBE_KINDS`
    order, ``probe:empty:<id>``, ``probe:echo_json:<id>``, ``probe:echo_text:<id>`` (only
    when the input has a text field; its longest) and ``probe:dont_know:<id>``. When the
    case's output is a dict, the trivial text fills each of its fields, so a metric that
    reads fields sees the shape it expects. Input, expected, split and observation are kept.
    """
    if max_cases < 0:
        raise ValueError(f"max_cases cannot be negative; {max_cases} was given.")
    unique: dict[str, Case] = {}
    for case in cases:
        unique.setdefault(case.id, case)
    ranked = sorted(
        unique.values(),
        key=lambda case: (case.expected is None, hashlib.sha256(case.id.encode()).hexdigest(), case.id),
    )
    chosen = ranked[:max_cases]
    probes = []
    for case in chosen:
        for kind, text in _probe_outputs(case):
            fill_fields = isinstance(case.output, Mapping) and bool(case.output)
            output: Any = dict.fromkeys(case.output, text) if fill_fields else text
            probes.append(replace(case, id=f"probe:{kind}:{case.id}", output=output))
    return probes


def parse_probe_id(case_id: str) -> tuple[str, str] | None:
    """``(kind, source case id)`` for a probe id such as ``probe:empty:c7``; ``None`` for other ids."""
    parts = case_id.split(":", 2)
    if len(parts) == 3 and parts[0] == "probe" and parts[1] in PROBE_KINDS:
        return parts[1], parts[2]
    return None


def judge_probes(probe_results: Sequence[CaseResult], real_results: Sequence[CaseResult]) -> list[HealthFinding]:
    """Findings on how the metric scored the probes (an empty list: it rewarded none).

    - ``probe_rewarded`` (warning): a kind of trivial output whose mean ``ok`` score is at
      least half the score range (0.5 on a 0-to-1 metric), or at least the mean of the
      real outputs on the same cases (all real cases when none match) while above the
      range's lowest end (two zeros say nothing).
    - ``probe_errors`` (info): the metric failed on some probes of a kind; engines can
      produce such outputs, so it should score them low with feedback instead.

    Results whose id is not a probe id are ignored.
    """
    real = {result.id: _score(result) for result in real_results if result.ok and result.score is not None}
    by_kind: dict[str, list[tuple[str, CaseResult]]] = defaultdict(list)
    for result in probe_results:
        parsed = parse_probe_id(result.id)
        if parsed:
            by_kind[parsed[0]].append((parsed[1], result))
    scored = [_score(r) for group in by_kind.values() for _source, r in group if r.ok and r.score is not None]
    low, high = _score_range([*real.values(), *scored])
    findings = []
    for kind in PROBE_KINDS:
        group = by_kind.get(kind, [])
        ok = [(source, _score(r)) for source, r in group if r.ok and r.score is not None]
        failed = [r for _source, r in group if not (r.ok and r.score is not None)]
        if ok:
            mean = sum(score for _source, score in ok) / len(ok)
            same_cases = [real[source] for source, _score_value in ok if source in real]
            baseline = same_cases or list(real.values())
            real_mean = sum(baseline) / len(baseline) if baseline else None
            high_reward = mean >= low + PROBE_REWARD_SHARE * (high - low) - _EPS
            as_good = real_mean is not None and mean >= real_mean - _EPS and mean > low + _EPS
            if high_reward or as_good:
                label = _(_PROBE_LABELS[kind])
                if real_mean is not None:
                    message = ngettext(
                        "{probe} scored {mean} on average over {count} case, against {real} for the real outputs: "
                        "the metric rewards an output that says nothing. Make it compare the output with the "
                        "expected value.",
                        "{probe} scored {mean} on average over {count} cases, against {real} for the real outputs: "
                        "the metric rewards an output that says nothing. Make it compare the output with the "
                        "expected value.",
                        len(ok),
                    )
                else:
                    message = ngettext(
                        "{probe} scored {mean} on average over {count} case: the metric rewards an output that "
                        "says nothing. Make it compare the output with the expected value.",
                        "{probe} scored {mean} on average over {count} cases: the metric rewards an output that "
                        "says nothing. Make it compare the output with the expected value.",
                        len(ok),
                    )
                findings.append(
                    HealthFinding(
                        "probe_rewarded",
                        Severity.WARNING,
                        message.format(probe=label, mean=_fmt(mean), count=len(ok), real=_fmt(real_mean)),
                        tuple(r.id for _source, r in group if r.ok),
                    )
                )
        if failed:
            findings.append(
                HealthFinding(
                    "probe_errors",
                    Severity.INFO,
                    _(
                        "The metric failed on {failed} of {total} probes of this kind: {probe}. Engines can "
                        "produce such outputs, so score them low with feedback instead of failing."
                    ).format(failed=len(failed), total=len(group), probe=_(_PROBE_LABELS[kind])),
                    tuple(r.id for r in failed),
                )
            )
    return findings

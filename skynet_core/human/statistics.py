"""Agreement statistics: scipy's figures on the labelled cases, and their bootstrap intervals.

Point values come from scipy: ``spearmanr`` (ρ), ``kendalltau`` (τ-b) and ``pearsonr`` (r); the
mean absolute gap; Cohen's κ from the confusion counts at the threshold. Each figure is checked
first for what makes it undefined (fewer than two cases, constant scores, one class), and is then
an :class:`~.estimate.Estimate` with that reason instead of a NaN.

Scores near the float's limit (±1e308) overflow a sum of squares: r is scale-free, so it is computed on each
side divided by its largest magnitude, and the mean gap on both divided by one scale (then multiplied back);
a figure that still overflows is undefined "too large", never 0 or "too few".

The 1,000 resamples of the intervals are computed a block at a time, every resample at once
(1,000 labelled cases take a few tenths of a second, see the README):

- Pearson r: the centred sums of each row of the resampled scores (``scipy.stats.pearsonr`` along the
  rows gives the same, with a p-value per row that would triple the time);
- Spearman ρ: the same on ``scipy.stats.rankdata`` of each row (average ranks for ties), which is
  Spearman's definition and scipy's ``spearmanr``;
- Kendall τ-b: ``kendalltau`` has no batch axis (a loop of 1,000 calls takes over a second), so
  a resample is taken as counts ``w`` over the cases: its concordant minus discordant pairs are
  ``wᵀSw / 2``, with ``S`` the cases' pairwise ``sign(Δscore)·sign(Δhuman)``, and the pairs tied
  on a side are ``Σ c(c-1)/2`` over the resample's counts ``c`` of each distinct value. The tests
  check every resample's ρ and τ-b against scipy's functions.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from .bootstrap import RESAMPLES, SEED, Statistics, bootstrap, estimate
from .estimate import Estimate, Undefined
from .pairing import Pairing
from .report import DEFAULT_THRESHOLD, Agreement, Confusion, Disagreement

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.intp]
Codes = npt.NDArray[np.signedinteger[Any]]
_S_CELLS = 4_000_000  # cases x cases entries of the sign matrix built at once (Kendall's resamples)
_LARGE = 1e150  # a magnitude whose square overflows a float's range: such values are rescaled first


def rescaled(values: Floats, scale: float | None = None) -> tuple[Floats, float]:
    """``values`` divided by ``scale`` (by default their largest magnitude) when that is so large that sums of
    squares would overflow, and the scale used (1 when none was needed)."""
    largest = scale if scale is not None else (float(np.max(np.abs(values))) if values.size else 0.0)
    if largest > _LARGE and math.isfinite(largest):
        return values / largest, largest
    return values, 1.0


def measure_agreement(
    pairing: Pairing, *, threshold: float = DEFAULT_THRESHOLD, resamples: int = RESAMPLES, seed: int = SEED
) -> Agreement:
    """The agreement report of a :class:`Pairing` at a pass ``threshold`` (positive = at or above it)."""
    if not math.isfinite(threshold):
        raise ValueError(f"the threshold must be a finite number, not {threshold!r}")
    cases = pairing.cases
    score = np.array([case.score for case in cases], dtype=float)
    human = np.array([case.human for case in cases], dtype=float)
    n = len(cases)
    names = list(dict.fromkeys(name for case in cases for name in case.scores))
    # Named scores every labelled case has share the report's resamples (and the human scores' ranks).
    shared = [name for name in names if all(name in case.scores for case in cases)]
    named_scores = [np.array([case.scores[name] for case in cases], dtype=float) for name in shared]
    with np.errstate(over="ignore", invalid="ignore"):  # overflows are found and said (see the docstring)
        points = [*_point_values(score, human, threshold), *(_spearman_value(x, human) for x in named_scores)]
        resampled = bootstrap(
            n, _resample_figures(score, human, threshold, named_scores), len(points), resamples=resamples, seed=seed
        )
    found = [estimate(value, why, values) for (value, why), values in zip(points, resampled, strict=True)]
    spearman, kendall, pearson, mae, kappa, true_pass, true_fail = found[:7]
    by_name = dict(zip(shared, found[7:], strict=True))
    for name in names:
        if name not in by_name:
            having = [case for case in cases if name in case.scores]
            x = np.array([case.scores[name] for case in having], dtype=float)
            y = np.array([case.human for case in having], dtype=float)
            by_name[name] = spearman_estimate(x, y, resamples=resamples, seed=seed)
    return Agreement(
        n=n,
        unlabelled=pairing.unlabelled,
        unknown=pairing.unknown,
        unknown_count=pairing.unknown_count,
        threshold=float(threshold),
        spearman=spearman,
        kendall=kendall,
        pearson=pearson,
        mae=mae,
        kappa=kappa,
        true_pass_rate=true_pass,
        true_fail_rate=true_fail,
        confusion=confusion_at(score, human, threshold),
        disagreements=disagreements(pairing, threshold),
        named=tuple((name, by_name[name]) for name in names),
        unscored=pairing.unscored,
        resamples=resamples,
        seed=seed,
    )


def correlation_reason(x: Floats, y: Floats) -> Undefined | None:
    """Why a correlation of ``x`` (the metric's scores) with ``y`` (the human scores) is undefined, or ``None``."""
    if len(x) < 2:
        return Undefined.TOO_FEW
    if np.ptp(rescaled(x)[0]) == 0:
        return Undefined.CONSTANT_SCORES
    if np.ptp(rescaled(y)[0]) == 0:
        return Undefined.CONSTANT_HUMAN
    return None


def spearman_estimate(x: Floats, y: Floats, *, resamples: int = RESAMPLES, seed: int = SEED) -> Estimate:
    """Spearman's ρ of ``x`` with ``y`` (scipy), with its bootstrap interval."""
    codes_x, codes_y = _codes(x), _codes(y)

    def figures(draws: Ints) -> Floats:
        cy = codes_y[draws]
        return _spearman_rows(codes_x[draws], _constant_rows(cy), _ranks(cy))[np.newaxis]

    value, reason = _spearman_value(x, y)
    return estimate(value, reason, bootstrap(len(x), figures, 1, resamples=resamples, seed=seed)[0])


def _spearman_value(x: Floats, y: Floats) -> tuple[float | None, Undefined | None]:
    from scipy import stats

    reason = correlation_reason(x, y)
    return (None, reason) if reason else (float(stats.spearmanr(x, y).statistic), None)


def confusion_at(score: Floats, human: Floats, threshold: float) -> Confusion:
    """The confusion counts at ``threshold``: positive = at or above it; ``fp``: the metric passes, the person fails."""
    metric_pass, human_pass = score >= threshold, human >= threshold
    return Confusion(
        tp=int(np.sum(metric_pass & human_pass)),
        fp=int(np.sum(metric_pass & ~human_pass)),
        fn=int(np.sum(~metric_pass & human_pass)),
        tn=int(np.sum(~metric_pass & ~human_pass)),
    )


def kappa_of(tp: Floats, fp: Floats, fn: Floats, tn: Floats) -> Floats:
    """Cohen's κ from confusion counts (arrays, one per resample): NaN where chance agreement is 1."""
    total = tp + fp + fn + tn
    chance = (tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)  # expected agreement, times total²
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = (total * (tp + tn) - chance) / (total * total - chance)
    return np.where(total * total - chance == 0, np.nan, kappa)


def _ratio(part: Floats, whole: Floats) -> Floats:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(whole == 0, np.nan, part / np.where(whole == 0, 1, whole))


def _point_values(score: Floats, human: Floats, threshold: float) -> list[tuple[float | None, Undefined | None]]:
    """Each figure's value on all the labelled cases (or the reason it has none), in :data:`.report.FIGURES` order."""
    from scipy import stats

    n = len(score)
    reason = correlation_reason(score, human)
    if reason is None:
        correlations: list[tuple[float | None, Undefined | None]] = [
            (float(stats.spearmanr(score, human).statistic), None),
            (float(stats.kendalltau(score, human, variant="b").statistic), None),
            (float(stats.pearsonr(rescaled(score)[0], rescaled(human)[0]).statistic), None),
        ]
    else:
        correlations = [(None, reason)] * 3
    if not n:
        return [*correlations, *[(None, Undefined.TOO_FEW)] * 4]
    counts = confusion_at(score, human, threshold)
    tp, fp, fn, tn = (np.array([float(value)]) for value in (counts.tp, counts.fp, counts.fn, counts.tn))
    kappa = float(kappa_of(tp, fp, fn, tn)[0])
    true_pass = float(_ratio(tp, tp + fn)[0])
    true_fail = float(_ratio(tn, tn + fp)[0])
    return [
        *correlations,
        (mean_gap(score, human), None),
        (None, Undefined.ONE_CLASS) if math.isnan(kappa) else (kappa, None),
        (None, Undefined.NO_HUMAN_PASSES) if math.isnan(true_pass) else (true_pass, None),
        (None, Undefined.NO_HUMAN_FAILS) if math.isnan(true_fail) else (true_fail, None),
    ]


def mean_gap(score: Floats, human: Floats) -> float:
    """The mean of ``|score - human|``, computed on rescaled values when the values are huge (``inf`` when even
    the mean is beyond a float's range)."""
    scale = max(float(np.max(np.abs(score))), float(np.max(np.abs(human))))
    x, factor = rescaled(score, scale)
    y, _factor = rescaled(human, scale)
    return float(np.mean(np.abs(x - y)) * factor)


def _codes(values: Floats) -> Codes:
    """Each value's position among the distinct values (ties share one): the ranks of any resample are those of
    its codes, and small integers rank faster than floats (16 bits when they fit)."""
    inverse = np.asarray(np.unique(values, return_inverse=True)[1]).reshape(-1)
    return inverse.astype(np.int16 if len(values) < 2**15 else np.int32)


def _constant_rows(codes: Codes) -> npt.NDArray[np.bool_]:
    result: npt.NDArray[np.bool_] = codes.min(axis=1) == codes.max(axis=1)
    return result


def _pearson_rows(x: Floats, y: Floats) -> Floats:
    """Pearson's r of each row of ``x`` with the same row of ``y`` (centred sums; the caller marks constant rows).

    scipy's ``pearsonr(x, y, axis=1)`` gives the same values (the tests check it) but also computes a p-value
    for each row, which took three quarters of this figure's time.
    """
    dx = x - x.mean(axis=1, keepdims=True)
    dy = y - y.mean(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        result: Floats = np.einsum("ij,ij->i", dx, dy) / np.sqrt(
            np.einsum("ij,ij->i", dx, dx) * np.einsum("ij,ij->i", dy, dy)
        )
    return np.clip(result, -1.0, 1.0)


def _ranks(codes: Codes) -> Floats:
    """scipy's average ranks within each row (ties share the mean of their ranks)."""
    from scipy import stats

    result: Floats = stats.rankdata(codes, axis=1)
    return result


def _spearman_rows(codes_x: Codes, constant_y: npt.NDArray[np.bool_], ranks_y: Floats) -> Floats:
    """Spearman's ρ of each row: Pearson's r of the average ranks; NaN for a row constant on either side."""
    rho = _pearson_rows(_ranks(codes_x), ranks_y)
    return np.where(_constant_rows(codes_x) | constant_y, np.nan, rho)


def _kendall_rows(draws: Ints, x: Floats, y: Floats, codes_x: Codes, codes_y: Codes) -> Floats:
    """Kendall's τ-b of each resample (see the module's docstring for the matrix form)."""
    rows, n = draws.shape
    offsets = np.arange(rows)[:, np.newaxis]
    weights = np.bincount((offsets * n + draws).ravel(), minlength=rows * n).reshape(rows, n).astype(np.float32)
    signed = np.zeros(rows)
    width = max(1, _S_CELLS // n)
    for start in range(0, n, width):
        part = slice(start, min(n, start + width))
        signs = np.sign(x[:, np.newaxis] - x[np.newaxis, part]) * np.sign(y[:, np.newaxis] - y[np.newaxis, part])
        signed += np.einsum("ij,ij->i", weights @ signs.astype(np.float32), weights[:, part], dtype=np.float64)
    signed /= 2
    pairs = n * (n - 1) / 2
    ties_x, ties_y = _tied_pairs(codes_x[draws]), _tied_pairs(codes_y[draws])
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = signed / np.sqrt((pairs - ties_x) * (pairs - ties_y))
    return np.where((ties_x == pairs) | (ties_y == pairs), np.nan, tau)


def _tied_pairs(codes: Codes) -> Floats:
    """Per row, the pairs of positions holding the same value: Σ c(c-1)/2 over the counts c of each value."""
    rows = codes.shape[0]
    width = int(codes.max()) + 1
    offsets = np.arange(rows)[:, np.newaxis] * width
    counts = np.bincount((offsets + codes).ravel(), minlength=rows * width).reshape(rows, width).astype(float)
    result: Floats = (counts * (counts - 1) / 2).sum(axis=1)
    return result


def _resample_figures(score: Floats, human: Floats, threshold: float, named: list[Floats]) -> Statistics:
    codes_x, codes_y = _codes(score), _codes(human)
    named_codes = [_codes(values) for values in named]
    metric_pass, human_pass = score >= threshold, human >= threshold
    pearson_x, pearson_y = rescaled(score)[0], rescaled(human)[0]
    scale = max(float(np.max(np.abs(score), initial=0.0)), float(np.max(np.abs(human), initial=0.0)))
    (gap_x, factor), (gap_y, _factor) = rescaled(score, scale), rescaled(human, scale)

    def figures(draws: Ints) -> Floats:
        cx, cy = codes_x[draws], codes_y[draws]
        constant_y, ranks_y = _constant_rows(cy), _ranks(cy)
        pearson = np.where(_constant_rows(cx) | constant_y, np.nan, _pearson_rows(pearson_x[draws], pearson_y[draws]))
        mae = np.abs(gap_x[draws] - gap_y[draws]).mean(axis=1) * factor
        m, h = metric_pass[draws], human_pass[draws]
        tp, fp = (m & h).sum(axis=1).astype(float), (m & ~h).sum(axis=1).astype(float)
        fn, tn = (~m & h).sum(axis=1).astype(float), (~m & ~h).sum(axis=1).astype(float)
        return np.vstack(
            [
                _spearman_rows(cx, constant_y, ranks_y),
                _kendall_rows(draws, score, human, codes_x, codes_y),
                pearson,
                mae,
                kappa_of(tp, fp, fn, tn),
                _ratio(tp, tp + fn),
                _ratio(tn, tn + fp),
                *(_spearman_rows(codes[draws], constant_y, ranks_y) for codes in named_codes),
            ]
        )

    return figures


def disagreements(pairing: Pairing, threshold: float) -> tuple[Disagreement, ...]:
    """The labelled cases whose score differs from the human score: false passes first, then the largest gap."""
    found = [
        Disagreement(
            id=case.id,
            score=case.score,
            human=case.human,
            gap=abs(case.score - case.human),
            false_pass=case.score >= threshold > case.human,
            false_fail=case.human >= threshold > case.score,
        )
        for case in pairing.cases
        if case.score != case.human
    ]
    found.sort(key=lambda item: (not item.false_pass, -item.gap, item.id))
    return tuple(found)

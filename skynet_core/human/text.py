"""The agreement report in words: each figure's name and meaning, and the report as text lines."""

from __future__ import annotations

from skynet_core.i18n import N_, _, format_number, ngettext

from .estimate import Estimate
from .report import FEW_CASES, FIGURES, MIN_LABELLED, Agreement, by_gap

FIGURE_LABELS = {
    "spearman": N_("Spearman ρ"),
    "kendall": N_("Kendall τ-b"),
    "pearson": N_("Pearson r"),
    "mae": N_("mean gap"),
    "kappa": N_("Cohen's κ"),
    "true_pass_rate": N_("true-pass rate"),
    "true_fail_rate": N_("true-fail rate"),
}
FIGURE_MEANINGS = {
    "spearman": N_("Do the metric and the person rank the cases in the same order? 1: the same order, 0: unrelated."),
    "kendall": N_(
        "The same question asked of every pair of cases: the share of pairs ordered alike minus those ordered "
        "oppositely, ties allowed for."
    ),
    "pearson": N_("Do the scores rise together in a straight line? Sensitive to the scale, not only the order."),
    "mae": N_("The mean of |score - human score|: how far apart the numbers are, on the metric's scale."),
    "kappa": N_(
        "Pass/fail agreement at the threshold beyond what chance would give: 1 perfect, 0 chance, below 0 worse."
    ),
    "true_pass_rate": N_("Of the cases the person passes, the share the metric passes too."),
    "true_fail_rate": N_("Of the cases the person fails, the share the metric fails too."),
}


def figure_label(name: str) -> str:
    """A figure's name for people (``kappa`` → "Cohen's κ")."""
    return _(FIGURE_LABELS[name])


def figure_meaning(name: str) -> str:
    return _(FIGURE_MEANINGS[name])


def estimate_text(estimate: Estimate, digits: int = 3) -> str:
    """ "0.812 [0.741, 0.868]", "0.812 (no interval)" or "undefined: the person passed no case"."""
    if estimate.value is None:
        reason = estimate.reason.message if estimate.reason is not None else ""
        return _("undefined: {reason}").format(reason=reason)
    value = f"{estimate.value:.{digits}f}"
    if estimate.low is None or estimate.high is None:
        return _("{value} (no interval)").format(value=value)
    return f"{value} [{estimate.low:.{digits}f}, {estimate.high:.{digits}f}]"


def counts_text(agreement: Agreement) -> str:
    """ "48 labelled and scored, 24 unlabelled, 2 labels not in the data"."""
    parts = [
        ngettext("{n} labelled and scored", "{n} labelled and scored", agreement.n).format(n=agreement.n),
        ngettext("{count} unlabelled", "{count} unlabelled", agreement.unlabelled).format(count=agreement.unlabelled),
    ]
    if agreement.unknown_total:
        parts.append(
            ngettext("{count} label not in the data", "{count} labels not in the data", agreement.unknown_total).format(
                count=format_number(agreement.unknown_total)
            )
        )
    if agreement.unscored:
        parts.append(
            ngettext(
                "{count} labelled case the metric did not score",
                "{count} labelled cases the metric did not score",
                len(agreement.unscored),
            ).format(count=len(agreement.unscored))
        )
    return _(", ").join(parts)


def few_cases_warning(agreement: Agreement) -> str | None:
    """The warning shown below :data:`.report.FEW_CASES` labelled cases, or ``None``."""
    if not agreement.few:
        return None
    if agreement.n < MIN_LABELLED:
        return _(
            "Only {n} labelled cases: below {minimum} the figures have no interval and no agreement gate passes. "
            "Label more cases."
        ).format(n=agreement.n, minimum=MIN_LABELLED)
    return _(
        "Only {n} labelled cases: below {few}, the intervals are wide and the figures can change a lot with "
        "a few more labels."
    ).format(n=agreement.n, few=FEW_CASES)


def agreement_summary(agreement: Agreement) -> str:
    """One line for beside a run's mean score: "Agreement with 48 human scores: Spearman ρ 0.81 [0.74, 0.87],
    Cohen's κ 0.61 [0.42, 0.77], 3 false passes"."""
    return ngettext(
        "Agreement with {n} human score: {spearman} {rho}, {kappa} {kappa_value}, {false_passes} false passes",
        "Agreement with {n} human scores: {spearman} {rho}, {kappa} {kappa_value}, {false_passes} false passes",
        agreement.n,
    ).format(
        n=agreement.n,
        spearman=figure_label("spearman"),
        rho=estimate_text(agreement.spearman, 2),
        kappa=figure_label("kappa"),
        kappa_value=estimate_text(agreement.kappa, 2),
        false_passes=agreement.confusion.fp,
    )


def agreement_lines(agreement: Agreement, shown: int = 10) -> list[str]:
    """The report as text lines (the command line prints them after the cases)."""
    confusion = agreement.confusion
    lines = [
        _("Agreement with human scores ({counts})").format(counts=counts_text(agreement)),
    ]
    for name in FIGURES:
        lines.append(f"  {figure_label(name)}: {estimate_text(agreement.figure(name))}")
    lines.append(
        "  "
        + _(
            "at threshold {threshold:g}: both pass {tp}, false passes {fp} (the metric passes, the person fails), "
            "false fails {fn}, both fail {tn}"
        ).format(threshold=agreement.threshold, tp=confusion.tp, fp=confusion.fp, fn=confusion.fn, tn=confusion.tn)
    )
    for name, value in agreement.named:
        lines.append("  " + _("named score {name}: Spearman ρ {value}").format(name=name, value=estimate_text(value)))
    if agreement.unknown:
        listed = ", ".join(agreement.unknown[:5]) + (", …" if agreement.unknown_total > 5 else "")
        lines.append("  " + _("labels not in the data: {ids}").format(ids=listed))
    warning = few_cases_warning(agreement)
    if warning:
        lines.append("  " + _("warning: {text}").format(text=warning))
    largest = by_gap(agreement.disagreements)[:shown]
    if largest:
        lines.append("  " + _("largest disagreements (case, score, human score, gap):"))
        for item in largest:
            mark = "  " + _("false pass") if item.false_pass else "  " + _("false fail") if item.false_fail else ""
            lines.append(f"    {item.id[:24]:<24} {item.score:>7.3f} {item.human:>7.3f} {item.gap:>7.3f}{mark}")
    return lines

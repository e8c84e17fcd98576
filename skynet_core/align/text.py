"""An alignment in words, for the command line and the page: the figures' names, the verdict, the rounds.

The verdict never claims more than the test cases show: a gain is "better" only when the interval of the paired
gain lies above zero; otherwise it says the gain is uncertain, or absent.
"""

from __future__ import annotations

from ..human.estimate import Estimate
from ..human.text import estimate_text
from ..i18n import N_, _, format_cost, format_number, ngettext
from .labelled import RaterPair
from .measures import Figures
from .result import AlignResult, Outcome, RoundRecord

FIGURES = (
    ("kappa", N_("Cohen's κ at {threshold}")),
    ("spearman", N_("Spearman's ρ")),
    ("accuracy", N_("accuracy at {threshold}")),
    ("bias", N_("mean signed bias (+: the judge is more lenient)")),
)
SHOWN_IDS = 8


def no_notes_hint() -> str:
    return _(
        "None of the labels has a note: the reflection model sees that people disagreed with the judge, not why, and "
        "cannot learn a policy nobody wrote down. Write in each failing label's note why it fails, then align again."
    )


def figure_label(name: str, threshold: float) -> str:
    return _(dict(FIGURES)[name]).format(threshold=f"{threshold:g}")


def figure_of(found: Figures, name: str) -> Estimate:
    estimate: Estimate = getattr(found, name)
    return estimate


def verdict(result: AlignResult) -> str:
    """What the run shows, in one or two sentences (see the module's docstring)."""
    if result.outcome is not Outcome.COMPLETE or result.after is None or result.before is None:
        return result.message()
    gain, n = result.gain, result.after.test.n
    before, after = result.before.test.kappa, result.after.test.kappa
    values = {
        "n": n,
        "before": estimate_text(before, 2).split(" [")[0],
        "after": estimate_text(after, 2).split(" [")[0],
        "gain": estimate_text(gain, 2) if gain is not None else "–",
    }
    if not result.changed:
        text = _(
            "No proposal did better than the starting prompts (on its minibatch, then on the dev cases): the judge is "
            "unchanged, and no gain is claimed."
        )
    elif gain is None or gain.value is None:
        text = _("The gain on the test cases cannot be measured (κ {before} → {after}).").format(**values)
    elif gain.low is not None and gain.low > 0:
        text = ngettext(
            "The aligned judge agrees better with people on the {n} test case it never saw: κ {before} → {after}, a "
            "gain of {gain}.",
            "The aligned judge agrees better with people on the {n} test cases it never saw: κ {before} → {after}, "
            "a gain of {gain}.",
            n,
        ).format(**values)
    elif gain.value > 0:
        text = _(
            "κ rose on the test cases ({before} → {after}), but the interval of the gain ({gain}) includes no gain: "
            "label more cases before trusting it."
        ).format(**values)
    else:
        text = _("No gain on the test cases (κ {before} → {after}, gain {gain}): keep the original judge.").format(
            **values
        )
    if not result.notes:
        text += " " + no_notes_hint()
    return text


def ceiling_line(pair: RaterPair, found: Figures) -> str:
    """Two raters' agreement with each other, the ceiling a judge can reach."""
    return ngettext(
        "Raters {first} and {second} agree with each other on {n} case: κ {kappa}, the ceiling a judge can reach.",
        "Raters {first} and {second} agree with each other on {n} cases: κ {kappa}, the ceiling a judge can reach.",
        found.n,
    ).format(first=pair.first, second=pair.second, n=found.n, kappa=estimate_text(found.kappa, 2))


def round_line(record: RoundRecord) -> str:
    if record.accepted:
        return _("Round {round}: kept a proposal (dev objective {dev}, κ {kappa}).").format(
            round=record.round,
            dev=format_number(record.dev or 0.0, 2),
            kappa=format_number(record.dev_kappa, 2) if record.dev_kappa is not None else "–",
        )
    return _("Round {round}: {note}").format(round=record.round, note=record.note)


def ids_text(ids: tuple[str, ...]) -> str:
    shown = ", ".join(ids[:SHOWN_IDS])
    return shown + (", …" if len(ids) > SHOWN_IDS else "")


def spent_text(result: AlignResult) -> str:
    cost = format_cost(result.cost_usd) if result.cost_usd is not None else _("not known (a model has no price)")
    return _("Calls that reached a model: {judge} judge, {reflection} reflection; cost {cost}.").format(
        judge=format_number(result.calls.judge), reflection=format_number(result.calls.reflection), cost=cost
    )


def result_lines(result: AlignResult) -> list[str]:
    """The whole result for a terminal, a line each (the diff's lines included)."""
    lines: list[str] = []
    if result.before is not None and result.after is not None:
        n = result.after.test.n
        lines.append(
            ngettext(
                "On the {n} test case the optimizer never saw, before → after:",
                "On the {n} test cases the optimizer never saw, before → after:",
                n,
            ).format(n=n)
        )
        for name, _label in FIGURES:
            before, after = figure_of(result.before.test, name), figure_of(result.after.test, name)
            lines.append(
                f"  {figure_label(name, result.threshold)}: {estimate_text(before, 3)} → {estimate_text(after, 3)}"
            )
        if result.gain is not None:
            lines.append(_("Gain in κ (paired): {gain}").format(gain=estimate_text(result.gain, 3)))
        lines.append(
            _("Disagreements fixed: {fixed} ({fixed_ids}); made: {broken} ({broken_ids}).").format(
                fixed=len(result.fixed),
                fixed_ids=ids_text(result.fixed) or "–",
                broken=len(result.broken),
                broken_ids=ids_text(result.broken) or "–",
            )
        )
    elif result.before is not None:
        lines.append(
            _("Before, on the {n} test cases: κ {kappa}.").format(
                n=result.before.test.n, kappa=estimate_text(result.before.test.kappa, 3)
            )
        )
    if verdict(result):
        lines.append(verdict(result))
    if result.stress is not None:
        lines.extend(result.stress.lines())
    lines.extend(round_line(record) for record in result.rounds)
    if result.changed:
        lines.append(_("The prompts, before and after:"))
        lines.extend("    " + line for line in result.diff().splitlines())
    lines.append(spent_text(result))
    return lines

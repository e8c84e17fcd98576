"""Reward trade-offs: what the weights and references of REWARD_SPEC do, and which candidate wins where.

Every candidate's cases are scored once with metric.py, in the background; the accuracy each case
passed to ``reward`` is kept with its observation. Every control change then recomputes the
rewards from those values (``skynet_core.reward`` and ``skynet_core.tradeoffs``) without running
metric.py again. The controls change metric.py only through "Write to metric.py".
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pandas as pd
import streamlit as st

import studio
from skynet_core.charts import (
    candidates_figure,
    curve_figure,
    stacked_reward_figure,
    ternary_winner_figure,
    weights_figure,
)
from skynet_core.datasets import Dataset
from skynet_core.metric_source import MetricSource
from skynet_core.reward import (
    PARTS,
    MetricSourceError,
    NormalizedSpec,
    RewardSpecError,
    replace_reward_spec,
    reward_parts,
    validate_reward_spec,
)
from skynet_core.scored_candidates import (
    ScoredCandidates,
    candidate_cases,
    collect,
    display_name,
    from_saved_runs,
    metric_key,
    scored_accuracy_ref,
)
from skynet_core.tradeoffs import CandidateSummary, nearest_change, rank_stability, summarize, winner_map

studio.ensure_router()

POLL_S = 0.2
GRID_STEP = 0.02
PERTURBATIONS = 200
SPREAD = 0.10
EXAMPLE_TITLE = "Accuracy, speed and cost"
ONLY_CANDIDATE = "(the only candidate)"
KEPT_RUNS = 4

WEIGHT_KEYS = {part: f"tradeoffs.weight.{part}" for part in PARTS}
REF_KEYS = {part: f"tradeoffs.reference.{part}" for part in PARTS}

S = st.session_state
slot = studio.job_slot("tradeoffs")


def example_spec() -> dict[str, Any]:
    spec = studio.reward_spec_in(studio.example_source(EXAMPLE_TITLE)).spec
    assert spec is not None, "the bundled reward example must define a literal REWARD_SPEC"
    return spec


def dataset_key(data: Dataset, split: str | None) -> tuple[str, str, int, str | None]:
    return data.source, data.name, len(data.cases), split


def start_scoring(source: str, data: Dataset, split: str | None) -> None:
    cases = candidate_cases(data, split)
    S["tradeoffs.job"] = {
        "cases": cases,
        "candidates": list(data.candidates),
        "dataset": dataset_key(data, split),
        "source": source,
    }
    metric = MetricSource.of(source)
    studio.workspace().score(
        slot,
        metric,
        cases,
        studio.run_options(),
        kind="trade-offs",
        label="tradeoffs",
        watcher=studio.watcher(),
        provenance=studio.provenance(metric),
    )


def take_finished_job() -> str | None:
    """Store the finished scoring job's candidates (once); return why it gave none, if so."""
    job = slot.job
    if job is None or job.running or S.get("tradeoffs.collected") == job.id:
        return S.get("tradeoffs.job_problem")
    S["tradeoffs.collected"] = job.id
    S["tradeoffs.job_problem"] = None
    meta = S["tradeoffs.job"]
    if job.cancelled:
        S["tradeoffs.job_problem"] = "Scoring was cancelled; press Score candidates to run it again."
    elif job.error or job.result is None:
        S["tradeoffs.job_problem"] = (
            f"Scoring could not run: {studio.md(job.error or '')}. Try again; if it repeats, restart the app."
        )
    elif not job.result.cases and job.result.first_failure is not None:
        failure = job.result.first_failure
        where = f" ({studio.md(failure.file)} line {failure.line})" if failure.line else ""
        S["tradeoffs.job_problem"] = (
            f"No case was scored: metric.py fails at {studio.md(failure.label)}{where}: "
            f"{studio.md((failure.message.splitlines() or [''])[0])} Fix it on the Author page."
        )
    else:
        source, (_, _, _, split) = meta["source"], meta["dataset"]
        for name in meta["candidates"]:
            # Kept like a "Score all cases" run of each candidate: a reload finds them, and so does Feedback review.
            made_by = dataclasses.replace(job.provenance, candidate=name, split=split)
            studio.workspace().keep_run(
                MetricSource.of(source), [result for result in job.result.cases if result.candidate == name], made_by
            )
        metric = metric_key(source)
        remember(
            (metric, meta["dataset"]),
            collect(job.result.cases, meta["cases"], meta["candidates"], scored_accuracy_ref(source), metric),
        )
    return S["tradeoffs.job_problem"]


def remember(key: tuple, scored: ScoredCandidates) -> None:
    runs = S.setdefault("tradeoffs.runs", {})
    runs.pop(key, None)
    runs[key] = scored
    for stale in list(runs)[:-KEPT_RUNS]:
        del runs[stale]


def saved_scores(data: Dataset, split: str | None, metric: str) -> ScoredCandidates | None:
    """Every candidate's newest saved run, when each was scored by this metric.py (REWARD_SPEC aside) on ``split``."""
    return from_saved_runs(
        [studio.run_store().latest(data.source, name) for name in data.candidates], data, split, metric
    )


def scored_for(data: Dataset, split: str | None, metric: str) -> ScoredCandidates | None:
    """The scores of this metric.py on this dataset (from this session or the run store), else the latest
    of this session on this dataset (from an earlier text of metric.py)."""
    dataset = dataset_key(data, split)
    runs: dict = S.get("tradeoffs.runs", {})
    if (metric, dataset) in runs:
        return runs[(metric, dataset)]
    looked: set = S.setdefault("tradeoffs.store_looked", set())
    if (metric, dataset) not in looked:
        looked.add((metric, dataset))
        saved = saved_scores(data, split, metric)
        if saved is not None:
            remember((metric, dataset), saved)
            return saved
    earlier = [run for (_, on), run in runs.items() if on == dataset]
    return earlier[-1] if earlier else None


def seed_controls(spec: dict[str, Any]) -> None:
    """Set the controls to ``spec``'s values (before they are drawn in this run)."""
    defaults = validate_reward_spec(example_spec())
    for part in PARTS:
        S[WEIGHT_KEYS[part]] = float(spec["weights"][part])
    norm = validate_reward_spec(spec)
    for part in ("speed", "cost"):
        S[REF_KEYS[part]] = float(norm.reference(part) or defaults.reference(part))
    S[REF_KEYS["accuracy"]] = norm.accuracy_ref
    S["tradeoffs.seeded_from"] = copy.deepcopy(spec)


def controls_spec(base: dict[str, Any]) -> dict[str, Any]:
    """``base`` with the controls' weights and references; every other key of it is kept."""
    spec = copy.deepcopy(base)
    spec["weights"] = {part: S[WEIGHT_KEYS[part]] for part in PARTS}
    for part in ("speed", "cost"):
        section = spec.get(part)
        spec[part] = {**(section if isinstance(section, dict) else {}), "reference": S[REF_KEYS[part]]}
    accuracy = spec.get("accuracy")
    section = dict(accuracy) if isinstance(accuracy, dict) else {}
    section.pop("reference", None)
    if S[REF_KEYS["accuracy"]] is not None:
        section["reference"] = S[REF_KEYS["accuracy"]]
    if section or "accuracy" in base:
        spec["accuracy"] = section
    return spec


def write_spec(base: dict[str, Any]) -> None:
    """Rewrite metric.py's REWARD_SPEC with the controls' values as they are when the button is pressed."""
    source = studio.metric_source()
    try:
        new = replace_reward_spec(source, controls_spec(base))
    except (MetricSourceError, RewardSpecError) as exc:
        where = f" (metric.py line {exc.line})" if getattr(exc, "line", None) else ""
        S["tradeoffs.write_result"] = ("error", f"REWARD_SPEC was not written{where}: {exc}")
        return
    version = studio.replace_metric_source(new, "Reward trade-offs wrote REWARD_SPEC")
    kept = f" The previous text was kept as version “{version.name}”." if version else ""
    S["tradeoffs.write_result"] = ("ok", f"Wrote REWARD_SPEC to metric.py; nothing else in it changed.{kept}")


def start_from_example() -> None:
    S["tradeoffs.start_from_example"] = True


def spec_section(in_source: studio.RewardSpecInSource) -> dict[str, Any] | None:
    """The spec the controls start from: metric.py's, or the example's when the person asked for it."""
    if in_source.spec is not None:
        S["tradeoffs.start_from_example"] = False
        return in_source.spec
    if S.get("tradeoffs.start_from_example"):
        st.info(
            f"{in_source.problem} The controls start from the example spec; "
            "Write to metric.py puts them into metric.py.",
            icon=":material/info:",
        )
        return example_spec()
    st.warning(
        f"{in_source.problem} This page explores the weights and references of a REWARD_SPEC "
        "(see the contract's “Accuracy, speed and cost”).",
        icon=":material/warning:",
    )
    st.button(
        "Start from the example spec",
        on_click=start_from_example,
        icon=":material/start:",
        key="tradeoffs.use_example",
        help="Weights 0.7 / 0.2 / 0.1, speed reference 2000 ms, cost reference $0.01. "
        "metric.py changes only when you press Write to metric.py.",
    )
    return None


def draw_controls(base: dict[str, Any], source_spec: dict[str, Any] | None) -> NormalizedSpec | None:
    """The weights and references, the normalised weights, and the Write button; the spec they make, if valid."""
    with st.container(border=True):
        left, right = st.columns([3, 2], gap="medium")
        with left:
            st.markdown("**Weights** · any numbers of 0 or more; the reward scales them to sum to 1")
            for column, part in zip(st.columns(3), PARTS, strict=True):
                column.number_input(
                    f"{part.capitalize()} weight",
                    min_value=0.0,
                    step=0.05,
                    format="%g",
                    key=WEIGHT_KEYS[part],
                    persist_state="session",
                )
            st.markdown("**References** · the measurement that scores 0.5 on ref / (ref + x)")
            cols = st.columns(3)
            cols[0].number_input(
                "Speed reference (ms)",
                min_value=0.0,
                step=100.0,
                format="%g",
                key=REF_KEYS["speed"],
                persist_state="session",
            )
            cols[1].number_input(
                "Cost reference (USD)",
                min_value=0.0,
                step=0.001,
                format="%g",
                key=REF_KEYS["cost"],
                persist_state="session",
            )
            cols[2].number_input(
                "Accuracy reference (optional)",
                min_value=0.0,
                step=0.1,
                format="%g",
                value=None,
                placeholder="none",
                key=REF_KEYS["accuracy"],
                persist_state="session",
                help="Set it when metric.py passes an error (lower is better) as accuracy; "
                "that error then scores ref / (ref + error).",
            )
            spec = controls_spec(base)
            try:
                norm: NormalizedSpec | None = validate_reward_spec(spec)
            except RewardSpecError as exc:
                norm, problem = None, str(exc)
            buttons = st.columns([1.7, 1, 2.3], vertical_alignment="center")
            unchanged = spec == source_spec
            buttons[0].button(
                "Write to metric.py",
                on_click=write_spec,
                args=(base,),
                type="primary",
                icon=":material/save:",
                disabled=unchanged or norm is None,
                key="tradeoffs.write",
                help="Rewrites only the REWARD_SPEC assignment in metric.py; the previous "
                "text is kept as a saved version.",
            )
            buttons[1].button(
                "Reset",
                on_click=seed_controls,
                args=(source_spec or base,),
                icon=":material/undo:",
                disabled=unchanged,
                key="tradeoffs.reset",
                help="Back to the REWARD_SPEC in metric.py.",
            )
            buttons[2].caption(
                "metric.py's REWARD_SPEC has these values."
                if unchanged
                else ":orange[These values are not in metric.py yet.]"
            )
            outcome = S.pop("tradeoffs.write_result", None)
            if outcome is not None:
                (st.success if outcome[0] == "ok" else st.error)(outcome[1])
        with right:
            if norm is None:
                st.error(problem, icon=":material/error:")
            else:
                shares = " · ".join(f"{part} {norm.weights[part]:.0%}" for part in PARTS)
                st.caption(f"Normalised: {shares}")
                st.plotly_chart(weights_figure(norm.weights), height=300, key="tradeoffs.weights_chart")
    return norm


def draw_scoring(source: str, data: Dataset, split: str | None, scored: ScoredCandidates | None, metric: str) -> None:
    job = slot.job
    running = job is not None and job.running
    count = len(candidate_cases(data, split))
    cols = st.columns([1.4, 5], vertical_alignment="center")
    cols[0].button(
        "Score candidates",
        on_click=start_scoring,
        args=(source, data, split),
        type="primary",
        icon=":material/play_arrow:",
        disabled=running or count == 0,
        key="tradeoffs.score",
    )
    names = ", ".join(studio.md(display_name(name)) for name in data.candidates)
    cols[1].caption(
        f"Runs metric.py once on each of the {count} cases of {len(data.candidates)} "
        f"candidate{'s' if len(data.candidates) != 1 else ''} ({names}) in the background. "
        "Moving a control afterwards never runs it again."
    )

    studio.job_progress(slot, "tradeoffs.job", "Scoring", job, job is not None and job.finished)
    if scored is not None:
        studio.stale_banner(
            ["metric.py changed (REWARD_SPEC aside)"] if scored.metric != metric else [],
            "These scores",
            None,
            key="tradeoffs.stale",
        )


def draw_failures(scored: ScoredCandidates) -> None:
    failed = {name: count for name, count in scored.failed.items() if count}
    if failed:
        counts = ", ".join(f"{studio.md(display_name(name))} {count}" for name, count in failed.items())
        st.warning(
            f"Cases whose metric failed are left out ({counts}). First: {studio.md(scored.first_error or '')}. "
            "See them on the Author page.",
            icon=":material/warning:",
        )
    if scored.from_score:
        st.caption(
            f"{scored.from_score} cases returned no “accuracy” score (metric.py does not call reward()), "
            "so their score stands in for accuracy. Return reward(REWARD_SPEC, accuracy, feedback) to "
            "make the reward metric.py's score."
        )


def draw_accuracy_notes(scored: ScoredCandidates, norm: NormalizedSpec) -> None:
    if scored.accuracy_ref is None and norm.accuracy_ref is not None:
        st.warning(
            "When scored, metric.py's accuracy was a score between 0 and 1 (no accuracy reference was "
            "set). With an accuracy reference, reward() reads that value as an error, "
            "so a right answer (1.0) scores lower than a wrong one. Change score() to pass an error "
            "before writing this.",
            icon=":material/warning:",
        )
    if scored.accuracy_ref is not None and norm.accuracy_ref is None:
        st.warning(
            "When scored, metric.py passed an error as accuracy (its REWARD_SPEC had an accuracy "
            "reference). Without one, reward() reads that error as a score between 0 and 1, and refuses "
            "errors above 1.",
            icon=":material/warning:",
        )


def summary_table(summary: CandidateSummary, winner: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "candidate": summary.names,
            "mean accuracy": summary.mean_accuracy,
            "mean latency (ms)": summary.mean_latency_ms,
            "mean cost (USD)": summary.mean_cost_usd,
            "mean reward": summary.mean_reward,
            "Pareto front": ["yes" if on else "no" for on in summary.pareto],
            "winner": ["yes" if index == winner else "" for index in range(len(summary.names))],
        }
    )


def draw_analysis(scored: ScoredCandidates, norm: NormalizedSpec) -> None:
    draw_failures(scored)
    if not scored.candidates:
        st.error(
            "No case of any candidate was scored, so there is nothing to compare; fix metric.py on the "
            "Author page and score again."
        )
        return
    draw_accuracy_notes(scored, norm)
    try:
        summary = summarize(scored.candidates, norm)
    except ValueError as exc:
        st.error(f"The rewards cannot be computed: {studio.md(str(exc))}", icon=":material/error:")
        return
    try:
        grid = winner_map(summary, GRID_STEP)
    except ValueError as exc:
        grid, grid_problem = None, str(exc)
    change = nearest_change(summary, grid, norm.weights) if grid is not None else None
    winner = change.winner if change is not None else summary.winner
    stability = rank_stability(scored.candidates, norm, n=PERTURBATIONS, spread=SPREAD)

    st.subheader("Who wins")
    stats = st.columns(4)
    stats[0].metric(
        "Winner at these weights",
        studio.md(summary.names[winner]),
        border=True,
        help="The candidate with the highest mean reward.",
    )
    stats[1].metric("Its mean reward", f"{summary.mean_reward[winner]:.3f}", border=True)
    if change is None:
        stats[2].metric("Nearest change of winner", "–", border=True)
    elif change.distance is None:
        stats[2].metric(
            "Nearest change of winner", "none", border=True, help="One candidate wins at every mix of weights."
        )
    else:
        stats[2].metric(
            "Nearest change of winner",
            f"{change.distance:.3f} away",
            border=True,
            help=f"Euclidean distance in normalised weights (at most 1.414), to about the grid step of {GRID_STEP:g}.",
        )
    stats[3].metric(
        f"Rank stability (±{SPREAD:.0%})",
        f"tau {stability.mean_tau:.2f}",
        border=True,
        help=f"Mean Kendall tau between this ranking and the rankings when every weight and "
        f"reference moves by up to ±{SPREAD:.0%} at random ({PERTURBATIONS} times); 1 means "
        "the order never changes.",
    )
    st.dataframe(
        summary_table(summary, winner),
        hide_index=True,
        key="tradeoffs.summary",
        column_config={
            "mean accuracy": st.column_config.NumberColumn(format="%.3f"),
            "mean latency (ms)": st.column_config.NumberColumn(format="%.0f"),
            "mean cost (USD)": st.column_config.NumberColumn(format="$%.5f"),
            "mean reward": st.column_config.NumberColumn(format="%.3f"),
        },
    )
    st.caption(
        "Mean accuracy is the accuracy part (higher is better, also when it comes from an error). Latency "
        "and cost are means over measured cases. On the Pareto front: no other candidate is at least as "
        "accurate, as fast and as cheap, and better on one of them."
    )
    left, right = st.columns([3, 2], gap="medium")
    with left:
        if grid is None:
            st.info(grid_problem, icon=":material/info:")
        else:
            st.plotly_chart(ternary_winner_figure(grid, norm.weights), height=520, key="tradeoffs.ternary")
    with right:
        st.markdown("**Where the winner changes**")
        if change is not None and change.nearest_weights is not None:
            a, s, c = change.nearest_weights
            st.markdown(
                f"The nearest weights where another candidate wins are {change.distance:.3f} away: "
                f"accuracy {a:.2f} · speed {s:.2f} · cost {c:.2f}, "
                f"where **{studio.md(change.nearest_winner or '')}** wins."
            )
        elif change is not None:
            st.markdown(f"**{studio.md(change.name)}** wins at every mix of weights, with these references.")
        st.markdown(
            f"**How firm the ranking is**  \nWhen every weight and reference moves by up to "
            f"±{SPREAD:.0%} at random ({PERTURBATIONS} times), the order of the candidates keeps a mean "
            f"Kendall tau of {stability.mean_tau:.2f} (1: never reordered) and **{studio.md(summary.names[winner])}** "
            f"stays the winner in {stability.winner_kept:.0%} of them."
        )
        st.caption(
            "Each square of the map is a mix of normalised weights (they sum to 1), coloured by the "
            f"candidate with the highest mean reward there, in steps of {GRID_STEP:g}; the star marks "
            "the current weights. The references stay as set."
        )
    st.plotly_chart(candidates_figure(summary, norm), height=460, key="tradeoffs.candidates")

    st.subheader("Case by case")
    names = [candidate.name for candidate in scored.candidates]
    shown = st.selectbox("Candidate", names, index=winner, key=f"tradeoffs.shown.{'/'.join(names)}")
    candidate = scored.candidates[names.index(shown)]
    curves = [("speed", norm.speed_ref, candidate.latency_ms), ("cost", norm.cost_ref, candidate.cost_usd)]
    if norm.accuracy_ref is not None:
        curves.append(("error", norm.accuracy_ref, candidate.accuracy))
    drawn = [(kind, ref, xs) for kind, ref, xs in curves if ref is not None]
    # Two a row: a third curve (error) wraps, so no title is cut short.
    for start in range(0, len(drawn), 2):
        for column, (kind, ref, xs) in zip(st.columns(2), drawn[start : start + 2], strict=False):
            with column:
                st.plotly_chart(curve_figure(kind, ref, xs, candidate.ids), height=380, key=f"tradeoffs.curve.{kind}")
    _, parts = reward_parts(candidate.accuracy, candidate.latency_ms, candidate.cost_usd, norm)
    st.plotly_chart(stacked_reward_figure(candidate.ids, parts, norm.weights), height=420, key="tradeoffs.stacked")
    st.caption(
        "Rewards here are recomputed from each case's stored accuracy and its observation, without "
        "running metric.py again. This is exact as long as the accuracy metric.py passes to reward() "
        "does not depend on REWARD_SPEC's weights or references."
    )


# The page.
data, _ = studio.dataset()
chosen_split = studio.split()
source = studio.metric_source()
metric = metric_key(source)
job_problem = take_finished_job()

st.title("Reward trade-offs")
st.caption(
    "How the weights and references of REWARD_SPEC change each case's reward, and which candidate wins "
    "under which weights. Nothing here changes metric.py until you press Write to metric.py."
)
in_source = studio.reward_spec_in(source)
base = spec_section(in_source)
if base is not None:
    if S.get("tradeoffs.seeded_from") != base or any(key not in S for key in WEIGHT_KEYS.values()):
        seed_controls(base)
    norm = draw_controls(base, in_source.spec)
    scored = scored_for(data, chosen_split, metric)
    draw_scoring(source, data, chosen_split, scored, metric)
    if job_problem:
        st.error(job_problem, icon=":material/error:")
    if scored is None:
        st.info("Score the candidates to compare them.", icon=":material/info:")
    elif norm is not None:
        draw_analysis(scored, norm)

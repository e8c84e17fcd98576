"""Trade-offs: candidate means, the Pareto front, the winner over the weight simplex, rank stability, figures."""

from __future__ import annotations

import math
import time

import numpy as np
import plotly.graph_objects as go
import pytest

from skynet_core.reward import reward_parts
from skynet_core.reward.charts import (
    candidates_figure,
    curve_figure,
    score_histogram,
    stacked_reward_figure,
    ternary_winner_figure,
)
from skynet_core.reward.tradeoffs import (
    CandidateData,
    case_rank_changes,
    compare_weights,
    controls_from_spec,
    kendall_tau,
    mean_rewards,
    nearest_change,
    pareto_front,
    rank_stability,
    ranks,
    renormalize,
    shares_text,
    simplex_grid,
    spec_from_controls,
    summarize,
    unmeasured,
    weights_from_point,
    who_wins,
    winner_map,
)

# References chosen so that every part score below is a round number.
SPEC = {
    "weights": {"accuracy": 1, "speed": 1, "cost": 1},
    "speed": {"reference": 1000},
    "cost": {"reference": 0.01},
}


def candidate(name: str, accuracy: list[float], latency: list[float], cost: list[float]) -> CandidateData:
    return CandidateData(name, [f"{name}-{i}" for i in range(len(accuracy))], accuracy, latency, cost)


def three_candidates() -> list[CandidateData]:
    """Mean part scores, by hand (part score = ref / (ref + x)):

    - accurate: accuracy 1, speed 1000/(1000+1000) = 0.5, cost 0.01/(0.01+0.01) = 0.5
    - fast: accuracy (0 + 1)/2 = 0.5, speed 1 (latency 0), cost 0.01/(0.01+0.03) = 0.25
    - cheap: accuracy 0, speed 1000/(1000+3000) = 0.25, cost 1 (cost 0)
    """
    return [
        candidate("accurate", [1.0, 1.0], [1000.0, 1000.0], [0.01, 0.01]),
        candidate("fast", [0.0, 1.0], [0.0, 0.0], [0.03, 0.03]),
        candidate("cheap", [0.0, 0.0], [3000.0, 3000.0], [0.0, 0.0]),
    ]


def test_summary_means_and_rewards_match_hand_computed_values() -> None:
    summary = summarize(three_candidates(), SPEC)
    assert summary.mean_parts == pytest.approx(np.array([[1, 0.5, 0.5], [0.5, 1, 0.25], [0, 0.25, 1]]))
    # Equal weights: a third of each part.
    assert summary.mean_reward == pytest.approx([2 / 3, 1.75 / 3, 1.25 / 3])
    assert summary.winner == 0
    assert summary.mean_latency_ms.tolist() == [1000.0, 0.0, 3000.0]
    assert summary.mean_cost_usd == pytest.approx([0.01, 0.03, 0.0])


def test_summary_mean_reward_equals_mean_of_case_rewards() -> None:
    candidates = three_candidates()
    summary = summarize(candidates, SPEC)
    for index, c in enumerate(candidates):
        rewards, _ = reward_parts(c.accuracy, c.latency_ms, c.cost_usd, SPEC)
        assert summary.mean_reward[index] == pytest.approx(rewards.mean(), abs=1e-15)


def test_each_corner_of_the_simplex_is_won_by_the_candidate_best_at_that_part() -> None:
    grid = winner_map(summarize(three_candidates(), SPEC), step=0.1)
    winners = {tuple(w): grid.names[i] for w, i in zip(grid.weights.tolist(), grid.winners, strict=True)}
    assert winners[(1.0, 0.0, 0.0)] == "accurate"
    assert winners[(0.0, 1.0, 0.0)] == "fast"
    assert winners[(0.0, 0.0, 1.0)] == "cheap"


def test_winner_map_rewards_are_linear_in_the_weights() -> None:
    summary = summarize(three_candidates(), SPEC)
    grid = winner_map(summary, step=0.5)
    point = grid.weights.tolist().index([0.5, 0.5, 0.0])
    # accurate: 0.5*1 + 0.5*0.5; fast: 0.5*0.5 + 0.5*1; cheap: 0.5*0 + 0.5*0.25.
    assert grid.rewards[point] == pytest.approx([0.75, 0.75, 0.125])
    assert grid.winners[point] == 0  # a tie goes to the earlier candidate


def test_simplex_grid_covers_the_triangle_in_even_steps() -> None:
    grid = simplex_grid(0.02)
    assert grid.shape == (1326, 3)
    assert np.allclose(grid.sum(axis=1), 1.0)
    assert (grid >= 0).all()
    corners = {tuple(row) for row in grid.tolist()} & {(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)}
    assert len(corners) == 3


def test_simplex_grid_refuses_a_step_that_does_not_divide_one() -> None:
    with pytest.raises(ValueError, match="must divide 1"):
        simplex_grid(0.3)


def test_winner_map_needs_every_reference() -> None:
    spec = {"weights": {"accuracy": 1, "speed": 1, "cost": 0}, "speed": {"reference": 1000}}
    with pytest.raises(ValueError, match="needs a cost reference"):
        winner_map(summarize(three_candidates(), spec))


def test_pareto_front_keeps_candidates_no_other_beats() -> None:
    # The last is beaten by "fast" (index 1) on all three axes.
    front = pareto_front([1.0, 0.5, 0.0, 0.4], [1000, 0, 3000, 2000], [0.01, 0.03, 0.0, 0.04])
    assert front.tolist() == [True, True, True, False]


def test_pareto_front_keeps_identical_candidates_and_ranks_unmeasured_last() -> None:
    front = pareto_front([0.8, 0.8, 0.8], [100, 100, np.nan], [0.01, 0.01, 0.01])
    assert front.tolist() == [True, True, False]


def test_summary_marks_the_pareto_front() -> None:
    dominated = candidate("slow", [0.4, 0.4], [2000.0, 2000.0], [0.04, 0.04])
    summary = summarize([*three_candidates(), dominated], SPEC)
    assert summary.pareto.tolist() == [True, True, True, False]


def two_way() -> list[CandidateData]:
    """A: accuracy 1, speed and cost not measured (0). B: accuracy 0, speed 900/(900+100) = 0.9, cost 0.09/0.1 = 0.9.

    A wins exactly when w_a > 0.9 (1 - w_a), i.e. w_a > 0.4737.
    """
    return [
        candidate("A", [1.0], [np.nan], [np.nan]),
        candidate("B", [0.0], [100.0], [0.01]),
    ]


TWO_WAY_SPEC = {
    "weights": {"accuracy": 0.7, "speed": 0.2, "cost": 0.1},
    "speed": {"reference": 900},
    "cost": {"reference": 0.09},
}


def test_nearest_change_finds_the_closest_grid_point_with_another_winner() -> None:
    summary = summarize(two_way(), TWO_WAY_SPEC)
    change = nearest_change(summary, winner_map(summary), TWO_WAY_SPEC["weights"])
    assert change.name == "A"
    # The nearest grid point with w_a <= 0.46 moves 0.24 off accuracy, 0.12 onto each of speed and cost.
    assert change.nearest_weights == pytest.approx((0.46, 0.32, 0.22))
    assert change.nearest_winner == "B"
    assert change.distance == pytest.approx(math.sqrt(0.24**2 + 0.12**2 + 0.12**2))


def test_nearest_change_is_none_when_one_candidate_wins_everywhere() -> None:
    best = candidate("best", [1.0], [0.0], [0.0])
    worst = candidate("worst", [0.0], [5000.0], [1.0])
    summary = summarize([best, worst], SPEC)
    change = nearest_change(summary, winner_map(summary), SPEC["weights"])
    assert (change.name, change.distance, change.nearest_winner) == ("best", None, None)


def test_nearest_change_takes_weights_in_any_scale() -> None:
    summary = summarize(two_way(), TWO_WAY_SPEC)
    grid = winner_map(summary)
    scaled = nearest_change(summary, grid, {"accuracy": 7, "speed": 2, "cost": 1})
    plain = nearest_change(summary, grid, TWO_WAY_SPEC["weights"])
    assert (scaled.name, scaled.nearest_weights) == (plain.name, plain.nearest_weights)
    assert scaled.distance == pytest.approx(plain.distance)


def test_mean_rewards_gives_one_row_per_weight_vector() -> None:
    parts = np.array([[1.0, 0.5, 0.5], [0.5, 1.0, 0.25]])
    assert mean_rewards(parts, [1.0, 0.0, 0.0]) == pytest.approx([1.0, 0.5])
    assert mean_rewards(parts, [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]).tolist() == [[0.5, 1.0], [0.5, 0.25]]


def test_kendall_tau_of_hand_made_rankings() -> None:
    assert float(kendall_tau([3, 2, 1], [30, 20, 10])) == 1.0
    assert float(kendall_tau([3, 2, 1], [1, 2, 3])) == -1.0
    # One of three pairs swapped: (2 - 1) / 3.
    assert float(kendall_tau([3, 2, 1], [3, 1, 2])) == pytest.approx(1 / 3)
    assert kendall_tau([3, 2, 1], [[3, 2, 1], [1, 2, 3]]).tolist() == [1.0, -1.0]


def test_kendall_tau_with_ties_and_single_candidate() -> None:
    assert float(kendall_tau([1, 1], [1, 1])) == 1.0
    assert float(kendall_tau([2, 1], [1, 1])) == 0.0
    assert float(kendall_tau([5], [7])) == 1.0


def test_rank_stability_is_one_when_rewards_are_far_apart() -> None:
    far = [
        candidate("high", [0.9], [500.0], [0.005]),
        candidate("mid", [0.5], [500.0], [0.005]),
        candidate("low", [0.1], [500.0], [0.005]),
    ]
    stability = rank_stability(far, SPEC, n=200, spread=0.1, seed=1)
    assert stability.mean_tau == 1.0
    assert stability.winner_kept == 1.0
    assert stability.taus.shape == (200,)


def test_rank_stability_drops_when_candidates_are_close() -> None:
    # Nearly tied: one is a little more accurate, the other a little faster, so small weight changes swap them.
    close = [
        candidate("careful", [0.81], [1000.0], [0.01]),
        candidate("quick", [0.80], [960.0], [0.01]),
    ]
    stability = rank_stability(close, SPEC, n=200, spread=0.1, seed=1)
    assert stability.mean_tau < 0.9
    assert stability.winner_kept < 1.0


def test_rank_stability_repeats_for_the_same_seed() -> None:
    close = [candidate("a", [0.81], [1000.0], [0.01]), candidate("b", [0.80], [960.0], [0.01])]
    first = rank_stability(close, SPEC, seed=7)
    again = rank_stability(close, SPEC, seed=7)
    assert np.array_equal(first.taus, again.taus)


def test_rank_stability_perturbs_the_accuracy_reference_when_set() -> None:
    # With only the accuracy part counting, rankings can change only through the accuracy reference:
    # their order never changes, because ref / (ref + error) keeps the order of the errors.
    spec = {"weights": {"accuracy": 1, "speed": 0, "cost": 0}, "accuracy": {"reference": 1.0}}
    errors = [
        candidate("small", [0.1, 3.0], [1.0, 1.0], [1.0, 1.0]),
        candidate("big", [1.0, 1.0], [1.0] * 2, [1.0] * 2),
    ]
    assert rank_stability(errors, spec, seed=3).mean_tau == 1.0


def test_candidate_data_refuses_arrays_of_different_lengths() -> None:
    with pytest.raises(ValueError, match="Candidate 'x'.*one length"):
        CandidateData("x", ["a", "b"], [1.0, 0.0], [1.0], [0.1, 0.1])


def test_summary_and_winner_map_are_fast_for_ten_thousand_cases() -> None:
    rng = np.random.default_rng(0)
    n = 10_000
    candidates = [
        CandidateData(
            f"c{k}",
            [str(i) for i in range(n)],
            (rng.random(n) < 0.6 + 0.06 * k).astype(float),
            rng.gamma(4, 300 * (k + 1), n),
            rng.gamma(4, 0.002 * (k + 1), n),
        )
        for k in range(5)
    ]
    started = time.perf_counter()
    summary = summarize(candidates, SPEC)
    nearest_change(summary, winner_map(summary), SPEC["weights"])
    # Milliseconds in practice; the bound only guards against an accidental per-case Python loop.
    assert time.perf_counter() - started < 1.0


# --- figures ---------------------------------------------------------------------------------


def test_curve_figure_draws_the_curve_and_every_measured_case() -> None:
    figure = curve_figure("speed", 2000, [0.0, 850.0, np.nan, 2000.0], ids=["a", "b", "c", "d"])
    curve, cases = figure.data
    assert len(cases.x) == 3
    assert list(cases.y) == pytest.approx([1.0, 2000 / 2850, 0.5])
    assert curve.y[0] == 1.0
    # In the plot, not in small print: the rule for an unmeasured case, with how many there are.
    notes = [a.text for a in figure.layout.annotations]
    assert "1 case has no measured latency:<br>it scores 0 on speed" in notes
    assert figure.layout.xaxis.title.text == "Latency (ms)"


def test_curve_figure_refuses_an_unknown_kind() -> None:
    with pytest.raises(ValueError, match="speed, cost, error"):
        curve_figure("quality", 1.0, [0.5])


def test_stacked_reward_figure_has_three_parts_best_case_first() -> None:
    ids = ["low", "high"]
    parts = np.array([[0.0, 0.5, 0.5], [1.0, 1.0, np.nan]])
    figure = stacked_reward_figure(ids, parts, {"accuracy": 0.5, "speed": 0.5, "cost": 0.0})
    assert [trace.name for trace in figure.data] == ["accuracy", "speed", "cost"]
    assert all(isinstance(trace, go.Bar) for trace in figure.data)
    assert list(figure.data[0].x) == ["high", "low"]
    assert list(figure.data[1].y) == pytest.approx([0.5, 0.25])


def test_stacked_reward_figure_uses_areas_for_many_cases() -> None:
    n = 2000
    figure = stacked_reward_figure(
        [str(i) for i in range(n)], np.full((n, 3), 0.5), {"accuracy": 1, "speed": 0, "cost": 0}
    )
    assert len(figure.data) == 3
    assert all(isinstance(trace, go.Scatter) and trace.stackgroup for trace in figure.data)


def test_candidates_figure_has_front_others_and_lines_per_panel() -> None:
    dominated = candidate("slow", [0.4, 0.4], [2000.0, 2000.0], [0.04, 0.04])
    summary = summarize([*three_candidates(), dominated], SPEC)
    figure = candidates_figure(summary, SPEC)
    assert len(figure.data) == 6
    front, others, lines = figure.data[:3]
    assert list(front.text) == ["accurate", "fast", "cheap"]
    assert list(others.text) == ["slow"]
    assert any(y is not None for y in lines.y)


def test_candidates_figure_draws_vertical_lines_when_accuracy_does_not_count() -> None:
    spec = {**SPEC, "weights": {"accuracy": 0, "speed": 1, "cost": 1}}
    figure = candidates_figure(summarize(three_candidates(), spec), spec)
    lines = figure.data[2]
    assert list(lines.x[:3]) == [1000.0, 1000.0, None]


def test_ternary_winner_figure_has_a_trace_per_candidate_and_the_current_point() -> None:
    never = candidate("never", [0.0], [9000.0], [0.5])
    summary = summarize([*three_candidates(), never], SPEC)
    figure = ternary_winner_figure(winner_map(summary, step=0.05), SPEC["weights"])
    assert len(figure.data) == 5
    assert all(isinstance(trace, go.Scatterternary) for trace in figure.data)
    assert figure.data[3].name == "never (never wins)"
    current = figure.data[4]
    assert (current.a[0], current.b[0], current.c[0]) == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert list(figure.data[3].a) == [None]  # a blank point: plotly.js lists no trace without points
    assert sum(len(trace.a) for trace in figure.data[:3]) == len(simplex_grid(0.05))


def test_score_histogram_counts_scores_and_reports_missing_ones() -> None:
    figure = score_histogram([0.0, 0.5, 1.0, np.nan])
    assert len(figure.data) == 1
    assert sum(figure.data[0].y) == 3
    assert "1 without a score left out" in figure.layout.title.text


# --- renormalising weights, clicks on the map, A vs B ---------------------------------------


def test_renormalize_rescales_the_other_two_in_proportion() -> None:
    new = renormalize({"accuracy": 0.7, "speed": 0.2, "cost": 0.1}, "accuracy", 0.4)
    assert new == {"accuracy": 0.4, "speed": 0.4, "cost": 0.2}
    assert sum(new.values()) == pytest.approx(1.0)


def test_renormalize_reads_raw_weights_that_do_not_sum_to_one() -> None:
    assert renormalize({"accuracy": 2, "speed": 1, "cost": 1}, "cost", 0.5) == {
        "accuracy": 0.333,
        "speed": 0.167,
        "cost": 0.5,
    }


def test_renormalize_splits_equally_when_the_others_are_both_zero() -> None:
    assert renormalize({"accuracy": 1, "speed": 0, "cost": 0}, "accuracy", 0.6) == {
        "accuracy": 0.6,
        "speed": 0.2,
        "cost": 0.2,
    }
    assert renormalize({"accuracy": 0, "speed": 0, "cost": 0}, "speed", 0.0) == {
        "accuracy": 0.5,
        "speed": 0.0,
        "cost": 0.5,
    }


def test_renormalize_to_one_zeroes_the_others_and_to_zero_gives_them_everything() -> None:
    assert renormalize({"accuracy": 0.7, "speed": 0.2, "cost": 0.1}, "speed", 1.0) == {
        "accuracy": 0.0,
        "speed": 1.0,
        "cost": 0.0,
    }
    assert renormalize({"accuracy": 0.7, "speed": 0.2, "cost": 0.1}, "accuracy", 0.0) == {
        "accuracy": 0.0,
        "speed": 0.667,
        "cost": 0.333,
    }


def test_renormalize_clips_the_value_and_keeps_the_sum_at_one_after_rounding() -> None:
    assert renormalize({"accuracy": 1, "speed": 1, "cost": 1}, "cost", 1.7)["cost"] == 1.0
    assert renormalize({"accuracy": 1, "speed": 1, "cost": 1}, "cost", -0.2)["cost"] == 0.0
    thirds = renormalize({"accuracy": 1, "speed": 1, "cost": 1}, "accuracy", 0.001)
    assert sum(thirds.values()) == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(ValueError, match="part must be one of"):
        renormalize({"accuracy": 1, "speed": 1, "cost": 1}, "quality", 0.5)


def test_weights_from_point_scales_a_map_point_to_sum_one() -> None:
    assert weights_from_point([0.5, 0.3, 0.2]) == {"accuracy": 0.5, "speed": 0.3, "cost": 0.2}
    assert weights_from_point([2, 1, 1]) == {"accuracy": 0.5, "speed": 0.25, "cost": 0.25}
    with pytest.raises(ValueError, match="not all 0"):
        weights_from_point([0, 0, 0])


def test_compare_weights_names_the_winner_and_ranks_under_each_set() -> None:
    summary = summarize(three_candidates(), SPEC)
    compared = compare_weights(summary, {"accuracy": 1, "speed": 0, "cost": 0}, {"accuracy": 0, "speed": 0, "cost": 1})
    assert compared.winner_a == 0 and compared.winner_b == 2
    assert compared.reward_a == pytest.approx([1.0, 0.5, 0.0])
    assert compared.rank_a.tolist() == [1, 2, 3]
    assert compared.rank_b.tolist() == [2, 3, 1]


def test_ranks_share_the_better_rank_on_ties() -> None:
    assert ranks([0.5, 0.9, 0.5, 0.1]).tolist() == [2, 1, 2, 4]


def test_case_rank_changes_lists_only_moved_cases_largest_move_first() -> None:
    # Accuracy, latency per case: under A (accuracy only) the accurate cases lead; under B (speed only) the fast ones.
    c = candidate("x", [1.0, 0.9, 0.1, 0.0], [3000.0, 1000.0, 0.0, 1000.0], [0.01] * 4)
    a = {"accuracy": 1, "speed": 0, "cost": 0}
    b = {"accuracy": 0, "speed": 1, "cost": 0}
    changes = case_rank_changes(c, SPEC, a, b)
    # Ranks under A: 1, 2, 3, 4; under B: speed scores 0.25, 0.5, 1, 0.5 -> 4, 2, 1, 2.
    assert changes.ids == ("x-0", "x-2", "x-3")
    assert changes.rank_a.tolist() == [1, 3, 4]
    assert changes.rank_b.tolist() == [4, 1, 2]
    assert changes.change.tolist() == [-3, 2, 2]
    assert changes.total == 4
    assert case_rank_changes(c, SPEC, a, a).ids == ()


def test_case_rank_changes_counts_an_unmeasured_latency_as_zero_speed() -> None:
    c = candidate("x", [1.0, 0.0], [np.nan, 0.0], [0.01, 0.01])
    changes = case_rank_changes(c, SPEC, {"accuracy": 1, "speed": 0, "cost": 0}, {"accuracy": 0, "speed": 1, "cost": 0})
    assert changes.ids == ("x-0", "x-1")
    assert changes.reward_b.tolist() == [0.0, 1.0]
    assert unmeasured(c.latency_ms) == 1


def test_curve_figure_states_the_zero_rule_even_without_unmeasured_cases() -> None:
    figure = curve_figure("cost", 0.01, [0.0, 0.02], ids=["a", "b"])
    assert "A case with no measured cost<br>scores 0 on cost (none here)" in [a.text for a in figure.layout.annotations]
    error = curve_figure("error", 1.0, [0.0, 2.0])
    assert not any("measured" in a.text for a in error.layout.annotations)


def test_stacked_reward_figure_names_unmeasured_cases_in_the_plot() -> None:
    parts = np.array([[1.0, 0.0, 0.5], [0.5, 0.5, 0.5]])
    figure = stacked_reward_figure(["a", "b"], parts, SPEC["weights"], {"speed": 2, "cost": 0})
    assert [a.text for a in figure.layout.annotations] == [
        "2 cases have no measured latency:<br>each scores 0 on speed"
    ]


def test_ternary_points_carry_their_weights_for_a_click() -> None:
    figure = ternary_winner_figure(winner_map(summarize(three_candidates(), SPEC), step=0.5), SPEC["weights"], 3)
    for trace in figure.data[:3]:
        if trace.customdata is not None:
            assert [list(row) for row in trace.customdata] == [
                [a, b, c] for a, b, c in zip(trace.a, trace.b, trace.c, strict=True)
            ]
    assert list(figure.data[3].customdata[0]) == pytest.approx([1 / 3, 1 / 3, 1 / 3])
    assert figure.layout.clickmode == "event+select"
    assert "3 cases have no measured latency" in figure.layout.annotations[0].text


def test_spec_from_controls_keeps_other_keys_and_sets_or_drops_the_accuracy_reference() -> None:
    base = {
        "weights": {"accuracy": 0.7, "speed": 0.2, "cost": 0.1},
        "accuracy": {"reference": 1.0, "note": "kept"},
        "speed": {"reference": 2000, "extra": 1},
        "cost": {"reference": 0.01},
        "custom": [1, 2],
    }
    spec = spec_from_controls(base, {"accuracy": 1, "speed": 0, "cost": 0}, 1500.0, 0.02, None)
    assert spec["weights"] == {"accuracy": 1, "speed": 0, "cost": 0}
    assert spec["speed"] == {"reference": 1500.0, "extra": 1}
    assert spec["cost"] == {"reference": 0.02}
    assert spec["accuracy"] == {"note": "kept"}
    assert spec["custom"] == [1, 2]
    assert base["speed"]["reference"] == 2000  # the base is not changed
    with_ref = spec_from_controls({"weights": base["weights"]}, base["weights"], 2000.0, 0.01, 0.5)
    assert with_ref["accuracy"] == {"reference": 0.5}
    assert "accuracy" not in spec_from_controls({"weights": base["weights"]}, base["weights"], 2000.0, 0.01, None)


def test_controls_from_spec_fills_missing_references_from_the_fallback() -> None:
    fallback = {
        "weights": {"accuracy": 1, "speed": 1, "cost": 1},
        "speed": {"reference": 2000},
        "cost": {"reference": 0.01},
    }
    spec = {"weights": {"accuracy": 2, "speed": 0, "cost": 0}, "accuracy": {"reference": 0.5}}
    assert controls_from_spec(spec, fallback) == {
        "accuracy": 2.0,
        "speed": 0.0,
        "cost": 0.0,
        "speed_ref": 2000.0,
        "cost_ref": 0.01,
        "accuracy_ref": 0.5,
    }


def test_shares_text_reads_the_weights_as_percentages() -> None:
    assert shares_text({"accuracy": 7, "speed": 2, "cost": 1}) == "accuracy 70% · speed 20% · cost 10%"
    assert shares_text({"accuracy": 0, "speed": 0, "cost": 0}) == "accuracy 0% · speed 0% · cost 0%"


def test_who_wins_is_the_maps_winner_its_nearest_change_and_the_rankings_stability() -> None:
    """The page's "Who wins" section, computed here: the map's winner at the weights, the nearest change,
    and the stability, as the functions it is made of give them."""
    summary = summarize(two_way(), TWO_WAY_SPEC)
    verdict = who_wins(two_way(), summary, TWO_WAY_SPEC, step=0.02, perturbations=50, spread=0.1)
    change = nearest_change(summary, winner_map(summary, 0.02), TWO_WAY_SPEC["weights"])
    assert verdict.grid is not None and verdict.grid_problem == ""
    assert verdict.winner == change.winner and verdict.change == change and summary.names[verdict.winner] == "A"
    stability = rank_stability(two_way(), TWO_WAY_SPEC, n=50, spread=0.1)
    assert verdict.stability.mean_tau == stability.mean_tau
    assert verdict.stability.winner_kept == stability.winner_kept


def test_who_wins_without_a_map_says_why_and_takes_the_summarys_winner() -> None:
    spec = {"weights": {"accuracy": 1, "speed": 1, "cost": 0}, "speed": {"reference": 1000}}
    summary = summarize(three_candidates(), spec)
    verdict = who_wins(three_candidates(), summary, spec, perturbations=20)
    assert verdict.grid is None and verdict.change is None and "needs a cost reference" in verdict.grid_problem
    assert verdict.winner == summary.winner

"""Figures the pages draw: properties a reader of the chart relies on."""

from __future__ import annotations

import numpy as np

from skynet_core.reward.charts import histogram_counts, score_histogram


def test_score_histogram_counts_scores_of_exactly_one():
    # Bins are half-open [start, start + 0.05): the last one starts at 1.0, so a score of 1.0 has a bar.
    bars = score_histogram([0.0, 1.0, 1.0]).data[0]
    assert bars.customdata[-1] == "1–1.05" and bars.y[-1] == 2
    assert bars.customdata[0] == "0–0.05" and bars.y[0] == 1


def test_score_histogram_says_how_many_cases_had_no_score():
    figure = score_histogram([0.5, float("nan"), float("nan")])
    assert "2 without a score left out" in figure.layout.title.text


def test_score_histogram_sends_bin_counts_not_every_score():
    # 900,000 scores made an 11.8 MB figure, sent to the browser on every run of the page.
    scores = np.random.default_rng(0).random(900_000)
    figure = score_histogram(scores)
    bars = figure.data[0]
    assert len(bars.x) == len(bars.y) == 21  # 0.05 wide, the last one holding the scores of exactly 1.0
    assert sum(bars.y) == 900_000
    assert len(figure.to_json()) < 20_000


def test_score_histogram_bins_are_half_open_with_one_in_the_last():
    figure = score_histogram([0.0, 0.05, 0.15, 0.999, 1.0, 1.0])
    counts = dict(zip(figure.data[0].customdata, figure.data[0].y, strict=True))
    assert counts["0–0.05"] == 1 and counts["0.05–0.1"] == 1 and counts["0.15–0.2"] == 1
    assert counts["0.95–1"] == 1 and counts["1–1.05"] == 2


def test_scores_outside_zero_to_one_and_a_single_value_are_binned_too():
    wide = score_histogram(np.linspace(-5, 20, 1_000))
    assert sum(wide.data[0].y) == 1_000 and 1 < len(wide.data[0].y) <= 50
    single = score_histogram([3.0, 3.0])
    assert list(single.data[0].y) == [2]


def test_a_number_of_bins_asked_for_is_kept_up_to_the_most_drawn():
    changes = np.array([-0.75] * 27 + [0.5] * 45)  # History's changes, B − A: outside [0, 1]
    edges, counts = histogram_counts(changes, bins=36)
    assert len(counts) == 36 and counts.sum() == 72 and (counts[0], counts[-1]) == (27, 45)
    assert edges[0] == -0.75 and edges[-1] == 0.5
    assert len(histogram_counts(changes, bins=500)[1]) == 40

"""Figures the pages draw: properties a reader of the chart relies on."""

from __future__ import annotations

from skynet_core.charts import score_histogram


def test_score_histogram_counts_scores_of_exactly_one():
    # Plotly bins are half-open [start, start + size): the last bin must start at 1.0 to hold a 1.0.
    bins = score_histogram([0.0, 1.0, 1.0]).data[0].xbins
    assert bins.start == 0.0
    assert bins.end >= 1.0 + bins.size
    assert round((1.0 - bins.start) / bins.size) * bins.size + bins.start <= 1.0 < bins.end


def test_score_histogram_says_how_many_cases_had_no_score():
    figure = score_histogram([0.5, float("nan"), float("nan")])
    assert "2 without a score left out" in figure.layout.title.text

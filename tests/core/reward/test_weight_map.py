"""Item 1 of issue 23, core half: a click on the weight map must give the weights of the point clicked.

The map's points carried their weights as a numpy array, which plotly sends to the browser as a binary typed
array; plotly.js then hands each clicked point's ``customdata`` over as a Float64Array, which Streamlit's
selection turns into an object ``{"0": a, "1": s, "2": c}``. ``weights_from_point`` iterated that object's
keys, "0", "1", "2", and set the weights 0, 1/3, 2/3 for every click: the issue's "0 / 0.333 / 0.667",
and "further clicks changed nothing"."""

from __future__ import annotations

import json

import plotly.io
import pytest

from skynet_core.reward.charts import ternary_winner_figure
from skynet_core.reward.tradeoffs import CandidateData, summarize, weights_from_point, winner_map

SPEC = {
    "weights": {"accuracy": 0.7, "speed": 0.2, "cost": 0.1},
    "speed": {"reference": 1000},
    "cost": {"reference": 0.01},
}


def candidates() -> list[CandidateData]:
    import numpy as np

    def one(name: str, accuracy: float, latency: float, cost: float) -> CandidateData:
        return CandidateData(
            name, ["a", "b", "c", "d"], np.array([accuracy] * 4), np.array([latency] * 4), np.array([cost] * 4)
        )

    return [one("accurate", 1.0, 1000.0, 0.01), one("fast", 0.5, 0.0, 0.03), one("cheap", 0.0, 3000.0, 0.0)]


def test_the_map_sends_each_points_weights_as_a_plain_list() -> None:
    figure = ternary_winner_figure(winner_map(summarize(candidates(), SPEC), step=0.1), SPEC["weights"])
    sent = json.loads(plotly.io.to_json(figure, validate=False))  # what Streamlit sends the browser
    for trace in sent["data"]:
        data = trace.get("customdata")
        if data is None:
            continue
        assert isinstance(data, list), data  # never {"dtype": ..., "bdata": ...}
        for row, a, b, c in zip(data, trace["a"], trace["b"], trace["c"], strict=True):
            assert row == pytest.approx([a, b, c])


def test_a_point_given_back_as_an_object_of_its_indexes_keeps_its_weights() -> None:
    clicked = {"0": 0.22, "1": 0.6, "2": 0.18}  # a Float64Array as JSON: the hover said these weights
    assert weights_from_point(clicked) == {"accuracy": 0.22, "speed": 0.6, "cost": 0.18}
    assert weights_from_point([0.22, 0.6, 0.18]) == {"accuracy": 0.22, "speed": 0.6, "cost": 0.18}
    with pytest.raises(ValueError):
        weights_from_point({"a": 1, "b": 2, "c": 3})

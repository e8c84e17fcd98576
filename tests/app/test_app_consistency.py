"""The Author page's judge-consistency panel: repeated runs of the same cases and their spread."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from skynet_core.store import Store
from tests.app.harness import button, open_app, run_until

COIN = (
    "import random\n\ndef score(input, output, expected=None):\n"
    "    return float(random.random() < 0.5), {'feedback': 'A coin decided.'}\n"
)
STEADY = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'Always the same.'}\n"


def run_consistency(data_dir, source: str) -> AppTest:
    Store(data_dir).save_draft(source)
    at = open_app()
    at.number_input(key="author.consistency_cases").set_value(10)
    at.number_input(key="author.consistency_repeats").set_value(4)
    button(at, "Judge each case again").click().run()
    return run_until(at, lambda at: any("flipped" in frame.value.columns for frame in at.dataframe))


@pytest.mark.parametrize(("source", "flips"), [(STEADY, False), (COIN, True)])
def test_repeated_runs_show_each_cases_spread(data_dir, source, flips):
    at = run_consistency(data_dir, source)
    table = next(frame.value for frame in at.dataframe if "flipped" in frame.value.columns)
    assert len(table) == 10
    assert set(table["runs"]) == {4}
    assert bool(table["flipped"].any()) is flips
    noise = " ".join(str(caption.value) for caption in at.caption)
    if flips:  # the noise GEPA would accept: a coin wins a minibatch of 3 in a good share of tries
        assert (
            "An unchanged candidate would pass GEPA's acceptance test (a strictly higher sum on a minibatch of 3)"
            in noise
        )
    else:
        assert "GEPA would never accept an unchanged candidate on noise alone" in noise

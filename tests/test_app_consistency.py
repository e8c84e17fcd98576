"""The Author page's judge-consistency panel: repeated runs of the same cases and their spread."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from skynet_core.store import Store

APP = str(Path(__file__).resolve().parents[1] / "app.py")
COIN = (
    "import random\n\ndef score(input, output, expected=None):\n"
    "    return float(random.random() < 0.5), {'feedback': 'A coin decided.'}\n"
)
STEADY = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'Always the same.'}\n"


def run_consistency(tmp_path, monkeypatch, source: str) -> AppTest:
    monkeypatch.setenv("SKYNET_DATA_DIR", str(tmp_path))
    Store(tmp_path).save_draft(source)
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    at.number_input(key="author.consistency_cases").set_value(10)
    at.number_input(key="author.consistency_repeats").set_value(4)
    next(button for button in at.button if button.label == "Judge each case again").click().run()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if any("flipped" in frame.value.columns for frame in at.dataframe):
            break
        time.sleep(0.2)
        at.run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize(("source", "flips"), [(STEADY, False), (COIN, True)])
def test_repeated_runs_show_each_cases_spread(tmp_path, monkeypatch, source, flips):
    at = run_consistency(tmp_path, monkeypatch, source)
    table = next(frame.value for frame in at.dataframe if "flipped" in frame.value.columns)
    assert len(table) == 10
    assert set(table["runs"]) == {4}
    assert bool(table["flipped"].any()) is flips

"""The units in the reward curves (skynet_core.reward.charts.curve_figure) in the reader's language: 毫秒 and 美元 in
Chinese, as the axis titles and every other page write them."""

from __future__ import annotations

import pytest

from skynet_core.i18n import use_language
from skynet_core.reward.charts import curve_figure


@pytest.mark.parametrize(
    ("kind", "reference", "english", "chinese"),
    [("speed", 2000, "2000 ms", "2000 毫秒"), ("cost", 0.01, "0.01 USD", "0.01 美元")],
)
def test_the_reference_line_and_the_hover_write_the_unit_in_the_readers_language(
    kind: str, reference: float, english: str, chinese: str
) -> None:
    for language, written, foreign in (("en", english, chinese), ("zh_CN", chinese, english)):
        with use_language(language):
            figure = curve_figure(kind, reference, [reference / 2], ids=["T-1"])
        notes = [note.text for note in figure.layout.annotations]
        assert any(written in note for note in notes), notes
        assert not any(foreign in note for note in notes), notes
        unit = written.split(" ", 1)[1]
        assert f"%{{x:.4g}} {unit}" in figure.data[1].hovertemplate

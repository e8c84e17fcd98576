"""The Author page's Packages panel on its own: what a metric imports, where each is found, how to install the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from skynet_core.metric.packages import PACKAGES_ENV, install_command
from tests.app.harness import open_function


def test_the_packages_panel_shows_versions_and_the_command_for_the_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PACKAGES_ENV, str(tmp_path / "metric-packages"))

    def app() -> None:
        from pages.author.packages import draw_packages
        from skynet_core.metric.source import MetricSource

        draw_packages(MetricSource.of("import orjson\nimport rapidfuzz\n"))

    at = open_function(app)
    table = at.dataframe[0].value
    assert list(table["module"]) == ["orjson", "rapidfuzz"]
    assert list(table["found in"]) == ["the studio's environment", "missing"]
    assert at.code[0].value == install_command(["rapidfuzz"])

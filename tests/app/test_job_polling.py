"""How often a running job's progress is redrawn: every 0.2 s while it is young, so a short job (a check, "Score all"
on a few dozen cases) is seen finished at once; every 0.5 s after, since each redraw costs the browser a round trip
(a tab redrawing every 0.2 s kept Chromium at a third to half of a core)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest

from ui.widgets import jobs


def aged(elapsed_s: float) -> Any:
    return cast(Any, SimpleNamespace(elapsed_s=elapsed_s))


@pytest.mark.parametrize(("elapsed_s", "every"), [(0.0, 0.2), (2.9, 0.2), (3.0, 0.5), (600.0, 0.5)])
def test_a_job_is_redrawn_five_times_a_second_while_young_then_twice(elapsed_s: float, every: float) -> None:
    assert jobs.poll_every(aged(elapsed_s)) == every


def test_no_job_yet_polls_at_the_quick_beat() -> None:
    assert jobs.poll_every(None) == 0.2

"""A pytest plugin that writes each test's CPU, the whole machine's, to a JSON-lines file: where the suite's time goes.

    .venv/bin/python -m pytest -n 0 -p tests.cpu_per_test tests/e2e     # one test at a time
    SKYNET_CPU_PER_TEST=/tmp/cpu.jsonl ...                              # where (default: cpu-per-test.jsonl)
    .venv/bin/python -m tests.cpu_per_test /tmp/cpu.jsonl > tests/module_seconds.json

The last line makes the seconds each test module took from such a file (setup and teardown included): the order
``tests/conftest.py`` hands the modules out in, longest first. Make it from a run of the whole suite as CI runs it
(``scripts/test.sh -p tests.cpu_per_test``), where a module's seconds are those it takes among the others.

The suite is bound by CPU (docs/testing.md), and much of a test's CPU is spent outside pytest: in Chromium, the
studio's server, the sandboxes, a Ray cluster. So the figure is the machine's busy time (``/proc/stat``) while the
test ran, setup and teardown included, which is only the test's own when tests run one at a time (``-n 0``) on an
otherwise idle machine. Each line is ``[test id, CPU seconds, wall seconds]``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Generator
from pathlib import Path

import pytest

OUT = Path(os.environ.get("SKYNET_CPU_PER_TEST") or "cpu-per-test.jsonl")
_TICKS = os.sysconf("SC_CLK_TCK")


def busy_s() -> float:
    """CPU seconds the machine has spent busy since it started (every core; idle and I/O wait aside)."""
    with open("/proc/stat") as stat:
        ticks = [int(field) for field in stat.readline().split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / _TICKS


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
    cpu, wall = busy_s(), time.monotonic()
    outcome = yield
    line = [item.nodeid, round(busy_s() - cpu, 2), round(time.monotonic() - wall, 2)]
    with OUT.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")
    return outcome


def module_seconds(lines: list[str]) -> dict[str, float]:
    """Each module's wall seconds in a file this plugin wrote, longest first."""
    seconds: dict[str, float] = {}
    for text in lines:
        test_id, _cpu, wall = json.loads(text)[:3]
        module = test_id.split("::")[0]
        seconds[module] = seconds.get(module, 0.0) + wall
    return {module: round(value, 1) for module, value in sorted(seconds.items(), key=lambda item: (-item[1], item[0]))}


if __name__ == "__main__":
    import sys

    print(json.dumps(module_seconds(Path(sys.argv[1]).read_text(encoding="utf-8").splitlines()), indent=0))

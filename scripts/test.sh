#!/usr/bin/env bash
# Runs the whole test suite (unit, hostile-metric, AppTest and browser tests) with pytest-xdist: one worker more
# than the machine has cores (3 on 2 cores; at most 6). The browser tests wait on their pages, servers and
# sandboxes part of the time; with a worker per core the two cores stood idle 15% of the run, with one more
# 5%. --dist loadfile keeps each test module in one worker, so a browser-test module's one server serves all
# of its tests, and --no-loadscope-reorder hands the modules out in the order tests/conftest.py gives them (the
# longest first, by tests/module_seconds.json). Extra arguments go to pytest (e.g. -m "not slow", or a path).
# pytest's exit 5 (no tests collected) is a failure here, never a pass.
set -uo pipefail
cd "$(dirname "$0")/.."
# Bytecode is written (it is git-ignored): with PYTHONDONTWRITEBYTECODE set, as on this project's machines,
# every worker rewrote every test module's asserts again (4 s of CPU each) and every server and command-line
# process compiled the project's modules again.
unset PYTHONDONTWRITEBYTECODE
.venv/bin/python -c "from skynet_core.scoring.runner import detect_isolation as d; i, why = d(); print(f'isolation: {i.value} ({why})')"
cores=$(nproc 2>/dev/null || echo 1)
workers=$(( cores < 2 ? 1 : cores + 1 ))
workers=$(( workers > 6 ? 6 : workers ))
# A worker that dies (a crash, a kill) fails the run at once, naming the test it ran: with xdist's default a
# replacement worker was started, and once the controller then waited forever with every worker idle.
.venv/bin/python -m pytest -q -n "$workers" --dist loadfile --no-loadscope-reorder --max-worker-restart=0 "$@"
status=$?
if [[ $status == 5 ]]; then
  echo "test.sh: pytest collected no tests; that is a failure" >&2
  exit 1
fi
exit $status

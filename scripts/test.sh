#!/usr/bin/env bash
# Runs the whole test suite (unit, hostile-metric, AppTest and browser tests) on the machine's cores, at most 2
# workers (pytest-xdist); --dist loadfile keeps each test module in one worker, so a browser-test module's one
# server serves all of its tests. Extra arguments go to pytest (e.g. -m "not slow", or a path).
# pytest's exit 5 (no tests collected) is a failure here, never a pass.
set -uo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -c "from skynet_core.runner import detect_isolation as d; i, why = d(); print(f'isolation: {i.value} ({why})')"
cores=$(nproc 2>/dev/null || echo 1)
workers=$(( cores < 2 ? cores : 2 ))
.venv/bin/python -m pytest -q -n "$workers" --dist loadfile "$@"
status=$?
if [[ $status == 5 ]]; then
  echo "test.sh: pytest collected no tests; that is a failure" >&2
  exit 1
fi
exit $status

#!/usr/bin/env bash
# Runs the whole test suite (unit, hostile-metric, AppTest and browser tests).
# pytest's exit 5 (no tests collected) is a failure here, never a pass.
set -uo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -c "from skynet_core.runner import detect_isolation as d; i, why = d(); print(f'isolation: {i.value} ({why})')"
.venv/bin/python -m pytest -q "$@"
status=$?
if [[ $status == 5 ]]; then
  echo "test.sh: pytest collected no tests; that is a failure" >&2
  exit 1
fi
exit $status

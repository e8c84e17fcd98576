#!/usr/bin/env bash
# The quality gates: ruff (lint and format) over the tree, mypy on skynet_core and the UI layer (configured in
# pyproject.toml), mypy --strict on skynet_core, and the translation catalogs (scripts/i18n.py check).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/python -m mypy
# skynet_core strictly: every module but runner/worker.py (one untyped call into another engineer's code at the
# time of writing; drop its --exclude once it passes). Metric examples are metric code, as in pyproject.toml.
.venv/bin/python -m mypy --strict --follow-imports=silent skynet_core \
  --exclude 'skynet_core/examples/metrics/' --exclude 'skynet_core/runner/worker\.py'
# Every string translated, placeholders kept, and the compiled catalogs current (issue 16).
.venv/bin/python scripts/i18n.py check

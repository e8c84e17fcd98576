#!/usr/bin/env bash
# The quality gates: ruff (lint and format) over the tree, mypy on skynet_core and the UI layer (configured in
# pyproject.toml), mypy --strict on skynet_core, and the translation catalogs (scripts/i18n.py check).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/python -m mypy
# skynet_core strictly, every module. Metric examples are metric code, as in pyproject.toml.
.venv/bin/python -m mypy --strict --follow-imports=silent skynet_core --exclude 'skynet_core/examples/metrics/'
# Every string translated, placeholders kept, and the compiled catalogs current (issue 16).
.venv/bin/python scripts/i18n.py check

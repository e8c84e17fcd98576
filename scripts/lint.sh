#!/usr/bin/env bash
# The quality gates: ruff (lint and format) over the tree, mypy on skynet_core (configured in pyproject.toml),
# and the translation catalogs (scripts/i18n.py check).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/python -m mypy
# Every string translated, placeholders kept, and the compiled catalogs current (issue 16).
.venv/bin/python scripts/i18n.py check

#!/usr/bin/env bash
# The quality gates: ruff (lint and format) over the tree, and mypy on skynet_core (configured in pyproject.toml).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/python -m mypy

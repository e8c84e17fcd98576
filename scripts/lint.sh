#!/usr/bin/env bash
# The quality gates: ruff (lint and format) over the tree, mypy on skynet_core and the UI layer (configured in
# pyproject.toml), mypy --strict on the seam's modules, and the translation catalogs (scripts/i18n.py check).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/python -m mypy
# The seam every page and the CLI meet at, strictly (the rest of skynet_core follows after the merge).
.venv/bin/python -m mypy --strict --follow-imports=silent -p skynet_core.workspace \
  -m skynet_core.scoring -m skynet_core.jobs -m skynet_core.results -m skynet_core.provenance
# Every string translated, placeholders kept, and the compiled catalogs current (issue 16).
.venv/bin/python scripts/i18n.py check

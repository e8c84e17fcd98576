"""The example picker and the editor's completions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def example_shown(text: str, examples: Mapping[str, str]) -> str | None:
    """The example whose text the editor holds, or ``None`` when it holds other code."""
    stripped = text.strip()
    return next((title for title, source in examples.items() if source.strip() == stripped), None)


def python_completions() -> list[dict[str, Any]]:
    """The editor's completion list: Python 3's keywords and builtins only (Ace's own Python list
    includes Python 2 names such as ``raw_input``)."""
    import builtins
    import keyword

    words = [(word, "keyword") for word in [*keyword.kwlist, *keyword.softkwlist] if word.isidentifier()]
    words += [(name, "builtin") for name in dir(builtins) if not name.startswith("_")]
    return [{"caption": word, "value": word, "meta": meta, "score": 1} for word, meta in words]

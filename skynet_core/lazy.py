"""Names a package imports on first use (PEP 562), so that ``python -m skynet_core`` pays only for what
its command needs.

A package keeps its ``_HOMES`` (public name -> the submodule that defines it) and delegates its module
``__getattr__`` here::

    def __getattr__(name: str) -> object:
        return lazy_attribute(__name__, _HOMES, name)
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping


def lazy_attribute(package: str, homes: Mapping[str, str], name: str) -> object:
    """``package``'s attribute ``name``: imported from its home submodule and kept in the package, so the
    next use is a plain lookup; a submodule not imported yet (``skynet_core.reward`` after ``import
    skynet_core``); else :class:`AttributeError`, as for any missing attribute."""
    home = homes.get(name)
    if home is None:
        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{package}.{name}":
                raise
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"{package}.{home}"), name)
    setattr(sys.modules[package], name, value)
    return value

"""The human-score settings: the rater's name (who the scores made here belong to) and the pass threshold."""

from __future__ import annotations

import getpass
import math
from typing import Any, Protocol

from skynet_core.i18n import _

from .report import DEFAULT_THRESHOLD

RATER_SETTING = "human.rater"
"""The settings key of the rater's name (the Settings page changes it)."""
MAX_RATER_CHARS = 100
_LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"  # what str.splitlines() breaks a line at
FALLBACK_RATER = "rater"
THRESHOLD_SETTING = "human.threshold"
"""The settings key of the pass threshold the agreement report uses."""


class Settings(Protocol):
    """What keeps the setting: :class:`skynet_core.store.Store` (``get`` and ``set`` of JSON values)."""

    def get(self, key: str, default: Any = None) -> Any: ...

    def set(self, key: str, value: Any) -> None: ...


def default_rater() -> str:
    """The operating system's user name, or ``"rater"`` when it cannot be told."""
    try:
        name = getpass.getuser().strip()
    except (OSError, KeyError, ImportError):
        name = ""
    return name[:MAX_RATER_CHARS] or FALLBACK_RATER


def rater_name(settings: Settings | None = None) -> str:
    """The rater's name: the saved setting, else the OS user."""
    saved = settings.get(RATER_SETTING) if settings is not None else None
    return saved.strip() if isinstance(saved, str) and saved.strip() else default_rater()


def check_rater_name(name: str) -> str:
    """``name`` trimmed, when it can name a rater: one line of at most :data:`MAX_RATER_CHARS` characters, and not
    a name the pages give to something else (the data file's human column, every rater's mean), in any language.

    Raises ``ValueError`` with the sentence that says why (the caller adds where the name came from). The
    Settings page, the Human scores page and label files all go through here.
    """
    from .labels import reserved_rater_names

    name = name.strip()
    if len(name) > MAX_RATER_CHARS or any(char in name for char in _LINE_BREAKS):
        raise ValueError(_("A rater's name is one line of at most {limit} characters.").format(limit=MAX_RATER_CHARS))
    if name.casefold() in reserved_rater_names():
        raise ValueError(
            _("{name} is the name the studio gives to other scores; choose another name.").format(name=name)
        )
    return name


def set_rater_name(settings: Settings, name: str) -> str:
    """Save the rater's name (trimmed); an empty name goes back to the OS user. Returns the name in force.

    Raises ``ValueError`` for a name :func:`check_rater_name` refuses.
    """
    name = check_rater_name(name)
    settings.set(RATER_SETTING, name)
    return name or default_rater()


def pass_threshold(settings: Settings | None = None) -> float:
    """The pass threshold: the saved setting, else :data:`.report.DEFAULT_THRESHOLD` (0.5)."""
    saved = settings.get(THRESHOLD_SETTING) if settings is not None else None
    if isinstance(saved, (int, float)) and not isinstance(saved, bool) and math.isfinite(saved):
        return float(saved)
    return DEFAULT_THRESHOLD


def set_pass_threshold(settings: Settings, value: float) -> float:
    """Save the pass threshold; raises ``ValueError`` for a value that is not a finite number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(_("The pass threshold must be a finite number, not {value!r}.").format(value=value))
    settings.set(THRESHOLD_SETTING, float(value))
    return float(value)

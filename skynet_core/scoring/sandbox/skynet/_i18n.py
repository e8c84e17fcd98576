"""The language of the messages the sandbox writes (contract check messages, reward feedback lines).

STDLIB ONLY. In the studio's process this is ``skynet_core.i18n``'s ``_``/``ngettext`` (the
current context's language). In the metric's child process, which cannot import the studio, the
translations of the sandbox's own strings come from ``locale/<lang>.json`` beside the sandbox
(written by ``scripts/i18n.py compile`` with the .mo), and the language is the one the studio's
load request names (:func:`set_language`), so a check's messages follow the language of the
session that runs it.
"""

from __future__ import annotations

import json
import os
from typing import Any

if __package__ == "skynet_core.scoring.sandbox.skynet":  # imported by the studio
    from skynet_core.i18n import N_ as N_
    from skynet_core.i18n import _ as _
    from skynet_core.i18n import ngettext as ngettext
else:  # the metric's child process
    _messages: dict[str, Any] = {}
    _loaded: dict[str, dict[str, Any]] = {}
    LOCALE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "locale")

    def set_language(language: Any) -> None:
        """Use ``language``'s translations (English, the source strings, for anything unknown)."""
        global _messages
        if not isinstance(language, str) or not language.replace("_", "").isalnum() or language == "en":
            _messages = {}
            return
        if language not in _loaded:
            try:
                with open(os.path.join(LOCALE_DIR, language + ".json"), encoding="utf-8") as handle:
                    table = json.load(handle)
                _loaded[language] = table if isinstance(table, dict) else {}
            except (OSError, ValueError):
                _loaded[language] = {}
        _messages = _loaded[language]

    def N_(message: str) -> str:  # noqa: N802 - the gettext marker's name
        return message

    def _(message: str) -> str:
        found = _messages.get(message)
        return found if isinstance(found, str) else message

    def ngettext(singular: str, plural: str, n: int) -> str:
        # The plural forms of the one catalog language (Chinese) are one: the first form.
        found = _messages.get(singular)
        if isinstance(found, list) and found:
            return str(found[0])
        return singular if n == 1 else plural

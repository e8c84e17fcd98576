"""The studio's languages: English (the source strings) and Simplified Chinese (简体中文).

Every string a person reads is written in English in the code and wrapped in ``_()`` (or ``ngettext``
for counts), with named ``{placeholders}`` filled after translation, never concatenated from
translated fragments::

    from skynet_core.i18n import _
    st.caption(_("Showing {shown} of {total} scored cases").format(shown=n, total=total))

A string defined at import time (a stage label in a table, a rule's title) is marked with ``N_()``
for the extractor and translated with ``_()`` where it is shown, so it follows the language of the
session that shows it.

The language is per context (a Streamlit session's script run, a job's thread, a CLI run):
``set_language`` sets it for the current context, ``use_language`` for a block, and a thread that
should follow its starter's language runs under ``contextvars.copy_context()``.

Catalogs: ``skynet_core/locale/<lang>/parts/*.po`` are the translations, one part per area so that
work on different pages never edits the same file; ``scripts/i18n.py`` extracts the template, merges
the parts and compiles ``skynet_core/locale/<lang>/LC_MESSAGES/skynet.mo`` (run by ``scripts/setup.sh``;
a test fails when the compiled catalog is not current or a string lacks a translation).
"""

from __future__ import annotations

import functools
import gettext as _gettext
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from pathlib import Path
from typing import ParamSpec, TypeVar

DOMAIN = "skynet"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
SOURCE_LANGUAGE = "en"
# The languages a person can pick, in the picker's order, each named in itself.
LANGUAGES: dict[str, str] = {"en": "English", "zh_CN": "简体中文"}

_language: ContextVar[str] = ContextVar("skynet_language", default=SOURCE_LANGUAGE)
P = ParamSpec("P")
R = TypeVar("R")


def resolve(tag: str | None) -> str:
    """The supported language closest to a locale tag ("zh-CN", "zh_Hans", "zh_CN.UTF-8", "en-GB"...).

    Any Chinese tag resolves to Simplified Chinese (the only Chinese catalog); anything else, or
    nothing, to English.
    """
    if not tag:
        return SOURCE_LANGUAGE
    base = tag.split(".", 1)[0].split("@", 1)[0].replace("-", "_").strip().lower()
    if base.startswith("zh"):
        return "zh_CN"
    return SOURCE_LANGUAGE


def from_environment(env: Mapping[str, str] | None = None) -> str:
    """The language the POSIX environment asks for: ``LC_ALL``, then ``LC_MESSAGES``, then ``LANG``."""
    env = os.environ if env is None else env
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value:
            return resolve(value)
    return SOURCE_LANGUAGE


@functools.cache
def translations(language: str) -> _gettext.NullTranslations:
    """The compiled catalog of a language (the identity for English or a missing catalog)."""
    if language == SOURCE_LANGUAGE:
        return _gettext.NullTranslations()
    return _gettext.translation(DOMAIN, LOCALE_DIR, languages=[language], fallback=True)


def language() -> str:
    """The current context's language."""
    return _language.get()


def set_language(value: str | None) -> str:
    """Set the current context's language (resolved to a supported one); returns it."""
    resolved = value if value in LANGUAGES else resolve(value)
    _language.set(resolved)
    return resolved


@contextmanager
def use_language(value: str | None) -> Iterator[str]:
    """Run a block in a language, restoring the previous one after it."""
    resolved = value if value in LANGUAGES else resolve(value)
    token = _language.set(resolved)
    try:
        yield resolved
    finally:
        _language.reset(token)


def with_language(function: Callable[P, R]) -> Callable[P, R]:
    """``function`` bound to the current language: wherever it is called, it runs in the language that was
    current when this was called.

    For a page's button callbacks: Streamlit runs a callback in a fresh script thread, whose context has the
    default language, *before* the page sets the session's language; a job the callback starts copies that
    context, so its messages (and the sandbox's: reward()'s feedback lines, the check's) come out in
    English. Made while the page draws the button, ``on_click=with_language(start_score)`` runs in the
    page's language.
    """
    bound = _language.get()

    @functools.wraps(function)
    def in_language(*args: P.args, **kwargs: P.kwargs) -> R:
        with use_language(bound):
            return function(*args, **kwargs)

    return in_language


def _(message: str) -> str:
    """``message`` in the current language."""
    return translations(_language.get()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form of a message for ``n``, in the current language."""
    return translations(_language.get()).ngettext(singular, plural, n)


def N_(message: str) -> str:  # noqa: N802 - the conventional gettext marker's name
    """Mark a string for the extractor without translating it (translate it with ``_`` where shown)."""
    return message


def babel_locale() -> str:
    """The current language as a Babel/CLDR locale name (for numbers, dates and durations)."""
    return {"zh_CN": "zh_Hans_CN"}.get(_language.get(), "en")


def format_number(value: float, digits: int | None = None) -> str:
    """A number in the current locale's format, with ``digits`` decimals when given."""
    from babel.numbers import format_decimal

    if digits is None:
        return format_decimal(value, locale=babel_locale())
    pattern = "#,##0." + "0" * digits if digits > 0 else "#,##0"
    return format_decimal(value, format=pattern, locale=babel_locale())


def format_cost(usd: float | None) -> str:
    """A cost in US dollars as every page, trace and report shows it: "$0.000045", "$0.0020", "$1,234.50"
    (the decimals of ``cost_decimals``, the reward feedback lines' own rule; digits in the current locale);
    "unknown" (translated) for ``None``."""
    if usd is None:
        return _("unknown")
    from ..scoring.sandbox.skynet._numbers import cost_decimals  # the sandbox's own rule, standard library only

    return "$" + format_number(usd, cost_decimals(usd))


def format_datetime(moment: datetime, form: str = "medium") -> str:
    """A date and time in the current locale's format."""
    from babel.dates import format_datetime as babel_format_datetime

    return babel_format_datetime(moment, format=form, locale=babel_locale())


def format_duration(seconds: float) -> str:
    """A duration such as "1.2 s" / "3 min" in the current locale's words."""
    from datetime import timedelta

    from babel.dates import format_timedelta
    from babel.numbers import format_decimal

    if seconds < 60:
        digits = "0.0" if seconds < 10 else "0"
        unit = _("{value} s")
        return unit.format(value=format_decimal(seconds, format=digits, locale=babel_locale()))
    return format_timedelta(timedelta(seconds=seconds), threshold=1.0, format="short", locale=babel_locale())

"""The studio's languages: English (the source strings) and Simplified Chinese (简体中文).

``translate`` holds the language of the current context and the functions every module uses (``_``,
``ngettext``, ``N_``, the number and date formats); ``catalog`` builds and checks the translation catalogs
(``scripts/i18n.py``). The catalogs themselves are ``skynet_core/locale/<lang>/parts/*.po``.
"""

from .translate import (
    DOMAIN,
    LANGUAGES,
    LOCALE_DIR,
    N_,
    SOURCE_LANGUAGE,
    _,
    babel_locale,
    format_cost,
    format_datetime,
    format_duration,
    format_number,
    from_environment,
    language,
    ngettext,
    resolve,
    set_language,
    translations,
    use_language,
    with_language,
)

__all__ = [
    "DOMAIN",
    "LANGUAGES",
    "LOCALE_DIR",
    "N_",
    "SOURCE_LANGUAGE",
    "_",
    "babel_locale",
    "format_cost",
    "format_datetime",
    "format_duration",
    "format_number",
    "from_environment",
    "language",
    "ngettext",
    "resolve",
    "set_language",
    "translations",
    "use_language",
    "with_language",
]

"""Ids that look the same but are different text: ``"caf\\u00e9"`` and ``"cafe\\u0301"`` are two cases that read
as one. They are kept apart (the data says they differ) and warned about, naming where each is."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from skynet_core.i18n import _, ngettext


def nfc_twins(ids: Iterable[tuple[str, str]]) -> str | None:
    """A warning for people when two of ``ids`` (each ``(id, where)``, ``where`` such as "line 3") differ but are
    equal after Unicode NFC normalisation, or None. ASCII ids, nearly all of them, cost one check each."""
    seen: dict[str, tuple[str, str]] = {}
    first: tuple[tuple[str, str], tuple[str, str]] | None = None
    pairs = 0
    for case_id, where in ids:
        if case_id.isascii():
            key = case_id
        else:
            key = unicodedata.normalize("NFC", case_id)
        earlier = seen.setdefault(key, (case_id, where))
        if earlier[0] != case_id:
            pairs += 1
            first = first or (earlier, (case_id, where))
    if first is None:
        return None
    (one, one_where), (two, two_where) = first
    return ngettext(
        "ids {one} ({one_where}) and {two} ({two_where}) look the same but are different text (they are equal after "
        "Unicode NFC normalisation), so they are scored as different cases. Write them the same way if they are one "
        "case.",
        "{count} pairs of ids look the same but are different text (equal after Unicode NFC normalisation), e.g. "
        "{one} ({one_where}) and {two} ({two_where}); they are scored as different cases. Write each the same way "
        "if they are one case.",
        pairs,
    ).format(one=ascii(one), one_where=one_where, two=ascii(two), two_where=two_where, count=pairs)


def warning_of(file: str, text: str | None) -> list[str]:
    """The dataset's warnings: ``text`` headed by the file's name, or none."""
    return [_("{file}: {warning}").format(file=file, warning=text)] if text else []

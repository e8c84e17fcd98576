"""Ids that look the same but are different text: ``"caf\\u00e9"`` and ``"cafe\\u0301"`` are two cases that read
as one. They are kept apart (the data says they differ) and warned about, naming where each is."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from typing import TypeVar

from skynet_core.i18n import _, ngettext

_W = TypeVar("_W")


def nfc_twins(ids: Iterable[tuple[str, _W]], where: Callable[[_W], str] = str) -> str | None:
    """A warning for people when two of ``ids`` (each ``(id, at)``) differ but are equal after Unicode NFC
    normalisation, or None. ``where(at)`` says where an id is ("line 3"): asked only for the pair named, not
    for each of 900,000 ids. ASCII ids, nearly all of them, cost one check each."""
    seen: dict[str, tuple[str, _W]] = {}
    first: tuple[tuple[str, _W], tuple[str, _W]] | None = None
    pairs = 0
    for case_id, at in ids:
        if case_id.isascii():
            key = case_id
        else:
            key = unicodedata.normalize("NFC", case_id)
        earlier = seen.setdefault(key, (case_id, at))
        if earlier[0] != case_id:
            pairs += 1
            first = first or (earlier, (case_id, at))
    if first is None:
        return None
    (one, one_at), (two, two_at) = first
    one_where, two_where = where(one_at), where(two_at)
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

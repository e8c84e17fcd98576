"""What the pages say about stored labels: an import's outcome, the labels that match the data in use, an import
kept, and how far the labelling has come for you and for everyone. Ids and names are data: the caller shows
them literally (the Human scores page passes these through its markdown escaping)."""

from __future__ import annotations

from skynet_core.human.human_score import LabelImport
from skynet_core.i18n import _, format_datetime, format_number, ngettext

from .labels import HumanLabels, ImportedLabels, rater_label

EXAMPLES_SHOWN = 3


def _examples(ids: tuple[str, ...], total: int) -> str:
    shown = ", ".join(ids[:EXAMPLES_SHOWN])
    return shown + (", …" if total > min(len(ids), EXAMPLES_SHOWN) else "")


def imported_text(found: ImportedLabels) -> str:
    """ "Imported 60 human scores by ana for candidate small (the file names none). 999,990 rows name cases not in
    the data, e.g. x1, x2, x3 …: they were not kept." """
    raters = ", ".join(rater_label(name) for name in found.raters) or "–"
    count = format_number(found.count)
    if found.candidate:
        text = ngettext(
            "Imported {count} human score by {raters} for candidate {candidate} (the file names no candidate).",
            "Imported {count} human scores by {raters} for candidate {candidate} (the file names no candidate).",
            found.count,
        ).format(count=count, raters=raters, candidate=found.candidate)
    else:
        text = ngettext(
            "Imported {count} human score by {raters}.", "Imported {count} human scores by {raters}.", found.count
        ).format(count=count, raters=raters)
    if found.unknown_rows:
        text += " " + unknown_text(found.unknown_rows, found.unknown_sample)
    return text


def unknown_text(rows: int, sample: tuple[str, ...]) -> str:
    """ "999,990 rows name cases not in the data, e.g. x1, x2, x3, …: they were not kept." """
    return ngettext(
        "{count} row names a case not in the data, {ids}: it was not kept.",
        "{count} rows name cases not in the data, e.g. {ids}: they were not kept.",
        rows,
    ).format(count=format_number(rows), ids=_examples(sample, rows))


def matched_text(labels: HumanLabels, candidate: str | None = None) -> str:
    """ "60 stored human scores match cases of this data (first made on support.csv), 20 of them of candidate
    small's outputs; 3 more name other cases." (the candidate's part when one with a name is given)."""
    stored = labels.stored()
    count = len(stored)
    if labels.origin:
        text = ngettext(
            "{count} stored human score matches cases of this data by id (first made on {file}).",
            "{count} stored human scores match cases of this data by id (first made on {file}).",
            count,
        ).format(count=format_number(count), file=labels.origin)
    else:
        text = ngettext(
            "{count} stored human score of this data.", "{count} stored human scores of this data.", count
        ).format(count=format_number(count))
    if candidate and count:
        own = sum(1 for score in stored if score.candidate == candidate)
        text += " " + ngettext(
            "{count} of them is of candidate {candidate}'s outputs.",
            "{count} of them are of candidate {candidate}'s outputs.",
            own,
        ).format(count=format_number(own), candidate=candidate)
    if labels.elsewhere:
        text += " " + ngettext(
            "{count} more names a case this data does not have.",
            "{count} more name cases this data does not have.",
            labels.elsewhere,
        ).format(count=format_number(labels.elsewhere))
    return text


def import_line(item: LabelImport) -> str:
    """ "labels.csv · 4 Dec 2026 10:02 · 60 kept (58 still stored) · 999,990 rows for other cases" """
    from datetime import UTC, datetime

    parts = [
        item.file,
        format_datetime(datetime.fromtimestamp(item.imported_at, UTC).astimezone(), "short"),
        ngettext("{count} kept", "{count} kept", item.kept).format(count=format_number(item.kept)),
    ]
    if item.remaining != item.kept:
        parts[-1] += " " + _("({count} still stored)").format(count=format_number(item.remaining))
    if item.unknown_rows:
        parts.append(
            ngettext("{count} row for another case", "{count} rows for other cases", item.unknown_rows).format(
                count=format_number(item.unknown_rows)
            )
        )
    return " · ".join(parts)


def labelled_text(mine: int, anyone: int, total: int) -> str:
    """The labelling view's progress: "10 of 60 labelled by you · 25 by any rater" (the report counts any rater's)."""
    text = ngettext("{labelled} of {total} labelled by you", "{labelled} of {total} labelled by you", total).format(
        labelled=format_number(mine), total=format_number(total)
    )
    return text + " · " + _("{count} by any rater").format(count=format_number(anyone))

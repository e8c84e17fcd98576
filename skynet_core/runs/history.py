"""Comparing two versions of metric.py: the text diff and the per-case change in scores; which version holds
a scored text (:func:`keep_scored_text`) and what a version is called (:func:`short_name`, in the reader's
language).

A case is compared when both runs have it (by candidate and id). Its delta is
``new - old`` when both scored ok; a change of status (ok → error, say) is
reported without a delta, since a failed case has no score.
"""

from __future__ import annotations

import difflib
import functools
import re
from dataclasses import dataclass, replace
from datetime import datetime

import pandas as pd

from ..i18n import LANGUAGES, N_, _, format_datetime, translations
from ..metric.source import MetricSource
from ..provenance import Provenance
from ..results import CaseResult
from ..store import DEFAULT_WORKSPACE, Store, Version, VersionKind

LABEL_NAME_CHARS = 48
"""Most characters of a version's name in its label; the rest becomes "…"."""
# A time the studio wrote into a version's name ("before … (19:28:49)", "autosave 19:28:49",
# "other tab's text, replaced at 19:28:49", or their Chinese with full-width brackets): the label shows the
# version's time once, itself.
_NAME_TIME = re.compile(r"\s*(?:[(（]\s*|\bat\s+)?\d{1,2}:\d{2}(?::\d{2})?\s*[)）]?\s*$")


# The names the studio writes for versions (in workspace.py, pages and panels: the same msgids, so the same
# translations), and the reasons a text was replaced: a stored name is read back in the reader's language.
WRITTEN_NAMES = (
    N_("before {reason} ({time})"),
    N_("autosave {time}"),
    N_("other tab's text, replaced at {time}"),
    N_("scored {time}"),
)
REASONS = (
    N_("restoring {version}"),
    N_("Reward trade-offs wrote REWARD_SPEC"),
    N_("example {title}"),
    N_("mapping the fields of {title}"),
    N_("upload of {name}"),
    N_("adding {name}"),
    N_("renaming {name}"),
    N_("deleting {name}"),
)
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@functools.cache
def _patterns(templates: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Each template with a pattern matching it as written in each language (placeholders as groups)."""
    found = []
    for template in templates:
        for language in LANGUAGES:
            written = translations(language).gettext(template)
            parts = _PLACEHOLDER.split(written)  # literal, name, literal, name, ...
            pattern = "".join(
                re.escape(part) if index % 2 == 0 else f"(?P<{part}>.+?)" for index, part in enumerate(parts)
            )
            found.append((template, re.compile(pattern, re.S)))
    return tuple(found)


def _localized(text: str, templates: tuple[str, ...]) -> str | None:
    for template, pattern in _patterns(templates):
        match = pattern.fullmatch(text.strip())
        if match is None:
            continue
        values = match.groupdict()
        if "reason" in values:
            values["reason"] = _localized(values["reason"], REASONS) or values["reason"]
        if "title" in values:
            values["title"] = _example_title(values["title"])
        return _(template).format(**values)
    return None


def _example_title(title: str) -> str:
    """A bundled example's title in the current language, whichever language it was written in."""
    from ..examples import EXAMPLE_METRICS

    for key in EXAMPLE_METRICS:
        if title in {translations(language).gettext(key) for language in LANGUAGES}:
            return _(key)
    return title


def localized_name(name: str) -> str:
    """A version's name in the current language when the studio wrote it ("before restoring #5 (19:28:49)"
    reads "恢复 #5 之前（19:28:49）" in Chinese, whatever language the session that wrote it spoke); a name a
    person gave stays as typed."""
    return _localized(name, WRITTEN_NAMES) or name


def short_name(version: Version) -> str:
    """A version's name without the time the studio wrote into it ("autosave" for an autosave), at most
    :data:`LABEL_NAME_CHARS` characters: "#5 before Reward trade-offs wrote REWARD_SPEC". A name the studio
    wrote reads in the current language (:func:`localized_name`)."""
    written = localized_name(version.name) if version.kind is not VersionKind.NAMED else version.name
    name = _NAME_TIME.sub("", written).strip() or written.strip()
    if version.kind is VersionKind.AUTO:
        name = _("autosave")
    if len(name) > LABEL_NAME_CHARS:
        name = name[: LABEL_NAME_CHARS - 1].rstrip() + "…"
    return f"#{version.id} {name}"


def version_label(version: Version) -> str:
    """A version as a picker shows it, short and saying the time once: "#5 before … wrote REWARD_SPEC ·
    11/30/26, 7:28 PM" (the time in the current locale; an autosave is called that; a long name is cut)."""
    stamp = format_datetime(datetime.fromtimestamp(version.created_at), "short")
    return f"{short_name(version)} · {stamp}"


NO_NEWLINE = "\\ No newline at end of file\n"


def unified_diff(old: str, new: str, old_name: str = "old/metric.py", new_name: str = "new/metric.py") -> str:
    """A unified diff of two metric.py texts ("" when they are equal). A last line without a newline is marked
    as ``diff`` and ``git`` mark it (``\\ No newline at end of file``), never joined to the line after it."""
    return "".join(
        line if line.endswith("\n") else line + "\n" + NO_NEWLINE
        for line in difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=old_name, tofile=new_name
        )
    )


def folder_diff(old: MetricSource, new: MetricSource) -> str:
    """A unified diff of two metric folders, file by file (metric.py first; "" when they are equal)."""
    names = [*old.files, *(name for name in new.files if name not in old.files)]
    return "".join(
        unified_diff(old.files.get(name, ""), new.files.get(name, ""), f"A/{name}", f"B/{name}") for name in names
    )


def keep_scored_text(store: Store, metric: MetricSource, workspace: str = DEFAULT_WORKSPACE) -> Version:
    """The version that holds ``metric``, the text a run is about to be scored with: the newest version with
    exactly this folder, else a new version of kind ``scored`` ("scored 19:28:49"). So every scored text can
    be found and restored on History, and Runs names a version for it (never only "metric.py 65fbbc2")."""
    for version in store.versions(workspace):
        if version.folder == metric:
            return version
    return store.save_version(
        _("scored {time}").format(time=f"{datetime.now():%H:%M:%S}"), metric, workspace, VersionKind.SCORED
    )


@dataclass(frozen=True)
class Comparison:
    """The per-case table and its summary. ``table`` columns: id, old_score, new_score, delta, old_status,
    new_status, split, candidate, old_feedback, new_feedback (largest |delta| first)."""

    table: pd.DataFrame
    improved: int
    worsened: int
    unchanged: int
    status_changed: int
    old_mean: float | None
    new_mean: float | None
    only_old: int
    only_new: int


def compare_runs(
    old: list[CaseResult], new: list[CaseResult], *, tolerance: float = 1e-9, by_id: bool = False
) -> Comparison:
    """Pair the two runs' results by (candidate, id), or by id alone with ``by_id`` (two candidates' runs on the
    same cases), and measure what changed."""

    def paired_by(result: CaseResult) -> tuple[str, str]:
        return ("", result.id) if by_id else (result.candidate, result.id)

    old_by_key = {paired_by(result): result for result in old}
    new_by_key = {paired_by(result): result for result in new}
    rows = []
    for key, after in new_by_key.items():
        before = old_by_key.get(key)
        if before is None:
            continue
        delta = None
        if before.ok and after.ok and before.score is not None and after.score is not None:
            delta = after.score - before.score
        rows.append(
            {
                "id": after.id,
                "split": after.split,
                "candidate": after.candidate,
                "old_status": before.status.value,
                "new_status": after.status.value,
                "old_score": before.score,
                "new_score": after.score,
                "delta": delta,
                "old_feedback": before.feedback if before.ok else before.error.split("\n", 1)[0],
                "new_feedback": after.feedback if after.ok else after.error.split("\n", 1)[0],
            }
        )
    table = pd.DataFrame(
        rows,
        columns=[  # the scores and the change first: what a reader looks for, visible at 900 px too
            "id",
            "old_score",
            "new_score",
            "delta",
            "old_status",
            "new_status",
            "split",
            "candidate",
            "old_feedback",
            "new_feedback",
        ],
    )
    for column in ("old_score", "new_score", "delta"):
        table[column] = pd.to_numeric(table[column], errors="coerce")
    if not table.empty:
        table = table.reindex(table["delta"].abs().sort_values(ascending=False, na_position="first").index)
        table = table.reset_index(drop=True)
    deltas = table["delta"].dropna()
    scored = table.dropna(subset=["delta"])
    return Comparison(
        table=table,
        improved=int((deltas > tolerance).sum()),
        worsened=int((deltas < -tolerance).sum()),
        unchanged=int((deltas.abs() <= tolerance).sum()),
        status_changed=int((table["old_status"] != table["new_status"]).sum()),
        old_mean=float(scored["old_score"].mean()) if len(scored) else None,
        new_mean=float(scored["new_score"].mean()) if len(scored) else None,
        only_old=len(old_by_key.keys() - new_by_key.keys()),
        only_new=len(new_by_key.keys() - old_by_key.keys()),
    )


def comparison_changes(
    made_by: Provenance, compared: tuple[str, str], current: Provenance, chosen: tuple[str, str]
) -> list[str]:
    """What changed since versions A and B were scored side by side, for people ([] while the scores shown are
    current). ``compared`` and ``chosen`` are (A, B) as folder digests: the versions compared then and the ones
    chosen now. A comparison is about its two versions, never about the draft (unless the draft is one of them,
    which is then a version that changed); the dataset, candidate, split and model count as for any result."""
    found = [
        message
        for message, was, now in zip(
            (_("version A is not the one compared"), _("version B is not the one compared")),
            compared,
            chosen,
            strict=True,
        )
        if was != now
    ]
    return found + made_by.changes(replace(current, metric=made_by.metric))

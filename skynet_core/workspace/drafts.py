"""The draft and its versions (the draft protocol: see the package's docstring), and the reflection step's text."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..i18n import _
from ..metric.source import MetricSource
from ..store import DEFAULT_WORKSPACE, Draft, Store, Version, VersionKind
from .values import (
    AUTO_VERSION_S,
    SETTING_CONFLICT,
    SETTING_INSTRUCTION,
    Conflict,
    DraftWrite,
    SavedVersion,
    example_metric,
    scoped_key,
)


def clock() -> str:
    return f"{datetime.now():%H:%M:%S}"


class Drafts:
    """The draft of one workspace (``name``) in ``store``, its versions, and the reflection step's texts."""

    def __init__(self, store: Store, name: str = DEFAULT_WORKSPACE) -> None:
        self.store = store
        self.name = name

    def _key(self, key: str) -> str:
        return scoped_key(self.name, key)

    def current(self) -> Draft:
        """The stored draft; revision 0 with the first example when nothing was ever written."""
        return self.store.draft_record(self.name) or Draft(0, example_metric(), 0.0)

    def type(self, metric: str | MetricSource, base_revision: int) -> DraftWrite:
        """Save what the user typed, based on ``base_revision`` (the revision the editor showed).

        On a conflict, the stored text is kept as a version and the typed text becomes the draft.
        """
        metric = MetricSource.of(metric)
        written, stored = self.store.write_draft(metric, base_revision, self.name)
        if written:
            self._autosave(metric)
            return DraftWrite(stored)
        if stored.metric == metric:
            return DraftWrite(stored)
        kept = None
        while not written:
            # Whatever another writer stored meanwhile is kept before the typed text replaces it.
            kept = self.store.save_version(
                _("other tab's text, replaced at {time}").format(time=clock()),
                stored.metric,
                self.name,
                VersionKind.KEPT,
            )
            written, stored = self.store.write_draft(metric, stored.revision, self.name)
        assert kept is not None
        self.store.set(self._key(SETTING_CONFLICT), {"version": kept.id, "at": kept.created_at})
        return DraftWrite(stored, kept, conflict=True)

    def replace(self, metric: str | MetricSource, reason: str, *, keep: bool = True) -> DraftWrite:
        """Make ``metric`` the draft for ``reason`` (an example, an upload, a restore…); the text it replaces
        becomes a version first when it differs and was ever written (unless a version holds it already: that one
        is returned as kept). ``keep=False`` is for changes that lose
        no text (adding an empty file, renaming one)."""
        metric = MetricSource.of(metric)
        current = self.current()
        kept = None
        if keep and current.revision and current.metric != metric and current.source.strip():
            # A version that holds the text already (scored, saved) is the one kept: no twin. An autosave of
            # it becomes the kept version, with its name, as in save_version.
            name = _("before {reason} ({time})").format(reason=reason, time=clock())
            kept = next((version for version in self.versions() if version.folder == current.metric), None)
            if kept is None:
                kept = self.store.save_version(name, current.metric, self.name, VersionKind.KEPT)
            elif kept.kind is VersionKind.AUTO:
                kept = self.store.name_version(kept.id, name, VersionKind.KEPT)
        return DraftWrite(self.store.write_draft(metric, None, self.name)[1], kept)

    def save_version(self, name: str, metric: str | MetricSource | None = None) -> SavedVersion:
        """Save the draft (or ``metric``) as a named version, unless it is already the latest version."""
        metric = MetricSource.of(metric) if metric is not None else self.current().metric
        latest = self.store.latest_version(self.name)
        if latest is not None and latest.folder == metric:
            if latest.kind is VersionKind.NAMED:
                return SavedVersion(latest, created=False)
            # The latest version is an automatic copy of the same text: it gets the name instead of a twin.
            return SavedVersion(self.store.name_version(latest.id, name.strip() or "unnamed"), created=True)
        return SavedVersion(self.store.save_version(name.strip() or "unnamed", metric, self.name), created=True)

    def versions(self) -> list[Version]:
        """The saved versions, newest first."""
        return self.store.versions(self.name)

    def version(self, version_id: int) -> Version | None:
        """A saved version by its id (``None``: there is none)."""
        return self.store.version(version_id)

    def last_conflict(self) -> Conflict | None:
        """The last conflict between two writers of the draft, if there was one."""
        value = self.store.get(self._key(SETTING_CONFLICT))
        if not isinstance(value, dict):
            return None
        return Conflict(int(value.get("version", 0)), float(value.get("at", 0.0)))

    def _autosave(self, metric: MetricSource) -> None:
        last_auto = self.store.latest_version(self.name, VersionKind.AUTO)
        if last_auto is not None and self.current().updated_at - last_auto.created_at < AUTO_VERSION_S:
            return
        latest = self.store.latest_version(self.name)
        if latest is None or latest.folder != metric:
            self.store.save_version(_("autosave {time}").format(time=clock()), metric, self.name, VersionKind.AUTO)

    # --- the reflection step's text: kept like the draft, per dataset --------------------------------

    def instruction(self, dataset: str) -> str | None:
        """The text "Try one reflection step" optimizes for ``dataset`` (its source), as last typed; ``None``
        when none was typed (the page then starts from the dataset's own instruction, if it has one)."""
        value = self._instructions().get(dataset)
        return value if isinstance(value, str) else None

    def set_instruction(self, dataset: str, text: str) -> None:
        """Keep ``text`` as the reflection step's text for ``dataset`` (every page and session reads it)."""
        self.store.set(self._key(SETTING_INSTRUCTION), {**self._instructions(), dataset: text})

    def _instructions(self) -> dict[str, Any]:
        value = self.store.get(self._key(SETTING_INSTRUCTION))
        return value if isinstance(value, dict) else {}

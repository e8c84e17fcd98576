"""What produced a result: the metric, the dataset, the candidate, the split and the model settings.

Every result the studio shows (a check, a scored run, a comparison) carries the
:class:`Provenance` it was made with; a page compares it with the workspace's
current one and says, in words, what changed since (:meth:`Provenance.changes`).
An empty field means "not known" (a run saved before provenance was kept) and is
never reported as a change.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from typing import Any

import orjson

from .i18n import _


def settings_fingerprint(model: str, api_base: str | None, temperature: float) -> str:
    """A short stable id of the model settings that decide what ``llm()`` answers (never a key)."""
    text = orjson.dumps([model, api_base or "", temperature]).decode()
    return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Provenance:
    """What a result was made from. ``metric`` is the metric folder's digest, ``dataset`` the dataset's
    source (file path or ``"example"``), ``split`` ``None`` for every split, ``models`` the fingerprint of
    the model settings and ``model_label`` the metric model's name for people (``""``: none).
    ``dataset_identity`` is the digest of every file the dataset was built from, by content
    (``Dataset.identity``), so a candidate file replaced under the same main file is a change."""

    metric: str
    dataset: str
    dataset_name: str
    candidate: str
    split: str | None
    models: str = ""
    model_label: str = ""
    dataset_identity: str = ""

    def changes(self, current: Provenance) -> list[str]:
        """What differs in ``current`` (the workspace now) from what made this result, for people; [] if current."""
        found = []
        if self.metric and current.metric and self.metric != current.metric:
            found.append(_("metric.py changed"))
        if self.dataset and self.dataset != current.dataset:
            found.append(_("the dataset is now {name}").format(name=current.dataset_name or current.dataset))
        else:
            if self.dataset_identity and current.dataset_identity and self.dataset_identity != current.dataset_identity:
                found.append(_("the dataset's files changed"))
            if self.candidate != current.candidate:
                found.append(_("the candidate is now {name}").format(name=current.candidate or _("(only one)")))
        if self.split != current.split:
            found.append(_("the split is now {name}").format(name=current.split or _("all")))
        if self.models and current.models and self.models != current.models:
            found.append(_("the metric model is now {name}").format(name=current.model_label or _("none")))
        return found

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> Provenance | None:
        if not isinstance(data, dict):
            return None
        try:
            return cls(
                str(data.get("metric") or ""),
                str(data.get("dataset") or ""),
                str(data.get("dataset_name") or ""),
                str(data.get("candidate") or ""),
                data.get("split"),
                str(data.get("models") or ""),
                str(data.get("model_label") or ""),
                str(data.get("dataset_identity") or ""),
            )
        except (TypeError, ValueError):
            return None

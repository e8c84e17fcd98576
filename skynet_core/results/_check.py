"""The contract check's values: its stages in order, each stage's verdict, the isolation a run had, the report."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ..i18n import N_, _
from ._case import CaseResult
from ._tally import RunTally


class StageName(StrEnum):
    LOAD = "load"
    SIGNATURE = "signature"
    REWARD_SPEC = "reward_spec"
    RETURN_VALUE = "return_value"

    @property
    def label(self) -> str:
        """The label people see (contract Part B rule 6)."""
        return _(_STAGE_LABELS[self])


_STAGE_LABELS = {
    StageName.LOAD: N_("load"),
    StageName.SIGNATURE: N_("signature"),
    StageName.REWARD_SPEC: N_("reward spec"),
    StageName.RETURN_VALUE: N_("metric return value"),
}

STAGE_ORDER = (StageName.LOAD, StageName.SIGNATURE, StageName.REWARD_SPEC, StageName.RETURN_VALUE)


class StageStatus(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    NOT_RUN = "not_run"


class Isolation(StrEnum):
    """How strongly metric code was isolated.

    ``full``: bubblewrap sandbox, unprivileged user, no network, only the
    Python files it needs visible. ``reduced``: a separate, resource-limited
    process group with a scrubbed environment, but sharing the file system
    and (possibly) the network with the server.
    """

    FULL = "full"
    REDUCED = "reduced"


@dataclass(frozen=True)
class Stage:
    """One stage's verdict. ``line`` is the line in ``file`` (metric.py unless the error comes
    from another file of the metric folder, such as ``helpers.py``) and ``case_id`` the case the
    message is about, where they apply."""

    name: StageName
    status: StageStatus
    message: str = ""
    line: int | None = None
    case_id: str | None = None
    file: str = "metric.py"
    # A passed stage's caveat for people (e.g. a REWARD_SPEC that nothing passes to reward()); not a failure.
    warning: str = ""

    @property
    def label(self) -> str:
        return self.name.label

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name.value,
            "label": self.label,
            "status": self.status.value,
            "message": self.message,
            "line": self.line,
            "case_id": self.case_id,
            "file": self.file,
            "warning": self.warning,
        }


@dataclass
class CheckReport:
    """The result of the contract check: the stages in order, the sampled
    cases' results, and the isolation level the run had. ``tally`` sums the
    cases up; it is all there is of them when the run streamed its results
    instead of keeping them (``cases`` then empty)."""

    stages: list[Stage]
    cases: list[CaseResult] = field(default_factory=list)
    isolation: Isolation = Isolation.REDUCED
    duration_ms: float = 0.0
    tally: RunTally = field(default_factory=RunTally)

    @property
    def ok(self) -> bool:
        return all(stage.status in (StageStatus.PASSED, StageStatus.SKIPPED) for stage in self.stages)

    def stage(self, name: StageName | str) -> Stage:
        name = StageName(name)
        return next(stage for stage in self.stages if stage.name is name)

    @property
    def first_failure(self) -> Stage | None:
        return next((stage for stage in self.stages if stage.status is StageStatus.FAILED), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "isolation": self.isolation.value,
            "stages": [stage.to_json() for stage in self.stages],
            "cases": [case.to_json() for case in self.cases],
        }

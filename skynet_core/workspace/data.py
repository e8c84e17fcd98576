"""The dataset choice, the loaded dataset in use, uploads, and the cases the live check runs."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import orjson

from ..cases import Case
from ..datasets import (
    CandidateFile,
    Dataset,
    DatasetError,
    Role,
    load_dataset,
    load_example,
    roles_from_json,
    roles_to_json,
    save_upload,
)
from ..heap import quiet
from ..i18n import _
from ..metric.contract import SAMPLE_SIZE
from ..paths import PathRefused, server_path
from ..store import DEFAULT_WORKSPACE, Store
from .values import (
    DATASETS_KEPT,
    EXAMPLE_SOURCE,
    SETTING_CANDIDATE,
    SETTING_DATASET_CANDIDATE_FILES,
    SETTING_DATASET_MAIN_CANDIDATE,
    SETTING_DATASET_PATH,
    SETTING_DATASET_ROLES,
    SETTING_ROLES_BY_COLUMNS,
    SETTING_SPLIT,
    DatasetChoice,
    DatasetInUse,
    roles_of,
    scoped_key,
    with_roles_of,
)

if TYPE_CHECKING:
    from ..metric.check_cases import CheckCases


# The settings that make up the dataset choice, read together.
_CHOICE_SETTINGS = (
    SETTING_DATASET_PATH,
    SETTING_DATASET_ROLES,
    SETTING_DATASET_CANDIDATE_FILES,
    SETTING_DATASET_MAIN_CANDIDATE,
    SETTING_CANDIDATE,
    SETTING_SPLIT,
)


class Data:
    """The dataset choice of ``store``'s data directory, the datasets it loads (a few kept in memory), its uploads,
    and the cases the live check runs (pinned per workspace ``name``). Thread-safe."""

    def __init__(self, store: Store, name: str = DEFAULT_WORKSPACE) -> None:
        self.store = store
        self.name = name
        self._lock = threading.Lock()
        self._datasets: OrderedDict[str, Dataset] = OrderedDict()

    def _key(self, key: str) -> str:
        return scoped_key(self.name, key)

    def choice(self) -> DatasetChoice:
        """The stored choice (raises DatasetError when the stored roles cannot be read)."""
        stored = self.store.get_many(_CHOICE_SETTINGS)
        roles, split = stored.get(SETTING_DATASET_ROLES), stored.get(SETTING_SPLIT)
        return DatasetChoice(
            str(stored.get(SETTING_DATASET_PATH) or EXAMPLE_SOURCE),
            roles_from_json(roles) if roles else None,
            tuple(CandidateFile.from_json(item) for item in stored.get(SETTING_DATASET_CANDIDATE_FILES) or []),
            stored.get(SETTING_DATASET_MAIN_CANDIDATE),
            stored.get(SETTING_CANDIDATE),
            split if isinstance(split, str) and split else None,
        )

    def save_choice(
        self,
        path: str,
        roles: dict[str, tuple[Role, str]] | None = None,
        candidate_files: list[CandidateFile] | tuple[CandidateFile, ...] | None = None,
        main_candidate: str | None = None,
        *,
        columns: Sequence[str] | None = None,
    ) -> None:
        """Choose a dataset file (the candidate and split are kept; an unknown candidate means the first). With the
        main file's ``columns``, its roles are remembered for that set of columns (:meth:`remembered_roles`)."""
        values: dict[str, object] = {
            SETTING_DATASET_PATH: path,
            SETTING_DATASET_ROLES: roles_to_json(roles) if roles else None,
            SETTING_DATASET_CANDIDATE_FILES: [item.to_json() for item in candidate_files or []],
            SETTING_DATASET_MAIN_CANDIDATE: main_candidate,
        }
        if columns is not None:
            values[SETTING_ROLES_BY_COLUMNS] = with_roles_of(
                self.store.get(SETTING_ROLES_BY_COLUMNS), columns, roles_to_json(roles) if roles else None
            )
        self.store.set_many(values)

    def remembered_roles(self, columns: Sequence[str]) -> dict[str, tuple[Role, str]] | None:
        """The roles last used with a file of exactly these columns (in any order), or ``None``: reopening the same
        file, or another with the same columns, starts from them instead of the guess."""
        found = roles_of(self.store.get(SETTING_ROLES_BY_COLUMNS), columns)
        try:
            return roles_from_json(found) if found else None
        except DatasetError:
            return None  # a remembered value that no longer reads: the guess instead

    def choose_cases(self, candidate: str | None, split: str | None) -> bool:
        """Choose the candidate and split the pages score (``None``: the first candidate, every split); False if
        the split was not taken. A split the dataset in use does not have (a picker's label sent back from an
        earlier language, a split of the dataset used before) is not stored: the stored split stays."""
        taken = split is None or split in self.in_use().data.split_counts()
        self.store.set_many({SETTING_CANDIDATE: candidate, **({SETTING_SPLIT: split} if taken else {})})
        return taken

    def load(
        self,
        path: str,
        roles: dict[str, tuple[Role, str]] | None = None,
        candidate_files: list[CandidateFile] | tuple[CandidateFile, ...] = (),
        main_candidate: str | None = None,
    ) -> Dataset:
        """Load a dataset (kept in memory while its files are unchanged). Raises DatasetError or OSError."""
        if path == EXAMPLE_SOURCE:
            key = EXAMPLE_SOURCE
        else:
            stamps = [Path(name).stat().st_mtime_ns for name in (path, *(item.path for item in candidate_files))]
            files = [item.to_json() for item in candidate_files]
            key = orjson.dumps([path, stamps, roles_to_json(roles) if roles else None, files, main_candidate]).decode()
        with self._lock:
            if key in self._datasets:
                self._datasets.move_to_end(key)
                return self._datasets[key]
        with quiet():  # its cases live on: out of the garbage collector's scans (skynet_core.heap)
            data = (
                load_example()
                if path == EXAMPLE_SOURCE
                else load_dataset(
                    path, roles=roles, candidate_files=list(candidate_files), main_candidate=main_candidate
                )
            )
        with self._lock:
            self._datasets[key] = data
            while len(self._datasets) > DATASETS_KEPT:
                self._datasets.popitem(last=False)
        return data

    def in_use(self) -> DatasetInUse:
        """The dataset in use with its candidate and split; the example (and why) when the chosen one fails."""
        try:
            choice = self.choice()
        except DatasetError as exc:
            return self._in_use(
                self.load(EXAMPLE_SOURCE),
                DatasetChoice(),
                _("The saved dataset choice could not be read ({error}); using the example.").format(error=exc),
            )
        try:
            if choice.path != EXAMPLE_SOURCE:  # a choice saved earlier, or by another session: the same roots
                for name in (choice.path, *(item.path for item in choice.candidate_files)):
                    server_path(name)
            data = self.load(choice.path, choice.roles, choice.candidate_files, choice.main_candidate)
            return self._in_use(data, choice)
        except (PathRefused, DatasetError) as exc:
            reason = str(exc)
        except OSError as exc:
            reason = _("{path} could not be read ({error}).").format(
                path=exc.filename or choice.path, error=exc.strerror or exc
            )
        return self._in_use(
            self.load(EXAMPLE_SOURCE),
            choice,
            _("The example is in use: the chosen dataset could not be loaded. {reason}").format(reason=reason),
        )

    @staticmethod
    def _in_use(data: Dataset, choice: DatasetChoice, problem: str | None = None) -> DatasetInUse:
        candidate = choice.candidate if choice.candidate in data.candidates else data.candidates[0]
        return DatasetInUse(data, candidate, choice.split, problem)

    def uploads_dir(self) -> Path:
        """Where uploaded case files are kept (so a choice of one survives a restart)."""
        return self.store.directory / "uploads"

    def save_upload(self, name: str, content: BinaryIO) -> Path:
        """Keep an uploaded case file in the uploads folder; its path. Raises DatasetError or OSError."""
        return save_upload(name, content, self.uploads_dir())

    def cases_of(self, source: str) -> list[Case] | None:
        """Every case of the dataset ``source`` (``"example"`` or the file in use) as it is now; ``None``
        when that dataset is not the one in use (its roles and candidate files are not known any more)."""
        if source == EXAMPLE_SOURCE:
            return self.load(EXAMPLE_SOURCE).cases
        in_use = self.in_use()
        return in_use.data.cases if in_use.data.source == source and not in_use.problem else None

    # --- the cases the live check runs, and the user's own cases ------------------------------------

    def check_pins(self, in_use: DatasetInUse | None = None) -> list[str]:
        """The case ids pinned for the live check on the dataset in use (none: the planner's sample)."""
        from ..metric.check_cases import SETTING_CHECK_PINS, pins_for

        in_use = in_use or self.in_use()
        return pins_for(self.store.get(self._key(SETTING_CHECK_PINS)), in_use.data.source)

    def set_check_pins(self, ids: list[str], in_use: DatasetInUse | None = None) -> None:
        """Pin ``ids`` for the live check on the dataset in use (an empty list goes back to the sample)."""
        from ..metric.check_cases import SETTING_CHECK_PINS, with_pins

        in_use = in_use or self.in_use()
        key = self._key(SETTING_CHECK_PINS)
        self.store.set(key, with_pins(self.store.get(key), in_use.data.source, ids))

    def toggle_check_pin(self, case_id: str, in_use: DatasetInUse | None = None) -> None:
        """Pin ``case_id`` for the live check, or unpin it when it is pinned."""
        pins = self.check_pins(in_use)
        self.set_check_pins([pin for pin in pins if pin != case_id] if case_id in pins else [*pins, case_id], in_use)

    def check_cases(self, in_use: DatasetInUse | None = None) -> CheckCases:
        """The cases the live check runs on the dataset in use, and why (pinned or sampled)."""
        from ..metric.check_cases import check_cases

        in_use = in_use or self.in_use()
        pins = self.check_pins(in_use)
        return check_cases(
            in_use.data.cases_of(in_use.candidate, in_use.split), pins, lambda: in_use.check_sample(SAMPLE_SIZE)
        )

    def save_user_case(self, case: Case) -> Path:
        """Add ``case`` to the user dataset (a JSON Lines file in the uploads folder, loadable on Data)."""
        from ..datasets.typed_case import save_user_case

        return save_user_case(self.uploads_dir(), case)

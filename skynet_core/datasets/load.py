"""Load a case file (or the bundled example) into a Dataset."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .candidates import CandidateFile, join_candidates
from .files import _JSONL_SUFFIXES, _jsonl_objects, _jsonl_row, _suffix, read_table, refuse_folder
from .frames import _dataset, cases_from_frame
from .identity import dataset_identity
from .model import EXAMPLE_PATH, Dataset, DatasetError, Role

if TYPE_CHECKING:
    pass


def load_dataset(
    path: str | Path,
    *,
    roles: dict[str, tuple[Role, str]] | None = None,
    name: str | None = None,
    candidate_files: Sequence[CandidateFile] = (),
    main_candidate: str | None = None,
) -> Dataset:
    """Load a ``.jsonl``/``.json`` (JSON Lines), ``.csv`` or ``.parquet`` case file.

    Without ``roles``, JSON Lines is read directly (values exactly as written);
    with ``roles``, or for a table, the file goes through :func:`read_table` and
    :func:`cases_from_frame`. ``name`` defaults to the file name without its
    extension. ``candidate_files`` add candidates from files of their own (see
    :func:`join_candidates`). Raises :class:`DatasetError` for any problem with a file.
    """
    path = Path(path)
    refuse_folder(path)
    suffix = _suffix(path)
    if suffix in _JSONL_SUFFIXES and roles is None:
        rows = []
        file = path.name  # once, not per line (a pathlib property)
        for number, obj in _jsonl_objects(path):
            try:
                rows.append(_jsonl_row(file, number, obj))
            except DatasetError as exc:
                exc.line = number
                raise
        base = _dataset(rows, name=name or path.stem, source=str(path), file=file, unit="line")
    else:
        base = cases_from_frame(read_table(path), roles, str(path), name=name)
    dataset = join_candidates(base, candidate_files, roles=roles, main_candidate=main_candidate)
    dataset.identity = dataset_identity(
        path, roles=roles, candidate_files=candidate_files, main_candidate=main_candidate
    )
    return dataset


def load_example() -> Dataset:
    """The bundled support-ticket dataset: 72 cases answered by 3 candidates."""
    dataset = load_dataset(EXAMPLE_PATH, name="Support tickets (example)")
    dataset.source = "example"
    return dataset

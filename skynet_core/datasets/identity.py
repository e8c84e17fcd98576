"""A dataset's identity: one digest of every file it is built from, by content, and of how it was read.

Two loads have the same identity exactly when they read the same bytes (the main file and each
candidate file), with the same roles, candidate names and main candidate name. A result records the
identity it was made with (:class:`~skynet_core.provenance.Provenance`), so replacing a candidate's
file, in place or by another upload, marks that result out of date even though the main file's path
did not change.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import orjson

from .candidates import CandidateFile
from .model import Role
from .roles import roles_to_json

_CHUNK_BYTES = 1 << 20


def file_digest(path: str | Path) -> str:
    """The SHA-256 of a file's bytes (hex). Hashed once per version of the file: the digest is kept while
    the file's size, modification time and inode stay the same."""
    stat = os.stat(path)
    return _digest_of(os.path.realpath(path), stat.st_size, stat.st_mtime_ns, stat.st_ino)


@functools.lru_cache(maxsize=64)
def _digest_of(path: str, size: int, mtime_ns: int, inode: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def dataset_identity(
    path: str | Path,
    *,
    roles: dict[str, tuple[Role, str]] | None = None,
    candidate_files: Sequence[CandidateFile] = (),
    main_candidate: str | None = None,
) -> str:
    """The identity of the dataset :func:`~skynet_core.datasets.load_dataset` makes of these arguments
    (16 hex digits). Paths do not count, contents do: the same bytes under another name are the same data."""
    parts = [
        file_digest(path),
        roles_to_json(roles) if roles else None,
        [
            [item.name.strip(), file_digest(item.path), roles_to_json(item.roles) if item.roles else None]
            for item in candidate_files
        ],
        (main_candidate or "").strip() if candidate_files else "",
    ]
    return hashlib.sha256(orjson.dumps(parts)).hexdigest()[:16]

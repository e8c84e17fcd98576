"""Side information beyond a size: kept small in results and runs; the whole, within a budget, on disk.

A metric may return up to 1 MB of feedback and side information per case; held in
every result, a run of a thousand such cases is a gigabyte in the parent's memory and
too big a value for SQLite. Past :data:`SIDE_KEEP_BYTES`, a result keeps the start of
its feedback with a note and, instead of oversized side information, a note with a
token. The whole value goes to a file in a private temporary folder, which
:func:`full_side_information` reads back while this process runs (it is deleted at exit),
for the page's download.

The folder holds at most :data:`SPILL_BYTES` in all, however many cases and runs come:
the least recently written or read values go first (their download is then gone; the
note said how much is kept). Where no one can download them, nothing is kept at all
(:func:`nothing_kept_on_disk`: the command line, a cluster node), and the note says so.
"""

from __future__ import annotations

import atexit
import contextvars
import re
import secrets
import shutil
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson

from ..i18n import _
from ._case import CaseResult

SIDE_KEEP_BYTES = 64 * 1024
"""Most bytes of feedback plus side information a result keeps; the rest is on disk for this process."""
SPILL_BYTES = 256 * 1000 * 1000
"""Most bytes of whole side information this process keeps on disk, all runs together."""
OVERFLOW_KEY = "side_information_cut"
_TOKEN = re.compile(r"[0-9a-f]{32}")
_keep_whole = contextvars.ContextVar("skynet_keep_whole_side_information", default=True)


class SpillStore:
    """Whole values in files of a private temporary folder, at most :data:`SPILL_BYTES` in all, the least
    recently used out first. Thread-safe."""

    def __init__(self) -> None:
        self.folder: Path | None = None
        self._sizes: OrderedDict[str, int] = OrderedDict()
        self._total = 0
        self._lock = threading.Lock()

    def keep(self, whole: bytes) -> str | None:
        """Keep ``whole``; its token, or None when it is larger than everything the store may hold."""
        if len(whole) > SPILL_BYTES:
            return None
        token = secrets.token_hex(16)
        with self._lock:
            while self._sizes and self._total + len(whole) > SPILL_BYTES:
                old, size = self._sizes.popitem(last=False)
                self._total -= size
                self._path(old).unlink(missing_ok=True)
            self._path(token).write_bytes(whole)
            self._sizes[token] = len(whole)
            self._total += len(whole)
        return token

    def read(self, token: str) -> bytes | None:
        with self._lock:
            if token not in self._sizes:
                return None
            self._sizes.move_to_end(token)
            try:
                return self._path(token).read_bytes()
            except OSError:
                return None

    def clear(self) -> None:
        with self._lock:
            if self.folder is not None:
                shutil.rmtree(self.folder, ignore_errors=True)
            self.folder, self._total = None, 0
            self._sizes.clear()

    def _path(self, token: str) -> Path:
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="skynet-side-"))
            atexit.register(shutil.rmtree, self.folder, True)
        return self.folder / token


_store = SpillStore()


def spill_folder() -> Path | None:
    """The folder the whole values are in (None until the first is kept)."""
    return _store.folder


@contextmanager
def nothing_kept_on_disk() -> Iterator[None]:
    """Within the block (and the threads a run starts from it, which copy its context), cut results keep
    nothing on disk: for a process that never offers the whole value (the command line writes what
    it writes out; a cluster node's files would be out of the driver's reach)."""
    reset = _keep_whole.set(False)
    try:
        yield
    finally:
        _keep_whole.reset(reset)


def bound_side_information(result: CaseResult) -> CaseResult:
    """``result`` with its feedback and side information cut to :data:`SIDE_KEEP_BYTES` when larger, the
    whole kept on disk when it may be (see :func:`full_side_information`). Results within the size are
    returned as they are."""
    extra = orjson.dumps(result.extra, option=orjson.OPT_NON_STR_KEYS) if result.extra else b""
    feedback_bytes = len(result.feedback.encode("utf-8", "surrogatepass"))
    if feedback_bytes + len(extra) <= SIDE_KEEP_BYTES:
        return result
    whole = orjson.dumps(
        {"feedback": result.feedback, "scores": result.scores, **result.extra}, option=orjson.OPT_NON_STR_KEYS
    )
    token = _store.keep(whole) if _keep_whole.get() else None
    half = SIDE_KEEP_BYTES // 2
    if feedback_bytes > half:
        kept = result.feedback.encode("utf-8", "surrogatepass")[:half].decode("utf-8", "ignore")
        result.feedback = _("{kept}… ({count} more characters cut from this result)").format(
            kept=kept, count=f"{len(result.feedback) - len(kept):,}"
        )
    if token is None:
        note = _(
            "the side information was {size} bytes, over the {keep} KB a result keeps; the whole of it was not kept"
        )
    else:
        note = _(
            "the side information was {size} bytes, over the {keep} KB a result keeps; the whole of it can be "
            "downloaded while this server runs, if it is among the last {spill} MB of such values"
        )
    cut = {"note": note.format(size=f"{len(whole):,}", keep=SIDE_KEEP_BYTES // 1024, spill=f"{SPILL_BYTES / 1e6:g}")}
    if token is not None:
        cut["token"] = token
    result.extra = {OVERFLOW_KEY: cut} if len(extra) > half else {**result.extra, OVERFLOW_KEY: cut}
    return result


def full_side_information(result: CaseResult) -> bytes | None:
    """The whole side information (JSON) of a result that was cut, while this process keeps it; else None."""
    cut = result.extra.get(OVERFLOW_KEY)
    token = cut.get("token") if isinstance(cut, dict) else None
    if not isinstance(token, str) or not _TOKEN.fullmatch(token):
        return None
    return _store.read(token)

"""Side information beyond a size: kept small in results and runs, whole on disk for this server process.

A metric may return up to 1 MB of feedback and side information per case; held in
every result, a run of a thousand such cases is a gigabyte in the parent's memory and
too big a value for SQLite. Past :data:`SIDE_KEEP_BYTES`, a result keeps the start of
its feedback with a note and, instead of oversized side information, a note with a
token; the whole value goes to a file in a private temporary folder, which
:func:`full_side_information` reads back while this process runs (it is deleted at exit).
"""

from __future__ import annotations

import atexit
import re
import secrets
import shutil
import tempfile
import threading
from pathlib import Path

import orjson

from .results import CaseResult

SIDE_KEEP_BYTES = 64 * 1024
"""Most bytes of feedback plus side information a result keeps; the rest is on disk for this process."""
OVERFLOW_KEY = "side_information_cut"
_TOKEN = re.compile(r"[0-9a-f]{32}")
_lock = threading.Lock()
_folder: Path | None = None


def _spill_folder() -> Path:
    global _folder
    with _lock:
        if _folder is None:
            _folder = Path(tempfile.mkdtemp(prefix="skynet-side-"))
            atexit.register(shutil.rmtree, _folder, True)
        return _folder


def bound_side_information(result: CaseResult) -> CaseResult:
    """``result`` with its feedback and side information cut to :data:`SIDE_KEEP_BYTES` when larger, the
    whole kept on disk (see :func:`full_side_information`). Results within the size are returned as they are."""
    extra = orjson.dumps(result.extra, option=orjson.OPT_NON_STR_KEYS) if result.extra else b""
    feedback_bytes = len(result.feedback.encode("utf-8", "surrogatepass"))
    if feedback_bytes + len(extra) <= SIDE_KEEP_BYTES:
        return result
    token = secrets.token_hex(16)
    whole = orjson.dumps(
        {"feedback": result.feedback, "scores": result.scores, **result.extra}, option=orjson.OPT_NON_STR_KEYS
    )
    (_spill_folder() / token).write_bytes(whole)
    half = SIDE_KEEP_BYTES // 2
    if feedback_bytes > half:
        kept = result.feedback.encode("utf-8", "surrogatepass")[:half].decode("utf-8", "ignore")
        result.feedback = f"{kept}… ({len(result.feedback) - len(kept):,} more characters cut from this result)"
    note = (
        f"the side information was {len(whole):,} bytes, over the {SIDE_KEEP_BYTES // 1024} KB a result "
        "keeps; the whole of it can be downloaded while this server runs"
    )
    if len(extra) > half:
        result.extra = {OVERFLOW_KEY: {"note": note, "token": token}}
    else:
        result.extra = {**result.extra, OVERFLOW_KEY: {"note": note, "token": token}}
    return result


def full_side_information(result: CaseResult) -> bytes | None:
    """The whole side information (JSON) of a result that was cut, while this process runs; else None."""
    cut = result.extra.get(OVERFLOW_KEY)
    token = cut.get("token") if isinstance(cut, dict) else None
    if not isinstance(token, str) or not _TOKEN.fullmatch(token) or _folder is None:
        return None
    try:
        return (_folder / token).read_bytes()
    except OSError:
        return None

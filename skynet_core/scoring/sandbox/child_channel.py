"""The isolated child's link to its parent: the JSON-lines channel (requests in, replies out, a few ms' worth
of results at a time), the shared progress page, and every reply fitted under the size caps.

STDLIB ONLY (orjson when the sandbox can see it), like ``child.py``, which imports it by path from the
sandbox's own folder once ``sys.path`` is set.
"""

from __future__ import annotations

import json
import mmap
import os
import struct
import threading
import time
from typing import Any

import sealed
from skynet._i18n import _

try:
    import orjson
except ImportError:  # the reduced sandbox may lack it; json is slower but equivalent
    orjson = None  # type: ignore[assignment]

MAX_REPLY_BYTES = 1 << 20
MAX_PROMPT_BYTES = 1_000_000  # one llm() call's instructions and input, as sent over the channel
MAX_FEEDBACK_CHARS = 256 * 1024
PRINT_HEAD = PRINT_TAIL = 4000
_PAGE = struct.Struct("qq")  # the progress page: the running case's index and its start (monotonic ns)
CHANNEL_BROKEN_EXIT = 86  # metric code closed or replaced the channel's descriptors (the runner's diagnosis.py: same)


class Progress:
    """The shared page where the parent reads which case is running and since when."""

    def __init__(self, fd: int) -> None:
        self.page = mmap.mmap(fd, 16)
        os.close(fd)

    def running(self, index: int) -> None:
        _PAGE.pack_into(self.page, 0, index, time.monotonic_ns())

    def idle(self) -> None:
        _PAGE.pack_into(self.page, 0, -1, 0)


class Channel:
    """The JSON-lines channel to the parent; results are queued and sent a few ms' worth at a time.

    Metric code runs in this process and can close or replace the channel's descriptors. Before each
    send the channel checks that they are still its own (:meth:`guard`): if not, the cases run since the
    last check are suspect, and this process exits at once with :data:`CHANNEL_BROKEN_EXIT`, its progress
    page naming the one to blame when there is one (else idle: the parent runs the suspects again in
    a fresh child that checks after every case, ``careful``).
    """

    def __init__(self, request_fd: int, reply_fd: int, progress: Progress) -> None:
        self.reader = os.fdopen(request_fd, "rb", buffering=1 << 16)
        self.reply_fd = reply_fd
        self.fds = (request_fd, reply_fd)
        self.identity = self._identity()
        self.progress = progress
        self.lock = threading.Lock()
        self.pending: list[dict[str, Any]] = []
        self.ahead: Ahead | None = None  # the running case's answers sent ahead, when it has any

    def _identity(self) -> tuple[tuple[int, int], ...]:
        return tuple((info.st_dev, info.st_ino) for info in map(os.fstat, self.fds))

    def guard(self) -> None:
        """Exit (see the class) unless the channel's descriptors are still the ones the parent gave."""
        try:
            intact = self._identity() == self.identity
        except OSError:
            intact = False
        if intact:
            return
        if len(self.pending) == 1:
            self.progress.running(self.pending[0]["i"])
        elif self.pending:
            self.progress.idle()
        os._exit(CHANNEL_BROKEN_EXIT)

    def queue(self, result: dict[str, Any]) -> None:
        self.pending.append(result)

    def flush(self) -> None:
        if self.pending:
            self.guard()
            items, self.pending = self.pending, []
            try:
                data = encode({"t": "results", "items": items})
            except (TypeError, ValueError, RecursionError, OverflowError):
                data = b""  # a result that _fit passed unchecked cannot be encoded
            if data and len(data) <= MAX_REPLY_BYTES:
                self.write(data + b"\n")
                return
            for item in items:  # one fully checked result per line keeps each line under the parent's cap
                self.send({"t": "results", "items": [_fit(item, quick=False)]})

    def send(self, message: dict[str, Any]) -> None:
        self.write(encode(message) + b"\n")

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(self.reply_fd, view)
            view = view[written:]

    def receive(self) -> dict[str, Any] | None:
        try:
            line = self.reader.readline()
        except OSError:  # metric code closed the descriptor (from a thread of its own: no case is running)
            self.progress.idle()
            os._exit(CHANNEL_BROKEN_EXIT)
        if not line:
            return None
        if orjson is not None:  # a batch of a thousand cases parses several times faster
            try:
                request: dict[str, Any] = orjson.loads(line)
                return request
            except orjson.JSONDecodeError:
                pass  # what only the standard parser reads (integers beyond 64 bits)
        parsed: dict[str, Any] = json.loads(line)
        return parsed

    def llm(self, request: dict[str, Any]) -> dict[str, Any]:
        texts = (request.get("instructions") or "", request.get("input") or "")
        # Counted in characters first: encoding a 50 MB prompt only to refuse it would cost as much again.
        if sum(map(len, texts)) <= MAX_PROMPT_BYTES:
            with self.lock:
                text = self.ahead.answer(texts[0], request.get("input")) if self.ahead is not None else None
            if text is not None:
                return {"text": text}
        data = b"" if sum(map(len, texts)) > MAX_PROMPT_BYTES else encode({"t": "llm", **request})
        if not data or len(data) > MAX_PROMPT_BYTES:
            size = max(len(data), sum(len(text.encode("utf-8", "surrogatepass")) for text in texts))
            return {
                "error": _(
                    "the prompt given to llm() is {size:.1f} MB (instructions and input together); at most "
                    "{limit:.0f} MB is sent to the model: send only what it needs to judge (e.g. the part of the "
                    "output in question)"
                ).format(size=size / 1e6, limit=MAX_PROMPT_BYTES / 1e6)
            }
        with self.lock:
            if self.ahead is not None and self.ahead.used:  # the studio counts them before this call, in order
                data = encode({"t": "llm", **request, "ahead": self.ahead.used})
                self.ahead.used = []
            self.guard()  # with nothing pending, the running case is the one to blame
            self.flush()  # results before this call must not wait behind the model's answer
            self.write(data + b"\n")
            reply = self.receive()
        if reply is None:
            raise SystemExit(0)
        return reply


class Ahead:
    """The running case's answers sent ahead (``sealed.py``): those of the calls it made last time, each found
    by its request's id and opened with its request's key. ``used`` lists the ones taken, as ``[position, ms]``,
    not yet reported to the studio (which traces them as cached calls)."""

    def __init__(self, entries: list[list[str]]) -> None:
        self.entries = {entry[0]: (position, entry[1]) for position, entry in enumerate(entries)}
        self.asked: dict[tuple[str, str | None], int] = {}  # identical calls so far: the next one's repeat
        self.used: list[list[float]] = []

    def answer(self, instructions: str, input: str | None) -> str | None:
        """The answer sent ahead for this call, or None (the call then goes to the studio)."""
        started = time.perf_counter()
        repeat = self.asked.get((instructions, input), 0)
        self.asked[(instructions, input)] = repeat + 1
        request = sealed.request_bytes(instructions, input, repeat)
        found = self.entries.get(sealed.lookup_id(request))
        if found is None:
            return None
        position, blob = found
        try:
            text: str = sealed.unseal(blob, sealed.seal_key(request))
        except ValueError:
            return None
        self.used.append([position, round((time.perf_counter() - started) * 1000.0, 4)])
        return text


def _fallback(value: Any) -> Any:
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__} object>"
    return text[:2000]


def encode(message: dict[str, Any]) -> bytes:
    if orjson is not None:
        return orjson.dumps(message, default=_fallback, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS)
    return json.dumps(message, default=_fallback, allow_nan=False, separators=(",", ":")).encode()


def _fit(result: dict[str, Any], quick: bool = True) -> dict[str, Any]:
    """Keep a reply under the size cap, turning an oversized one into a clear failure.

    ``quick``: pass a result of a few short strings and numbers unencoded
    (``Channel.flush`` checks fully when the batch fails to encode or is too big).
    """
    feedback = result.get("feedback")
    if isinstance(feedback, str) and len(feedback) > MAX_FEEDBACK_CHARS:
        return _too_big(
            result,
            _("feedback is {size:,} characters; keep it under {limit:,}").format(
                size=len(feedback), limit=MAX_FEEDBACK_CHARS
            ),
        )
    if (
        quick
        and not result.get("extra")
        and len(result.get("scores") or ()) <= 64
        and len(result.get("stdout", "")) < PRINT_HEAD
        and len(result.get("error", "")) < 4096
    ):
        return result
    if _json_exceeds(result, MAX_REPLY_BYTES):  # counted first: orjson crashes on a huge value near the memory limit
        return _too_big(
            result,
            _(
                "the side information is over {limit:.0f} MB as JSON; keep it "
                "under that (shorten the feedback or drop large extra keys)"
            ).format(limit=MAX_REPLY_BYTES / 1e6),
        )
    try:
        size = len(encode(result))
    except (TypeError, ValueError, RecursionError, OverflowError) as exc:
        return _too_big(
            result,
            _(
                "the side information cannot be sent back as JSON ({error}); "
                "return plain strings, numbers, lists and dicts nested fewer than 250 levels"
            ).format(error=exc),
        )
    if size > MAX_REPLY_BYTES:
        return _too_big(
            result,
            _(
                "the side information is {size:.1f} MB as JSON; keep it under "
                "{limit:.0f} MB (shorten the feedback or drop large extra keys)"
            ).format(size=size / 1e6, limit=MAX_REPLY_BYTES / 1e6),
        )
    return result


def _json_exceeds(value: Any, budget: int) -> bool:
    """Whether ``value`` surely encodes to more than ``budget`` bytes (strings counted in characters),
    found without encoding it. Bounded work, and it terminates on cyclic values."""
    total = 0
    stack = [value]
    while stack and total <= budget:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item) + 2
        elif isinstance(item, dict):
            total += 2 + 2 * len(item)
            if total <= budget:
                stack.extend(item.keys())
                stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            total += 2 + len(item)
            if total <= budget:
                stack.extend(item)
        elif hasattr(type(item), "nbytes"):  # numpy arrays, which orjson encodes natively
            total += 2 * int(item.nbytes)
        else:
            total += 4
    return total > budget


def _too_big(result: dict[str, Any], message: str) -> dict[str, Any]:
    return {
        "t": "result",
        "i": result["i"],
        "status": "invalid",
        "error": message,
        "duration_ms": result["duration_ms"],
        "stdout": result.get("stdout", "")[:PRINT_HEAD],
    }

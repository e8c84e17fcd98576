"""The isolated child process: it loads metric.py and calls `score` on the cases the parent sends.

STDLIB ONLY (orjson when the sandbox can see it). Started by
``skynet_core.runner`` inside bubblewrap (or a reduced sandbox) as

    python -s -S -P child.py REQUEST_FD REPLY_FD SYS_PATH_JSON PROGRESS_FD METRIC_DIR

It speaks JSON lines: requests on REQUEST_FD, replies on REPLY_FD. Results
are sent in small batches (every few ms) to keep per-case cost low; so that
the parent can still time each call and name the case that hangs or
crashes, the child writes (case index, start time) into the shared
PROGRESS_FD page before each call and (-1, 0) when idle. Metric
code is untrusted; nothing it returns leaves this process except as JSON.
The parent enforces every timeout and limit; this side only reports.

METRIC_DIR is the metric folder (read-only in full isolation), written by the
parent before it asks for a load: metric.py and the helper modules beside it.
Errors name the file of the folder they come from and its line.
"""

from __future__ import annotations

import json
import sys

sys.path[:0] = json.loads(sys.argv[3])

import faulthandler  # noqa: E402  (sys.path is set first so the sandbox finds its packages)
import io  # noqa: E402
import linecache  # noqa: E402
import mmap  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import struct  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
import types  # noqa: E402
from typing import Any  # noqa: E402

import returns  # noqa: E402
import skynet  # noqa: E402,F401  (pre-imported so the first check is fast)
from skynet import _context, _i18n  # noqa: E402
from skynet._i18n import _  # noqa: E402

try:
    import orjson
except ImportError:  # the reduced sandbox may lack it; json is slower but equivalent
    orjson = None  # type: ignore[assignment]

METRIC_FILE = "metric.py"
METRIC_DIR = sys.argv[5].rstrip("/")
MAX_REPLY_BYTES = 1 << 20
MAX_PROMPT_BYTES = 1_000_000  # one llm() call's instructions and input, as sent over the channel
MAX_FEEDBACK_CHARS = 256 * 1024
PRINT_HEAD = PRINT_TAIL = 4000
MAX_DETAIL_CHARS = 8000
FLUSH_EVERY_S = 0.005
FLUSH_EVERY_N = 256
CHANNEL_BROKEN_EXIT = 86  # metric code closed or replaced the channel's descriptors (the runner's worker.py: same)


class CappedText(io.TextIOBase):
    """Captures what the metric prints, keeping the head and the tail of a flood."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.head: list[str] = []
        self.head_len = 0
        self.tail = ""
        self.dropped = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        if self.head_len < PRINT_HEAD:
            take = text[: PRINT_HEAD - self.head_len]
            self.head.append(take)
            self.head_len += len(take)
            text = text[len(take) :]
        if text:
            joined = self.tail + text
            self.dropped += max(0, len(joined) - PRINT_TAIL)
            self.tail = joined[-PRINT_TAIL:]
        return len(text)

    def value(self) -> str:
        head = "".join(self.head)
        if self.dropped:
            return f"{head}\n[... {self.dropped} characters of output left out ...]\n{self.tail}"
        return head + self.tail


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
                return orjson.loads(line)
            except orjson.JSONDecodeError:
                pass  # what only the standard parser reads (integers beyond 64 bits)
        return json.loads(line)

    def llm(self, request: dict[str, Any]) -> dict[str, Any]:
        texts = (request.get("instructions") or "", request.get("input") or "")
        # Counted in characters first: encoding a 50 MB prompt only to refuse it would cost as much again.
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
            self.guard()  # with nothing pending, the running case is the one to blame
            self.flush()  # results before this call must not wait behind the model's answer
            self.write(data + b"\n")
            reply = self.receive()
        if reply is None:
            raise SystemExit(0)
        return reply


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


def metric_file(filename: str) -> str | None:
    """``filename`` relative to the metric folder (``helpers.py``), or None when it lies outside it."""
    prefix = METRIC_DIR + "/"
    return filename[len(prefix) :] if filename.startswith(prefix) else None


def metric_traceback(exc: BaseException) -> tuple[str, int | None, str | None]:
    """The traceback trimmed to the metric folder's frames, named relative to the folder (and
    clipped: an exception's message can be megabytes long), and the innermost such frame's
    line and file."""
    frames = []
    for frame in traceback.extract_tb(exc.__traceback__):
        name = metric_file(frame.filename)
        if name is not None:
            frame.filename = name
            frames.append(frame)
    text = "".join(traceback.format_list(frames) + traceback.format_exception_only(type(exc), exc)).rstrip()
    text = text.replace(METRIC_DIR + "/", "")
    if len(text) > MAX_DETAIL_CHARS:
        half = MAX_DETAIL_CHARS // 2
        text = f"{text[:half]}\n[... {len(text) - 2 * half:,} characters left out ...]\n{text[-half:]}"
    if isinstance(exc, SyntaxError) and exc.filename and metric_file(exc.filename) and exc.lineno:
        return text, exc.lineno, metric_file(exc.filename)  # a helper module that does not compile
    return text, (frames[-1].lineno if frames else None), (frames[-1].filename if frames else None)


def _located(reply: dict[str, Any], line: int | None, file: str | None) -> dict[str, Any]:
    """Add where the error comes from: ``line`` always, ``file`` when it is not metric.py."""
    reply["line"] = line
    if line is not None and file and file != METRIC_FILE:
        reply["file"] = file
    return reply


def describe_exception(exc: BaseException, loading: bool = False) -> str:
    if isinstance(exc, SyntaxError) and exc.filename and metric_file(exc.filename):
        return _syntax_message(exc, metric_file(exc.filename) or METRIC_FILE)
    if isinstance(exc, SystemExit) and loading:
        return _("metric.py called sys.exit({code}) while loading; remove the exit so the module can load").format(
            code=repr(exc.code)
        )
    if isinstance(exc, SystemExit):
        return _("score called sys.exit({code}); return a score instead of exiting").format(code=repr(exc.code))
    if isinstance(exc, KeyboardInterrupt):
        return _("score raised KeyboardInterrupt")
    if isinstance(exc, MemoryError):
        return _("MemoryError: the metric ran out of memory (the sandbox allows 2 GiB); use less memory")
    if isinstance(exc, RecursionError):
        return _(
            "RecursionError: {error}; the metric recursed too deeply, make it iterative or bound the depth"
        ).format(error=exc)
    text = str(exc)
    return f"{type(exc).__name__}: {text[:2000]}" if text else type(exc).__name__


class Progress:
    """The shared page where the parent reads which case is running and since when."""

    def __init__(self, fd: int) -> None:
        self.page = mmap.mmap(fd, 16)
        os.close(fd)

    def running(self, index: int) -> None:
        struct.pack_into("qq", self.page, 0, index, time.monotonic_ns())

    def idle(self) -> None:
        struct.pack_into("qq", self.page, 0, -1, 0)


class Metric:
    def __init__(self) -> None:
        self.score: Any = None  # the metric's score function once loaded
        self.arity = 3
        self.captured = Captured()

    def load(self, source: str) -> dict[str, Any]:
        path = f"{METRIC_DIR}/{METRIC_FILE}"
        lines = source.splitlines(keepends=True)
        linecache.cache[path] = (len(source), None, lines, path)
        try:
            code = compile(source, path, "exec")
        except SyntaxError as exc:
            if exc.lineno is None and "\0" in source:
                nul_line = source.count("\n", 0, source.index("\0")) + 1
                return {
                    "t": "loaded",
                    "ok": False,
                    "line": nul_line,
                    "error": _(
                        "metric.py line {line} holds a NUL character (\\0), which Python source cannot "
                        "contain; delete it (editors may show it as ^@ or not at all)"
                    ).format(line=nul_line),
                }
            return {"t": "loaded", "ok": False, "line": exc.lineno, "error": _syntax_message(exc)}
        # Like `python metric.py` in its folder: relative paths find the data files beside it.
        os.chdir(METRIC_DIR)
        module = types.ModuleType("metric")
        module.__file__ = path
        sys.modules["metric"] = module
        try:
            with Captured() as captured:
                exec(code, module.__dict__)
        except BaseException as exc:  # noqa: BLE001  (untrusted code may raise anything)
            detail, line, file = metric_traceback(exc)
            failure: dict[str, Any] = {
                "t": "loaded",
                "ok": False,
                "error": describe_exception(exc, loading=True),
                "detail": detail,
                "stdout": captured.value(),
            }
            if isinstance(exc, ModuleNotFoundError) and exc.name:
                failure["missing_module"] = exc.name
            return _located(failure, line, file)
        signature = returns.check_signature(module.__dict__, metric_file)
        reply: dict[str, Any] = {"t": "loaded", "ok": True, "signature": signature, "stdout": captured.value()}
        if signature["ok"]:
            self.score = module.__dict__["score"]
            self.arity = signature["arity"]
        if "REWARD_SPEC" in module.__dict__:
            reply["reward_spec"] = _check_reward_spec(module.__dict__["REWARD_SPEC"])
        return reply

    def call(self, index: int, case: dict[str, Any]) -> dict[str, Any]:
        _context.set_case(case.get("observation"))
        # A JSON Lines file's line may come as it is: without "expected" when the case has none.
        args = (case["input"], case["output"], case.get("expected"))[: self.arity]
        result: dict[str, Any]
        with self.captured as captured:
            started = time.perf_counter()
            try:
                value = self.score(*args)
                duration = time.perf_counter() - started
                result = returns.check_return(value)
            except BaseException as exc:  # noqa: BLE001
                duration = time.perf_counter() - started
                detail, line, file = metric_traceback(exc)
                result = _located({"status": "error", "error": describe_exception(exc), "detail": detail}, line, file)
                if isinstance(exc, ModuleNotFoundError) and exc.name:
                    result["missing_module"] = exc.name
        # Empty named scores, side information and printed text are left out: the parent reads them as empty.
        if not result.get("scores", True):
            del result["scores"]
        if not result.get("extra", True):
            del result["extra"]
        result["i"] = index
        result["duration_ms"] = duration * 1000.0
        stdout = captured.value()
        if stdout:
            result["stdout"] = stdout
        return _fit(result)


class Captured:
    """Redirects sys.stdout and sys.stderr into one capped buffer for the duration of a call."""

    def __init__(self) -> None:
        self.buffer = CappedText()

    def __enter__(self) -> CappedText:
        self.buffer.reset()
        self.saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = self.buffer
        return self.buffer

    def __exit__(self, *exc_info: object) -> None:
        sys.stdout, sys.stderr = self.saved


def _syntax_message(exc: SyntaxError, file: str = METRIC_FILE) -> str:
    text = (exc.text or "").rstrip("\n").strip()
    if exc.offset:
        where = _("{file} line {line}, column {column}").format(file=file, line=exc.lineno, column=exc.offset)
    else:
        where = _("{file} line {line}").format(file=file, line=exc.lineno)
    if text:
        return _("{error} at {where}: {message}: {text}").format(
            error=type(exc).__name__, where=where, message=exc.msg, text=text
        )
    return _("{error} at {where}: {message}").format(error=type(exc).__name__, where=where, message=exc.msg)


def _check_reward_spec(spec: Any) -> dict[str, Any]:
    try:
        skynet.validate_reward_spec(spec)
    except Exception as exc:  # noqa: BLE001
        return {"ok": False, "message": str(exc)}
    return {"ok": True, "message": ""}


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


METRIC_NICENESS = 10
"""The scheduling priority metric code runs at (higher is lower priority; the studio runs at 0)."""


def main() -> None:
    progress = Progress(int(sys.argv[4]))
    channel = Channel(int(sys.argv[1]), int(sys.argv[2]), progress)
    # A crash or a stuck call dumps the Python stack to stderr, which the parent
    # reads to name the metric.py line (C-level handlers work even inside a regex).
    stderr = sys.__stderr__
    assert stderr is not None  # the runner always gives the child a stderr pipe
    faulthandler.enable(file=stderr)
    faulthandler.register(signal.SIGUSR1, file=stderr, all_threads=False)
    _context.set_llm_transport(channel.llm)
    # Metric code yields the CPU to the studio: a metric that spins (an endless loop, a heavy judge
    # of its own) slows its own cases, never the pages, which keep answering on a busy machine.
    try:
        os.nice(max(0, METRIC_NICENESS - os.nice(0)))
    except OSError:  # a platform without nice(): the metric runs at the studio's priority
        pass
    metric = Metric()
    channel.send({"t": "ready", "pid": os.getpid()})
    while True:
        request = channel.receive()
        if request is None:
            return
        op = request.get("op")
        if op == "load":
            _i18n.set_language(request.get("lang"))  # the messages follow the language of who asked
            channel.send(metric.load(request["source"]))
        elif op == "cases":
            # Careful: results go one at a time, so a broken channel names the one case that broke it.
            careful = request.get("careful") is True
            last_flush = time.perf_counter()
            for index, case in enumerate(request["cases"]):
                progress.running(index)
                channel.queue(metric.call(index, case))
                now = time.perf_counter()
                if careful or now - last_flush >= FLUSH_EVERY_S or len(channel.pending) >= FLUSH_EVERY_N:
                    channel.flush()
                    last_flush = now
            progress.idle()
            channel.flush()
            channel.guard()  # before the next request is read


if __name__ == "__main__":
    main()

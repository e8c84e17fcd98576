"""The isolated child process: it loads metric.py and calls `score` on the cases the parent sends.

STDLIB ONLY (orjson when the sandbox can see it). Started by
``skynet_core.scoring.runner`` inside bubblewrap (or a reduced sandbox) as

    python -s -S -P child.py REQUEST_FD REPLY_FD SYS_PATH_JSON PROGRESS_FD METRIC_DIR

and moves the three descriptors to 3, 4 and 5 before it reads a request (:func:`settle_channel`).

It speaks JSON lines: requests on REQUEST_FD, replies on REPLY_FD (``child_channel.py``, beside it). Results
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
import fcntl  # noqa: E402
import io  # noqa: E402
import linecache  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
import types  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import returns  # noqa: E402
import skynet  # noqa: E402,F401  (pre-imported so the first check is fast)
from child_channel import MAX_FEEDBACK_CHARS, PRINT_HEAD, PRINT_TAIL, Ahead, Channel, Progress, _fit  # noqa: E402
from skynet import _context, _i18n  # noqa: E402

_: Callable[[str], str] = _i18n._  # the sandbox's gettext (typed here: mypy cannot see the sandbox's path)

METRIC_FILE = "metric.py"
METRIC_DIR = sys.argv[5].rstrip("/")
MAX_DETAIL_CHARS = 8000
FLUSH_EVERY_S = 0.005
FLUSH_EVERY_N = 256


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
                usual = returns.usual_return(value)
                if usual is not None and len(usual[1]) <= MAX_FEEDBACK_CHARS and not (captured.head or captured.tail):
                    # The usual return, nothing printed: the reply as the long way below would make it, in one
                    # step (a few short values that _fit passes as they are). A run spends most of its time here.
                    ms = duration * 1000.0
                    return {"status": "ok", "score": usual[0], "feedback": usual[1], "i": index, "duration_ms": ms}
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
        fitted: dict[str, Any] = _fit(result)
        return fitted


class Captured:
    """Redirects sys.stdout and sys.stderr into one capped buffer for the duration of a call."""

    def __init__(self) -> None:
        self.buffer = CappedText()

    def __enter__(self) -> CappedText:
        if self.buffer.head or self.buffer.tail:  # what the last call printed (a write, even of "", adds a head)
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


METRIC_NICENESS = 10
"""The scheduling priority metric code runs at (higher is lower priority; the studio runs at 0)."""


CHANNEL_FDS = (3, 4, 5)
"""Where the child keeps its channel (the request pipe, the reply pipe, the progress page), whatever numbers the
parent's descriptors had: a parent holding hundreds of descriptors (a long-lived studio server) passes numbers
above the sandbox's limit of open files, and the channel then sat where no descriptor the metric opens can."""


def settle_channel() -> None:
    """Move the channel's descriptors (``sys.argv`` 1, 2 and 4) to :data:`CHANNEL_FDS`, and say so in ``sys.argv``.

    Copies at 6 or above first, so that no move overwrites another channel descriptor still to move. They stay
    inheritable, as the parent passed them."""
    slots = (1, 2, 4)
    sources = [int(sys.argv[slot]) for slot in slots]
    if tuple(sources) == CHANNEL_FDS:
        return
    copies = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, len(CHANNEL_FDS) + 3) for fd in sources]
    for fd in sources:
        os.close(fd)
    for copy, target, slot in zip(copies, CHANNEL_FDS, slots, strict=True):
        os.dup2(copy, target)
        os.close(copy)
        sys.argv[slot] = str(target)


def main() -> None:
    settle_channel()
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
            # The answers sent ahead, by case (their position as text): see sealed.py.
            ahead: dict[str, list[list[str]]] = request.get("ahead") or {}
            last_flush = time.perf_counter()
            for index, case in enumerate(request["cases"]):
                progress.running(index)
                if not ahead:
                    channel.queue(metric.call(index, case))
                else:
                    entries = ahead.get(str(index))
                    channel.ahead = Ahead(entries) if entries else None
                    result = metric.call(index, case)
                    if channel.ahead is not None and channel.ahead.used:
                        result["ahead"] = channel.ahead.used  # the studio traces them (and counts them) with it
                    channel.ahead = None
                    channel.queue(result)
                now = time.perf_counter()
                if careful or now - last_flush >= FLUSH_EVERY_S or len(channel.pending) >= FLUSH_EVERY_N:
                    channel.flush()
                    last_flush = now
            progress.idle()
            channel.flush()
            channel.guard()  # before the next request is read


if __name__ == "__main__":
    main()

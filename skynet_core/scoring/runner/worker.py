"""One isolated child process, and the requests made of it over its JSON-lines channel.

Its pipes are read and written in :mod:`~skynet_core.scoring.runner.channel`, the case it is in is read from its
:mod:`~skynet_core.scoring.runner.progress` page.

The parent trusts nothing that comes back: every reply is size-capped,
parsed as JSON (never pickle) and checked for shape; a child that misbehaves
(crashes, hangs, floods, writes garbage on the channel) is killed with its
whole process tree and the case it was on fails with a clear error.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from ...i18n import SOURCE_LANGUAGE, _, language
from ...metric.packages import existing_packages_dir
from ...metric.source import MetricSource
from ...results import Isolation
from ...results.trace import LlmCall
from ..sandbox.launcher import kill_below, running
from . import sandbox
from .channel import MAX_LINE_BYTES, Pipes, ReplyTooLarge
from .diagnosis import death_message, first_child, has_pid_namespace, last_metric_frame, python_pid
from .memcg import MemoryCgroup, kernel_limit_message
from .model_calls import answer_llm, case_numbers, traced
from .progress import ProgressPage
from .tempdirs import live_roots, make_metric_root, materialise
from .values import (
    CallsAhead,
    CallTimeout,
    Cancelled,
    ChildDied,
    EncodedCases,
    LlmHandler,
    malformed_results,
    results_items,
)
from .watchdog import watchdog

KILL_GRACE_S = 1.0  # after SIGUSR1, the most we wait for the stack dump (a busy machine is slow to schedule it)
ANSWER_SLACK_S = 0.5  # beyond the timeout, since the last results: the child's flush interval and then some


class Worker:
    """A started child, ready to load one metric and score cases.

    Not thread-safe: one caller drives a worker at a time. Always ``close()``
    it (or use it as a context manager): that kills the child's whole tree.
    The metric folder is written into a private temp dir of this worker when the
    metric is loaded; the child sees it read-only (full isolation) and imports from it.
    """

    def __init__(self, isolation: Isolation, limits: sandbox.Limits | None = None) -> None:
        self.isolation = isolation
        self.limits = limits or sandbox.Limits()
        self._closed = False
        req_read, req_write = os.pipe()
        reply_read, reply_write = os.pipe()
        err_read, err_write = os.pipe()
        for fd in (req_read, reply_read):
            sandbox.widen_pipe(fd)
        self._progress = ProgressPage()
        progress_fd = self._progress.fd
        self._call_timeout: float | None = None  # while cases run: each call's timeout
        self._unanswered = 0  # the position of the first case of the request not answered yet
        # The temp dir is private (0700); the folder in it is readable by the sandbox's own uid.
        self._metric_root = make_metric_root()  # named for this process; stale ones of dead servers removed
        live_roots.add(self._metric_root)
        self.metric_host_dir = os.path.join(self._metric_root, "metric")
        os.mkdir(self.metric_host_dir)
        os.chmod(self.metric_host_dir, 0o755)
        packages = existing_packages_dir()
        self.packages_host = str(packages) if packages is not None else None
        full = isolation is Isolation.FULL
        # The child sees the metric folder and the packages at fixed mounts under bwrap, else where they are.
        self.metric_dir = sandbox.METRIC_MOUNT if full else self.metric_host_dir
        packages_seen = None if packages is None else sandbox.PACKAGES_MOUNT if full else str(packages)
        args = sandbox.child_args(req_read, reply_write, isolation, progress_fd, self.metric_dir, packages_seen)
        if full:
            command = sandbox.bwrap_command(
                args,
                self.limits,
                metric_dir=self.metric_host_dir,
                packages_dir=str(packages) if packages is not None else None,
            )
            env: dict[str, str] = {}
        else:
            command = sandbox.reduced_command(args, req_read)
            env = sandbox.child_env()
        # The kernel's limit on the sandbox as a whole, where this machine allows one; the watchdog's otherwise.
        self.memory_cgroup = MemoryCgroup.create(self.limits.memory_bytes)
        cgroup_procs = self.memory_cgroup.procs if self.memory_cgroup is not None else None
        try:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=err_write,
                stderr=err_write,
                pass_fds=(req_read, reply_write, progress_fd),
                env=env,
                cwd="/tmp",
                start_new_session=True,
                preexec_fn=sandbox.child_setup(self.limits, isolation, cgroup_procs),
            )
        except BaseException:
            if self.memory_cgroup is not None:
                self.memory_cgroup.remove()
            raise
        for fd in (req_read, reply_write, err_write, progress_fd):
            os.close(fd)
        self._killed_for: Callable[[], str] | None = None
        # Watched from the first request on: until then the child runs only the sandbox's own code, and a spare
        # waiting in the pool would cost the watchdog a scan of /proc four times a second for nothing.
        self._watched = False
        self._pipes = Pipes(req_write, reply_read, err_read)
        self._python_pid: int | None = None
        self._ready: dict[str, Any] | None = None
        self._lock = threading.Lock()
        self.on_close: Callable[[], None] | None = None  # called once when closed (the pool frees its place)

    def wait_ready(self, timeout: float = 30.0) -> None:
        if self._ready is None:
            message = self.receive(time.monotonic() + timeout, None)
            if message.get("t") != "ready":
                raise ChildDied(_("the sandbox child sent an unexpected first message"))
            self._ready = message

    @property
    def alive(self) -> bool:
        return not self._closed and self.process.poll() is None

    @property
    def stale(self) -> bool:
        """Whether the metric packages folder changed since this child started (it was created by a
        first install, or moved): the child would not see it, so a pool must not hand it out."""
        current = existing_packages_dir()
        return (str(current) if current is not None else None) != self.packages_host

    def close(self, wait: bool = False) -> None:
        """Kill the child and everything it started; safe to call twice.

        The kill is sent at once; waiting for the processes to be gone happens
        in the background unless ``wait``, so a finished check is not held up
        by the kernel tearing a sandbox down.
        """
        if self._closed:
            return
        self._closed = True
        closed, self.on_close = self.on_close, None
        if closed is not None:
            closed()
        watchdog().forget(self)
        reaper = first_child(self.process.pid)
        self._signal_tree()
        # At once, not in the reaping thread, which may not run before the interpreter exits. A sandbox
        # still being torn down keeps its mount; the host's files can go.
        shutil.rmtree(self._metric_root, ignore_errors=True)
        live_roots.discard(self._metric_root)
        if wait:
            self._reap(reaper)
        else:
            threading.Thread(target=self._reap, args=(reaper,), daemon=True, name="skynet-reap").start()

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _kill_for(self, reason: Callable[[], str]) -> None:
        """Stop the sandbox now (from the watchdog's thread); the running call fails with ``reason()`` (made
        by the thread that reports it, so in its caller's language)."""
        self._killed_for = reason
        self._signal_tree()

    def _signal_tree(self) -> None:
        # The child's session holds its process group; the PID namespace (bubblewrap's, or the reduced
        # launcher's as root) dies with its first process, taking even processes that called setsid.
        # A launcher without one is a subreaper: what is below it is killed first, or it would be
        # reparented out of reach when the launcher dies.
        if self.isolation is Isolation.REDUCED and not has_pid_namespace(self.process.pid):
            kill_below(self.process.pid)
        pid = self.process.pid
        kills: tuple[Callable[[], None], ...] = (lambda: os.killpg(pid, signal.SIGKILL), self.process.kill)
        for kill in kills:
            try:
                kill()
            except (ProcessLookupError, PermissionError):
                pass

    def _reap(self, reaper: int | None) -> None:
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        # The sandbox's PID-1 reaper exits only after every process in the sandbox has.
        deadline = time.monotonic() + 2.0
        while reaper is not None and running(reaper) and time.monotonic() < deadline:
            time.sleep(0.002)
        self._pipes.close()
        if self.memory_cgroup is not None:
            self.memory_cgroup.remove()

    def send(self, message: dict[str, Any], deadline: float, cancel: threading.Event | None = None) -> None:
        self._send_line(orjson.dumps(message) + b"\n", deadline, cancel)

    def _send_line(self, line: bytes, deadline: float, cancel: threading.Event | None) -> None:
        if not self._watched:
            self._watched = True
            full = self.isolation is Isolation.FULL
            watchdog().watch(self, self.process.pid, self.limits.memory_bytes, full, self._kill_for, self.memory_cgroup)
        data = memoryview(line)
        while data:
            self._check(deadline, cancel)
            try:
                written = self._pipes.write(data)
            except OSError as exc:
                raise ChildDied(
                    self._death_message(_("the metric's process closed its input ({error})").format(error=exc))
                ) from exc
            if written is None:  # the pipe is full: the child reads it while we read what it sends
                self._pump(min(0.05, max(0.0, deadline - time.monotonic())), want_write=True)
                continue
            data = data[written:]

    def receive(self, deadline: float, cancel: threading.Event | None) -> dict[str, Any]:
        """The next message from the child, waiting until ``deadline`` at most."""
        lines = self._pipes.lines
        while not lines:
            self._check(deadline, cancel)
            self._pump(min(0.05, max(0.0, deadline - time.monotonic())))
        line = lines.pop(0)
        try:
            message = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise ChildDied(
                _(
                    "the metric wrote something that is not the runner's JSON onto the runner's private "
                    "channel; print() instead of writing to inherited file descriptors"
                ),
                self.running_index(),
            ) from exc
        if not isinstance(message, dict) or not isinstance(message.get("t"), str):
            raise ChildDied(
                _(
                    "the metric wrote an unexpected message onto the runner's private channel; "
                    "print() instead of writing to inherited file descriptors"
                ),
                self.running_index(),
            )
        return message

    def _check(self, deadline: float, cancel: threading.Event | None) -> None:
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        if self._call_timeout is not None:
            index = self._progress.overran(self._unanswered, self._call_timeout)
            if index is not None:
                raise self._timeout(index)
        if time.monotonic() >= deadline:
            raise self._timeout(self.running_index())

    def running_index(self) -> int | None:
        """The position of the call the child is in, by its progress page (None when idle)."""
        return self._progress.running_index()

    def running_ms(self) -> float:
        return self._progress.running_ms()

    def _set_idle(self) -> None:
        self._progress.idle()
        self._call_timeout = None
        self._unanswered = 0

    def _pump(self, wait: float, want_write: bool = False) -> None:
        """Read whatever the child has sent for up to ``wait`` seconds (:meth:`Pipes.pump`); a child that exited
        or sent a reply too long is a ChildDied, for the case it was running."""
        try:
            if self._pipes.pump(wait, want_write):
                return
        except ReplyTooLarge:
            raise ChildDied(
                _(
                    "the metric's process sent a reply over {size} MiB; "
                    "return less (feedback and side information are capped at 1 MB)"
                ).format(size=MAX_LINE_BYTES >> 20),
                self.running_index(),
            ) from None
        raise ChildDied(self._death_message(_("the metric's process exited")), self.running_index())

    def stderr_text(self) -> str:
        return self._pipes.stderr.decode("utf-8", "replace")

    def _death_message(self, what: str) -> str:
        if self._killed_for is not None:
            return self._killed_for()
        if self.memory_cgroup is not None and self.memory_cgroup.oom_kills():
            return kernel_limit_message(self.limits.memory_bytes, self.memory_cgroup.peak())
        try:
            code = self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            code = None
        return death_message(what, code, self.stderr_text(), self.metric_dir)

    def _timeout(self, index: int | None) -> CallTimeout:
        frame = self._stuck_frame()
        return CallTimeout(frame[1], index, frame[0]) if frame else CallTimeout(None, index)

    def _stuck_frame(self) -> tuple[str, int] | None:
        """Ask the child for its stack (SIGUSR1 → faulthandler) and find the metric folder's innermost
        frame in it: (file, line)."""
        pid = self._find_python_pid()
        if pid is None:
            return None
        stderr = self._pipes.stderr
        before = len(stderr)
        try:
            os.kill(pid, signal.SIGUSR1)
        except (ProcessLookupError, PermissionError):
            return None
        deadline = time.monotonic() + KILL_GRACE_S
        while time.monotonic() < deadline:
            try:
                self._pump(0.02)
            except ChildDied:
                break
            if last_metric_frame(stderr[before:].decode("utf-8", "replace"), self.metric_dir):
                break
        return last_metric_frame(stderr[before:].decode("utf-8", "replace"), self.metric_dir)

    def _find_python_pid(self) -> int | None:
        if self._python_pid is None:
            self._python_pid = python_pid(self.process.pid, self.isolation)
        return self._python_pid

    def _taken(self, ahead: CallsAhead | None, position: int, reported: Any, case: int | None) -> list[LlmCall]:
        """The traces of the answers sent ahead that the case at ``position`` reports taking (none when it
        reports none; ``case``: see ``CallsAhead.used``); a report of answers never sent is a forged message,
        which fails the case."""
        if reported is None:
            return []
        try:
            if ahead is None:
                raise ValueError("no answer was sent ahead")
            return ahead.used(position, reported, case)
        except ValueError:
            raise malformed_results(position) from None

    def load(self, source: str | MetricSource, timeout: float, cancel: threading.Event | None = None) -> dict[str, Any]:
        """Write the metric folder where the child sees it, then have the child import metric.py within ``timeout``
        seconds, counted once the child is ready (a sandbox still starting is not the metric's slowness)."""
        source = MetricSource.of(source)
        materialise(source, self.metric_host_dir)
        self.wait_ready()
        deadline = time.monotonic() + timeout
        request: dict[str, Any] = {"op": "load", "source": source.main}
        if (lang := language()) != SOURCE_LANGUAGE:
            request["lang"] = lang  # the child writes its messages in the caller's language
        self.send(request, deadline, cancel)
        reply = self.receive(deadline, cancel)
        if reply.get("t") != "loaded":
            raise ChildDied(_("the metric's process answered the load with an unexpected message"))
        return reply

    def run(
        self,
        cases: list[dict[str, Any]] | EncodedCases,
        timeout: float,
        llm: LlmHandler | None,
        cancel: threading.Event | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Yield one reply per case, in order (:meth:`run_chunks`, one reply at a time)."""
        for chunk in self.run_chunks(cases, timeout, llm, cancel):
            yield from chunk

    def send_cases(
        self,
        cases: list[dict[str, Any]] | EncodedCases,
        timeout: float,
        cancel: threading.Event | None = None,
        careful: bool = False,
        ahead: CallsAhead | None = None,
    ) -> None:
        """Send a request of cases; :meth:`run_chunks` reads what the child answers."""
        head = b'{"op":"cases","careful":true,"cases":' if careful else b'{"op":"cases","cases":'
        tail = b',"ahead":%s}\n' % orjson.dumps(ahead.wire) if ahead is not None and ahead.wire else b"}\n"
        body = cases.data if isinstance(cases, EncodedCases) else orjson.dumps(cases)
        self._send_line(head + body + tail, time.monotonic() + timeout + ANSWER_SLACK_S, cancel)

    def run_chunks(
        self,
        cases: list[dict[str, Any]] | EncodedCases,
        timeout: float,
        llm: LlmHandler | None,
        cancel: threading.Event | None = None,
        careful: bool = False,
        ahead: CallsAhead | None = None,
        sent: float | None = None,
        last: Callable[[], None] | None = None,
    ) -> Iterator[list[dict[str, Any]]]:
        """Yield the replies, in order, a list at a time as the child sent them (a few ms' worth: fewer steps
        a case for the caller); each call of score gets ``timeout`` seconds.

        Raises CallTimeout, ChildDied or Cancelled; their ``index`` names the
        case that was running, or is None when none was (the child died
        between cases, or before it read them). Results the child had not sent
        yet are lost with it: the caller runs those cases again in a fresh worker.
        ``careful``: the child sends each result alone and checks its channel
        after every case (slower; for cases run again after a broken channel).
        ``ahead``: the answers sent ahead with the cases, which is told of every
        call each case makes (``CallsAhead``).
        ``sent``: the request went already (:meth:`send_cases`, at this ``time.monotonic()``), while
        the child finished the one before. ``last``: called when the child's last message for these
        cases arrives, before it is handled: the child then waits for its next request, which
        ``last`` may send (:meth:`send_cases`) so that the child works while this process handles
        the results (the child reads a request only once it has sent every result of the one before,
        so that nothing of the next request is read as the answer to an ``llm()`` call).
        """
        # The progress page lives in the child's memory, where metric code can rewrite it, so calls
        # are also bounded by the parent's own clock: the running call started at most one flush
        # interval after the last results arrived (or after the cases were sent). Nothing else the
        # child sends, such as a model call, moves that bound.
        limit_s = timeout + ANSWER_SLACK_S
        if sent is None:
            self._set_idle()
            self.send_cases(cases, timeout, cancel, careful, ahead)
            answered_at = time.monotonic()
        else:  # the child may be running its first case already: its progress page is left as it is
            self._unanswered, answered_at = 0, sent
        self._call_timeout = timeout
        judge: list[LlmCall] = []
        # The running case's llm() calls (the child sends its results before each call, so every call
        # since the last result is the running case's), and the error that ended it, if a limit did.
        calls, ended, case = 0, None, 0
        try:
            while self._unanswered < len(cases):
                message = self.receive(answered_at + limit_s, cancel)
                kind = message["t"]
                if kind == "llm":
                    position = self._unanswered
                    case = case or next(case_numbers)
                    # Answers sent ahead that the case took before this call came first.
                    taken = self._taken(ahead, position, message.pop("ahead", None), case)
                    judge += taken
                    calls += len(taken) + 1
                    if ended is not None:  # refused again, untraced: the case is over already
                        reply = {"op": "llm_reply", "error": ended}
                    else:
                        # The judge's time counts toward the call's timeout like any other work.
                        check = functools.partial(self._check, answered_at + limit_s, cancel)
                        reply = answer_llm(message, llm, check, calls, case)
                        if reply.pop("end_case", False):
                            ended = reply["error"]
                        recorded = reply.pop("recorded", None)
                        if recorded is not None and ahead is not None:
                            ahead.made(position, recorded)
                        judge.append(traced(message, reply))
                    self.send(reply, answered_at + limit_s, cancel)
                    continue
                items = results_items(message, self._unanswered, len(cases), self.running_index)
                if last is not None and self._unanswered + len(items) == len(cases):
                    last()
                for n, item in enumerate(items):
                    position = self._unanswered + n
                    if "ahead" in item:  # taken after the case's last call to this process, if any
                        judge += self._taken(ahead, position, item.pop("ahead"), None)
                    if ended is not None:  # a limit ended this case: whatever the metric returned, it failed
                        item = items[n] = {
                            "i": item["i"],
                            "status": "error",
                            "error": ended,
                            "duration_ms": item.get("duration_ms"),
                            "stdout": item.get("stdout"),
                        }
                        ended = None
                    calls, case = 0, 0
                    # Only what this process traced: a "judge" the child sent is forged.
                    item["judge"], judge = judge, []
                    if ahead is not None:
                        ahead.done(position)
                self._unanswered += len(items)
                yield items
                answered_at = time.monotonic()
        except (CallTimeout, ChildDied) as exc:
            exc.llm_calls = [*judge, *exc.llm_calls]  # for the failed case's result
            raise
        finally:
            self._call_timeout = None

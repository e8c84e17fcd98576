"""A Ray driver in a process of its own, for the tests of scoring on a Ray cluster (tests/ray_cluster.py).

Ray's driver lives in the process that calls ``ray.init``, and it may end that process: a node it relies on killed
under load, a head that does not answer for a minute. A pytest worker that was the driver then died with it ("node
down: Not properly terminated") and the run hung. So the tests never connect to the cluster from pytest's process:
they hand a function and its arguments to this driver, a child Python that stays connected for the module (one
``import ray`` and one connection, as before), and get back what the function returned, or its exception. A driver
that dies fails the test that was waiting on it, with its exit status and the end of what it printed, and the next
call starts a new one.

    driver = RayDriver()
    run = driver.call(score_cases_ray, source, cases, options, address=cluster.address)
    driver.close()

The function and its arguments cross as a pickle, so they are module-level functions and plain values (a
``RunOptions`` with callbacks does not cross: the functions below run the callbacks in the driver and return
what they saw).
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CALL_TIMEOUT_S = 600.0  # one call's longest wait (pytest's own timeout is 300 s a test)
_HEADER = struct.Struct("!Q")


class DriverDied(AssertionError):
    """The driver process ended while a call waited on it."""


class RayDriver:
    """A child Python that runs the functions it is handed, one at a time, and stays up between calls."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._log = Path(tempfile.mkstemp(prefix="skyray-driver-", suffix=".log")[1])

    def call(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``function(*args, **kwargs)`` run in the driver: what it returned, or its exception raised here. A
        :class:`~skynet_core.metric.source.MetricSource` among ``args`` crosses as its files (it does not pickle)."""
        process = self._started()
        assert process.stdin is not None and process.stdout is not None
        args = tuple(_Folder(dict(arg.files)) if type(arg).__name__ == "MetricSource" else arg for arg in args)
        message = pickle.dumps((function, args, kwargs))
        try:
            process.stdin.write(_HEADER.pack(len(message)) + message)
            process.stdin.flush()
            reply = _read(process.stdout, _HEADER.size, CALL_TIMEOUT_S)
            reply = _read(process.stdout, _HEADER.unpack(reply)[0], CALL_TIMEOUT_S)
        except (OSError, EOFError, TimeoutError) as exc:
            self._process = None
            if process.poll() is None:
                process.kill()
            raise DriverDied(self._obituary(process, function, exc)) from None
        ok, value = pickle.loads(reply)
        if not ok:
            if not isinstance(value, Exception):  # a KeyboardInterrupt of the driver's must not stop pytest
                raise AssertionError(f"{function.__name__} ended in the driver with {type(value).__name__}: {value}")
            raise value
        return value

    def interrupt(self) -> None:
        """Ctrl+C for the driver process (SIGINT), as a terminal sends it to the command running in it."""
        assert self._process is not None and self._process.poll() is None, "the driver is not running"
        self._process.send_signal(signal.SIGINT)

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            assert process.stdin is not None
            try:
                process.stdin.close()  # the driver's loop ends, and Ray's shutdown runs in it
                process.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                process.kill()
                process.wait(timeout=10)
        self._log.unlink(missing_ok=True)

    def _started(self) -> subprocess.Popen[bytes]:
        if self._process is None or self._process.poll() is not None:
            with self._log.open("ab") as log:
                self._process = subprocess.Popen(
                    [sys.executable, "-m", "tests.ray_driver"],
                    cwd=ROOT,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])},
                )
        return self._process

    def _obituary(self, process: subprocess.Popen[bytes], function: Callable[..., Any], why: Exception) -> str:
        try:
            code = process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            code = None
        if code is not None and code < 0:
            status = f"killed by {signal.Signals(-code).name}"
        else:
            status = f"exit status {code}"
        said = self._log.read_text(errors="replace")[-3000:]
        return (
            f"the Ray driver process ({status}) ended while it ran {function.__name__} ({type(why).__name__}: "
            f"{why}); the test's pytest worker lives on. What the driver printed last:\n{said}"
        )


@dataclass(frozen=True)
class _Folder:
    """A metric folder's files on their way to the driver, which makes the MetricSource again."""

    files: dict[str, str]


def _source(source: Any) -> Any:
    from skynet_core.metric.source import MetricSource

    return MetricSource(source.files) if isinstance(source, _Folder) else source


def _read(stream: Any, size: int, timeout_s: float) -> bytes:
    deadline = time.monotonic() + timeout_s
    chunks, left = [], size
    fd = stream.fileno()
    while left:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            raise TimeoutError(f"no answer in {timeout_s:g} s")
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError("the driver's output closed")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _serve() -> None:
    """The driver's loop: one call at a time from standard input, each reply to standard output."""
    requests, replies = sys.stdin.buffer, os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout = sys.stderr  # what the functions print goes to the log, never into a reply
    lock = threading.Lock()
    while header := requests.read(_HEADER.size):
        function, args, kwargs = pickle.loads(requests.read(_HEADER.unpack(header)[0]))
        try:
            reply = pickle.dumps((True, function(*args, **kwargs)))
        except BaseException as exc:  # noqa: BLE001  (handed back to the test, which raises it)
            try:
                reply = pickle.dumps((False, exc))
            except Exception:  # noqa: BLE001  (an exception that does not pickle goes back as its text)
                reply = pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
        with lock:
            replies.write(_HEADER.pack(len(reply)) + reply)
            replies.flush()
    if "ray" in sys.modules:
        sys.modules["ray"].shutdown()


# -- what the tests run in the driver -------------------------------------------------------------------------------


def score(source: Any, cases: list[Any], address: str, timeout_s: float = 10.0, **kwargs: Any) -> Any:
    """``score_cases_ray`` with ``RunOptions(timeout_s)``; ``kwargs`` go to it (``batch_cases``)."""
    from skynet_core.scoring import RunOptions
    from skynet_core.scoring.cluster import score_cases_ray

    return score_cases_ray(_source(source), cases, RunOptions(timeout_s=timeout_s), address=address, **kwargs)


def score_streamed(source: Any, cases: list[Any], address: str, batch_cases: int) -> tuple[Any, list[str], list[str]]:
    """The run, and the ids ``on_result`` and ``in_order`` were called with, in the order of the calls."""
    from skynet_core.scoring import RunOptions
    from skynet_core.scoring.cluster import score_cases_ray

    seen: list[str] = []
    ordered: list[str] = []
    options = RunOptions(
        timeout_s=10,
        on_result=lambda result: seen.append(result.id),
        in_order=lambda result: ordered.append(result.id),
    )
    run = score_cases_ray(source, cases, options, address=address, batch_cases=batch_cases)
    return run, seen, ordered


def score_killing(
    source: Any, cases: list[Any], address: str, batch_cases: int, node: Any
) -> tuple[Any, list[str], list[int]]:
    """The run, during which ``node`` (a :class:`~tests.ray_cluster.NodeRef`) is killed once some results came back
    and it runs a batch; the ids ``on_result`` got, and how many results had come when the node was killed.

    The kill waits for the node to be busy rather than for a number of results: on a loaded machine Ray may take
    seconds to start a worker process on that node, and a kill timed by results found it idle."""
    from skynet_core.scoring import RunOptions
    from skynet_core.scoring.cluster import score_cases_ray
    from tests.ray_cluster import running_batches

    seen: list[str] = []
    killed_at: list[int] = []
    done = threading.Event()

    def kill_when_busy() -> None:
        while not done.is_set():
            if seen and running_batches(node.tree()):
                killed_at.append(len(seen))
                node.kill()
                return
            time.sleep(0.05)  # a batch here runs 0.2 s at least; each look reads every process's /proc/PID/stat

    killer = threading.Thread(target=kill_when_busy, daemon=True)
    killer.start()
    try:
        options = RunOptions(timeout_s=10, on_result=lambda result: seen.append(result.id))
        run = score_cases_ray(source, cases, options, address=address, batch_cases=batch_cases)
    finally:
        done.set()
        killer.join(30)
    return run, seen, killed_at


def score_cancelled(source: Any, cases: list[Any], address: str, batch_cases: int, after: int) -> tuple[Any, list[str]]:
    """The run, cancelled once ``after`` results came back; the ids ``in_order`` was called with."""
    from skynet_core.scoring import RunOptions
    from skynet_core.scoring.cluster import score_cases_ray

    cancel = threading.Event()
    seen: list[str] = []
    handed: list[str] = []

    def cancel_early(result: Any) -> None:
        seen.append(result.id)
        if len(seen) >= after:
            cancel.set()

    options = RunOptions(
        timeout_s=10, cancel=cancel, on_result=cancel_early, in_order=lambda result: handed.append(result.id)
    )
    run = score_cases_ray(source, cases, options, address=address, batch_cases=batch_cases)
    return run, handed


def score_judged(source: Any, cases: list[Any], address: str, batch_cases: int, settings: Any) -> Any:
    """``score_cases_ray`` whose model calls this process makes with ``settings`` (the key stays here)."""
    import litellm  # noqa: F401  (before the run: on a loaded machine its import, seconds of CPU, ate the 30 s)

    from skynet_core.llm import make_handler
    from skynet_core.scoring import RunOptions
    from skynet_core.scoring.cluster import score_cases_ray

    options = RunOptions(timeout_s=30, llm=make_handler(settings))
    return score_cases_ray(source, cases, options, address=address, batch_cases=batch_cases)


def score_here(source: Any, cases: list[Any], timeout_s: float, settings: Any = None) -> Any:
    """``score_cases`` on this machine (the driver's own process pool), with a handler of ``settings`` when given:
    the local run a Ray run is compared with, in the process that has litellm imported already."""
    from skynet_core.llm import make_handler
    from skynet_core.scoring import RunOptions
    from skynet_core.scoring.runner.pool import default_pool
    from skynet_core.scoring.runner.run import score_cases

    llm = make_handler(settings) if settings is not None else None
    return score_cases(_source(source), cases, RunOptions(timeout_s=timeout_s, pool=default_pool(), llm=llm))


def command_line(argv: list[str], environment: dict[str, str]) -> tuple[int, str, str]:
    """``python -m skynet_core ARGV`` in the driver (with ``environment`` added): exit status, stdout, stderr."""
    import io

    from skynet_core import cli

    before = dict(os.environ)
    os.environ.update(environment)
    try:
        out, err = io.StringIO(), io.StringIO()
        code = cli.run(argv, stdout=out, stderr=err)
    finally:  # as monkeypatch does in the test's own process: the next call finds the environment as it was
        os.environ.clear()
        os.environ.update(before)
    return code, out.getvalue(), err.getvalue()


if __name__ == "__main__":
    _serve()

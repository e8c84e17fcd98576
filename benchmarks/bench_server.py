"""The server under a large job: `/_stcore/health` latency and sandboxes alive while "Score all" runs.

    .venv/bin/python benchmarks/bench_server.py [--cases 900000] [--seconds 120] [--sessions 1]
    .venv/bin/python benchmarks/bench_server.py --sessions 6 --cases 20000 --judge-ms 250
    .venv/bin/python benchmarks/bench_server.py --cases 300000 --seconds 60 --flood 40 --flood-rate 500

Starts `streamlit run serve.py` on a free port with a data directory of its own holding ``--cases``
cases (the exact-match example metric as the draft), opens the Author page in ``--sessions`` headless
Chromium tabs, waits for each to draw its verdict, then clicks "Score all cases" in every tab at
once. From the click on, for ``--seconds`` (or until every job has finished), a thread asks
`/_stcore/health` every ``--interval`` seconds (one request at a time, 60 s timeout) and counts the
server's sandboxes alive (its child processes); another counts the results the jobs have sent so far
from the progress text the pages show. ``--judge-ms`` makes the draft a model-as-judge metric
answered by tests/fake_openai.py on 127.0.0.1 after that many ms (a job whose sandboxes wait).

``--flood N`` adds, from the click on, a request flood from a process of its own: ``N`` keep-alive
connections asking, ``--flood-rate`` times a second in all, for the pages' addresses (a third of the
requests) and Streamlit's static files (the rest: the scripts and styles its index.html names, then
the other scripts of its folder), as a crowd of visitors or a crawler would. Its requests answered
per second and their latency are printed beside health's, and health's 99th percentile with them.

Printed: health latency before the click (baseline) and during the jobs (median, 95th percentile,
max, the number of checks slower than 1 s), the most sandboxes alive at once, how far the jobs got,
and the server's garbage-collector pauses (the server runs with a `gc.callbacks` hook that logs each
collection over 50 ms: generation, objects collected, milliseconds). The machine's load average is
printed at the start and the end: it is shared, so read figures against it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the tests' helpers; skynet_core itself is installed

from skynet_core.store import Store  # noqa: E402
from tests.e2e.browser import CHROMIUM_ARGS, WHOLE_BROWSER, free_port, stop_server  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402

LABELS = ["billing", "technical", "shipping", "refund", "account"]
EXACT = (ROOT / "skynet_core/examples/metrics/exact_match.py").read_text()
JUDGE = """
from skynet import llm

def score(input, output, expected=None):
    verdict = llm("Answer PASS or FAIL, then one sentence.", input=f"Ticket: {input['subject']}\\nAnswer: {output}")
    return (1.0 if verdict.strip().upper().startswith("PASS") else 0.0), {"feedback": verdict}
"""
# The server's interpreter, with a hook that logs every garbage collection over 50 ms (the GIL is held
# throughout one: the event loop answers nothing meanwhile).
SERVE = """
import gc, sys, time
log = open(sys.argv[1], "a", buffering=1)
started = {}
def watch(phase, info):
    if phase == "start":
        started["t"] = time.perf_counter()
    elif "t" in started:
        ms = (time.perf_counter() - started.pop("t")) * 1000
        if ms >= 50:
            log.write(f"{time.time():.3f} gen{info['generation']} collected={info['collected']} ms={ms:.0f}\\n")
gc.callbacks.append(watch)
sys.argv = ["streamlit", "run", "serve.py", *sys.argv[2:]]
from streamlit.web.cli import main
main()
"""


def write_cases(path: Path, count: int) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for start in range(0, count, 10_000):
            handle.write(
                "".join(
                    json.dumps(
                        {
                            "id": f"T-{index:07d}",
                            "input": {"subject": f"Ticket {index}", "message": "My order has not arrived yet."},
                            "output": json.dumps({"label": LABELS[index % 5], "priority": "low"}),
                            "expected": {"label": LABELS[(index // 4) % 5]},
                        }
                    )
                    + "\n"
                    for index in range(start, min(count, start + 10_000))
                )
            )


def start(data_dir: Path, gc_log: Path, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            SERVE,
            str(gc_log),
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
        ],
        cwd=ROOT,
        env={**os.environ, **env, "SKYNET_DATA_DIR": str(data_dir)},
        stdout=(data_dir / "server.log").open("ab"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if health(url) is not None:
            return process, url
        time.sleep(0.2)
    stop_server(process)
    raise SystemExit(f"the server did not answer within 60 s; see {data_dir / 'server.log'}")


def health(url: str, timeout: float = 60.0) -> float | None:
    """Seconds `/_stcore/health` took to answer 200, or None when it did not."""
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=timeout) as reply:
            return time.perf_counter() - started if reply.status == 200 else None
    except OSError:
        return None


def sandboxes(pid: int) -> int:
    """The server's child processes alive: one per sandbox (bubblewrap or the reduced child)."""
    count = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            count += 1
    return count


class Sampler(threading.Thread):
    """A health check every ``interval`` seconds, each in a thread of its own (as a load balancer asks,
    whether the last one answered or not, so a stall is seen by every check it delays), and the
    sandboxes alive, until stopped."""

    def __init__(self, url: str, pid: int, interval: float) -> None:
        super().__init__(daemon=True)
        self.url, self.pid, self.interval = url, pid, interval
        self.latencies: list[float] = []
        self.when: list[float] = []  # when each answered check was asked (perf_counter)
        self.failed = 0
        self.most_sandboxes = 0
        self.stop = threading.Event()
        self._checks: list[threading.Thread] = []

    def check(self) -> None:
        asked = time.perf_counter()
        latency = health(self.url)
        if latency is None:
            self.failed += 1
        else:
            self.latencies.append(latency)
            self.when.append(asked)

    def run(self) -> None:
        while not self.stop.is_set():
            thread = threading.Thread(target=self.check, daemon=True)
            thread.start()
            self._checks.append(thread)
            self.most_sandboxes = max(self.most_sandboxes, sandboxes(self.pid))
            self.stop.wait(self.interval)
        for thread in self._checks:
            thread.join(65)


def percentile(ordered: list[float], share: float) -> float:
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def summary(name: str, values: list[float], failed: int = 0) -> str:
    if not values:
        return f"  {name:<34} no answer ({failed} failed)"
    ordered = sorted(values)
    slow = sum(1 for value in values if value > 1.0)
    return (
        f"  {name:<34} median {statistics.median(values) * 1000:7.1f} ms"
        f"  p95 {percentile(ordered, 0.95) * 1000:7.1f} ms  p99 {percentile(ordered, 0.99) * 1000:7.1f} ms"
        f"  max {max(values) * 1000:7.1f} ms  over 1 s: {slow} of {len(values)}"
        + (f"  failed {failed}" if failed else "")
    )


FLOOD = r"""
import asyncio, json, re, sys, time
from pathlib import Path
from urllib.parse import urlparse

url, static_dir, pages = sys.argv[1], sys.argv[5], sys.argv[6].split(",")
connections, rate, seconds = int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
where = urlparse(url)
index = (Path(static_dir) / "index.html").read_text()
named = re.findall(r'(?:src|href)="\./(static/[^"]+)"', index)
others = sorted("static/js/" + path.name for path in (Path(static_dir) / "static" / "js").glob("*.js"))[:60]
assets = named + [path for path in others if path not in named]
paths = ["/" + page for page in pages]
latencies, failed = [], 0

async def client(number):
    global failed
    reader, writer = await asyncio.open_connection(where.hostname, where.port)
    interval = connections / rate
    step = number
    next_at = time.perf_counter() + interval * number / connections
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
        next_at += interval
        path = paths[step % len(paths)] if step % 3 == 0 else "/" + assets[step % len(assets)]
        step += connections
        asked = time.perf_counter()
        try:
            writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\n\r\n".encode())
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))
            await reader.readexactly(length)
            latencies.append(time.perf_counter() - asked)
        except Exception:
            failed += 1
            writer.close()
            reader, writer = await asyncio.open_connection(where.hostname, where.port)

async def main():
    started = time.perf_counter()
    await asyncio.gather(*(client(number) for number in range(connections)))
    print(json.dumps({"answered": len(latencies), "failed": failed, "seconds": time.perf_counter() - started,
                      "latencies": latencies}))

asyncio.run(main())
"""


def start_flood(url: str, connections: int, rate: float, seconds: float) -> subprocess.Popen[str]:
    """The flood's process (FLOOD), asking for pages and static files until ``seconds`` have passed."""
    from streamlit import file_util

    pages = ["", *sorted(path.name for path in (ROOT / "pages").iterdir() if (path / "__init__.py").exists())]
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            FLOOD,
            url,
            str(connections),
            str(rate),
            str(seconds),
            file_util.get_static_dir(),
            ",".join(pages),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )


def runs_saved(data_dir: Path) -> int:
    """How many scored runs the studio has kept (a "Score all" that finished is kept)."""
    try:
        with sqlite3.connect(f"file:{data_dir / 'studio.sqlite3'}?mode=ro", uri=True, timeout=30) as db:
            return int(db.execute("SELECT COUNT(*) FROM scored_runs").fetchone()[0])
    except sqlite3.Error:
        return 0


def open_author(page: Page, url: str) -> None:
    """The Author page drawn, its "Score all cases" button ready (the check's verdict need not be: with six
    sessions on a loaded machine one session's check may still be replaced by its next)."""
    page.goto(url)
    expect(page.get_by_role("button", name="Score all cases")).to_be_enabled(timeout=600_000)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=600_000)


def progress_done(page: Page) -> int | None:
    """The cases done as the page's progress text says ("Scoring… 12,345 of 900,000"), or None."""
    try:
        text = page.locator('[data-testid="stProgress"]').first.inner_text(timeout=1_000)
    except Exception:  # noqa: BLE001  (no progress bar drawn: not started yet, or finished)
        return None
    found = re.search(r"([\d,]+) of ([\d,]+)", text)
    return int(found.group(1).replace(",", "")) if found else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=900_000)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--sessions", type=int, default=1)
    parser.add_argument("--interval", type=float, default=0.25)
    parser.add_argument("--judge-ms", type=float, default=None, help="a judge metric answered after this many ms")
    parser.add_argument("--flood", type=int, default=0, metavar="N", help="keep-alive connections of a request flood")
    parser.add_argument("--flood-rate", type=float, default=500.0, help="the flood's requests a second, in all")
    args = parser.parse_args()

    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    data_dir = Path(tempfile.mkdtemp(prefix="skynet-bench-server-"))
    data, gc_log = data_dir / "cases.jsonl", data_dir / "gc.log"
    began = time.perf_counter()
    write_cases(data, args.cases)
    print(f"{args.cases:,} cases written in {time.perf_counter() - began:.1f} s ({data.stat().st_size / 1e6:.0f} MB)")
    store = Store(data_dir)
    store.set("dataset.path", str(data))
    fake = FakeOpenAI(latency_s=(args.judge_ms or 0.0) / 1000.0).start() if args.judge_ms else None
    env = {"SKYNET_METRIC_MODEL": "openai/judge", "SKYNET_METRIC_API_BASE": fake.url} if fake else {}
    store.save_draft(JUDGE if fake else EXACT)
    if fake:
        store.set("timeout_s", 600.0)  # the server's first model call waits for litellm's import (a minute at load 15)
    process, url = start(data_dir, gc_log, env)
    sampler = Sampler(url, process.pid, args.interval)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=WHOLE_BROWSER, args=CHROMIUM_ARGS)
            pages = []
            began = time.perf_counter()
            for _ in range(args.sessions):
                page = browser.new_context(viewport={"width": 1500, "height": 1400}).new_page()
                open_author(page, url)
                pages.append(page)
            print(f"{args.sessions} session(s) drew the Author page in {time.perf_counter() - began:.1f} s")
            baseline = [value for _ in range(20) if (value := health(url)) is not None]
            buttons = [page.get_by_role("button", name="Score all cases") for page in pages]
            for button in buttons:
                expect(button).to_be_enabled(timeout=60_000)
            sampler.start()
            flood = start_flood(url, args.flood, args.flood_rate, args.seconds) if args.flood else None
            clicked = time.perf_counter()
            for button in buttons:  # one after the other (Playwright drives its pages from one thread), within a second
                button.click(no_wait_after=True)
            first_progress: float | None = None
            saved: float | None = None
            kept = runs_saved(data_dir)
            done: list[int | None] = [None] * len(pages)
            while time.perf_counter() - clicked < args.seconds:
                done = [progress_done(page) for page in pages]
                if first_progress is None and any(value for value in done):
                    first_progress = time.perf_counter() - clicked
                if saved is None and runs_saved(data_dir) >= kept + len(pages):
                    saved = time.perf_counter() - clicked
                finished = all(page.get_by_text(re.compile(r"Showing .* scored cases")).count() for page in pages)
                if finished:
                    break
                time.sleep(1.0)
            elapsed = time.perf_counter() - clicked
            sampler.stop.set()
            sampler.join(70)
            flooded = json.loads(flood.communicate(timeout=args.seconds + 120)[0]) if flood is not None else None
            browser.close()
    finally:
        stop_server(process)
        if fake is not None:
            fake.stop()

    print(
        f"after the click: {elapsed:.0f} s; the progress first counted cases after "
        + (f"{first_progress:.1f} s" if first_progress is not None else "never")
        + "; cases done per session at the end: "
        + ", ".join(f"{value:,}" if value is not None else "finished or none shown" for value in done)
    )
    print(
        "every job finished and was kept "
        + (f"{saved:.0f} s after the click" if saved is not None else f"not within the {elapsed:.0f} s watched")
    )
    ended = clicked + (saved if saved is not None else elapsed)
    during = [latency for latency, asked in zip(sampler.latencies, sampler.when, strict=True) if asked < ended]
    after = [latency for latency, asked in zip(sampler.latencies, sampler.when, strict=True) if asked >= ended]
    slowest = sorted(zip(sampler.latencies, sampler.when, strict=True), reverse=True)[:5]
    print("health (/_stcore/health):")
    print(summary("before the click", baseline))
    print(summary("while the job(s) ran", during, sampler.failed))
    if flooded is not None:
        print(
            f"  the flood: {args.flood} connections asked {args.flood_rate:g} a second; "
            f"{flooded['answered'] / flooded['seconds']:.0f} answered a second, {flooded['failed']} failed"
        )
        print(summary("its pages and static files", flooded["latencies"]))
    if after:
        print(summary("after (the pages draw the results)", after))
    print(
        "  slowest checks (seconds after the click): "
        + ", ".join(f"{latency:.1f} s at {asked - clicked:.0f} s" for latency, asked in slowest)
    )
    print(f"  most sandboxes alive at once       {sampler.most_sandboxes}")
    pauses = [line.split() for line in gc_log.read_text().splitlines()] if gc_log.exists() else []
    total = sum(float(fields[3].removeprefix("ms=")) for fields in pauses)
    longest = max((float(fields[3].removeprefix("ms=")) for fields in pauses), default=0.0)
    print(f"  GC pauses over 50 ms: {len(pauses)}, {total / 1000:.1f} s in all, longest {longest:.0f} ms")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()

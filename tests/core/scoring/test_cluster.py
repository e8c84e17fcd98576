"""Scoring on a Ray cluster: the same results as the local runner, case for case, through node deaths,
cancellation and model calls. A local cluster (2 CPUs, 127.0.0.2) is started once for this module
and stopped after it, even when a test fails. Ray's driver runs in a process of its own (tests/ray_driver.py), one
for the module: a node killed under the driver may end the driver's process, and must not end pytest's worker."""

from __future__ import annotations

import io
import re
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import orjson
import pytest

from skynet_core import cli
from skynet_core.cases import Case
from skynet_core.datasets import load_dataset
from skynet_core.examples import EXAMPLE_METRICS, METRICS_DIR
from skynet_core.llm import ModelConfig, ModelSettings
from skynet_core.metric.source import MetricSource
from skynet_core.results import CaseResult, Isolation
from skynet_core.scoring import RunOptions
from skynet_core.scoring.cluster import ClusterError
from skynet_core.scoring.runner.run import score_cases
from tests import ray_driver
from tests.fake_openai import FakeOpenAI
from tests.ray_cluster import HOST, LocalRayCluster, Node, free_port, running_batches
from tests.ray_driver import RayDriver

TICKETS = METRICS_DIR.parent / "tickets.jsonl"
# How often a test looks at the cluster's processes while it waits for them (each look reads every process's
# /proc/PID/stat: on a machine running hundreds, a look every 0.1 s cost a CPU-second every few seconds of waiting).
WATCH_S = 0.5
SLOW = (
    "import time\n\ndef score(input, output, expected=None):\n    time.sleep({pause})\n"
    "    return float(input['n']), {{'feedback': 'slept'}}\n"
)

# Held-out corpus: the examples, and metrics that fail in each way the runner reports.
HOSTILE = {
    "raises on some cases": "def score(input, output, expected=None):\n"
    "    if input['n'] % 7 == 3:\n        raise ValueError(f'bad case {input[\"n\"]}')\n"
    "    return input['n'] / 100, {'feedback': 'fine'}\n",
    "crashes its process": "import os\n\ndef score(input, output, expected=None):\n"
    "    if input['n'] == 11:\n        os._exit(7)\n"
    "    print('scored', input['n'])\n    return 1.0, {'feedback': 'ok', 'scores': {'a': 0.5}}\n",
    # It sleeps rather than spins: a hang is what the timeout catches, and a spin cost a core for the timeout twice.
    "hangs on one case": "import time\n\ndef score(input, output, expected=None):\n"
    "    while input['n'] == 5:\n        time.sleep(0.05)\n    return 0.5, {'feedback': 'ok', 'note': [1, 2]}\n",
    "returns invalid values": "def score(input, output, expected=None):\n"
    "    return (True if input['n'] % 2 else 0.25), {'feedback': 'x'}\n",
    "does not load": "import no_such_module_here\n\ndef score(input, output, expected=None):\n    return 1.0, {}\n",
}
# Metric folders: the helper module travels with the tasks; a helper that fails to import names its file.
FOLDERS = [
    MetricSource(
        {
            "metric.py": "from helpers import grade\n\ndef score(input, output, expected=None):\n"
            "    return grade(input['n']), {'feedback': 'graded'}\n",
            "helpers.py": "def grade(n):\n    return n % 3 / 2\n",
        }
    ),
    MetricSource(
        {
            "metric.py": "import helpers\n\ndef score(input, output, expected=None):\n    return 1.0, {}\n",
            "helpers.py": "x = 1\nraise RuntimeError('helper broke')\n",
        }
    ),
]


@pytest.fixture(scope="module")
def driver() -> Iterator[RayDriver]:
    """The module's Ray driver: a process of its own, connected once (pytest's process never imports Ray)."""
    found = RayDriver()
    try:
        yield found
    finally:
        found.close()


@pytest.fixture(scope="module")
def ray_cluster(driver: RayDriver) -> Iterator[LocalRayCluster]:
    cluster = LocalRayCluster(cpus=2)
    try:
        yield cluster
    finally:
        driver.close()  # the driver leaves the cluster before the cluster stops
        cluster.stop()


@pytest.fixture(scope="module")
def reduced_node(ray_cluster: LocalRayCluster, driver: RayDriver) -> Node:
    """A second node whose machine has no bubblewrap (forced reduced isolation), once it takes batches."""
    node = ray_cluster.add_node(cpus=1, env={"SKYNET_ISOLATION": "reduced"})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run = driver.call(ray_driver.score, SLOW.format(pause=0.05), numbered(12), ray_cluster.address, batch_cases=2)
        if run.isolation is Isolation.REDUCED:
            return node
    raise AssertionError("the second node took no batch within 60 s")


def numbered(count: int) -> list[Case]:
    return [Case(id=f"c{n}", input={"n": n}, output=f"out {n}") for n in range(count)]


def comparable(results: list[CaseResult]) -> list[dict]:
    """Everything a user sees of a result except how long it took, the line a hang was caught
    on (sampled when the timeout strikes: the loop's condition or its body), and how the
    interpreter in an install hint is spelled (relative to each process's working folder)."""
    rows = [result.to_json() for result in results]
    for row in rows:
        row.pop("duration_ms")
        if row.get("error"):  # the install hint names the node's interpreter, relative to its working folder
            row["error"] = re.sub(r"\S*python\S* -m pip", "PYTHON -m pip", row["error"])
        row["judge"].pop("latency_ms")
        for call in row.get("llm_calls", []):  # each traced llm() call's own timing
            call.pop("latency_ms")
            call.pop("elapsed_ms")
        if row["status"] == "timeout":
            row["error"] = re.sub(r"line \d+", "line N", row.pop("error"))
            row.pop("line")
    return rows


def test_the_held_out_corpus_scores_the_same_on_ray_as_locally(ray_cluster, driver, pool):
    tickets = load_dataset(str(TICKETS))
    ticket_cases = tickets.for_candidate(tickets.candidates[0])
    runs = [(path.read_text(), ticket_cases) for title, path in EXAMPLE_METRICS.items() if title != "Model as judge"]
    runs += [(source, numbered(40)) for source in [*HOSTILE.values(), *FOLDERS]]
    for source, cases in runs:
        local = score_cases(source, cases, RunOptions(timeout_s=3, pool=pool, concurrency=2))
        remote = driver.call(ray_driver.score, source, cases, ray_cluster.address, timeout_s=3, batch_cases=16)
        pairs = zip(comparable(remote.results), comparable(local.results), strict=True)
        differ = [(ours, theirs) for ours, theirs in pairs if ours != theirs]
        assert not differ, (source, differ[:1])
        assert remote.by_status == local.by_status and not remote.cancelled
        assert (remote.load_error and (remote.load_error.file, remote.load_error.line)) == (
            local.load_error and (local.load_error.file, local.load_error.line)
        )
        assert remote.isolation is local.isolation
        if source is FOLDERS[1]:
            assert remote.load_error.file == "helpers.py" and "helper broke" in remote.results[0].error
        assert [batch.start for batch in remote.batches] == list(range(0, len(cases), 16))
        assert all(batch.isolation is local.isolation for batch in remote.batches)


def test_twenty_thousand_cases_score_the_same_on_ray_as_locally(ray_cluster, driver, pool):
    source = "def score(input, output, expected=None):\n    return input['n'] % 97 / 96, {'feedback': output}\n"
    cases = numbered(20_000)
    remote = driver.call(ray_driver.score, source, cases, ray_cluster.address)
    local = score_cases(source, cases, RunOptions(timeout_s=10, pool=pool))
    assert comparable(remote.results) == comparable(local.results)
    assert remote.by_status == {"ok": 20_000} and len(remote.batches) > 1


def test_results_stream_back_as_batches_finish_and_in_case_order(ray_cluster, driver):
    run, seen, ordered = driver.call(
        ray_driver.score_streamed, SLOW.format(pause=0.01), numbered(60), ray_cluster.address, batch_cases=10
    )
    assert sorted(seen) == sorted(result.id for result in run.results) and len(seen) == 60
    assert ordered == [f"c{n}" for n in range(60)]


def test_the_cli_scores_on_ray_with_the_same_report_and_output_file(ray_cluster, driver, tmp_path, monkeypatch):
    data_dir = str(tmp_path / "no-store-here")
    monkeypatch.setenv("SKYNET_DATA_DIR", data_dir)
    metric = str(EXAMPLE_METRICS["Several checks (JSON)"])
    reports = []
    for extra, out in (([], tmp_path / "local.jsonl"), (["--ray", ray_cluster.address], tmp_path / "ray.jsonl")):
        argv = ["score", metric, "--data", str(TICKETS), "--json", "--out", str(out), *extra]
        if extra:  # on Ray: the command line in the driver's process
            code, said, _err = driver.call(ray_driver.command_line, argv, {"SKYNET_DATA_DIR": data_dir})
        else:
            stdout = io.StringIO()
            code, said = cli.run(argv, stdout=stdout, stderr=io.StringIO()), stdout.getvalue()
        report = orjson.loads(said)
        for case in report["cases"]:
            case.pop("duration_ms")
        reports.append(
            (code, report, [orjson.loads(line) | {"duration_ms": 0} for line in out.read_text().split("\n") if line])
        )
    assert reports[0] == reports[1]


def test_a_run_is_as_isolated_as_its_weakest_node(ray_cluster, driver, reduced_node):
    run = driver.call(ray_driver.score, SLOW.format(pause=0.05), numbered(24), ray_cluster.address, batch_cases=2)
    assert {batch.isolation for batch in run.batches} == {Isolation.FULL, Isolation.REDUCED}
    assert run.isolation is Isolation.REDUCED and run.by_status == {"ok": 24}


def test_a_killed_node_loses_and_duplicates_no_case(ray_cluster, driver, reduced_node):
    """The second node is killed while it runs a batch, after some results came back and before the last
    (:func:`tests.ray_driver.score_killing`: it waits for the node to be busy, not for a number of results)."""
    cases = numbered(600)
    run, seen, killed_at = driver.call(
        ray_driver.score_killing, SLOW.format(pause=0.01), cases, ray_cluster.address, 20, reduced_node.ref
    )
    if killed_at:
        reduced_node.process.wait(timeout=10)  # its `ray start`, killed in the driver, is this process's child
    assert killed_at and 0 < killed_at[0] < len(cases)  # it died with a batch running, midway
    assert [result.id for result in run.results] == [case.id for case in cases]
    assert run.by_status == {"ok": 600}
    assert [result.score for result in run.results] == [float(n) for n in range(600)]
    assert sorted(seen) == sorted(case.id for case in cases)  # each case reported once


def test_cancel_stops_every_task(ray_cluster, driver):
    run, handed = driver.call(
        ray_driver.score_cancelled, SLOW.format(pause=0.2), numbered(200), ray_cluster.address, 5, after=10
    )
    assert run.cancelled and 10 <= len(run.results) < 200
    assert handed == [result.id for result in run.results]  # what finished is handed on, none twice
    assert all(result.ok for result in run.results)
    deadline = time.monotonic() + 15
    while busy_workers(ray_cluster) and time.monotonic() < deadline:
        time.sleep(WATCH_S)
    assert busy_workers(ray_cluster) == []
    after = driver.call(ray_driver.score, SLOW.format(pause=0), numbered(5), ray_cluster.address)
    assert after.by_status == {"ok": 5}  # the cluster is usable again


def test_ctrl_c_in_the_cli_cancels_the_ray_tasks(ray_cluster, driver, tmp_path):
    """``score --ray`` run by the command line's ``run`` in the module's driver process, and Ctrl+C (SIGINT) sent
    to that process while the run's batches are running: the command line's own handler cancels the run and it
    exits 130, and no batch is left running. In the driver rather than in a fresh ``python -m skynet_core``: the
    handler is the command line's (``cli.interrupt``), and a fresh process cost seconds of CPU for its imports and
    Ray's workers for a new job."""
    metric = tmp_path / "metric.py"
    # A second a case, so the run lasts minutes: Ctrl+C comes while it runs, however long the machine takes to
    # see a busy worker (with 0.2 s a case it once finished, exit 0, before the signal arrived).
    metric.write_text(SLOW.format(pause=1.0))
    data = tmp_path / "cases.jsonl"
    data.write_bytes(b"\n".join(orjson.dumps({"id": f"c{n}", "input": {"n": n}, "output": "x"}) for n in range(400)))
    argv = ["score", str(metric), "--data", str(data), "--json", "--ray", ray_cluster.address]
    # A batch still running from an earlier test would pass for this run's: the signal would then reach the
    # driver before the command line's handler is in force (Python's own KeyboardInterrupt), not while it runs.
    wait_until_idle(ray_cluster)
    with ThreadPoolExecutor(1, thread_name_prefix="ctrl-c-cli") as calls:
        command = calls.submit(driver.call, ray_driver.command_line, argv, {"SKYNET_DATA_DIR": str(tmp_path / "data")})
        interrupted = False
        try:
            deadline = time.monotonic() + 90
            while not busy_workers(ray_cluster) and not command.done() and time.monotonic() < deadline:
                time.sleep(WATCH_S)
            assert busy_workers(ray_cluster), command.result() if command.done() else "no task ran"
            assert not command.done(), f"the run ended before Ctrl+C could be sent: {command.result()}"
            driver.interrupt()
            interrupted = True
            # At once when quiet; under a loaded machine, seconds (30 s once ran out).
            code, _out, said = command.result(timeout=120)
        finally:
            if not interrupted and not command.done():  # a failed check: the run must not hold the driver for minutes
                driver.interrupt()
    assert code == 130, f"Ctrl+C cancels the run and exits 130; it said:\n{said[-4000:]}"
    wait_until_idle(ray_cluster)


def wait_until_idle(cluster: LocalRayCluster, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while busy_workers(cluster) and time.monotonic() < deadline:
        time.sleep(WATCH_S)
    assert busy_workers(cluster) == [], "an earlier test's batches still run on the cluster"


def busy_workers(cluster: LocalRayCluster) -> list[int]:
    """The cluster's worker processes still running a batch."""
    return [pid for node in cluster.nodes for pid in running_batches(node.tree())]


def test_a_judge_metric_on_ray_gets_answers_and_the_key_stays_in_the_driver(ray_cluster, driver):
    """The local run compared with runs in the driver's process too (``ray_driver.score_here``: the same
    ``score_cases`` with a handler of the same settings), which imports litellm for the Ray run anyway; pytest's
    process then never imports it (seconds of CPU)."""
    key = "sk-driver-only-7f3a9c"
    with FakeOpenAI(require_key=key) as server:
        settings = ModelSettings(metric=ModelConfig("openai/judge-model", api_base=server.url, api_key=key))
        tickets = load_dataset(str(TICKETS))
        cases = tickets.for_candidate(tickets.candidates[0])[:12]
        judge = EXAMPLE_METRICS["Model as judge"].read_text()
        remote = driver.call(ray_driver.score_judged, judge, cases, ray_cluster.address, 4, settings)
        local = driver.call(ray_driver.score_here, judge, cases, 30, settings)
        assert remote.by_status == {"ok": 12}, [result.error for result in remote.results if not result.ok]
        assert all(result.judge.calls == 1 for result in remote.results)
        assert comparable(remote.results) == comparable(local.results)
        assert all(request.authorization == f"Bearer {key}" for request in server.requests)
        assert len(server.requests) == 24
    for node in ray_cluster.nodes:
        for pid in node.tree():
            for part in ("environ", "cmdline"):
                try:
                    assert key.encode() not in Path(f"/proc/{pid}/{part}").read_bytes(), (pid, part)
                except OSError:
                    continue


def test_scoring_on_ray_without_ray_installed_says_how_to_install_it(monkeypatch):
    import skynet_core.scoring.cluster as cluster

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ClusterError, match="requirements-ray.txt"):
        cluster._import_ray()


def test_an_address_where_no_cluster_listens_fails_at_once_with_what_to_do(driver, tmp_path):
    """In the module's driver (which has Ray imported already), connected to the cluster or not."""
    address = f"{HOST}:{free_port()}"
    with pytest.raises(ClusterError, match="no Ray cluster answers at .*ray start --head"):
        driver.call(ray_driver.score, SLOW.format(pause=0), numbered(2), address)
    code, _out, stderr = driver.call(
        ray_driver.command_line,
        ["score", str(EXAMPLE_METRICS["Exact match"]), "--data", str(TICKETS), "--ray", address],
        {"SKYNET_DATA_DIR": str(tmp_path / "data")},
    )
    assert code == 2 and "no Ray cluster answers" in stderr

"""Scored runs persist in the data directory and come back whole."""

from __future__ import annotations

import sqlite3
from concurrent.futures import ThreadPoolExecutor

from skynet_core.datasets import load_example
from skynet_core.results import CaseResult, CaseStatus, JudgeUsage
from skynet_core.runs import KEEP_RUNS, RunKey, metric_hash
from skynet_core.store import DATA_DIR_ENV, DB_NAME, Store
from skynet_core.store.runs import RunStore

SOURCE = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'Correct.'}\n"


def key(candidate: str = "fast", split: str | None = None, source: str = SOURCE) -> RunKey:
    return RunKey("example", candidate, split, metric_hash(source), "Support tickets (example)")


def results() -> list[CaseResult]:
    return [
        CaseResult(
            id="c1",
            split="train",
            score=0.5,
            scores={"format": 1.0, "label": 0.0},
            feedback="Expected 'billing', got 'other'.",
            extra={"note": [1, 2]},
            duration_ms=3.5,
            candidate="fast",
            judge=JudgeUsage(calls=1, latency_ms=20.0, prompt_tokens=9, completion_tokens=3, cost_usd=0.0001),
        ),
        CaseResult(
            id="c2",
            split="val",
            status=CaseStatus.TIMEOUT,
            error="score did not finish within 1 s",
            line=4,
            candidate="fast",
        ),
    ]


def test_metric_hash_is_short_stable_and_tells_texts_apart() -> None:
    assert metric_hash(SOURCE) == metric_hash(SOURCE)
    assert len(metric_hash(SOURCE)) == 12
    assert metric_hash(SOURCE) != metric_hash(SOURCE + "\n")


def test_a_saved_run_comes_back_with_its_key_time_source_and_every_result_field(tmp_path) -> None:
    store = RunStore(tmp_path)
    run_id = store.save(key(), results(), metric_source=SOURCE)
    saved = RunStore(tmp_path).latest("example", "fast")
    assert saved is not None
    assert saved.id == run_id
    assert saved.key == key()
    assert saved.metric_source == SOURCE
    assert saved.created_at > 0
    assert saved.results == results()
    assert saved.results[1].status is CaseStatus.TIMEOUT


def test_latest_is_the_newest_run_of_that_dataset_and_candidate(tmp_path) -> None:
    store = RunStore(tmp_path)
    store.save(key("fast"), results())
    newer = store.save(key("fast", source="other text"), results()[:1])
    store.save(key("slow"), results())
    store.save(RunKey("/data/other.jsonl", "fast", None, "abc"), results())
    latest = store.latest("example", "fast")
    assert latest is not None and latest.id == newer and latest.key.metric_hash == metric_hash("other text")
    assert len(latest.results) == 1
    assert store.latest("example").key.candidate == "slow"
    assert store.latest("example", "nobody") is None
    assert store.latest("/data/missing.jsonl") is None


def test_the_split_none_means_every_split_and_round_trips(tmp_path) -> None:
    store = RunStore(tmp_path)
    store.save(key(split="val"), results())
    assert store.latest("example").key.split == "val"
    store.save(key(split=None), results())
    assert store.latest("example").key.split is None


def test_only_the_newest_runs_are_kept_per_dataset_and_candidate(tmp_path) -> None:
    store = RunStore(tmp_path)
    ids = [store.save(key(), results()[:1]) for _ in range(KEEP_RUNS + 3)]
    store.save(key("slow"), results())
    with sqlite3.connect(store.path) as db:
        kept = [row[0] for row in db.execute("SELECT id FROM scored_runs WHERE candidate = 'fast' ORDER BY id")]
        assert db.execute("SELECT COUNT(*) FROM scored_runs WHERE candidate = 'slow'").fetchone()[0] == 1
    assert kept == ids[3:]


def test_runs_share_the_studio_database_file_in_wal_mode(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    store = RunStore()
    Store().save_draft(SOURCE)
    assert store.path == tmp_path / DB_NAME == Store().path
    with sqlite3.connect(store.path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert Store().draft() == SOURCE


def test_runs_saved_from_many_threads_all_land(tmp_path) -> None:
    store = RunStore(tmp_path)
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda index: RunStore(tmp_path).save(key(f"c{index}"), results()), range(24)))
    assert all(store.latest("example", f"c{index}") is not None for index in range(24))


def test_a_result_field_the_current_code_does_not_know_is_ignored(tmp_path) -> None:
    store = RunStore(tmp_path)
    store.save(key(), results())
    with sqlite3.connect(store.path) as db:
        db.execute("""UPDATE scored_runs SET results = '[{"id": "c1", "status": "ok", "score": 1.0, "gone": 3}]'""")
    saved = store.latest("example")
    assert saved.results == [CaseResult(id="c1", score=1.0)]


def test_run_key_of_a_dataset_uses_its_source_name_and_the_metric_hash() -> None:
    data = load_example()
    run_key = RunKey.of(data, data.candidates[1], "val", SOURCE)
    assert run_key == RunKey("example", data.candidates[1], "val", metric_hash(SOURCE), data.name)
    assert run_key.scope == f"example :: {data.candidates[1]}"
    assert RunKey("cases.csv", "", None, "abc").scope == "cases.csv"


def test_latest_and_get_agree(tmp_path) -> None:
    store = RunStore(tmp_path)
    run_id = store.save(key(), results())
    assert store.get(run_id) == store.latest("example", "fast")


def many(count: int) -> tuple[list[CaseResult], list]:
    from skynet_core.cases import Case

    cases = [Case(id=f"c{n}", input={"q": f"line\nbreak {n}"}, output="x", split="train") for n in range(count)]
    return [CaseResult(id=case.id, score=n % 2, feedback=f"ok\n{n}") for n, case in enumerate(cases)], cases


def test_a_large_run_is_kept_in_pieces_that_form_one_json_array_and_reads_back_whole(tmp_path, monkeypatch) -> None:
    """Each piece is one short call holding the GIL; the stored text stays one JSON array (any JSON reader)."""
    import json

    import skynet_core.store.runs as runs

    monkeypatch.setattr(runs, "PIECE", 4)
    scored, cases = many(11)
    store = RunStore(tmp_path)
    run_id = store.save(key(), scored, cases=cases)
    with sqlite3.connect(store.path) as db:
        blob, kept = db.execute("SELECT results, cases FROM scored_runs WHERE id = ?", (run_id,)).fetchone()
    assert blob.count(runs.BETWEEN_PIECES) == 2 and kept.count(runs.BETWEEN_PIECES) == 2  # 4 + 4 + 3
    assert [item["id"] for item in json.loads(blob)] == [case.id for case in cases]
    saved = RunStore(tmp_path).get(run_id)
    assert saved is not None and saved.results == scored and saved.cases == cases


def test_a_run_kept_before_pieces_reads_back_the_same(tmp_path) -> None:
    scored, cases = many(5)
    store = RunStore(tmp_path)
    run_id = store.save(key(), scored, cases=cases)
    whole = b"[" + b",".join(result.to_json_bytes(trace=True) for result in scored) + b"]"
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE scored_runs SET results = ? WHERE id = ?", (whole, run_id))
    saved = RunStore(tmp_path).get(run_id)
    assert saved is not None and saved.results == scored and saved.cases == cases


def test_a_run_is_read_back_once_while_held_and_not_after_it_is_gone(tmp_path, monkeypatch) -> None:
    """Pages read the newest run at every script run: 900,000 results took 27 s to read each time."""
    import skynet_core.store.runs as runs

    reads = []
    items = runs._items
    monkeypatch.setattr(runs, "_items", lambda blob: reads.append(1) or items(blob))
    store = RunStore(tmp_path)
    first = store.save(key(), results())
    assert store.get(first) is store.get(first) is store.latest("example", "fast")
    assert len(reads) == 1
    with sqlite3.connect(store.path) as db:
        db.execute("DELETE FROM scored_runs WHERE id = ?", (first,))
    assert store.get(first) is None


def test_the_runs_held_are_bounded_by_their_results(tmp_path, monkeypatch) -> None:
    import skynet_core.store.runs as runs

    monkeypatch.setattr(runs, "DECODED_RESULTS", 3)
    store = RunStore(tmp_path)
    ids = [store.save(key(f"c{n}"), results()) for n in range(3)]  # two results each
    for run_id in ids:
        store.get(run_id)
    assert list(store._held) == [ids[-1]]
    big = store.save(key("big"), many(4)[0])
    store.get(big)
    assert big not in store._held

"""The store's connections: one per call while it runs, kept open between calls (a few per file, a few in all),
never reused across a fork, for a file deleted and made again, or after a call that raised."""

from __future__ import annotations

import os
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from skynet_core.store import Store
from skynet_core.store import db as store_db
from skynet_core.store.db import IDLE_IN_ALL, connect


def table(path: Path) -> Path:
    with connect(path) as db:
        db.execute("CREATE TABLE IF NOT EXISTS t (v TEXT)")
    return path


def values(path: Path) -> list[str]:
    """The rows as a connection of its own sees them (not one of the store's)."""
    plain = sqlite3.connect(path)
    try:
        return [row[0] for row in plain.execute("SELECT v FROM t ORDER BY rowid")]
    finally:
        plain.close()


def test_a_call_gets_the_connection_the_last_one_gave_back_and_two_at_once_get_two(tmp_path):
    path = table(tmp_path / "a.sqlite3")
    with connect(path) as first:
        with connect(path) as inner:
            assert inner is not first
    with connect(path) as again:
        assert again in (first, inner)


def test_each_call_commits_and_a_call_that_raises_rolls_back_and_is_not_kept(tmp_path):
    path = table(tmp_path / "a.sqlite3")
    with connect(path) as db:
        db.execute("INSERT INTO t VALUES ('kept')")
    assert values(path) == ["kept"]
    with pytest.raises(RuntimeError), connect(path) as failed:
        failed.execute("INSERT INTO t VALUES ('lost')")
        raise RuntimeError("the call fails")
    assert values(path) == ["kept"]
    with connect(path) as db:
        assert db is not failed
    with pytest.raises(sqlite3.ProgrammingError):
        failed.execute("SELECT 1")  # closed


def test_a_data_directory_deleted_and_made_again_is_written_through_a_new_connection(tmp_path):
    folder = tmp_path / "data"
    store = Store(folder)
    store.save_draft("before")
    shutil.rmtree(folder)
    store = Store(folder)
    store.save_draft("after")
    assert Store(folder).draft() == "after"
    plain = sqlite3.connect(folder / "studio.sqlite3")
    try:
        assert plain.execute("SELECT source FROM drafts").fetchall() == [("after",)]
    finally:
        plain.close()


def test_many_files_in_turn_keep_a_bounded_number_open(tmp_path):
    for n in range(3 * IDLE_IN_ALL):
        table(tmp_path / f"f{n}.sqlite3")
    kept = store_db._idle._kept
    assert sum(len(connections) for connections in kept.values()) <= IDLE_IN_ALL
    assert str(tmp_path / f"f{3 * IDLE_IN_ALL - 1}.sqlite3") in kept  # the latest file's is among them


def test_threads_writing_at_once_each_get_a_connection_and_lose_no_row(tmp_path):
    path = table(tmp_path / "a.sqlite3")

    def write(name: str) -> None:
        for n in range(50):
            with connect(path) as db:
                db.execute("INSERT INTO t VALUES (?)", (f"{name}{n}",))

    threads = [threading.Thread(target=write, args=(name,)) for name in "abcd"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(values(path)) == sorted(f"{name}{n}" for name in "abcd" for n in range(50))


def test_a_forked_child_opens_its_own_connection(tmp_path):
    path = table(tmp_path / "a.sqlite3")
    with connect(path) as parents:
        parents.execute("INSERT INTO t VALUES ('parent')")
    child = os.fork()
    if child == 0:
        try:
            with connect(path) as db:
                db.execute("INSERT INTO t VALUES ('child')")
            os._exit(0 if db is not parents else 3)
        except BaseException:
            os._exit(4)
    _pid, status = os.waitpid(child, 0)
    assert os.WEXITSTATUS(status) == 0
    with connect(path) as db:
        db.execute("INSERT INTO t VALUES ('parent again')")
    assert values(path) == ["parent", "child", "parent again"]

import threading

import pytest

from skynet_core.store import DATA_DIR_ENV, Store, data_dir


def test_draft_round_trips_and_survives_a_new_store(tmp_path):
    store = Store(tmp_path)
    assert store.draft() is None
    store.save_draft("def score(input, output):\n    return 1.0, {'feedback': 'ünïcode'}\n")
    store.save_draft("second text")
    assert Store(tmp_path).draft() == "second text"


def test_workspaces_keep_separate_drafts(tmp_path):
    store = Store(tmp_path)
    store.save_draft("a", workspace="one")
    store.save_draft("b", workspace="two")
    assert (store.draft("one"), store.draft("two"), store.draft()) == ("a", "b", None)


def test_versions_are_listed_newest_first_with_name_and_time(tmp_path):
    store = Store(tmp_path)
    first = store.save_version("exact match", "v1")
    second = store.save_version("  ", "v2")
    versions = Store(tmp_path).versions()
    assert [v.source for v in versions] == ["v2", "v1"]
    assert versions[0].name == "untitled"
    assert first.created_at <= second.created_at
    assert store.version(first.id) == first
    assert store.version(9999) is None


def test_settings_hold_json_values(tmp_path):
    store = Store(tmp_path)
    assert store.get("timeout", 60.0) == 60.0
    store.set("timeout", 5.5)
    store.set("dataset", {"path": "example", "candidate": "fast", "split": None})
    again = Store(tmp_path)
    assert again.get("timeout") == 5.5
    assert again.get("dataset") == {"path": "example", "candidate": "fast", "split": None}
    again.delete("timeout")
    assert again.get("timeout") is None


def test_settings_read_and_written_together(tmp_path):
    store = Store(tmp_path)
    store.set_many({"a": 1, "b": {"c": [2]}, "d": None})
    assert store.get_many(["a", "b", "d", "never"]) == {"a": 1, "b": {"c": [2]}, "d": None}
    assert store.get_many([]) == {}
    with pytest.raises(TypeError):
        store.set_many({"a": 5, "bad": object()})  # not JSON: nothing of the call is saved
    assert store.get("a") == 1 and store.get("bad", "unset") == "unset"


def test_database_uses_wal_mode(tmp_path):
    import sqlite3

    Store(tmp_path)
    mode = sqlite3.connect(tmp_path / "studio.sqlite3").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_concurrent_writers_all_land(tmp_path):
    stores = [Store(tmp_path) for _ in range(4)]
    errors: list[BaseException] = []

    def write(store: Store, n: int) -> None:
        try:
            for i in range(50):
                store.save_draft(f"writer {n} text {i}", workspace=f"w{n}")
                store.save_version(f"w{n}-{i}", "x")
                store.set(f"k{n}", i)
        except BaseException as exc:  # noqa: BLE001  (reported by the assertion below)
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(store, n)) for n, store in enumerate(stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    check = Store(tmp_path)
    assert len(check.versions()) == 200
    assert [check.draft(f"w{n}") for n in range(4)] == [f"writer {n} text 49" for n in range(4)]
    assert [check.get(f"k{n}") for n in range(4)] == [49] * 4


def test_data_dir_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "custom"))
    assert data_dir() == tmp_path / "custom"
    assert Store().path.parent == tmp_path / "custom"
    monkeypatch.delenv(DATA_DIR_ENV)
    assert data_dir().name == ".skynet-metric-studio"


def test_unwritable_data_dir_says_how_to_fix(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(OSError, match=DATA_DIR_ENV):
        Store(blocker / "sub")

"""The Data page remembers column roles per set of columns: roles set by hand and used come back when the same file
is opened again by its path, or another file with the same columns is opened; a file with other columns starts
from the guess."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.app.harness import button, open_app, open_file

ROWS = "".join(f"s{n},question {n},note {n},reply {n}\n" for n in range(12))


def roles_of(at: AppTest) -> dict[str, tuple[str, str]]:
    frame = at.data_editor[0].value
    return {column: (role, field) for column, role, field in zip(frame["column"], frame["role"], frame["field"],
                                                                 strict=True)}  # fmt: skip


def test_roles_set_by_hand_come_back_for_the_same_columns(data_dir: Path, tmp_path: Path) -> None:
    support = tmp_path / "support.csv"
    support.write_text("id,ask,memo,reply\n" + ROWS)
    at = open_app("data")
    open_file(at, support)
    assert roles_of(at)["ask"] == ("ignored", "")  # not a name the studio guesses
    edits = {1: {"role": "input field"}, 3: {"role": "output"}}
    at.session_state[at.data_editor[0].key] = {"edited_rows": edits, "added_rows": [], "deleted_rows": []}
    at.run()
    button(at, "Use this dataset").click()
    at.run()
    assert any("Using support.csv" in item.value for item in at.main.success)
    set_by_hand = roles_of(at)

    at.radio(key="data.source").set_value("example").run()
    button(at, "Use the example").click().run()
    open_file(at, support)  # the identical file, by its path
    assert roles_of(at) == set_by_hand and set_by_hand["ask"] == ("input field", "ask")

    other = tmp_path / "other.csv"
    other.write_text("reply,memo,ask,id\n" + "".join(f"r {n},n {n},q {n},o{n}\n" for n in range(5)))
    open_file(at, other)  # the same columns in another order
    assert roles_of(at)["ask"] == ("input field", "ask") and roles_of(at)["reply"] == ("output", "")

    third = tmp_path / "third.csv"
    third.write_text("id,ask,reply\n" + "".join(f"t{n},q {n},r {n}\n" for n in range(5)))
    open_file(at, third)  # other columns: the guess
    assert roles_of(at)["ask"] == ("ignored", "")

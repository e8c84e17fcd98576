"""The Human scores page with labels of one candidate, of two raters and of many ids the data lacks: what it
counts, what an import says (and where), raters whose names are the table's own words, and deleting an import's
labels. On the example data (three candidates), with a scored run of its first candidate."""

from __future__ import annotations

from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from skynet_core.workspace import Workspace
from tests.app.harness import button, open_app
from ui import keys as K

GHOSTS = 2_000


def ids(ws: Workspace) -> list[str]:
    return [case.id for case in ws.data.in_use().cases]


def labels_file(ws: Workspace, count: int, ghosts: int = 0) -> bytes:
    rows = [f"{case_id},{n % 2}" for n, case_id in enumerate(ids(ws)[:count])]
    rows += [f"ghost{n},1" for n in range(ghosts)]
    return ("id,human\n" + "\n".join(rows) + "\n").encode()


def progress_text(at: AppTest) -> str:
    return str(at.get("progress")[0].proto.text)


def place(at: AppTest, found: Any) -> int:
    """Where ``found`` (an element) is drawn in the page's main area, in reading order."""
    return next(index for index, node in enumerate(at.main) if node is found)


def import_labels(at: AppTest, data: bytes, rater: str = "") -> AppTest:
    at.file_uploader(key=K.HUMAN_UPLOAD).set_value(("labels.csv", data, "text/csv")).run()
    if rater:
        at.text_input(key=K.HUMAN_UPLOAD_RATER).input(rater).run()
    return button(at, "Import").click().run()


def test_the_labelling_view_counts_yours_and_everyones_and_another_candidate_has_none(ws: Workspace) -> None:
    for case_id in ids(ws)[:2]:
        ws.human.set_score(case_id, 1.0)
    ws.human.import_scores("bo.csv", labels_file(ws, 12), rater="bo")
    at = open_app("human")
    assert progress_text(at) == "2 of 72 labelled by you · 12 by any rater"
    ws.data.choose_cases(ws.data.in_use().data.candidates[1], None)  # as the Data page's candidate picker does
    at.run()
    assert progress_text(at) == "0 of 72 labelled by you · 0 by any rater"
    assert not [item for item in at.markdown if "labelled and scored" in item.value]


def test_on_the_human_scores_page_the_hint_speaks_of_this_page(ws: Workspace) -> None:
    at = open_app("human")
    [hint] = [item.value for item in at.info if "No human scores" in item.value]
    assert "Score some above, or import a labels file below" in hint
    assert "on the Human scores page" not in hint


def test_an_import_of_many_unknown_ids_says_so_under_its_button_and_keeps_only_the_datas(ws: Workspace) -> None:
    at = open_app("human")
    import_labels(at, labels_file(ws, 12, GHOSTS))
    [said] = [item for item in at.warning if "Imported" in item.value]
    text = said.value.replace("\\", "")  # the message is markdown, its data escaped
    assert "Imported 12 human scores by ana for candidate fast-small (the file names no candidate)." in text
    assert "2,000 rows name cases not in the data, e.g. ghost0, ghost1, ghost2, …: they were not kept." in text
    assert place(at, button(at, "Import")) < place(at, said) < place(at, at.subheader[-1])  # beside Import
    # The report above the button grows with the scores imported and can push the button and its message out of
    # the window: what the import did is also said where the window's top right is, for a few seconds.
    [toast] = [item.value.replace("\\", "") for item in at.toast]
    assert toast.startswith("Imported 12 human scores by ana") and "2,000 rows name cases not in the data" in toast
    assert len(ws.human.store.scores("example")) == 12
    captions = [item.value.replace("\\", "") for item in at.caption]
    assert "12 stored human scores of this data. 12 of them are of candidate fast-small's outputs." in captions


def test_the_labels_of_an_import_are_deleted_with_its_button(ws: Workspace) -> None:
    ws.human.set_score(ids(ws)[20], 1.0)
    at = open_app("human")
    import_labels(at, labels_file(ws, 12), rater="bo")
    [delete] = [item for item in at.button if item.key.startswith("human.delete_import.")]
    delete.click().run()
    assert ws.human.labels().raters() == ["ana"]
    assert any(
        "Deleted 12 human scores imported from labels.csv." in item.value.replace("\\", "") for item in at.success
    )


@pytest.mark.parametrize("names", [("id", "gap"), ("gap", "case")])
def test_raters_named_like_the_tables_columns_get_the_two_raters_panel(ws: Workspace, names: tuple[str, str]) -> None:
    first, second = names
    ws.human.import_scores("a.csv", labels_file(ws, 10), rater=first)
    ws.human.import_scores("b.csv", b"id,human\n" + "".join(f"{c},1\n" for c in ids(ws)[:10]).encode(), rater=second)
    at = open_app("human", state={K.HUMAN_FIRST: first})
    table = next(frame.value for frame in at.dataframe if "gap" in frame.value.columns)
    assert list(table.columns) == ["id", "first", "second", "gap"]
    assert list(table["id"]) == [ids(ws)[n] for n in range(10) if n % 2 == 0]


def test_a_rater_name_refused_is_said_under_the_name_field(ws: Workspace) -> None:
    at = open_app("human")
    at.text_input(key=K.HUMAN_RATER).input("every rater (the mean)").run()
    [error] = at.error
    assert "choose another name" in error.value
    assert place(at, at.text_input(key=K.HUMAN_RATER)) < place(at, error) < place(at, at.get("progress")[0])

"""The Data page's role editor as data: rows from inferred roles, and only the changed roles back."""

from __future__ import annotations

import pandas as pd

from skynet_core.datasets import Role
from skynet_core.views.data.role_editor import cell_text, changed_roles, choice_of, editor_rows, role_of, sample_text


def test_rows_show_the_inferred_choice_and_an_example_and_unchanged_rows_change_nothing():
    frame = pd.DataFrame({"input.question": ["Where is my refund?"], "output": ["billing"], "notes": [None]})
    from skynet_core.datasets import infer_roles

    rows = editor_rows(frame, infer_roles(list(frame.columns)))
    assert rows.to_dict("records")[0] == {
        "column": "input.question",
        "role": "input field",
        "field": "question",
        "example": "Where is my refund?",
    }
    assert changed_roles(rows, list(frame.columns)) is None


def test_an_edited_row_comes_back_as_its_role_with_the_column_name_as_default_field():
    frame = pd.DataFrame({"ticket": ["t1"], "category": ["billing"]})
    rows = pd.DataFrame(
        [
            {"column": "ticket", "role": "id", "field": "", "example": "t1"},
            {"column": "category", "role": "expected field", "field": " ", "example": "billing"},
        ]
    )
    expected = {"ticket": (Role.ID, ""), "category": (Role.EXPECTED, "category")}
    assert changed_roles(rows, list(frame.columns)) == expected


def test_choices_round_trip_and_cells_show_as_text():
    for role, field in [(Role.OUTPUT, ""), (Role.OUTPUT, "x"), (Role.OBSERVATION, "cost_usd"), (Role.SPLIT, "")]:
        assert role_of(choice_of(role, field), field, "col") == (role, field)
    assert role_of(None, None, "col") == (Role.IGNORED, "")
    assert cell_text({"a": 1}) == '{"a": 1}' and cell_text(float("nan")) is None and cell_text(3) == "3"
    assert sample_text([None, "", "x" * 100]) == "x" * 57 + "..."

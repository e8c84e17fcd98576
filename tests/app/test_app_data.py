"""The Data page through Streamlit's AppTest: choose a file (by its path or uploaded), set roles, use it, see the
splits; what "Use this dataset" says (with the human scores the file keeps); the Author page's Score all scoring the
file used; errors as messages; the page in Chinese."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from skynet_core import workspace as ws
from skynet_core.i18n import use_language
from skynet_core.paths import DATA_ROOTS_ENV, data_roots
from skynet_core.store import Store
from tests.app.harness import button, go_to, open_app, open_file, run_until, speaking
from tests.case_factory import TICKETS_CSV
from tests.i18n_scan import english_words, render
from ui import keys as K


@pytest.fixture
def plain_csv(tmp_path: Path) -> Path:
    """40 cases whose column names carry no role prefix: the roles must be set by hand."""
    path = tmp_path / "cases.csv"
    rows = [f"q{i},Question {i}?,{'billing' if i % 2 else 'shipping'},billing" for i in range(40)]
    path.write_text("key,ask,truth,said\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def open_page() -> AppTest:
    return open_app("data")


def edit_roles(at: AppTest, rows: dict[int, dict[str, str]]) -> None:
    """Edit the role editor's cells as a user would: {row number: {column: new value}}."""
    at.session_state[at.data_editor[0].key] = {"edited_rows": rows, "added_rows": [], "deleted_rows": []}
    at.run()
    assert not at.exception, at.exception


def use_dataset(at: AppTest) -> None:
    button(at, "Use this dataset").click()
    at.run()
    assert not at.exception, at.exception


def plain(markdown: str) -> str:
    """Markdown escaped by ``display.markdown_text``, as the reader sees it."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")


def errors(at: AppTest) -> list[str]:
    return [plain(item.value) for item in at.main.error]


def metrics(at: AppTest) -> dict[str, str]:
    return {item.label: item.value for item in at.metric}


SET_ROLES = {
    0: {"role": "id"},
    1: {"role": "input field"},
    2: {"role": "expected field", "field": "label"},
    3: {"role": "output"},
}


def test_the_using_message_stays_while_it_is_true_and_goes_with_a_new_file_or_a_revisit(
    data_dir: Path, plain_csv: Path, tmp_path: Path
) -> None:
    """After "Use this dataset" a run of the page that the user did not ask for (the role editor's own, to fill
    in default field names, or the grid's blur as the button takes the focus) must not take the "Using …" message
    away before anyone could read it: a browser test lost it that way twice under load. It stays while it is true
    of what the page shows, and goes when another file is opened or the page is left and opened again."""
    at = open_page()
    open_file(at, plain_csv)
    edit_roles(
        at, {0: {"role": "id"}, 1: {"role": "input field"}, 2: {"role": "expected field"}, 3: {"role": "output"}}
    )
    use_dataset(at)
    assert errors(at) == []
    using = ["Using cases.csv: 40 cases × 1 candidate."]
    assert [item.value for item in at.main.success] == using
    at.run()  # a run nobody clicked for
    at.run()
    assert [item.value for item in at.main.success] == using
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"id": "a", "input": {"q": "x"}, "output": "y"}) + "\n", encoding="utf-8")
    open_file(at, other)
    assert [item.value for item in at.main.success] == []

    use_dataset(at)
    assert [item.value for item in at.main.success] == ["Using other.jsonl: 1 case × 1 candidate."]
    go_to(at, "author")
    go_to(at, "data")
    assert [item.value for item in at.main.success] == []


def test_file_with_roles_set_by_hand_is_used_and_its_splits_shown(data_dir: Path, plain_csv: Path) -> None:
    at = open_page()
    open_file(at, plain_csv)
    assert [row["column"] for _, row in at.data_editor[0].value.iterrows()] == ["key", "ask", "truth", "said"]
    edit_roles(at, SET_ROLES)
    use_dataset(at)

    assert errors(at) == []
    assert [item.value for item in at.main.success] == ["Using cases.csv: 40 cases × 1 candidate."]
    assert metrics(at) == {"train": "32", "val": "8", "test": "0"}
    assert any("Splits follow the Skynet planner: under 30 cases, all train" in item.value for item in at.main.caption)
    store = Store(data_dir)
    assert store.get(ws.SETTING_DATASET_PATH) == str(plain_csv)
    assert store.get(ws.SETTING_DATASET_ROLES) == {
        "key": ["id", ""],
        "ask": ["input", "ask"],
        "truth": ["expected", "label"],
        "said": ["output", ""],
    }
    editor = at.data_editor[0].value
    assert editor["role"].tolist() == ["id", "input field", "expected field", "output"]
    assert editor["field"].tolist() == ["", "ask", "label", ""]


def test_choice_and_roles_come_back_after_a_reload(data_dir: Path, plain_csv: Path) -> None:
    at = open_page()
    open_file(at, plain_csv)
    edit_roles(at, SET_ROLES)
    use_dataset(at)

    again = open_page()  # a new session on the same data directory: a reload, or a server restart
    assert again.radio(key="data.source").value == "file"
    assert again.main.markdown[0].value.startswith("In use: **cases** · 40 cases")
    assert again.data_editor[0].value["role"].tolist() == ["id", "input field", "expected field", "output"]
    assert metrics(again) == {"train": "32", "val": "8", "test": "0"}


def test_an_uploaded_file_used_with_its_roles_is_what_score_all_scores_on_the_author_page(data_dir: Path) -> None:
    """Uploaded (kept in the uploads folder), its roles set and used: the Author page's Score all scores exactly its
    five cases, each with the feedback the example metric gives its output."""
    at = open_page()
    at.radio(key="data.source").set_value("file").run()
    at.file_uploader(key=K.DATA_UPLOAD).set_value(("tickets.csv", TICKETS_CSV.encode(), "text/csv")).run()
    assert not at.exception, at.exception
    assert [path.name for path in (data_dir / "uploads").rglob("*.csv")] == ["tickets.csv"]
    edit_roles(
        at, {0: {"role": "id"}, 1: {"role": "input field"}, 2: {"role": "expected field"}, 3: {"role": "output"}}
    )
    use_dataset(at)
    assert [item.value for item in at.main.success] == ["Using tickets.csv: 5 cases × 1 candidate."]

    go_to(at, "author")
    run_until(at, lambda at: any(b.key == "author.score_all" and not b.disabled for b in at.button))
    assert any(item.value.startswith("Runs metric.py on all 5 cases") for item in at.caption)
    at.button(key="author.score_all").click().run()
    run_until(at, lambda at: any("Showing 5 of 5 scored cases" in item.value for item in at.caption), timeout=120)
    table = next(frame.value for frame in at.dataframe if "duration_ms" in frame.value.columns)
    assert sorted(table["id"]) == ["T-1", "T-2", "T-3", "T-4", "T-5"]
    feedback = dict(zip(table["id"], table["feedback"], strict=True))
    assert feedback["T-3"] == "Expected 'technical', got 'billing'."


@pytest.mark.parametrize(
    ("language", "use", "said"),
    [
        (
            "en",
            "Use this dataset",
            "Using support80.csv: 80 cases × 1 candidate. 60 stored human scores match cases of this data by id "
            "(first made on support.csv).",
        ),
        (
            "zh_CN",
            "使用此数据集",
            "正在使用 support80.csv：80 个用例 × 1 个候选。 按 id 有 60 个已保存的人工评分对应此数据的用例（最初标注于 "
            "support.csv）。",
        ),
    ],
    ids=["en", "zh_CN"],
)
def test_use_on_a_grown_file_says_how_many_human_scores_it_keeps_and_where_they_were_made(
    data_dir: Path, tmp_path: Path, language: str, use: str, said: str
) -> None:
    """support80.csv has the 60 ids of support.csv, in use and labelled, and 20 more: "Use this dataset" on it says
    the 60 labels match it by id, naming the file they were made on, in the page's language."""
    workspace = ws.Workspace(data_dir, env={})
    workspace.human.set_rater("ana")
    rows = "id,question,answer,response\n" + "".join(f"s{n},q {n},a {n},r {n}\n" for n in range(60))
    first = workspace.data.save_upload("support.csv", io.BytesIO(rows.encode()))
    workspace.data.save_choice(str(first))
    assert workspace.data.in_use().problem is None
    for n in range(60):
        workspace.human.set_score(f"s{n}", float(n % 2))
    grown = tmp_path / "support80.csv"
    grown.write_text(rows + "".join(f"s{n},q {n},a {n},r {n}\n" for n in range(60, 80)), encoding="utf-8")

    at = open_app("data", language=language)
    with speaking(language):
        at.radio(key="data.source").set_value("file").run()
        at.text_input(key="data.path").input(str(grown))
        button(at, "打开此文件" if language == "zh_CN" else "Open this file").click()
        at.run()
        button(at, use).click()
        at.run()
    assert not at.exception, at.exception
    assert [plain(item.value) for item in at.main.success] == [said]


def warnings(at: AppTest) -> list[str]:
    return [plain(item.value) for item in at.main.warning]


def test_preview_says_what_is_missing_before_use_and_keeps_the_role_choices(data_dir: Path, plain_csv: Path) -> None:
    at = open_page()
    open_file(at, plain_csv)
    assert warnings(at) == [
        "cases.csv has no input column. Name input columns with the input. prefix (e.g. "
        "input.question), or give a column the input role (on the Data page, or with --roles FILE.json on the "
        "command line)."
    ]
    assert button(at, "Use this dataset").disabled  # loading would refuse it: fix first

    edit_roles(at, {1: {"role": "input field"}})
    assert len(warnings(at)) == 1 and warnings(at)[0].startswith("cases.csv has no output column.")
    # The field the role reads is shown at once (it was left blank), and the choice stays through later runs.
    assert at.data_editor[0].value.iloc[1][["role", "field"]].tolist() == ["input field", "ask"]
    at.run()
    assert at.data_editor[0].value.iloc[1][["role", "field"]].tolist() == ["input field", "ask"]
    assert Store(data_dir).get(ws.SETTING_DATASET_PATH) is None  # the example stays in use
    edit_roles(at, {3: {"role": "output"}})
    assert warnings(at) == [] and not button(at, "Use this dataset").disabled


def test_repeated_ids_are_reported_in_the_preview(data_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "dup.csv"
    path.write_text("id,question,response\na,1,x\nb,2,y\na,3,z\n", encoding="utf-8")
    at = open_page()
    open_file(at, path)
    assert warnings(at) == ["dup.csv: id “a” appears more than once (rows 1 and 3). Give every case its own id."]
    assert button(at, "Use this dataset").disabled


def test_question_answer_label_columns_get_a_role_guess(data_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "qa.csv"
    path.write_text("question,answer,label,response\n2+2?,4,math,4\n", encoding="utf-8")
    at = open_page()
    open_file(at, path)
    editor = at.data_editor[0].value
    assert editor["role"].tolist() == ["input field", "expected field", "expected field", "output"]
    assert editor["field"].tolist() == ["question", "answer", "label", ""]
    assert warnings(at) == []
    use_dataset(at)
    assert [item.value for item in at.main.success] == ["Using qa.csv: 1 case × 1 candidate."]


def test_a_folder_path_says_it_is_a_folder_and_what_to_give(data_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / "tickets.jsonl").write_text('{"input": {"q": 1}, "output": "x"}\n', encoding="utf-8")
    at = open_page()
    open_file(at, folder)
    [message] = errors(at)
    assert "without an extension" not in message
    assert message == f"{folder} is a folder, not a case file. Give the path of one case file inside it: tickets.jsonl."


def test_upload_label_and_the_uploader_name_the_same_cap(data_dir: Path) -> None:
    at = open_page()
    at.radio(key="data.source").set_value("file").run()
    [uploader] = [node for node in at.get("file_uploader") if node.proto.label.startswith("Upload a CSV")]
    assert uploader.proto.label == "Upload a CSV, JSON Lines or Parquet file (up to 250 MB)"
    assert uploader.proto.max_upload_size_mb == 250  # the uploader's own "Limit 250MB per file"


def test_a_refused_file_clears_the_previous_draft_and_shows_why(
    data_dir: Path, plain_csv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = open_page()
    open_file(at, plain_csv)
    assert at.data_editor and any(item.value == "#### cases.csv" for item in at.main.markdown)
    monkeypatch.delenv(DATA_ROOTS_ENV)
    open_file(at, tmp_path / "elsewhere.csv")  # refused: outside the data roots
    assert len(errors(at)) == 1 and "is outside the folders the studio may read" in errors(at)[0]
    assert not at.data_editor and not any(item.value == "#### cases.csv" for item in at.main.markdown)


def test_splits_say_they_are_the_dataset_in_use_while_another_file_is_open(data_dir: Path, plain_csv: Path) -> None:
    at = open_page()
    open_file(at, plain_csv)
    assert at.main.subheader[0].value == "Splits of the dataset in use · Support tickets (example)"
    assert [plain(item.value) for item in at.main.info] == [
        "These are the splits of Support tickets (example), the dataset in use. cases.csv gets its own splits "
        "once “Use this dataset” loads it."
    ]
    edit_roles(at, SET_ROLES)
    use_dataset(at)
    assert at.main.subheader[0].value == "Splits of the dataset in use · cases"
    assert at.main.info == [] or all("These are the splits" not in item.value for item in at.main.info)


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("input.q,output\nok,fine\ncaf\u00e9,x\n".encode("latin-1"), "cases.csv is not UTF-8 text"),
        (b"", "cases.csv is empty. Add at least one case"),
        (b'input.q,output\nx,"unclosed\n', "cases.csv could not be read as CSV"),
    ],
)
def test_malformed_file_shows_an_error_not_an_exception(
    data_dir: Path, tmp_path: Path, content: bytes, words: str
) -> None:
    path = tmp_path / "cases.csv"
    path.write_bytes(content)
    at = open_page()
    open_file(at, path)
    assert len(errors(at)) == 1 and words in errors(at)[0]
    assert not at.data_editor


def test_missing_path_says_it_was_not_found(data_dir: Path, tmp_path: Path) -> None:
    at = open_page()
    open_file(at, tmp_path / "nowhere.jsonl")
    assert errors(at) == [
        f"nowhere.jsonl was not found at {tmp_path / 'nowhere.jsonl'}. Check the path, or upload the file again."
    ]


def test_split_and_candidate_choices_are_stored_for_the_author_page(data_dir: Path) -> None:
    at = open_page()
    assert at.main.markdown[0].value.startswith("In use: **Support tickets (example)** · 72 cases × 3 candidates")
    split = next(item for item in at.selectbox if item.label == "Split")
    assert split.options == ["all (72 cases)", "train (58 cases)", "val (14 cases)", "test (0 cases)"]
    split.set_value("val").run()
    candidate = next(item for item in at.selectbox if item.label == "Candidate")
    candidate.set_value("large-careful").run()
    assert not at.exception
    store = Store(data_dir)
    assert (store.get(ws.SETTING_SPLIT), store.get(ws.SETTING_CANDIDATE)) == ("val", "large-careful")
    assert "The Author page scores 14 cases: candidate large-careful, split val." in [
        item.value for item in at.main.caption
    ]
    next(item for item in at.selectbox if item.label == "Split").set_value("all").run()
    assert Store(data_dir).get(ws.SETTING_SPLIT) is None


def test_candidate_file_added_by_path_is_joined_and_can_be_chosen(data_dir: Path, tmp_path: Path) -> None:
    main = tmp_path / "small.jsonl"
    main.write_text("".join(json.dumps({"id": f"c{i}", "input": {"q": i}, "output": "a"}) + "\n" for i in range(3)))
    large = tmp_path / "large.csv"
    large.write_text("id,output,observation.latency_ms\nc2,b,900\nc0,b,800\nc1,b,700\n")
    at = open_page()
    open_file(at, main)
    button(at, "Add candidate").click()
    at.run()
    assert "Name the candidate whose outputs the file holds." in errors(at)

    at.text_input(key="data.new_name").input("large")
    at.text_input(key="data.new_path").input(str(large))
    button(at, "Add candidate").click()
    at.run()
    assert errors(at) == []
    assert at.text_input(key=f"data.main.{at.session_state['data.gen']}").value == "small"
    at.text_input(key=f"data.main.{at.session_state['data.gen']}").input("fast")
    use_dataset(at)
    assert errors(at) == [] and at.main.success[0].value == "Using small.jsonl: 3 cases × 2 candidates."
    candidate = next(item for item in at.selectbox if item.label == "Candidate")
    assert candidate.options == ["fast", "large"]
    candidate.set_value("large").run()
    store = Store(data_dir)
    assert store.get(ws.SETTING_CANDIDATE) == "large" and store.get(ws.SETTING_DATASET_MAIN_CANDIDATE) == "fast"
    assert store.get(ws.SETTING_DATASET_CANDIDATE_FILES) == [{"name": "large", "path": str(large), "roles": None}]


def test_candidate_file_that_does_not_line_up_is_an_error_on_use(data_dir: Path, tmp_path: Path) -> None:
    main = tmp_path / "small.csv"
    main.write_text("id,input.q,output\na,1,x\nb,2,y\n")
    other = tmp_path / "other.csv"
    other.write_text("id,output\na,z\n")
    at = open_page()
    open_file(at, main)
    at.text_input(key="data.new_name").input("other")
    at.text_input(key="data.new_path").input(str(other))
    button(at, "Add candidate").click()
    at.run()
    use_dataset(at)
    assert errors(at) == [
        "other.csv has no row for case 'b' of small.csv (candidate 'other': 1 of 2 cases). Every "
        "candidate needs the same case ids: add the missing cases."
    ]
    assert Store(data_dir).get(ws.SETTING_DATASET_PATH) is None


def test_wide_file_says_which_columns_reach_the_metric(data_dir: Path, tmp_path: Path) -> None:
    header = ["input.q", "output", *[f"extra{i}" for i in range(150)]]
    path = tmp_path / "wide.csv"
    path.write_text(",".join(header) + "\n" + ",".join(["x", "y", *["0"] * 150]) + "\n")
    at = open_page()
    open_file(at, path)
    wide = [item.value for item in at.main.info if item.icon == ":material/view_column:"]
    assert len(wide) == 1 and wide[0].startswith("This file has 152 columns.")
    assert len(at.data_editor[0].value) == 152
    use_dataset(at)
    assert errors(at) == []


def test_mixed_types_preview_as_written(data_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        '{"id": 1, "input": {"q": 1}, "output": {"label": "x"}}\n'
        '{"id": "b", "input": {"q": "two"}, "output": "plain"}\n'
    )
    at = open_page()
    open_file(at, path)
    assert errors(at) == []
    preview = at.dataframe[0].value
    assert preview["output"].tolist() == ['{"label": "x"}', "plain"]
    use_dataset(at)
    assert errors(at) == [] and at.main.success[0].value == "Using mixed.jsonl: 2 cases × 1 candidate."


def test_example_can_be_chosen_again(data_dir: Path, plain_csv: Path) -> None:
    at = open_page()
    open_file(at, plain_csv)
    edit_roles(at, SET_ROLES)
    use_dataset(at)
    at.radio(key="data.source").set_value("example").run()
    button(at, "Use the example").click()
    at.run()
    assert Store(data_dir).get(ws.SETTING_DATASET_PATH) == ws.EXAMPLE_SOURCE
    assert at.main.markdown[0].value.startswith("In use: **Support tickets (example)**")


def test_stored_file_that_is_gone_falls_back_to_the_example_with_a_warning(data_dir: Path, tmp_path: Path) -> None:
    Store(data_dir).set(ws.SETTING_DATASET_PATH, str(tmp_path / "gone.csv"))
    at = open_page()
    assert len(at.main.warning) == 1 and "could not be read" in at.main.warning[0].value
    assert at.main.markdown[0].value.startswith("In use: **Support tickets (example)**")


def test_a_path_outside_the_data_roots_is_refused_and_the_roots_are_named(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SKYNET_DATA_ROOTS")
    secret = tmp_path / "creds.json"
    secret.write_text('{"input": {"token": "root-only"}, "output": "x"}\n')
    secret.chmod(0o600)
    at = open_page()
    for typed in (str(secret), str(data_dir / ".." / "creds.json"), "../creds.json"):
        open_file(at, typed)
        assert any(
            "is outside the folders the studio may read" in text
            and str(data_dir.resolve()) in text
            and "SKYNET_DATA_ROOTS" in text
            for text in errors(at)
        ), (typed, errors(at))
        assert "root-only" not in str([item.value for item in at.dataframe])


def test_a_saved_choice_outside_the_data_roots_is_not_loaded(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SKYNET_DATA_ROOTS")
    secret = tmp_path / "creds.jsonl"
    secret.write_text('{"input": {"token": "root-only"}, "output": "x"}\n')
    Store(data_dir).set(ws.SETTING_DATASET_PATH, str(secret))
    at = open_page()
    assert len(at.main.warning) == 1 and "is outside the folders the studio may read" in plain(at.main.warning[0].value)
    assert at.main.markdown[0].value.startswith("In use: **Support tickets (example)**")
    assert "root-only" not in str([item.value for item in at.dataframe])


# Words that are data, not language: the bundled example's name, its candidates, ids and columns.
DATA_WORDS = {"support", "tickets", "example", "fast", "small", "balanced", "large", "careful", "ticket"}
DATA_WORDS |= {"lines", "mb"}  # the format's name (JSON Lines) and the unit


def test_the_data_page_reads_in_chinese(data_dir: Path, plain_csv: Path) -> None:
    at = render("data")
    assert at.title[0].value == "数据"
    assert at.dataframe[0].value.index.name == "行"  # the preview's row numbers, headed in Chinese
    assert english_words(at, allowed=DATA_WORDS, where="main") == []

    # A file opened: the preview, the role editor, its problems, the splits note. (AppTest formats a radio's
    # choices in the test's own thread: it runs in the page's language too.)
    with use_language("zh_CN"):
        at.radio(key="data.source").set_value("file").run()
        at.text_input(key="data.path").input(str(plain_csv))
        button(at, "打开此文件").click()
        at.run()
    assert not at.exception, at.exception
    assert at.data_editor and at.main.warning
    assert at.main.subheader[0].value.startswith("当前数据集的划分")
    roots = " ".join(str(root) for root in data_roots())  # the folders the studio may read, named in a help
    # The role editor's column ids (its config, not shown) and the file's own columns and values.
    columns = {"column", "role", "field", "example", "index"}
    columns |= {"key", "ask", "truth", "said", "question", "billing", "shipping"}
    words = DATA_WORDS | columns | set(re.findall(r"[A-Za-z]+", roots))
    left = english_words(at, allowed=words, where="main")
    assert left == []

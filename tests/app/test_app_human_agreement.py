"""The Human scores page on a data file of its own: the order the cases come in, a labels file in and out, and
the agreement report on Feedback review showing the very figures ``score --labels`` prints for the same metric,
data and labels (the app and the command line agree)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from streamlit.testing.v1 import AppTest

from skynet_core.human import LabelOrder, labelling_order
from skynet_core.results import CaseResult
from skynet_core.runs import RunKey
from skynet_core.workspace import Workspace
from tests.app.harness import ROOT, button, go_to, open_app, run_until
from ui import keys as K
from ui.widgets.text import number

METRIC = (
    "def score(input, output, expected=None):\n"
    "    n = input['n']\n"
    "    return n / 20, {'feedback': 'n is ' + str(n), 'scores': {'big': 1.0 if n >= 10 else 0.0}}\n"
)
IDS = [f"c{n}" for n in range(20)]
# The person passes from 8 up, but fails two cases the metric passes; c18 and c19 stay unlabelled.
HUMAN = {f"c{n}": ("pass" if n >= 8 and n not in (12, 15) else "fail") for n in range(18)}
LABELS_CSV = "id,human,note\n" + "".join(f"{key},{value},note {key}\n" for key, value in HUMAN.items()) + "ghost,0.5,\n"


def write_cases(folder: Path) -> Path:
    path = folder / "cases.jsonl"
    path.write_bytes(
        b"".join(orjson.dumps({"id": f"c{n}", "input": {"n": n}, "output": "x"}) + b"\n" for n in range(20))
    )
    return path


@pytest.fixture
def ws(data_dir: Path) -> Workspace:
    """The 20 cases of ``cases.jsonl`` in use, the metric as the draft, and the rater "ana"."""
    workspace = Workspace(data_dir, env={})
    workspace.human.set_rater("ana")
    workspace.drafts.replace(METRIC, "the test")
    workspace.data.save_choice(str(write_cases(data_dir.parent)))
    assert workspace.data.in_use().problem is None
    return workspace


def save_run(ws: Workspace) -> None:
    """The metric's scores (n / 20) kept as a run, as Score all would keep them."""
    data = ws.data.in_use().data
    results = [CaseResult(id=case_id, score=int(case_id[1:]) / 20, feedback="fb") for case_id in IDS]
    ws.runs.store.save(RunKey.of(data, ws.data.in_use().candidate, None, METRIC), results, metric_source=METRIC)


def header(at: AppTest) -> str:
    return next(item.value for item in at.markdown if item.value.startswith("Case "))


def test_unlabelled_first_then_least_sure_or_a_seeded_random_order(ws: Workspace) -> None:
    save_run(ws)
    at = open_app("human")
    assert header(at).startswith("Case c0 ")  # as listed
    at.selectbox(key=K.HUMAN_ORDER).set_value(LabelOrder.LEAST_SURE).run()
    button(at, "Next unlabelled").click().run()
    assert header(at).startswith("Case c10 ")  # its score 0.5 is the threshold itself
    button(at, "pass").click().run()  # moves on to the next least sure: c9 or c11 (0.05 away), listed first
    assert header(at).startswith("Case c9 ")
    at.selectbox(key=K.HUMAN_ORDER).set_value(LabelOrder.RANDOM).run()
    at.number_input(key=K.HUMAN_SEED).set_value(7).run()
    button(at, "Next unlabelled").click().run()  # from c9, the next unlabelled one in the shuffled order
    shuffled = labelling_order(IDS, (), LabelOrder.RANDOM, seed=7)
    after = next(case_id for case_id in shuffled[shuffled.index("c9") + 1 :] + shuffled if case_id not in ("c9", "c10"))
    place = shuffled.index(after) + 1
    assert shuffled != IDS and header(at).startswith(f"Case {after} · train · {place} of 20 in this order ")
    assert at.get("progress")[0].proto.text == "1 of 20 labelled by you · 1 by any rater"


def test_a_labels_file_is_imported_with_its_notes_and_refused_whole_with_the_line_of_a_bad_value(
    ws: Workspace,
) -> None:
    at = open_app("human")
    uploader = at.file_uploader(key=K.HUMAN_UPLOAD)
    uploader.set_value(("bad.csv", b"id,human\nc0,1\nc1,maybe\n", "text/csv")).run()
    button(at, "Import").click().run()
    [error] = at.error
    assert error.value.replace("\\", "").startswith("Nothing was imported: bad.csv, line 3: the human score is 'maybe'")
    assert not ws.human.labels().stored()
    at.file_uploader(key=K.HUMAN_UPLOAD).set_value(("labels.csv", LABELS_CSV.encode(), "text/csv")).run()
    at.text_input(key=K.HUMAN_UPLOAD_RATER).input("bo").run()
    button(at, "Import").click().run()
    imported = ["Imported 18 human scores by bo. 1 row names a case not in the data, ghost: it was not kept."]
    assert [item.value.replace("\\", "") for item in at.warning] == imported  # a row left out: a warning
    at.run()  # a run nobody asked for (the rater field's blur as Import takes the focus): still there to read
    assert [item.value.replace("\\", "") for item in at.warning] == imported
    go_to(at, "data")
    go_to(at, "human")  # a new visit: old news
    assert [item.value for item in at.warning if "Imported" in item.value] == []
    kept = ws.human.labels().of_rater("bo", "")
    assert kept["c12"].value == 0.0 and kept["c12"].note == "note c12" and kept["c8"].value == 1.0
    assert at.get("progress")[0].proto.text == "0 of 20 labelled by you · 18 by any rater"  # bo's, not ana's
    downloads = {item.proto.label: item for item in at.get("download_button")}
    assert set(downloads) == {"Download CSV", "Download JSONL"} and not downloads["Download CSV"].proto.disabled


@pytest.fixture
def cli_report(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """``score --labels --json`` of the same metric, data and labels, as a person at a terminal would run it."""
    folder = tmp_path_factory.mktemp("human_cli")
    (folder / "metric.py").write_text(METRIC)
    (folder / "labels.csv").write_text(LABELS_CSV)
    args = ["score", str(folder / "metric.py"), "--data", str(write_cases(folder)), "--labels",
            str(folder / "labels.csv"), "--json"]  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "skynet_core", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["agreement"]


def test_feedback_review_shows_the_figures_the_command_line_prints(ws: Workspace, cli_report: dict) -> None:
    at = open_app("author")
    run_until(at, lambda at: any(b.key == "author.score_all" and not b.disabled for b in at.button))
    at.button(key="author.score_all").click().run()
    run_until(at, lambda at: ws.runs.latest() is not None, timeout=120, what="the scored run kept")
    go_to(at, "human")
    at.file_uploader(key=K.HUMAN_UPLOAD).set_value(("labels.csv", LABELS_CSV.encode(), "text/csv")).run()
    button(at, "Import").click().run()
    go_to(at, "feedback")
    assert not at.exception, at.exception
    # The import kept the data's cases only (the command line counts the ghost row it read; the figures agree).
    assert "18 labelled and scored, 2 unlabelled" in [m.value for m in at.markdown]
    assert (cli_report["n"], cli_report["unknown"], cli_report["unknown_count"]) == (18, ["ghost"], 1)
    table = next(table.value for table in at.table if "figure" in table.value.columns)
    shown = dict(zip(table["figure"], zip(table["value"], table["95% interval"], strict=True), strict=True))
    names = {"spearman": "Spearman ρ", "kendall": "Kendall τ-b", "pearson": "Pearson r", "mae": "mean gap",
             "kappa": "Cohen's κ"}  # fmt: skip
    for key, name in names.items():
        figure = cli_report[key]
        assert shown[name] == (number(figure["value"]), f"{number(figure['low'])} – {number(figure['high'])}"), key
    confusion = cli_report["confusion"]
    assert confusion == {"tp": 6, "fp": 2, "fn": 2, "tn": 8}
    assert shown["true-pass rate"][0] == number(confusion["tp"] / (confusion["tp"] + confusion["fn"]))
    assert shown["true-fail rate"][0] == number(confusion["tn"] / (confusion["tn"] + confusion["fp"]))
    cards = [m.value for m in at.markdown if m.value.startswith("**1.** ") or m.value.startswith("**2.** ")]
    first = cli_report["disagreements"][0]
    assert first["id"] == "c15" and cards[0].startswith(f"**1.** Case {first['id']} ")  # the larger false pass
    assert cards[1].startswith("**2.** Case c12 ") and all(card.endswith(":red[false pass]") for card in cards)

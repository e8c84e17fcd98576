"""The Human scores page and the agreement report through AppTest: labelling one case at a time with the keys'
buttons, the metric hidden until asked, notes, the pass/fail scale, two raters, and the report on this page,
Feedback review, Runs (A against B) and beside the Author page's run, in English and Chinese."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from streamlit.testing.v1 import AppTest

from skynet_core.datasets import load_example
from skynet_core.feedback import MarkValue
from skynet_core.human import FILE_RATER, ScaleKind
from skynet_core.human.settings import default_rater
from skynet_core.runs import RunKey
from skynet_core.workspace import Workspace
from tests.app.harness import button, go_to, open_app, run_until
from tests.case_factory import WRONG_METRIC, weak_every_third
from tests.i18n_scan import english_words, render
from ui import keys as K
from ui.widgets.text import number

DATA_WORDS = {"support", "tickets", "example", "wrong", "correct", "label", "billing", "refund", "fast", "small", "ana"}


def ids(ws: Workspace) -> list[str]:
    return [case.id for case in ws.data.in_use().cases]


def label_twelve(ws: Workspace) -> None:
    """The person agrees with the metric on 10 cases, and fails 2 it passes (false passes: cases 1 and 2)."""
    for index, case_id in enumerate(ids(ws)[:12]):
        metric = 0.0 if index % 3 == 0 else 1.0
        ws.human.set_score(case_id, 0.0 if index in (1, 2) else metric, "too vague" if index == 1 else "")


def mine(ws: Workspace) -> dict[str, float]:
    return {case_id: s.value for case_id, s in ws.human.labels().of_rater("ana", ws.data.in_use().candidate).items()}


def header(at: AppTest) -> str:
    return next(item.value for item in at.markdown if item.value.startswith("Case "))


def test_a_score_key_labels_the_case_and_moves_on_to_the_next_unlabelled(ws: Workspace) -> None:
    at = open_app("human")
    first, second = ids(ws)[:2]
    assert header(at).startswith(f"Case {first} ")
    assert at.get("progress")[0].proto.text == "0 of 72 labelled by you · 0 by any rater"
    assert [b.proto.shortcut for b in at.button if b.key.startswith("human.key.")] == [
        "0",
        "1",
        "2",
        "3",
        "4",
        "f",
        "p",
    ]
    button(at, "0.75").click().run()
    assert mine(ws) == {first: 0.75}
    assert header(at).startswith(f"Case {second} ")
    assert at.get("progress")[0].proto.text == "1 of 72 labelled by you · 1 by any rater"
    button(at, "Previous").click().run()
    assert "your score: **0.75**" in header(at)
    button(at, "Remove my score").click().run()
    assert mine(ws) == {} and "not labelled yet" in header(at)


def test_the_metrics_score_and_feedback_stay_hidden_until_asked(ws: Workspace) -> None:
    at = open_app("human")
    assert not [m for m in at.markdown if "Metric score" in m.value]
    at.toggle(key=K.HUMAN_SHOW_METRIC).set_value(True).run()
    assert [m.value for m in at.markdown if "Metric score" in m.value] == ["**Metric score** 0.000 · ok"]
    assert "Wrong." in [text.value for text in at.text]


def test_the_pass_fail_scale_and_a_note_kept_with_the_score(ws: Workspace) -> None:
    at = open_app("human")
    first = ids(ws)[0]
    at.selectbox(key=K.HUMAN_SCALE).set_value(ScaleKind.PASS_FAIL).run()
    assert [(b.label, b.proto.shortcut) for b in at.button if b.key.startswith("human.key.")] == [
        ("fail", "f"), ("pass", "p"), ("0", "0"), ("1", "1")
    ]  # fmt: skip
    at.text_area(key=K.human_note("example", ws.data.in_use().candidate, first)).input("says nothing useful").run()
    button(at, "fail").click().run()
    label = ws.human.labels().of_rater("ana", ws.data.in_use().candidate)[first]
    assert (label.value, label.note) == (0.0, "says nothing useful")
    button(at, "1").click().run()  # the digit's button answers its key without showing: the second case passes
    assert mine(ws)[ids(ws)[1]] == 1.0


def test_the_report_shows_the_figures_the_workspace_computes_and_false_passes_first(ws: Workspace) -> None:
    label_twelve(ws)
    at = open_app("human", timeout=180)  # the report's bootstrap on a loaded machine
    run = ws.runs.latest()
    assert run is not None
    expected = ws.human.agreement(run.results, "example", ws.data.in_use().candidate)
    assert expected is not None and expected.n == 12 and expected.confusion.fp == 2
    figures = next(table.value for table in at.table if "figure" in table.value.columns)
    assert list(figures["value"]) == [
        number(expected.figure(name).value) for name in ("spearman", "kendall", "pearson", "mae", "kappa",
                                                         "true_pass_rate", "true_fail_rate")
    ]  # fmt: skip
    assert any("Only 12 labelled cases" in warning.value for warning in at.warning)
    assert "12 labelled and scored, 60 unlabelled" in [item.value for item in at.markdown]
    assert any(item.value.startswith("2 cases where the scores differ (false passes: 2).") for item in at.caption)
    cards = [m.value for m in at.markdown if m.value.startswith("**1.** ") or m.value.startswith("**2.** ")]
    assert len(cards) == 2 and all(card.endswith(":red[false pass]") for card in cards)
    assert "too vague" in [text.value for text in at.text]  # the rater's note beside the case


def test_two_raters_give_krippendorffs_alpha_and_the_cases_they_differ_on(ws: Workspace) -> None:
    label_twelve(ws)
    first = ids(ws)[0]
    ws.human.import_scores("bo.csv", f"id,human\n{first},1\n{ids(ws)[3]},0\n".encode(), rater="bo")
    at = open_app("human")
    alpha = next(metric for metric in at.metric if metric.label == "Krippendorff's α (interval)")
    assert alpha.value.startswith("-") or alpha.value[0].isdigit() or alpha.value.startswith("undefined")
    table = next(frame.value for frame in at.dataframe if "second" in frame.value.columns)
    assert list(table["id"]) == [first]


def test_feedback_review_shows_the_report_and_the_rules_against_the_marks(ws: Workspace) -> None:
    label_twelve(ws)
    run = ws.runs.latest()
    assert run is not None
    for case_id in ids(ws)[:6]:
        ws.runs.set_mark(run, case_id, MarkValue.WEAK if case_id in ids(ws)[::3] else MarkValue.USEFUL)
    at = open_app("feedback")
    assert "Is the metric right? Agreement with human scores" in [item.value for item in at.subheader]
    rules = next(frame.value for frame in at.dataframe if "precision" in frame.value.columns)
    assert len(rules) >= 9 and rules["flagged_weak"].sum() >= 1


def test_runs_compare_and_the_author_page_show_agreement_beside_the_scores(ws: Workspace) -> None:
    label_twelve(ws)
    data = load_example()
    better = [replace(r, score=0.0) if index in (1, 2) else r for index, r in enumerate(weak_every_third())]
    ws.runs.store.save(
        RunKey.of(data, data.candidates[0], None, WRONG_METRIC + "#"), better, metric_source=WRONG_METRIC
    )
    at = open_app("runs")
    at.radio(key="runs.view").set_value("Compare two runs").run()
    moves = next(frame.value for frame in at.dataframe if "movement" in frame.value.columns)
    assert sorted(moves["id"]) == sorted(ids(ws)[1:3])
    assert set(moves["movement"]) == {"toward the person's score"}  # B, the newer run, fails the two false passes
    at = open_app("author")
    assert any(c.value.startswith(":material/person_check: Agreement with 12 human scores") for c in at.caption)


def test_the_page_in_chinese_has_no_english_left(ws: Workspace) -> None:
    label_twelve(ws)
    at = render("human", **{K.HUMAN_SHOW_METRIC: True})
    assert not at.exception, at.exception
    assert at.title[0].value == "人工评分"
    found = [(word, text) for word, text in english_words(at, allowed=DATA_WORDS, where="main")
             if not text.startswith('{"')]  # fmt: skip
    assert found == []


def test_the_rater_is_the_os_user_until_named_on_settings_and_the_human_scores_page_uses_the_name(
    data_dir: Path,
) -> None:
    at = open_app("settings")
    field = at.text_input(key=K.SETTINGS_RATER)
    assert field.label == "Your name as a rater" and field.value == default_rater()
    field.input("  bo  ").run()
    ws = Workspace(data_dir, env={})
    assert ws.human.rater() == "bo" and at.text_input(key=K.SETTINGS_RATER).value == "bo"
    at.text_input(key=K.SETTINGS_RATER).input(FILE_RATER).run()  # the data file's column: refused, said
    assert ws.human.rater() == "bo" and [toast.value for toast in at.toast][-1].endswith("choose another name.")
    go_to(at, "human")
    assert at.text_input(key=K.HUMAN_RATER).value == "bo"
    go_to(at, "settings")
    at.text_input(key=K.SETTINGS_RATER).input("").run()
    assert ws.human.rater() == default_rater() and at.text_input(key=K.SETTINGS_RATER).value == default_rater()
    go_to(at, "human")  # visited before: its field shows the name in force
    assert at.text_input(key=K.HUMAN_RATER).value == default_rater()


ALL_PASS = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'Looks fine.'}\n"
ALL_FAIL = "def score(input, output, expected=None):\n    return 0.0, {'feedback': 'Not good enough.'}\n"


def test_history_compares_the_agreement_of_a_version_and_the_draft(ws: Workspace) -> None:
    """A passes every case, B fails every case: of the twelve labels, the six the person fails move toward their
    score and the six they pass move away."""
    label_twelve(ws)
    ws.store.save_version("passes everything", ALL_PASS)
    ws.store.save_draft(ALL_FAIL)
    at = open_app("history")
    button(at, "Compare scores").click().run()
    run_until(at, lambda app: any(m.label == "Moved away" for m in app.metric))
    figures = {metric.label: metric.value for metric in at.metric}
    assert figures["Labelled cases, A"] == "12" and figures["Labelled cases, B"] == "12"
    assert figures["Moved toward the person's score"] == "6" and figures["Moved away"] == "6"

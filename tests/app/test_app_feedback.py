"""The Feedback review page in Streamlit's AppTest, over a run seeded into a temporary data directory: the counts
per rule, the flagged cases and the selected one, marks, thresholds and filters, metric health, the optional model
review (in English and in Chinese), a reflection step without a model and with a stub reflection model on
127.0.0.1, and a run of the bundled exact match scored from the page, whose feedback breaks no rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from skynet_core.datasets import load_dataset, load_example
from skynet_core.engines.reflection import NO_REFLECTION_MODEL
from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.feedback import MarkValue, Thresholds
from skynet_core.llm import NO_MODEL_MESSAGE, LlmReply, ModelSettings
from skynet_core.results import CaseResult
from skynet_core.runs import RunKey
from skynet_core.store import DB_NAME, Store
from skynet_core.store.marks import MarkStore
from skynet_core.store.runs import RunStore
from skynet_core.views import feedback as fv
from skynet_core.workspace import SETTING_DATASET_PATH
from tests.app.harness import open_app, run_until
from tests.case_factory import WEAK_EVERY, WRONG_METRIC, weak_every_third
from tests.engine_stub import IMPROVED, stub_server
from ui import keys as K

# English left on the Feedback page (main area) that comes from files this branch does not own:
# ui/widgets/reflection.py (the reflection step), skynet_core/llm/settings.py (NO_MODEL_MESSAGE) and ui/studio.py (the
# stale-result banner). The i18n and author branches translate them; the lead empties this at merge.
PENDING_OTHER_BRANCH: set[str] = set()
# Data in the seeded run (case values, the dataset's name) and the English words the rules look for
# (quoted on purpose), the literal probe text "I don't know", and scanner artefacts (a code block's
# language, a column's config).
USER_DATA_WORDS = set(
    """label priority technical medium high refund returns me support tickets example fast small
    wrong correct missing bad format don't know plaintext index""".split()
)  # every third case gets the weak feedback "Wrong."


@pytest.fixture(autouse=True)
def weak_draft(data_dir: Path) -> None:
    """Every test starts with the weak metric as the draft."""
    Store(data_dir).save_draft(WRONG_METRIC)


@pytest.fixture
def seeded(data_dir: Path) -> RunKey:
    data = load_example()
    key = RunKey.of(data, data.candidates[0], None, WRONG_METRIC)
    RunStore(data_dir).save(key, weak_every_third(), metric_source=WRONG_METRIC)
    return key


def open_page() -> AppTest:
    return open_app("feedback")


def metric(app: AppTest, label: str) -> str:
    return next(item.value for item in app.metric if item.label == label)


def weak_count() -> int:
    return len([index for index in range(len(weak_every_third()) - 1) if index % WEAK_EVERY == 0])


def show_box(app: AppTest):
    return next(box for box in app.selectbox if box.label == "Show")


def opened(app: AppTest, panel: str, is_open: bool = True) -> AppTest:
    """The page after a click on the panel keyed ``panel``: a lazy panel draws its content only while open."""
    app.session_state[panel] = is_open
    return app.run()


def threshold_box(app: AppTest, setting: str):
    """The number field of one threshold (its key carries a generation that "Reset to defaults" moves on)."""
    return next(
        box for box in app.number_input if box.key.startswith("feedback.threshold.") and box.key.endswith(f".{setting}")
    )


def test_without_a_run_the_page_says_so_and_offers_to_score(data_dir: Path) -> None:
    app = open_page()
    assert app.title[0].value == "Feedback review"
    assert any("No scored run of Support tickets (example)" in info.value for info in app.info)
    assert app.button(key="feedback.score").label == "Score all cases now"
    assert not app.button(key="feedback.score").disabled


def test_counts_per_rule_and_the_flagged_table(seeded: RunKey) -> None:
    app = open_page()
    weak = weak_count()
    assert metric(app, "Cases judged") == str(len(weak_every_third()) - 1)
    assert metric(app, "Broke a rule") == str(weak)
    assert any(
        f"{weak} of {len(weak_every_third()) - 1} judged cases broke at least one rule" in item.value
        for item in app.markdown
    )
    counts = app.table[0].value["Flagged"].to_dict()
    assert counts["Generic phrase only"] == weak
    assert counts["Empty or very short"] == weak
    assert counts["Score and feedback disagree"] == 0
    flagged = app.dataframe[0].value
    assert len(flagged) == weak
    assert set(flagged["feedback"]) == {"Wrong."}
    assert all("Generic phrase only" in rules for rules in flagged["rules broken"])
    assert not any("metric.py has changed" in info.value for info in app.info)


def test_the_selected_case_is_shown_side_by_side_with_its_rules_and_suggestion(seeded: RunKey) -> None:
    app = open_page()
    first = app.dataframe[0].value["id"].iloc[0]
    assert app.selectbox(key="feedback.case").value == first
    text = " ".join(item.value for item in app.markdown)
    assert f"Case {first}" in text
    assert "**Generic phrase only**" in text
    assert "What the feedback should add" in text
    assert "is a stock phrase that names no specifics" in text  # the rule's reason for this feedback
    assert any(text.value == "Wrong." for text in app.text)
    assert app.table[0].value["What it flags"]["Generic phrase only"].startswith("A stock phrase such as")


def test_changing_a_threshold_reruns_the_review(seeded: RunKey) -> None:
    app = opened(open_page(), K.FEEDBACK_THRESHOLDS_OPEN)
    threshold_box(app, "min_words").set_value(1).run()
    assert app.table[0].value["Flagged"]["Empty or very short"] == 0
    assert app.table[0].value["Threshold"]["Empty or very short"] == "1 words (fewer is flagged)"
    threshold_box(app, "low_score").set_value(0.0).run()
    assert app.table[0].value["Flagged"]["Low score without specifics"] == 0
    assert metric(app, "Broke a rule") == str(weak_count())  # "Wrong." is still a generic phrase


def test_the_thresholds_panel_draws_its_fields_only_while_open_and_keeps_their_values(seeded: RunKey) -> None:
    app = open_page()
    assert not [box for box in app.number_input if box.key.startswith("feedback.threshold.")]  # nobody opened it
    opened(app, K.FEEDBACK_THRESHOLDS_OPEN)
    threshold_box(app, "min_words").set_value(1).run()
    opened(app, K.FEEDBACK_THRESHOLDS_OPEN, False)
    assert not [box for box in app.number_input if box.key.startswith("feedback.threshold.")]
    # Closed, the review still uses the threshold typed; opened again, its field shows it.
    assert app.table[0].value["Flagged"]["Empty or very short"] == 0
    opened(app, K.FEEDBACK_THRESHOLDS_OPEN)
    assert threshold_box(app, "min_words").value == 1


def test_the_reflection_steps_size_survives_closing_its_panel(seeded: RunKey) -> None:
    app = opened(open_page(), K.FEEDBACK_REFLECTION_OPEN)
    app.number_input(key="feedback.reflection.size").set_value(5).run()
    opened(app, K.FEEDBACK_REFLECTION_OPEN, False)
    assert "feedback.reflection.instruction" not in [area.key for area in app.text_area]
    opened(app, K.FEEDBACK_REFLECTION_OPEN)
    assert app.number_input(key="feedback.reflection.size").value == 5


def test_filtering_by_a_rule_with_no_flags_shows_an_empty_note(seeded: RunKey) -> None:
    app = open_page()
    show_box(app).set_value("contradiction").run()
    assert not app.dataframe or len(app.dataframe[0].value) == 0
    assert any("No case matches these filters" in caption.value for caption in app.caption)
    show_box(app).set_value("all").run()
    assert len(app.dataframe[0].value) == len(weak_every_third()) - 1


def test_marking_feedback_weak_persists_and_shows_in_the_table(seeded: RunKey, data_dir: Path) -> None:
    app = open_page()
    case_id = app.selectbox(key="feedback.case").value
    app.text_input(key=f"feedback.note.{RunStore(data_dir).latest('example').id}.{case_id}").input("says nothing")
    app.button(key="feedback.mark_weak").click().run()
    assert metric(app, "Marked weak") == "1"
    table = app.dataframe[0].value.set_index("id")
    assert table.loc[case_id, "mark"] == "weak"

    marks = MarkStore(data_dir / DB_NAME).marks_for(seeded.scope, seeded.metric_hash)
    assert marks[case_id].value is MarkValue.WEAK and marks[case_id].note == "says nothing"

    again = open_page()
    assert metric(again, "Marked weak") == "1"
    assert again.dataframe[0].value.set_index("id").loc[case_id, "mark"] == "weak"
    again.button(key="feedback.mark_useful").click().run()
    assert (metric(again, "Marked useful"), metric(again, "Marked weak")) == ("1", "0")
    again.button(key="feedback.mark_clear").click().run()
    assert MarkStore(data_dir / DB_NAME).marks_for(seeded.scope, seeded.metric_hash) == {}


def test_a_changed_metric_asks_for_a_new_run(seeded: RunKey, data_dir: Path) -> None:
    Store(data_dir).save_draft(WRONG_METRIC + "# edited\n")
    app = open_page()
    assert any("out of date: metric.py changed" in warning.value for warning in app.warning)
    assert app.button(key="feedback.score").label == "Score all cases now"


def test_metric_health_and_the_optional_model_review_without_a_model(seeded: RunKey) -> None:
    app = open_page()
    assert any("distinct score" in info.value for info in app.info)
    assert any(
        "1 of 72 cases (1%) did not score" in warning.value and "Cases: TCK-" in warning.value
        for warning in app.warning
    )
    assert any(NO_MODEL_MESSAGE[1:] in info.value for info in app.info)
    assert app.button(key="feedback.probe").label == "Run probes"


def test_the_optional_model_review_grades_flagged_feedback_beside_the_rules(
    seeded: RunKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKYNET_METRIC_MODEL", "openai/test-model")
    asked: list[str] = []

    def fake_complete(settings: ModelSettings, instructions: str, input: str | None = None, **_: object) -> LlmReply:
        asked.append(input or "")
        return LlmReply("Grade: 2/5 - Only a verdict, nothing to act on.", 1.0, 10, 5, None)

    monkeypatch.setattr("skynet_core.llm.complete", fake_complete)
    app = open_page()
    assert app.button(key="feedback.grade").label == f"Grade {weak_count()} flagged"
    app.button(key="feedback.grade").click().run()
    assert app.session_state["studio.jobs.feedback.grades"].job.wait(30)
    app.run()
    assert len(asked) == weak_count() and all("Feedback to grade:\nWrong." in text for text in asked)
    assert set(app.dataframe[0].value["model grade"]) == {"2/5"}
    text = " ".join(item.value for item in app.markdown)
    assert f"Graded {weak_count()} feedback texts: mean 2.0 of 5" in text
    assert "**2/5** · Only a verdict, nothing to act on." in text


def test_the_model_review_uses_the_model_saved_on_the_settings_page(seeded: RunKey, data_dir: Path) -> None:
    from skynet_core.llm import ModelConfig, ModelSettings, save_settings

    save_settings(Store(data_dir), ModelSettings(metric=ModelConfig("openai/saved-judge", "http://127.0.0.1:9")))
    app = open_page()
    assert not any("No model is configured" in info.value for info in app.info)
    assert app.button(key="feedback.grade").label.startswith("Grade ")
    assert any("openai/saved-judge" in caption.value for caption in app.caption)


def test_the_model_review_in_chinese_names_the_metric_model_in_chinese(seeded: RunKey, data_dir: Path) -> None:
    from skynet_core.llm import ModelConfig, ModelSettings, save_settings

    save_settings(Store(data_dir), ModelSettings(metric=ModelConfig("openai/judge", "http://127.0.0.1:9")))
    app = open_app("feedback", language="zh_CN")
    uses = [caption.value for caption in app.caption if "openai/judge" in caption.value]
    assert len(uses) == 1 and "（指标模型）" in uses[0], uses
    assert "metric model" not in uses[0]


def prompt_block(app: AppTest) -> str:
    """The prompt the reflection step shows (the code block that starts as GEPA's reflection prompt does)."""
    return next(block.value for block in app.code if block.value.startswith("I am optimizing a parameter"))


def test_a_reflection_step_on_the_review_shows_the_prompt_without_a_model(seeded: RunKey) -> None:
    app = opened(open_page(), K.FEEDBACK_REFLECTION_OPEN)
    app.text_area(key="feedback.reflection.instruction").input("Answer the ticket in one line.").run()
    app.button(key="feedback.reflection.run").click().run()
    assert not app.exception, app.exception
    assert any(NO_REFLECTION_MODEL in info.value for info in app.info)
    prompt = prompt_block(app)
    assert "Answer the ticket in one line." in prompt and "Wrong." in prompt  # the text and the lowest cases' feedback


def test_a_reflection_step_with_a_reflection_model_shows_its_proposal_the_diff_and_the_prompt_sent(
    seeded: RunKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("gepa", reason="gepa==0.1.4 is a test requirement")
    with stub_server() as stub:
        monkeypatch.setenv("SKYNET_REFLECTION_MODEL", "openai/reflect")
        monkeypatch.setenv("SKYNET_REFLECTION_API_BASE", stub.url)
        app = opened(open_page(), K.FEEDBACK_REFLECTION_OPEN)
        assert "You triage customer support tickets" in app.text_area(key="feedback.reflection.instruction").value
        assert any("openai/reflect" in caption.value for caption in app.caption if "Reflection model" in caption.value)
        app.button(key="feedback.reflection.run").click().run()
        assert not app.exception, app.exception
        sent = [request.user for request in stub.requests]
    text = " ".join(item.value for item in app.markdown)
    assert "**Proposed text** · from openai" in text and "Diff against the current text" in text
    blocks = [block.value for block in app.code]
    assert IMPROVED in blocks  # the proposal
    diff = next(block for block in blocks if block.startswith("--- current"))
    assert f"+{IMPROVED}" in diff.splitlines()
    assert sent == [prompt_block(app)]  # the prompt shown is the one the model got
    assert "Wrong." in sent[0]


def test_the_bundled_exact_match_scored_from_the_page_breaks_no_rule(seeded: RunKey, data_dir: Path) -> None:
    """Its feedback names the expected and the given label: once "Score all cases now" has run it over the weak
    metric's run (out of date, then), no feedback is flagged and the out-of-date note goes."""
    Store(data_dir).save_draft(EXAMPLE_METRICS["Exact match"].read_text(encoding="utf-8"))
    app = open_page()
    assert any("out of date: metric.py changed" in warning.value for warning in app.warning)
    app.button(key="feedback.score").click().run()
    cleared = "No feedback broke a rule at these thresholds."
    run_until(app, lambda at: any(cleared in item.value for item in at.success), 180, what="the new run's review")
    assert (metric(app, "Cases judged"), metric(app, "Broke a rule")) == ("72", "0")
    assert not any("out of date" in warning.value for warning in app.warning)


# --- issue 15's rough edges and the filters ------------------------------------------------------


def test_reset_to_defaults_restores_every_threshold_field(seeded: RunKey) -> None:
    app = opened(open_page(), K.FEEDBACK_THRESHOLDS_OPEN)
    before = {box.key for box in app.number_input if box.key.startswith("feedback.threshold.")}
    threshold_box(app, "min_words").set_value(1).run()
    threshold_box(app, "low_score").set_value(0.0).run()
    threshold_box(app, "max_chars").set_value(5).run()
    assert app.table[0].value["Threshold"]["Empty or very short"] == "1 words (fewer is flagged)"
    app.button(key="feedback.reset").click().run()
    assert not app.error
    fields = {box.key.rsplit(".", 1)[1]: box for box in app.number_input if box.key.startswith("feedback.threshold.")}
    assert {name: box.value for name, box in fields.items()} == fv.threshold_values(Thresholds())
    # New fields, not new values in the old ones: a browser that held an invalid -5 in a field
    # (which the server never accepted) draws the default again.
    assert not {box.key for box in fields.values()} & before
    assert app.table[0].value["Threshold"]["Empty or very short"] == "3 words (fewer is flagged)"
    assert metric(app, "Broke a rule") == str(weak_count())


def test_the_show_box_shows_the_new_counts_after_a_rescore_and_keeps_the_choice(seeded: RunKey, data_dir: Path) -> None:
    app = open_page()
    assert show_box(app).options[0] == f"Every flagged case ({weak_count()})"
    show_box(app).set_value("generic").run()
    results = weak_every_third()
    rescored = [
        CaseResult(id=r.id, split=r.split, score=0.0, feedback="Wrong.", candidate=r.candidate) if r.ok else r
        for r in results
    ]
    RunStore(data_dir).save(seeded, rescored, metric_source=WRONG_METRIC)
    app.run()
    box = show_box(app)
    judged = len(results) - 1
    assert box.options[0] == f"Every flagged case ({judged})"
    assert box.value == "generic" and f"Generic phrase only ({judged})" in box.options
    assert len(app.dataframe[0].value) == judged


def test_search_mark_and_score_filters_narrow_the_table(seeded: RunKey) -> None:
    app = open_page()
    show_box(app).set_value("all").run()
    app.text_input(key="feedback.search").input("wrong").run()
    assert set(app.dataframe[0].value["feedback"]) == {"Wrong."}
    app.text_input(key="feedback.search").input("").run()
    slider = next(item for item in app.slider if item.label == "Score range")
    slider.set_value((0.5, 1.0)).run()
    assert set(app.dataframe[0].value["score"]) == {1.0}
    slider = next(item for item in app.slider if item.label == "Score range")
    slider.set_value((0.0, 1.0)).run()
    app.button(key="feedback.mark_weak").click().run()
    app.selectbox(key="feedback.mark_filter").set_value("weak").run()
    assert len(app.dataframe[0].value) == 1
    app.selectbox(key="feedback.mark_filter").set_value("useful").run()
    cases = [frame for frame in app.dataframe if "feedback" in frame.value.columns]  # the marks' rules table stays
    assert not cases and any("No case matches these filters" in c.value for c in app.caption)


def test_metric_py_is_written_in_lower_case_and_code_font(seeded: RunKey, data_dir: Path) -> None:
    Store(data_dir).save_draft(WRONG_METRIC + "# edited\n")
    app = open_page()
    everything = [item.value for kind in (app.markdown, app.caption, app.info, app.warning) for item in kind]
    assert not any("Metric.py" in text for text in everything)
    assert any("`metric.py`" in text for text in everything)


def test_the_page_in_chinese_has_no_english_left_in_the_main_area(seeded: RunKey) -> None:
    from tests.i18n_scan import english_words, render

    app = render("feedback")
    assert not app.exception, app.exception
    left = {word.lower() for word, _text in english_words(app, allowed=USER_DATA_WORDS, where="main")}
    assert left <= PENDING_OTHER_BRANCH, sorted(left - PENDING_OTHER_BRANCH)


RUBRIC_ROWS = [
    {
        "id": f"r{index}",
        "input": {"message": f"Refund my order {index}"},
        "output": json.dumps({"label": "billing", "reply": f"Refund of order {index} sent, sorry."}),
        "expected": {"label": "billing", "fields": ["order number", "refund amount", "apology"]},
    }
    for index in range(6)
]


def test_a_rubric_list_in_expected_is_not_reported_as_a_value_the_output_lacks(data_dir: Path) -> None:
    path = data_dir / "rubric.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in RUBRIC_ROWS), encoding="utf-8")
    Store(data_dir).set(SETTING_DATASET_PATH, str(path))
    data = load_dataset(str(path))
    key = RunKey.of(data, data.candidates[0], None, WRONG_METRIC)
    results = [
        CaseResult(
            id=row["id"], split=case.split, score=1.0, feedback="Label billing is right; the reply names the order."
        )
        for row, case in zip(RUBRIC_ROWS, data.for_candidate(data.candidates[0]), strict=True)
    ]
    RunStore(data_dir).save(key, results, metric_source=WRONG_METRIC)
    app = open_page()
    assert metric(app, "Cases judged") == str(len(RUBRIC_ROWS))
    notes = [item.value for item in (*app.warning, *app.info)]
    assert not any("fields differs" in note or "differs from the expected value" in note for note in notes), notes

"""The Reward trade-offs page through Streamlit's AppTest: score the example's candidates, move weights, write back
(the Author page's editor then holds the written spec)."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1 import AppTest

from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.reward import replace_reward_spec
from skynet_core.store import Store
from skynet_core.store.runs import RunStore
from skynet_core.workspace import Workspace
from tests.app.harness import go_to, open_app, run_until
from tests.i18n_scan import english_words, render

REWARD_METRIC = EXAMPLE_METRICS["Accuracy, speed and cost"].read_text(encoding="utf-8")
WINNER = "Winner at these weights"
SCORING_DEADLINE_S = 90


def open_page(data_dir: Path, draft: str | None = REWARD_METRIC) -> AppTest:
    if draft is not None:
        Store(data_dir).save_draft(draft)
    return open_app("tradeoffs")


def score_candidates(at: AppTest, winner_label: str = WINNER) -> None:
    """Press Score candidates and rerun until the background job's results are drawn."""
    at.button(key="tradeoffs.score").click().run()

    def drawn(at: AppTest) -> bool:
        assert not at.main.error, [error.value for error in at.main.error]
        return any(metric.label == winner_label for metric in at.metric)

    run_until(at, drawn, SCORING_DEADLINE_S, what="the scored candidates")


def winner(at: AppTest) -> str:
    return next(metric.value for metric in at.metric if metric.label == WINNER)


def set_weights(at: AppTest, accuracy: float, speed: float, cost: float) -> None:
    for part, value in (("accuracy", accuracy), ("speed", speed), ("cost", cost)):
        at.number_input(key=f"tradeoffs.weight.{part}").set_value(value).run()


def test_controls_start_from_the_metrics_reward_spec(data_dir: Path) -> None:
    at = open_page(data_dir)
    values = {field.label: field.value for field in at.number_input}
    assert values == {
        "Accuracy weight": 0.7,
        "Speed weight": 0.2,
        "Cost weight": 0.1,
        "Speed reference (ms)": 2000,
        "Cost reference (USD)": 0.01,
        "Accuracy reference (optional)": None,
    }
    assert any(caption.value == "Normalised: accuracy 70% · speed 20% · cost 10%" for caption in at.caption)
    assert at.button(key="tradeoffs.write").disabled
    assert any("Score the candidates" in info.value for info in at.info)


def test_scoring_candidates_shows_the_winner_and_a_summary_per_candidate(data_dir: Path) -> None:
    at = open_page(data_dir)
    score_candidates(at)
    assert winner(at) == "balanced"
    # Text in the page, not a canvas grid: read whole at any width (names from the data file escaped).
    table = at.table[0].value.map(lambda cell: cell.replace("\\", ""))
    assert list(table["candidate"]) == ["fast-small", "balanced", "large-careful"]
    assert list(table["winner"]) == ["", "yes", ""]
    assert list(table["Pareto front"]) == ["yes", "yes", "yes"]
    assert list(table["mean reward"]) == ["0.745", "0.819", "0.794"]
    assert all(cost.startswith("$") for cost in table["mean cost (USD)"])
    assert any("large-careful** wins" in text.value for text in at.markdown)


def test_changing_a_weight_changes_the_winner_without_running_the_metric(data_dir: Path) -> None:
    at = open_page(data_dir)
    score_candidates(at)
    job = at.session_state["studio.jobs.tradeoffs"].job
    set_weights(at, 0.76, 0.2, 0.04)
    assert winner(at) == "large-careful"
    assert at.session_state["studio.jobs.tradeoffs"].job is job
    assert any(caption.value == "Normalised: accuracy 76% · speed 20% · cost 4%" for caption in at.caption)
    set_weights(at, 1, 1, 1)
    assert winner(at) == "fast-small"


def test_scores_are_saved_so_a_new_session_needs_no_rescoring(data_dir: Path) -> None:
    score_candidates(open_page(data_dir))
    at = open_page(data_dir, draft=None)
    assert winner(at) == "balanced"
    assert at.session_state["studio.jobs.tradeoffs"].job is None
    # Each candidate's run is saved like a "Score all cases" run, so Feedback review can read it too.
    run = RunStore(data_dir).latest("example", "large-careful")
    assert run is not None and len(run.results) == 72 and run.metric_source == REWARD_METRIC


def test_all_zero_weights_show_the_reward_spec_error(data_dir: Path) -> None:
    at = open_page(data_dir)
    score_candidates(at)
    set_weights(at, 0, 0, 0)
    assert [error.value for error in at.error] == [
        "All three weights in REWARD_SPEC['weights'] are 0; give at least one of accuracy, speed and cost "
        "a weight above 0."
    ]
    assert at.button(key="tradeoffs.write").disabled
    assert not any(metric.label == WINNER for metric in at.metric)


def test_write_to_metric_py_changes_only_reward_spec_in_the_stored_draft(data_dir: Path) -> None:
    at = open_page(data_dir)
    score_candidates(at)
    set_weights(at, 0.76, 0.2, 0.04)
    at.number_input(key="tradeoffs.reference.speed").set_value(1500.0).run()
    at.button(key="tradeoffs.write").click().run()

    new_spec = {
        "weights": {"accuracy": 0.76, "speed": 0.2, "cost": 0.04},
        "accuracy": {},
        "speed": {"reference": 1500},
        "cost": {"reference": 0.01},
    }
    draft = Store(data_dir).draft()
    assert draft == replace_reward_spec(REWARD_METRIC, new_spec)
    changed = [
        line for line in difflib.ndiff(REWARD_METRIC.splitlines(), draft.splitlines()) if line.startswith(("- ", "+ "))
    ]
    assert changed == [
        '-     "weights": {"accuracy": 0.7, "speed": 0.2, "cost": 0.1},',
        '+     "weights": {"accuracy": 0.76, "speed": 0.2, "cost": 0.04},',
        '-     "speed": {"reference": 2000},',
        '+     "speed": {"reference": 1500},',
    ]
    # The text before the write is kept: as the version scored (issue 23 item 12) and the one before the write.
    assert {version.source for version in Store(data_dir).versions()} == {REWARD_METRIC}
    # The Author page shows the new text without calling it a conflict; the scores still hold (only the spec changed).
    assert at.session_state["studio.own_revision"] == Store(data_dir).draft_record().revision
    assert winner(at) == "large-careful"
    assert at.button(key="tradeoffs.write").disabled
    assert any("Wrote `REWARD_SPEC` to metric.py" in success.value for success in at.success)
    at.run()  # a run nobody asked for (a chart's relayout, the next poll): the message is still there to read
    assert any("Wrote `REWARD_SPEC` to metric.py" in success.value for success in at.success)
    Workspace(data_dir).drafts.replace(REWARD_METRIC, "the test")  # metric.py changed since: old news
    at.run()
    assert not any("Wrote `REWARD_SPEC`" in success.value for success in at.success)


IN_METRIC_PY = "metric.py's `REWARD_SPEC` has these values."


def editor_text(at: AppTest) -> str:
    """The text the Author page's editor component is given."""
    editor = next(item for item in at.get("component_instance") if "author.editor." in item.proto.id)
    return json.loads(editor.proto.json_args)["code"]


def test_written_values_are_what_the_author_pages_editor_then_shows(data_dir: Path) -> None:
    at = open_page(data_dir)
    assert IN_METRIC_PY in [caption.value for caption in at.caption]
    set_weights(at, 0.76, 0.2, 0.04)
    assert any("These values are not in metric.py yet." in caption.value for caption in at.caption)
    at.button(key="tradeoffs.write").click().run()
    assert IN_METRIC_PY in [caption.value for caption in at.caption]
    go_to(at, "author")
    assert not at.exception, at.exception
    assert '    "weights": {"accuracy": 0.76, "speed": 0.2, "cost": 0.04},\n' in editor_text(at)


def test_a_metric_without_reward_spec_can_start_from_the_example_spec(data_dir: Path) -> None:
    exact_match = EXAMPLE_METRICS["Exact match"].read_text(encoding="utf-8")
    at = open_page(data_dir, exact_match)
    assert any("metric.py defines no REWARD_SPEC" in warning.value for warning in at.warning)
    assert not at.number_input
    at.button(key="tradeoffs.use_example").click().run()
    assert [field.value for field in at.number_input][:5] == [0.7, 0.2, 0.1, 2000, 0.01]
    score_candidates(at)
    assert any("score stands in for accuracy" in caption.value for caption in at.caption)
    at.button(key="tradeoffs.write").click().run()
    draft = Store(data_dir).draft()
    example_spec = {
        "weights": {"accuracy": 0.7, "speed": 0.2, "cost": 0.1},
        "accuracy": {},
        "speed": {"reference": 2000},
        "cost": {"reference": 0.01},
    }
    assert draft == replace_reward_spec(exact_match, example_spec)
    diff = list(difflib.ndiff(exact_match.splitlines(), draft.splitlines()))
    assert not [line for line in diff if line.startswith("- ")]
    assert "+ REWARD_SPEC = {" in diff


def test_a_computed_reward_spec_is_named_and_not_read(data_dir: Path) -> None:
    computed = REWARD_METRIC.replace('REWARD_SPEC = {\n    "weights"', 'REWARD_SPEC = dict(**{\n    "weights"', 1)
    computed = computed.replace('"cost": {"reference": 0.01},\n}', '"cost": {"reference": 0.01},\n})', 1)
    at = open_page(data_dir, computed)
    assert any("REWARD_SPEC at metric.py line 12 is computed" in warning.value for warning in at.warning)


ERROR_METRIC = """import json

from skynet import reward

REWARD_SPEC = {
    "weights": {"accuracy": 0.6, "speed": 0.3, "cost": 0.1},
    "accuracy": {"reference": 1.0},
    "speed": {"reference": 2000},
    "cost": {"reference": 0.01},
}


def score(input, output, expected=None):
    try:
        got = json.loads(output).get("label")
    except (ValueError, AttributeError):
        got = None
    error = 0.0 if expected is None or got == expected["label"] else 3.0
    return reward(REWARD_SPEC, error, f"Error {error}.")
"""


def metric_mean_scores(at: AppTest) -> list[float]:
    results = at.session_state["studio.jobs.tradeoffs"].job.result.cases
    assert [r.error for r in results if not r.ok] == []
    names = ["fast-small", "balanced", "large-careful"]
    return [sum(r.score for r in results if r.candidate == name) / 72 for name in names]


def test_rewards_after_moving_controls_equal_the_metrics_own_scores_once_written(data_dir: Path) -> None:
    at = open_page(data_dir, ERROR_METRIC)
    score_candidates(at)
    shown = [float(cell.replace("\\", "")) for cell in at.table[0].value["mean reward"]]  # three decimals
    assert shown == pytest.approx(metric_mean_scores(at), abs=5e-4 + 1e-9)
    set_weights(at, 0.5, 0.1, 0.4)
    at.number_input(key="tradeoffs.reference.accuracy").set_value(0.5).run()
    at.number_input(key="tradeoffs.reference.cost").set_value(0.002).run()
    predicted = at.dataframe[0].value["mean reward under B"].tolist()  # A vs B's table: B is the controls'
    assert any("Error score: falls as the error grows" in chart.proto.spec for chart in at.get("plotly_chart"))

    at.button(key="tradeoffs.write").click().run()
    assert '"accuracy": {"reference": 0.5},' in Store(data_dir).draft()
    job = at.session_state["studio.jobs.tradeoffs"].job
    at.button(key="tradeoffs.score").click().run()
    slot = "studio.jobs.tradeoffs"
    run_until(at, lambda at: at.session_state[slot].job is not job and at.session_state[slot].job.finished)
    at.run()
    assert metric_mean_scores(at) == pytest.approx(predicted, abs=1e-12)


# --- sliders, a click on the map, A vs B (issue 15 item 6) ------------------------------------


def weight_boxes(at: AppTest) -> dict[str, float]:
    return {part: at.number_input(key=f"tradeoffs.weight.{part}").value for part in ("accuracy", "speed", "cost")}


def shares(at: AppTest) -> dict[str, float]:
    return {part: at.slider(key=f"tradeoffs.share.{part}").value for part in ("accuracy", "speed", "cost")}


def click_map(at: AppTest, weights: list[float]) -> None:
    """What the browser sends when a point of the weight map is clicked: a points selection with its customdata."""
    chart = next(chart for chart in at.get("plotly_chart") if chart.proto.id.endswith("tradeoffs.ternary"))
    assert chart.proto.selection_mode, "the map must accept point selections"
    selection = {
        "selection": {
            "points": [{"curve_number": 0, "point_number": 7, "point_index": 7, "customdata": weights}],
            "point_indices": [7],
            "box": [],
            "lasso": [],
        }
    }
    states = at._tree.get_widget_states()
    state = WidgetState(id=chart.proto.id, string_value=json.dumps(selection))
    states.widgets.append(state)
    at._run(states)
    assert not at.exception, at.exception


def test_sliders_show_the_shares_and_dragging_one_rescales_the_other_two(data_dir: Path) -> None:
    at = open_page(data_dir)
    assert shares(at) == {"accuracy": 0.7, "speed": 0.2, "cost": 0.1}
    at.slider(key="tradeoffs.share.accuracy").set_value(0.4).run()
    assert weight_boxes(at) == {"accuracy": 0.4, "speed": 0.4, "cost": 0.2}
    assert shares(at) == {"accuracy": 0.4, "speed": 0.4, "cost": 0.2}
    assert any(caption.value == "Normalised: accuracy 40% · speed 40% · cost 20%" for caption in at.caption)
    # Dragging a share to 1 leaves the others 0; dragging another then gives the rest back in proportion.
    at.slider(key="tradeoffs.share.cost").set_value(1.0).run()
    assert weight_boxes(at) == {"accuracy": 0.0, "speed": 0.0, "cost": 1.0}
    at.slider(key="tradeoffs.share.cost").set_value(0.5).run()
    assert weight_boxes(at) == {"accuracy": 0.25, "speed": 0.25, "cost": 0.5}
    assert not at.button(key="tradeoffs.write").disabled


def test_typing_a_weight_moves_the_sliders(data_dir: Path) -> None:
    at = open_page(data_dir)
    at.number_input(key="tradeoffs.weight.accuracy").set_value(1.7).run()
    # 1.7 / (1.7 + 0.2 + 0.1): the box keeps what was typed, the slider shows its share.
    assert weight_boxes(at)["accuracy"] == 1.7
    assert shares(at) == {"accuracy": 0.85, "speed": 0.1, "cost": 0.05}


def test_a_click_on_the_weight_map_sets_the_weights_there(data_dir: Path) -> None:
    at = open_page(data_dir)
    score_candidates(at)
    click_map(at, [0.76, 0.2, 0.04])
    assert weight_boxes(at) == {"accuracy": 0.76, "speed": 0.2, "cost": 0.04}
    assert shares(at) == {"accuracy": 0.76, "speed": 0.2, "cost": 0.04}
    assert winner(at) == "large-careful"
    click_map(at, [0.0, 1.0, 0.0])
    assert winner(at) == "fast-small"


def test_the_map_says_in_the_plot_that_an_unmeasured_latency_scores_zero(data_dir: Path) -> None:
    at = open_page(data_dir)
    score_candidates(at)
    specs = [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]
    notes = [note["text"] for spec in specs for note in spec["layout"].get("annotations", [])]
    assert any("no measured latency" in note and "0 on speed" in note for note in notes), notes


def metric_value(at: AppTest, label: str) -> str:
    return next(metric.value for metric in at.metric if metric.label == label)


def test_a_vs_b_names_each_winner_and_the_cases_that_change_rank(data_dir: Path) -> None:
    at = open_page(data_dir)
    score_candidates(at)
    # A is metric.py's weights; B the controls': the same until a weight moves.
    assert metric_value(at, "Winner under A") == metric_value(at, "Winner under B") == "balanced"
    assert any("A and B are the same weights" in info.value for info in at.info)
    set_weights(at, 0.76, 0.2, 0.04)
    assert metric_value(at, "Winner under A") == "balanced"
    assert metric_value(at, "Winner under B") == "large-careful"
    candidates = at.dataframe[0].value
    assert list(candidates["rank under A"]) == [3, 1, 2]
    assert list(candidates["rank under B"]) == [3, 2, 1]
    cases = at.dataframe[1].value
    assert list(cases.columns[:4]) == ["case", "rank under A", "rank under B", "change"]
    assert len(cases) > 0 and (cases["rank under A"] != cases["rank under B"]).all()
    moved = (cases["rank under A"] - cases["rank under B"]).abs().tolist()
    assert moved == sorted(moved, reverse=True)
    assert any("of 72 cases** of balanced change rank" in text.value for text in at.markdown)
    at.selectbox(key="tradeoffs.ab_shown.fast-small/balanced/large-careful").select("large-careful").run()
    assert any("of 72 cases** of large-careful change rank" in text.value for text in at.markdown)

    # Pin B as A: both the same again; then back to metric.py's weights.
    at.button(key="tradeoffs.pin_a").click().run()
    assert metric_value(at, "Winner under A") == "large-careful"
    assert any("A and B are the same weights" in info.value for info in at.info)
    at.button(key="tradeoffs.unpin_a").click().run()
    assert metric_value(at, "Winner under A") == "balanced"


# User data (the example's candidate names), units and a statistic's name, and "index" from the JSON of a
# dataframe's column_config, which i18n_scan reads as text.
ALLOWED_HERE = {"fast", "small", "balanced", "large", "careful", "ms", "usd", "kendall", "tau", "index"}


def test_the_page_reads_in_chinese(data_dir: Path) -> None:
    Store(data_dir).save_draft(REWARD_METRIC)
    at = render("tradeoffs")
    assert not at.exception, at.exception
    score_candidates(at, "当前权重下的胜出者")
    set_weights(at, 0.76, 0.2, 0.04)
    left = english_words(at, allowed=ALLOWED_HERE, where="main")
    assert left == []

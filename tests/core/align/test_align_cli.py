"""``python -m skynet_core align``: the judge's rubric aligned with people in a scripted world (tests/align_world.py),
proven on test cases the optimizer never saw; no gain claimed without the notes; the JSON, the file written, the
exit codes, the budget, the answer cache and the guards."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from skynet_core.cli import run
from skynet_core.llm import ModelConfig, ModelSettings, save_settings
from skynet_core.store import Store
from tests import align_world as world
from tests.core.command_line import Placed, record_places
from tests.fake_openai import FakeOpenAI, Received

pytest.importorskip("gepa", reason="gepa==0.1.4 is a requirement")
pytestmark = pytest.mark.timeout(600)

KEYS = ["prompts", "split", "before", "after", "gain", "fixed", "broken", "rounds", "calls", "cost_usd", "out"]
FIGURES = ["kappa", "spearman", "accuracy", "bias", "n"]


@pytest.fixture
def world_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SKYNET_DATA_DIR", str(tmp_path / "data"))
    return tmp_path


def models(monkeypatch: pytest.MonkeyPatch, server: FakeOpenAI) -> None:
    for name, value in world.environment(server.url).items():
        monkeypatch.setenv(name, value)


def align(folder: Path, *args: str, notes: bool = True) -> tuple[int, str, str]:
    metric, cases, labels = world.write(folder, notes=notes)
    out, err = io.StringIO(), io.StringIO()
    code = run(["align", str(metric), "--data", str(cases), "--labels", str(labels), *args], out, err)
    return code, out.getvalue(), err.getvalue()


def score_kappa(folder: Path, metric: Path, ids: list[str]) -> float:
    """κ of ``metric`` with the labels on the cases ``ids``, as ``score --labels`` measures it (another path)."""
    chosen = folder / "chosen.jsonl"
    rows = [line for line in (folder / "replies.jsonl").read_text().splitlines() if json.loads(line)["id"] in ids]
    chosen.write_text("\n".join(rows) + "\n")
    out, err = io.StringIO(), io.StringIO()
    code = run(
        ["score", str(metric), "--data", str(chosen), "--labels", str(folder / "labels.jsonl"), "--json"], out, err
    )
    assert code == 0, err.getvalue()
    agreement = json.loads(out.getvalue())["agreement"]
    assert agreement["n"] == len(ids)
    return float(agreement["kappa"]["value"])


SECRET = "sk-test-align-0123456789abcdef"  # the provider key in the environment of :func:`learned`'s runs


def leaky(received: Received) -> str:
    """The world's models, but the reflection model echoes the key into the rubric it proposes: it must be redacted
    before the report is printed or the file written."""
    answer = world.reply(received)
    return answer.replace(world.POLICY, f"{world.POLICY} (key {SECRET})") if received.model == "reflect" else answer


@dataclass(frozen=True)
class Learned:
    """One alignment (3 rounds, ``--out``, ``--json``), a second run of the same alignment after it, and a third in
    text (2 rounds, ``--min-gain 0.2``, another ``--out``): what each printed, what the server had received after
    the first, and the folder, server and data directory they used."""

    folder: Path
    server: FakeOpenAI
    first: tuple[int, str, str]
    asked: tuple[Received, ...]  # every request the server had received when the first run ended
    second: tuple[int, str, str]
    asked_after_second: int  # judge requests when the second run ended
    text: tuple[int, str, str]


@pytest.fixture(scope="module")
def learned(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Learned]:
    """Shared by the module's three tests that read a whole alignment (one run costs seconds of CPU): the second run
    of the same alignment, in the same data directory, finds every judge answer in the answer cache, and so does the
    third, whose text report is read (the reflection model is asked again each run, and echoes the key each time)."""
    folder = tmp_path_factory.mktemp("learned")
    with pytest.MonkeyPatch.context() as patch, FakeOpenAI(reply=leaky, usage=(100, 20)) as server:
        patch.setenv("SKYNET_DATA_DIR", str(folder / "data"))
        patch.delenv("ANTHROPIC_API_KEY", raising=False)
        patch.setenv("OPENAI_API_KEY", SECRET)
        models(patch, server)
        first = align(folder, "--rounds", "3", "--out", str(folder / "aligned.py"), "--json")
        asked = tuple(server.requests)
        second = align(folder, "--rounds", "3", "--json")
        judged = world.requests_by_model(server)["judge"]
        text = align(folder, "--rounds", "2", "--min-gain", "0.2", "--out", str(folder / "aligned-text.py"))
        yield Learned(folder, server, first, asked, second, judged, text)


def test_the_rubric_learns_the_unwritten_policy_and_test_kappa_rises_from_about_0_2_to_above_0_8(
    learned: Learned, monkeypatch: pytest.MonkeyPatch
) -> None:
    world_dir, server = learned.folder, learned.server
    monkeypatch.setenv("SKYNET_DATA_DIR", str(world_dir / "data"))
    models(monkeypatch, server)
    out_file = world_dir / "aligned.py"
    code, out, err = learned.first
    assert code == 0, err
    found = json.loads(out)
    before, after = found["before"]["test"]["kappa"]["value"], found["after"]["test"]["kappa"]["value"]
    assert 0.1 <= before <= 0.3 and after >= 0.8
    assert found["gain"]["kappa"]["low"] > 0
    seen = {"judge": 0, "reflect": 0}
    for request in learned.asked:
        seen[request.model] = seen.get(request.model, 0) + 1
    asked = [request.user or "" for request in learned.asked if request.model == "judge"]
    replies = {row["id"]: row["output"] for row in world.rows(48)}
    for case_id in found["split"]["test"]:
        # Test is scored once with the starting rubric and once with the final one (the stress test's game
        # family after the run asks again only about perturbed replies; the case as it is comes from the cache).
        question = f"Ticket {int(case_id[1:])}:"
        assert sum(question in user and user.endswith("Reply: " + replies[case_id]) for user in asked) == 2
    # The world's judge passes "I cannot answer that." whatever the rubric; the aligned one fails the blind
    # refunds it passed, so replacing them by a refusal now raises their score: easier to fool by `null`.
    stress = found["stress"]
    assert stress["family"] == "game" and stress["easier_to_fool"] == ["null"]
    assert stress["after"]["verdict"]["hackable"] and "null" in stress["after"]["verdict"]["why"]["hackable"]
    assert score_kappa(world_dir, out_file, found["split"]["test"]) == pytest.approx(after)
    assert list(found) == [*KEYS, "stress"]
    assert list(found["before"]) == ["dev", "test"] and list(found["before"]["test"]) == FIGURES
    assert list(found["gain"]["kappa"]) == ["value", "low", "high"]
    assert found["calls"] == {"judge": seen["judge"], "reflection": seen["reflect"]}
    assert found["cost_usd"] is None and found["out"] == str(out_file)
    assert {record["round"] for record in found["rounds"]} == {1, 2, 3}
    assert any(record["accepted"] for record in found["rounds"])
    assert found["fixed"] and not found["broken"] and set(found["fixed"]) <= set(found["split"]["test"])
    split = found["split"]
    assert sorted(split["train"] + split["dev"] + split["test"]) == [f"t{i:02d}" for i in range(48)]
    (prompt,) = found["prompts"]
    assert prompt["name"] == "RUBRIC" and world.POLICY in prompt["after"] and prompt["before"] == world.RUBRIC
    # The file differs from the original only in the rubric; the metric given is left as it was.
    original = (world_dir / "judge" / "metric.py").read_text()
    assert original == world.METRIC
    written = out_file.read_text()
    assert written.replace(prompt["after"], prompt["before"]) == original
    assert written != original
    assert err.startswith("Planned: at most")  # the plan goes to standard error, so standard output is the JSON


def test_without_the_notes_it_claims_no_gain(world_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with world.server() as server:
        models(monkeypatch, server)
        code, out, _err = align(world_dir, "--rounds", "3", notes=False)
        assert world.requests_by_model(server)["reflect"] >= 1  # it tried
    assert code == 0
    assert "agrees better" not in out
    assert "the judge is unchanged, and no gain is claimed" in out
    assert "None of the labels has a note" in out
    assert "Gain in κ (paired): 0.000 [0.000, 0.000]" in out


def test_text_output_gives_the_plan_the_figures_the_rounds_and_the_diff_with_an_echoed_key_redacted(
    learned: Learned,
) -> None:
    """The text report of :func:`learned`'s third run, from a reflection model that echoes the key into its rubric,
    which must be redacted before the report is printed or the file written."""
    code, out, _err = learned.text
    out_file = learned.folder / "aligned-text.py"
    assert code == 0
    assert out.index("Planned: at most") < out.index("On the 12 test cases the optimizer never saw, before → after:")
    assert "Cohen's κ at 0.5: 0.167" in out and "→ 1.000" in out
    assert "Round 1:" in out and "Round 2:" in out
    assert f"    +{world.POLICY} (key [redacted])" in out
    assert "The aligned judge agrees better with people on the 12 test cases it never saw" in out
    assert SECRET not in out and SECRET not in out_file.read_text()
    assert "[redacted]" in out_file.read_text()


def test_a_gain_below_min_gain_exits_1(world_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with world.server() as server:
        models(monkeypatch, server)
        code, out, err = align(world_dir, "--rounds", "1", "--min-gain", "0.5", notes=False)
    assert code == 1 and "gain gate failed" in err and "Gain in κ" in out


def test_the_answer_cache_serves_a_second_run_and_only_calls_that_reached_the_model_count(learned: Learned) -> None:
    """The second run of :func:`learned`'s alignment, after the first, in the same data directory."""
    first, second = json.loads(learned.first[1]), json.loads(learned.second[1])
    asked = sum(request.model == "judge" for request in learned.asked)
    assert learned.second[0] == 0, learned.second[2]
    assert learned.asked_after_second == asked  # every judge answer came from the cache
    assert first["calls"]["judge"] == asked > 0
    assert second["calls"]["judge"] == 0
    assert second["after"] == first["after"]


def test_max_cost_stops_at_most_one_call_past_the_budget(world_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    price = (1_000.0, 1_000.0)  # 120 tokens a call: $0.12 each
    with world.server() as server:
        save_settings(  # the data directory's saved settings, as the Settings page keeps them
            Store(world_dir / "data"),
            ModelSettings(
                metric=ModelConfig("openai/judge", server.url, price_per_million=price),
                reflection=ModelConfig("openai/reflect", server.url, price_per_million=price),
                max_retries=0,
            ),
        )
        code, out, _err = align(world_dir, "--rounds", "2", "--max-cost", "0.5", "--no-cache", "--json")
        made = len(server.requests)
    found = json.loads(out)
    assert code == 1
    assert made == 5  # four calls spend $0.48, under the budget; the fifth crosses it; none after
    assert found["calls"]["judge"] == 5 and found["cost_usd"] == pytest.approx(0.6)
    assert found["after"] is None and found["out"] is None


def test_a_proposal_that_copies_a_training_case_is_rejected_and_the_round_says_so(
    world_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copied = "So sorry about the kettle! We will refund you right away, no questions asked."

    def copying(received: Received) -> str:
        if received.model == "reflect":
            return f"```\n{world.current_text(received.user or '')}\nFAIL replies like: {copied}\n```"
        return world.reply(received)

    with FakeOpenAI(reply=copying) as server:
        models(monkeypatch, server)
        code, out, _err = align(world_dir, "--rounds", "2", "--json")
    found = json.loads(out)
    assert code == 0
    notes = " ".join(record["note"] for record in found["rounds"])
    assert re.search(r"copies \d+ consecutive words of training case t\d+'s output", notes)
    assert found["prompts"][0]["after"] == world.RUBRIC and not any(record["accepted"] for record in found["rounds"])


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda folder: (folder / "judge" / "metric.py").write_text("def score(i, o, e=None):\n    return 1.0, {}\n"),
         "makes no llm() call"),
        (lambda folder: (folder / "labels.jsonl").write_text("\n".join(
            (folder / "labels.jsonl").read_text().splitlines()[:12]) + "\n"), "at least 20 labelled cases"),
        (lambda folder: (folder / "aligned.py").write_text("keep me"), "exists; give a new file name"),
    ],
)  # fmt: skip
def test_bad_input_exits_2_with_a_reason_before_any_call(
    world_dir: Path, monkeypatch: pytest.MonkeyPatch, change, words: str
) -> None:
    metric, cases, labels = world.write(world_dir)
    change(world_dir)
    with world.server() as server:
        models(monkeypatch, server)
        out, err = io.StringIO(), io.StringIO()
        argv = [
            "align",
            str(metric),
            "--data",
            str(cases),
            "--labels",
            str(labels),
            "--out",
            str(world_dir / "aligned.py"),
        ]
        code = run(argv, out, err)
        assert len(server.requests) == 0
    assert code == 2 and words in err.getvalue() and out.getvalue() == ""
    if (world_dir / "aligned.py").exists():
        assert (world_dir / "aligned.py").read_text() == "keep me"


def test_without_a_reflection_model_it_exits_2_and_names_the_variable(world_dir: Path) -> None:
    code, out, err = align(world_dir)
    assert code == 2 and out == "" and "SKYNET_REFLECTION_MODEL" in err


def test_a_judge_that_already_agrees_is_refused_after_the_first_scoring(
    world_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def wise(received: Received) -> str:
        return world.judge_answer(world.POLICY, received.user or "")

    with FakeOpenAI(reply=wise) as server:
        models(monkeypatch, server)
        code, out, err = align(world_dir, "--json")
        assert world.requests_by_model(server) == {"judge": 48, "reflect": 0}
    assert code == 2 and out == ""
    assert "disagrees with people on 0 of the 48 labelled cases; aligning it needs at least 5" in err


def test_with_two_raters_their_agreement_is_shown_before_the_plan(
    world_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    metric, cases, labels = world.write(world_dir)
    rows = [json.loads(line) for line in labels.read_text().splitlines()]
    second = [{**row, "rater": "bo", "human": 1.0 - row["human"] if i % 6 == 0 else row["human"]} for i, row in
              enumerate(rows)]  # fmt: skip
    labels.write_text("".join(json.dumps(row) + "\n" for row in rows + second))
    with FakeOpenAI(reply=lambda received: world.judge_answer(world.POLICY, received.user or "")) as server:
        models(monkeypatch, server)
        out, err = io.StringIO(), io.StringIO()
        code = run(["align", str(metric), "--data", str(cases), "--labels", str(labels)], out, err)
    text = out.getvalue()
    assert text.index("Raters ana and bo agree with each other on 48 cases: κ ") < text.index("Planned: at most")
    assert "the ceiling a judge can reach" in text
    assert code == 2  # this judge agrees with their mean too well to learn from


def test_labels_without_a_candidate_column_are_the_aligned_candidates(
    world_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As ``score --labels`` reads them: a labels file naming no candidate holds the scores of the candidate
    aligned for (``--candidate large`` of an A/B table), not of a candidate called ""."""
    metric, cases, labels = world.write(world_dir, count=12)
    rows = [json.loads(line) for line in cases.read_text().splitlines()]
    table = world_dir / "ab.csv"
    with table.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "question", "out_small", "out_large"])
        for row in rows:
            writer.writerow([row["id"], json.dumps(row["input"]), row["output"], row["output"] + " "])
    with world.server() as server:
        models(monkeypatch, server)
        out, err = io.StringIO(), io.StringIO()
        argv = ["align", str(metric), "--data", str(table), "--candidate", "large", "--labels", str(labels)]
        code = run(argv, out, err)
        assert server.requests == []
    assert code == 2 and "and 12 are labelled" in err.getvalue()


def test_the_place_options_reach_the_run(world_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--concurrency out of range exits 2 before any call; --ray is the address the run's scorer is made for."""
    world.write(world_dir)
    with world.server() as server:
        models(monkeypatch, server)
        code, out, err = align(world_dir, "--concurrency", "0")
        assert code == 2 and "--concurrency must be from 1 to 64, not 0" in err and out == ""
        places = record_places(monkeypatch)
        with pytest.raises(Placed):
            align(world_dir, "--ray", "127.0.0.1:6399", "--concurrency", "3")
        assert server.requests == []
    assert places == ["127.0.0.1:6399"]

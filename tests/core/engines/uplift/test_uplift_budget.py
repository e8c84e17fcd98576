"""The uplift experiment's budget: no task or reflection call starts whose worst case (its prompt at a token a
byte, its answer at the ``max_tokens`` it is sent with, at its model's price) the budget left cannot cover, so
the calls started in parallel cannot spend past it; the metric's own ``llm()`` calls are charged to the same
budget and stop at most one call past it; the run says what it spent and how much it left unstarted."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from skynet_core.cli import run
from skynet_core.engines import SandboxedMetric
from skynet_core.engines.uplift import Experiment, Outcome, UpliftConfig, run_uplift, split_cases
from skynet_core.llm import ModelConfig, ModelSettings, make_handler, save_settings
from skynet_core.scoring import RunOptions
from skynet_core.store import Store
from tests import uplift_world as world

pytest.importorskip("gepa", reason="gepa==0.1.4 is a requirement")

PRICE = (1000.0, 1000.0)  # US dollars per million tokens: the server's 100 + 20 tokens cost $0.12 a call
PER_CALL = (100 * PRICE[0] + 20 * PRICE[1]) / 1e6


def test_the_cli_never_starts_a_call_the_budget_left_cannot_cover(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "metric").mkdir()
    (tmp_path / "metric" / "metric.py").write_text(world.METRIC)
    world.write_cases(tmp_path / "cases.jsonl")
    monkeypatch.setenv("SKYNET_DATA_DIR", str(tmp_path / "data"))
    with world.server() as server:
        priced = ModelSettings(
            task=ModelConfig("openai/task", server.url, price_per_million=PRICE),
            reflection=ModelConfig("openai/reflect", server.url, price_per_million=PRICE),
        )
        save_settings(Store(tmp_path / "data"), priced)
        out, err = io.StringIO(), io.StringIO()
        argv = ["uplift", str(tmp_path / "metric"), "--data", str(tmp_path / "cases.jsonl")]
        code = run([*argv, "--instruction", world.START, "--max-cost", "5", "--json"], out, err)
    found = json.loads(out.getvalue())
    assert code == 1
    # A task call may cost $0.40 at most (its prompt, and 256 tokens of answer: twice the longest expected label,
    # at least 256), a reflection call $7.5 (its prompt and 5,024 tokens): the task calls run, in parallel, while
    # they fit; no reflection call can fit in $5, so none starts.
    assert all(request.body.get("max_tokens") == 256 for request in server.requests)
    assert found["calls"] == {"task": len(server.requests), "reflection": 0} and len(server.requests) >= 8
    assert found["cost_usd"] == pytest.approx(PER_CALL * len(server.requests)) and found["cost_usd"] <= 5
    message = err.getvalue().strip().splitlines()[-1]
    assert message.startswith("The run stopped at its budget of $5.0000, having spent $")
    assert "steps were not started; the 0 seeds that finished are kept." in message


def test_the_metric_llm_calls_are_charged_to_the_budget_and_stop_one_call_past_it(pool) -> None:
    with world.server() as server:
        models = world.models(server.url)  # the task and reflection models have no price: only the judge counts
        metric = SandboxedMetric(
            world.JUDGED_METRIC, RunOptions(pool=pool, llm=make_handler(world.judge_settings(server.url, PRICE)))
        )
        config = UpliftConfig(world.START, rounds=1, seeds=1, max_cost_usd=0.5)
        result = run_uplift(Experiment(metric, split_cases(world.cases()), config, models))
        judged = [request for request in server.requests if request.model == "judge"]
    assert result.outcome is Outcome.BUDGET and result.seeds_finished == 0
    assert len(judged) == 5  # $0.48 spent when the fifth started; the sixth found nothing left
    assert result.cost_usd == pytest.approx(PER_CALL * 5) and result.cost_usd <= 0.5 + PER_CALL

"""What answers sent ahead tell metric code: nothing of calls it does not make.

Metric A judges each case with a model whose PASS answers are short and FAIL answers long. Metric B, scored on
the same cases right after, makes no ``llm()`` call and walks its process's objects (everything the collector
sees, the channel's holder of answers sent ahead, the ``sealed`` module) for answers sent ahead: it finds none
of A's. A version of A (the same prompt, so its own answers are sent ahead) finds its answers, sealed, and
their lengths are the same for PASS and FAIL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skynet_core.cases import Case
from skynet_core.llm import ModelConfig, ModelSettings, make_handler
from skynet_core.llm.cache import LlmCache
from skynet_core.scoring import LocalScorer, RunOptions
from skynet_core.scoring.sandbox import sealed
from tests.fake_openai import FakeOpenAI, Received

PASS, FAIL = "PASS.", "FAIL. " + "The answer names the wrong team and misses the refund that is due. " * 3
PROMPT = "Answer PASS or FAIL for this support answer."

# What metric code can find of answers sent ahead in its own process, by every road it has.
WALK = '''
import gc
import sys


def sent_ahead():
    """The lengths of the sealed answers this process holds: [id, sealed] pairs, a request's "ahead", the
    channel's holder, and the sealed module's globals."""
    found = []
    for thing in gc.get_objects():
        if type(thing) is list and len(thing) == 2 and all(type(item) is str for item in thing) and len(thing[0]) == 32:
            found.append(len(thing[1]))
        elif type(thing) is dict and isinstance(thing.get("ahead"), dict):
            found.extend(len(entry[1]) for entries in thing["ahead"].values() for entry in entries)
        elif type(thing).__name__ == "Ahead":
            found.extend(len(blob) for _, blob in thing.entries.values())
    holder = sys.modules.get("sealed")
    for name, value in vars(holder).items() if holder is not None else ():
        if not name.startswith("__") and isinstance(value, (list, dict)) and value:
            found.append(-1)
    return sorted(set(found))
'''

JUDGE_A = f"""
from skynet import llm

def score(input, output, expected=None):
    verdict = llm({PROMPT!r}, input=f"Q: {{input['question']}} A: {{output}}")
    return (1.0 if verdict.startswith("PASS") else 0.0), {{"feedback": verdict}}
"""

# B names llm only in this comment (so the runner treats it as a metric that may call a model), and never calls it.
SNOOP_B = (
    WALK
    + """
# no llm() call here

def score(input, output, expected=None):
    return 1.0, {"feedback": repr(sent_ahead())}
"""
)

# A version of A that looks before it asks: its own answers are sent ahead to it.
SNOOP_A = (
    WALK
    + f"""
from skynet import llm

def score(input, output, expected=None):
    seen = sent_ahead()
    verdict = llm({PROMPT!r}, input=f"Q: {{input['question']}} A: {{output}}")
    return (1.0 if verdict.startswith("PASS") else 0.0), {{"feedback": repr(seen), "verdict": verdict}}
"""
)


def verdicts(received: Received) -> str:
    """PASS for even questions, a long FAIL for odd ones."""
    question = int((received.user or "").split("Q: q", 1)[1].split(" ", 1)[0])
    return PASS if question % 2 == 0 else FAIL


@pytest.fixture
def server():
    with FakeOpenAI(reply=verdicts) as fake:
        yield fake


def cases() -> list[Case]:
    return [Case(id=f"case-{i}", input={"question": f"q{i}"}, output="billing") for i in range(6)]


def judged(server: FakeOpenAI, metric: str, pool, cache: LlmCache):
    settings = ModelSettings(metric=ModelConfig("openai/judge", api_base=server.url, api_key="unused"))
    return LocalScorer()(metric, cases(), RunOptions(llm=make_handler(settings, cache=cache), pool=pool))


def test_a_metric_that_makes_no_call_finds_no_answer_of_another_metric(server: FakeOpenAI, pool, tmp_path: Path):
    cache = LlmCache(tmp_path)
    first = judged(server, JUDGE_A, pool, cache)
    assert [result.score for result in first.results] == [1.0, 0.0] * 3
    snooped = judged(server, SNOOP_B, pool, cache)
    assert all(result.ok for result in snooped.results), [result.error for result in snooped.results]
    assert [result.feedback for result in snooped.results] == ["[]"] * 6
    assert len(server.requests) == 6


def test_the_sealed_answers_a_metric_finds_are_all_one_length(server: FakeOpenAI, pool, tmp_path: Path) -> None:
    cache = LlmCache(tmp_path)
    judged(server, JUDGE_A, pool, cache)
    again = judged(server, SNOOP_A, pool, cache)
    assert all(result.ok for result in again.results), [result.error for result in again.results]
    assert len(server.requests) == 6  # its calls were answered ahead: the same prompt, the same answers
    assert [result.score for result in again.results] == [1.0, 0.0] * 3
    lengths = {result.id: json.loads(result.feedback) for result in again.results}
    assert all(lengths.values()), lengths  # each case found its own answer, sealed
    assert len({length for found in lengths.values() for length in found}) == 1, lengths  # PASS and FAIL alike


@pytest.mark.parametrize("text", ["", "PASS.", FAIL, "é" * 300, "x" * 5000])
def test_a_sealed_answer_opens_to_its_text_and_its_length_says_only_its_bucket(text: str) -> None:
    key = sealed.seal_key(sealed.request_bytes(PROMPT, "Q: 1", 0))
    blob = sealed.seal(text, key)
    assert sealed.unseal(blob, key) == text
    short = len(sealed.seal("PASS.", key))
    assert len(blob) == short or len(text.encode()) > 200


# Its instructions are made per case: no string of the metric holds them, so only being the same metric counts.
BUILT = """
from skynet import llm

def score(input, output, expected=None):
    verdict = llm(f"Answer PASS or FAIL for question {input['question']}.", input=str(output))
    return (1.0 if verdict.startswith("PASS") else 0.0), {"feedback": verdict}
"""


def test_the_same_metric_gets_its_built_prompts_answered_ahead(
    pool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skynet_core.scoring.runner import worker as worker_module

    crossed: list[str] = []
    answer = worker_module.answer_llm
    monkeypatch.setattr(
        worker_module, "answer_llm", lambda message, *args: crossed.append("x") or answer(message, *args)
    )
    cache = LlmCache(tmp_path)
    with FakeOpenAI(reply="PASS. Fine.") as server:
        judged(server, BUILT, pool, cache)
        again = judged(server, BUILT, pool, cache)
        assert len(server.requests) == 6 and len(crossed) == 6  # the second run's calls never left the sandbox
        assert all(call.cached for result in again.results for call in result.llm_calls)
        other = judged(server, BUILT.replace("Answer PASS", "Say PASS"), pool, cache)
        assert len(server.requests) == 12 and not any(call.cached for r in other.results for call in r.llm_calls)

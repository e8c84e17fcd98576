"""Ordinary Python in the sandbox (contract rule 14) and shapes from other frameworks (rule 15).

The metrics here follow real, public graders: a math grader that checks equivalence in a child
process with a timeout (LiveBench-math), feedback built from a set (HotpotQA), DSPy's GEPA
feedback metrics.
"""

from __future__ import annotations

import types

from skynet_core.cases import Case
from skynet_core.metric.contract import check_metric
from skynet_core.results import StageName, StageStatus
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner import WorkerPool
from skynet_core.scoring.runner.run import score_cases
from tests.case_factory import make_cases

# The LiveBench-math pattern: the check runs in a child process with a Queue and a timeout; an
# exception anywhere (such as PermissionError from multiprocessing.Queue) silently scores 0.
MATH_GRADER = """import multiprocessing


def _equivalent(queue, answer, want):
    queue.put(answer.replace(" ", "") == want.replace(" ", ""))


def is_equiv(answer, want, timeout=10):
    try:
        queue = multiprocessing.Queue()
        process = multiprocessing.Process(target=_equivalent, args=(queue, answer, want))
        process.start()
        process.join(timeout)
        if process.is_alive():
            process.terminate()
            process.join()
            return False
        return queue.get(timeout=5)
    except Exception:
        return False


def score(input, output, expected=None):
    ok = is_equiv(output, expected["answer"])
    return (1.0 if ok else 0.0), {"feedback": "Equivalent." if ok else f"Expected {expected['answer']}."}
"""

HASHING = """import multiprocessing
import subprocess
import sys
import tempfile
import threading


def _in_thread(box):
    box.append(hash("x"))


def score(input, output, expected=None):
    box = []
    thread = threading.Thread(target=_in_thread, args=(box,))
    thread.start()
    thread.join()
    with tempfile.NamedTemporaryFile("w+", suffix=".txt") as handle:
        handle.write(output)
        handle.flush()
        handle.seek(0)
        written = handle.read()
    child = subprocess.run([sys.executable, "-c", "print(hash('x'))"], capture_output=True, text=True, timeout=30)
    words = " ".join({"alpha", "beta", "gamma", "delta", "epsilon", "zeta"})
    return 1.0, {"feedback": words, "hash": hash("x"), "thread_hash": box[0],
                 "subprocess_hash": int(child.stdout), "tempfile": written,
                 "cpus": multiprocessing.cpu_count() > 0}
"""


def math_cases() -> list[Case]:
    pairs = [("1/2", "1/2"), ("x + 1", "x+1"), ("3", "4"), ("2 x", "2x"), ("y", "z"), ("7", "7"), ("a b", "ab")]
    return [
        Case(id=f"m{index}", input={"question": f"q{index}"}, output=answer, expected={"answer": want})
        for index, (answer, want) in enumerate(pairs)
    ]


def plain_python(source: str, cases: list[Case]) -> list[float]:
    module = types.ModuleType("plain_metric")
    exec(compile(source, "metric.py", "exec"), module.__dict__)
    return [module.score(case.input, case.output, case.expected)[0] for case in cases]


def test_a_metric_using_a_multiprocessing_queue_scores_as_in_plain_python(pool):
    cases = math_cases()
    run = score_cases(MATH_GRADER, cases, RunOptions(timeout_s=60, pool=pool))
    assert [result.status.value for result in run.results] == ["ok"] * len(cases), run.results[0].error
    assert [result.score for result in run.results] == plain_python(MATH_GRADER, cases)
    assert sum(result.score for result in run.results) == 5.0


def test_string_hashes_and_set_order_are_the_same_across_cases_and_runs(pool):
    first = score_cases(HASHING, make_cases(3), RunOptions(timeout_s=60, pool=pool))
    second_pool = WorkerPool(spares=0)  # another run in fresh children
    try:
        second = score_cases(HASHING, make_cases(3), RunOptions(timeout_s=60, pool=second_pool))
    finally:
        second_pool.close()
    results = first.results + second.results
    assert all(result.ok for result in results), results[0].error
    hashes = {result.extra["hash"] for result in results}
    assert len(hashes) == 1
    assert {result.extra["thread_hash"] for result in results} == hashes
    assert {result.extra["subprocess_hash"] for result in results} == hashes
    assert len({result.feedback for result in results}) == 1
    assert all(result.extra["tempfile"] == "billing" for result in results)


def check(pool: WorkerPool, source: str):
    return check_metric(source, make_cases(3), RunOptions(timeout_s=30, pool=pool, stop_on_timeout=True))


def test_a_dspy_metric_signature_is_explained_on_its_line(pool):
    source = (
        "import re\n\n\ndef score(example, prediction, trace=None, pred_name=None, pred_trace=None):\n"
        "    return float(example.answer == prediction.answer)\n"
    )
    stage = check(pool, source).stage(StageName.SIGNATURE)
    assert stage.status is StageStatus.FAILED
    assert stage.line == 4
    assert "DSPy" in stage.message
    assert "def score(input, output, expected=None):" in stage.message
    assert 'expected["answer"]' in stage.message and "instead of example.answer" in stage.message
    assert "instead of dspy.Prediction" in stage.message


def test_a_function_named_metric_is_told_to_rename_to_score(pool):
    source = "def metric(gold, pred, trace=None):\n    return 1.0\n"
    stage = check(pool, source).stage(StageName.SIGNATURE)
    assert stage.status is StageStatus.FAILED
    assert stage.line == 1
    assert "defines a function named metric, but Skynet calls score" in stage.message
    assert "rename it" in stage.message


def test_a_returned_prediction_object_says_to_return_a_pair(pool):
    source = (
        "class Prediction:\n    def __init__(self, **kw):\n        self.__dict__.update(kw)\n\n\n"
        "def score(input, output, expected=None):\n    x = 1\n"
        "    return Prediction(score=1.0, feedback='good')\n"
    )
    stage = check(pool, source).stage(StageName.RETURN_VALUE)
    assert stage.status is StageStatus.FAILED
    assert 'return (pred.score, {"feedback": pred.feedback})' in stage.message
    assert stage.line == 8


def test_a_returned_score_feedback_dict_says_to_return_a_pair(pool):
    source = "def score(input, output, expected=None):\n    return {'score': 1.0, 'reason': 'fine'}\n"
    stage = check(pool, source).stage(StageName.RETURN_VALUE)
    assert stage.status is StageStatus.FAILED
    assert 'return (d["score"], {"feedback": d["reason"]})' in stage.message
    assert stage.line == 2


def test_named_scores_given_as_dicts_say_to_give_the_number(pool):
    source = (
        "def score(input, output, expected=None):\n"
        "    return 1.0, {'feedback': 'ok', 'scores': {'format': {'score': 1.0, 'reason': 'x'}}}\n"
    )
    message = check(pool, source).stage(StageName.RETURN_VALUE).message
    assert "named score 'format' is a dict" in message
    assert "\"scores\": {'format': 1.0}" in message


def test_a_returned_dict_of_named_score_dicts_says_to_return_a_pair(pool):
    source = "def score(input, output, expected=None):\n    return {'format': {'score': 1.0}}\n"
    message = check(pool, source).stage(StageName.RETURN_VALUE).message
    assert 'named scores given as {name: {"score": ...}}' in message


def test_a_skynet_metric_whose_first_parameter_is_called_example_still_passes(pool):
    source = "def score(example, output, expected=None):\n    return 1.0, {'feedback': 'ok'}\n"
    assert check(pool, source).ok

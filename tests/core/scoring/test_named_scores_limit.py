"""Named scores are bounded (issue #21 item 8): at most 256 a case, refused by the contract in both
languages, and a CSV or Parquet ``--out`` never grows a column per name however many the run has."""

from __future__ import annotations

import csv
import textwrap

import orjson

from skynet_core.cases import Case
from skynet_core.i18n import use_language
from skynet_core.metric.contract import check_return
from skynet_core.results import CaseResult, CaseStatus, StageName, StageStatus
from skynet_core.runs.export import MAX_SCORE_COLUMNS, OTHER_SCORES, open_results
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner.replies import reply_to_result
from skynet_core.scoring.runner.run import score_cases
from skynet_core.scoring.sandbox.returns import MAX_NAMED_SCORES


def returned(count: int) -> tuple[float, dict[str, object]]:
    return 1.0, {"feedback": "ok", "scores": {f"part{n}": 0.5 for n in range(count)}}


def test_256_named_scores_pass_and_257_are_refused_naming_the_limit():
    assert MAX_NAMED_SCORES == 256
    assert check_return(returned(256))["status"] == "ok"
    refused = check_return(returned(257))
    assert refused["status"] == "invalid"
    assert "257 named scores" in refused["error"] and "at most 256" in refused["error"], refused["error"]
    with use_language("zh_CN"):
        chinese = check_return(returned(257))["error"]
    assert "257" in chinese and "256" in chinese and "命名分数" in chinese, chinese


MANY_KEYS = textwrap.dedent("""
    def score(input, output, expected=None):
        return 1.0, {"feedback": "many", "scores": {f"{input['n']}-{i}": 0.5 for i in range(40_000)}}
""")


def test_a_case_with_40000_named_scores_is_invalid_in_the_sandbox_and_the_check(pool):
    from skynet_core.metric.contract import check_metric

    cases = [Case(id=f"c{n}", input={"n": n}, output="x") for n in range(3)]
    run = score_cases(MANY_KEYS, cases, RunOptions(timeout_s=30, pool=pool))
    assert run.by_status == {"invalid": 3}
    assert all(result.scores == {} and "at most 256" in result.error for result in run.results)
    with use_language("zh_CN"):
        report = check_metric(
            MANY_KEYS, cases, RunOptions(timeout_s=30, pool=pool, stop_on_timeout=True), sample=cases[:1]
        )
    stage = report.stage(StageName.RETURN_VALUE)
    assert stage.status is StageStatus.FAILED and "命名分数" in stage.message and "256" in stage.message


def test_a_forged_reply_with_too_many_named_scores_is_refused():
    reply = {
        "status": "ok",
        "score": 1.0,
        "feedback": "f",
        "duration_ms": 1.0,
        "scores": {str(n): 1.0 for n in range(300)},
    }
    result = reply_to_result(Case(id="a", input={}, output="x"), reply)
    assert result.status is CaseStatus.ERROR and result.scores == {}


def results_with_distinct_names(count: int, per_case: int) -> list[CaseResult]:
    return [
        CaseResult(id=f"c{n}", score=1.0, scores={f"c{n}.k{k}": float(k) for k in range(per_case)})
        for n in range(count)
    ]


def test_csv_out_keeps_256_named_score_columns_and_the_rest_in_one_json_column(tmp_path):
    results = results_with_distinct_names(40, 200)  # 8,000 distinct names
    path = tmp_path / "out.csv"
    with open_results(path) as writer:
        for result in results:
            writer.write(result)
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    header = list(rows[0])
    assert sum(column.startswith("score.") for column in header) == MAX_SCORE_COLUMNS == 256
    assert OTHER_SCORES in header and len(header) < 300
    first, last = rows[0], rows[-1]
    assert first["score.c0.k199"] == "199.0" and first[OTHER_SCORES] == ""
    assert orjson.loads(last[OTHER_SCORES]) == {f"c39.k{k}": float(k) for k in range(200)}
    # Every named score is in the file, once.
    kept = sum(1 for row in rows for column in header if column.startswith("score.") and row[column] != "")
    spilled = sum(len(orjson.loads(row[OTHER_SCORES])) for row in rows if row[OTHER_SCORES])
    assert kept + spilled == 40 * 200


def test_parquet_out_is_bounded_the_same_way(tmp_path):
    import pyarrow.parquet as pq

    path = tmp_path / "out.parquet"
    with open_results(path) as writer:
        for result in results_with_distinct_names(10, 100):
            writer.write(result)
    names = pq.read_schema(path).names
    assert sum(name.startswith("score.") for name in names) == 256 and OTHER_SCORES in names


def test_a_run_with_few_names_has_no_extra_column(tmp_path):
    path = tmp_path / "out.csv"
    with open_results(path) as writer:
        writer.write(CaseResult(id="a", score=1.0, scores={"format": 1.0}))
    header = path.read_text(encoding="utf-8").splitlines()[0]
    assert "score.format" in header and OTHER_SCORES not in header

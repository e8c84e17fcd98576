"""score --labels: the agreement in --json, --json-lines and text, the gates (exit 1) and bad labels (exit 2)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score, mean_absolute_error

from tests.core.command_line import cli_completed as cli

ROOT = Path(__file__).resolve().parents[3]
METRIC = (
    "def score(input, output, expected=None):\n"
    "    n = input['n']\n"
    "    return n / 20, {'feedback': 'n is ' + str(n), 'scores': {'big': 1.0 if n >= 10 else 0.0}}\n"
)
# The person's view: a pass from 8 up, with two cases that the metric passes and the person fails.
HUMAN = {f"c{n}": (1.0 if n >= 8 else 0.0) for n in range(18)} | {"c12": 0.0, "c15": 0.0}
LABELS = {case_id: ("pass" if value else "fail") for case_id, value in HUMAN.items()} | {"ghost": "0.5"}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("human_cli")
    (folder / "metric.py").write_text(METRIC)
    with (folder / "cases.jsonl").open("w") as handle:
        for n in range(20):
            handle.write(json.dumps({"id": f"c{n}", "input": {"n": n}, "output": "x"}) + "\n")
    with (folder / "labels.csv").open("w") as handle:
        handle.write("id,human,note\n")
        handle.writelines(f"{case_id},{value},note {case_id}\n" for case_id, value in LABELS.items())
    with (folder / "labels.jsonl").open("w") as handle:
        handle.writelines(json.dumps({"id": case_id, "human": value}) + "\n" for case_id, value in LABELS.items())
    return {"metric": folder / "metric.py", "data": folder / "cases.jsonl", "csv": folder / "labels.csv",
            "jsonl": folder / "labels.jsonl", "folder": folder}  # fmt: skip


def score(files: dict[str, Path], *extra: str) -> subprocess.CompletedProcess[str]:
    return cli("score", str(files["metric"]), "--data", str(files["data"]), *extra)


@pytest.fixture(scope="module")
def report(files: dict[str, Path]) -> dict:
    done = score(files, "--labels", str(files["csv"]), "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_json_has_a_top_level_agreement_with_every_field(report):
    agreement = report["agreement"]
    assert list(agreement) == [
        "n", "unlabelled", "unknown", "unknown_count", "threshold", "spearman", "kendall", "pearson", "mae", "kappa",
        "confusion", "disagreements",
    ]  # fmt: skip
    assert (agreement["n"], agreement["unlabelled"], agreement["unknown"], agreement["threshold"]) == (
        18,
        2,
        ["ghost"],
        0.5,
    )
    assert agreement["confusion"] == {"tp": 6, "fp": 2, "fn": 2, "tn": 8}
    for name in ("spearman", "kendall", "pearson", "mae", "kappa"):
        figure = agreement[name]
        assert set(figure) == {"value", "low", "high"}
        assert figure["low"] <= figure["high"]
    assert len(report["cases"]) == 20


def test_the_figures_are_scipys_and_sklearns_on_the_labelled_cases(report):
    ids = list(HUMAN)
    score = np.array([int(case_id[1:]) / 20 for case_id in ids])
    human = np.array([HUMAN[case_id] for case_id in ids])
    agreement = report["agreement"]
    assert agreement["spearman"]["value"] == pytest.approx(stats.spearmanr(score, human).statistic)
    assert agreement["kendall"]["value"] == pytest.approx(stats.kendalltau(score, human).statistic)
    assert agreement["pearson"]["value"] == pytest.approx(stats.pearsonr(score, human).statistic)
    assert agreement["mae"]["value"] == pytest.approx(mean_absolute_error(human, score))
    assert agreement["kappa"]["value"] == pytest.approx(cohen_kappa_score(human >= 0.5, score >= 0.5))


def test_disagreements_are_largest_gap_first_with_the_cases_scores(report):
    found = report["agreement"]["disagreements"]
    assert len(found) == 17  # every labelled case but c0 (score 0, human 0)
    assert found[0] == {"id": "c15", "score": 0.75, "human": 0.0, "gap": 0.75}
    assert [item["gap"] for item in found] == sorted((item["gap"] for item in found), reverse=True)


def test_jsonl_labels_give_the_same_agreement_in_the_json_lines_last_line(files, report):
    done = score(files, "--labels", str(files["jsonl"]), "--json-lines")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 21
    last = json.loads(lines[-1])
    assert last["agreement"] == report["agreement"]
    assert "agreement" not in json.loads(lines[0])


def test_the_text_output_prints_the_figures(files, report):
    done = score(files, "--labels", str(files["csv"]))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    kappa = report["agreement"]["kappa"]
    assert "Agreement with human scores (18 labelled and scored, 2 unlabelled, 1 label not in the data)" in out
    assert f"Cohen's κ: {kappa['value']:.3f} [{kappa['low']:.3f}, {kappa['high']:.3f}]" in out
    assert "false passes 2 (the metric passes, the person fails)" in out
    assert "named score big: Spearman ρ" in out
    assert "labels not in the data: ghost" in out
    assert "warning: Only 18 labelled cases" in out
    assert "c15" in out.split("largest disagreements")[1].splitlines()[1]


def test_a_failing_gate_exits_1_naming_the_figure_its_value_and_interval(files, report):
    kappa = report["agreement"]["kappa"]
    done = score(files, "--labels", str(files["csv"]), "--json", "--min-kappa", "0.9", "--min-spearman", "0.1")
    assert done.returncode == 1
    assert json.loads(done.stdout)["agreement"]["kappa"] == kappa  # the report is still written whole
    expected = f"Cohen's κ is {kappa['value']:.3f} [{kappa['low']:.3f}, {kappa['high']:.3f}], below --min-kappa 0.9"
    assert expected in done.stderr
    assert "Spearman" not in done.stderr
    passing = score(files, "--labels", str(files["csv"]), "--min-kappa", "0.3", "--min-spearman", "0.5")
    assert passing.returncode == 0, passing.stderr


def test_an_undefined_figure_fails_its_gate_and_the_json_gives_the_reason(files):
    constant = files["folder"] / "constant.py"
    constant.write_text("def score(input, output, expected=None):\n    return 0.7, {'feedback': 'same'}\n")
    done = cli("score", str(constant), "--data", str(files["data"]), "--labels", str(files["csv"]), "--json",
               "--min-spearman", "0.2")  # fmt: skip
    assert done.returncode == 1
    agreement = json.loads(done.stdout)["agreement"]
    assert agreement["spearman"] == {"value": None, "low": None, "high": None, "reason": "constant_scores"}
    assert agreement["kappa"]["value"] == 0.0  # every case passes on the metric's side
    assert "Spearman ρ is undefined: the metric gave every labelled case the same score, below --min-spearman" in (
        done.stderr
    )


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("bad.csv", "id,human\nc1,pass\nc2,maybe\n", "bad.csv, line 3"),
        ("bad.jsonl", '{"id": "c1", "human": 1}\n{"id": "c2", "human": "excellent"}\n', "bad.jsonl, line 2"),
    ],
)
def test_a_bad_label_exits_2_naming_the_file_and_line_before_scoring(files, name, text, where):
    path = files["folder"] / name
    path.write_text(text)
    done = score(files, "--labels", str(path), "--json")
    assert done.returncode == 2
    assert done.stdout == ""
    assert f"error: {where}: the human score is" in done.stderr
    assert "pass or fail" in done.stderr


def test_a_gate_without_labels_and_a_bad_threshold_are_usage_errors(files):
    done = score(files, "--min-kappa", "0.5")
    assert done.returncode == 2 and "--min-kappa needs --labels" in done.stderr
    done = score(files, "--labels", str(files["csv"]), "--min-spearman", "2")
    assert done.returncode == 2 and "--min-spearman must be from -1 to 1" in done.stderr
    done = score(files, "--labels", str(files["csv"]), "--threshold", "nan")
    assert done.returncode == 2 and "--threshold must be a finite number" in done.stderr


def test_threshold_and_rater_change_what_is_compared(files):
    raters = files["folder"] / "raters.csv"
    raters.write_text("id,human,rater\nc1,0,ana\nc1,1,bo\nc5,1,ana\nc5,1,bo\nc9,0,ana\nc9,1,bo\n")
    both = json.loads(score(files, "--labels", str(raters), "--json", "--threshold", "0.3").stdout)["agreement"]
    assert both["threshold"] == 0.3 and both["n"] == 3
    assert both["confusion"] == {"tp": 1, "fp": 0, "fn": 2, "tn": 0}  # c1 is 0.5 (the mean): a pass at 0.3
    ana = json.loads(score(files, "--labels", str(raters), "--json", "--rater", "ana").stdout)["agreement"]
    assert ana["confusion"] == {"tp": 0, "fp": 0, "fn": 1, "tn": 2}


def test_labels_for_another_candidate_are_left_out(tmp_path):
    (tmp_path / "metric.py").write_text(METRIC)
    data = tmp_path / "cases.jsonl"
    data.write_text(
        "".join(
            json.dumps({"id": f"c{n}", "input": {"n": n}, "output": "x", "candidate": name}) + "\n"
            for name in ("small", "large")
            for n in range(4)
        )
    )
    labels = tmp_path / "labels.csv"
    labels.write_text("id,human,candidate\nc0,0,small\nc1,1,large\nc2,1,\nc3,0,large\n")
    args = ("score", str(tmp_path / "metric.py"), "--data", str(data), "--labels", str(labels), "--json")
    small = json.loads(cli(*args, "--candidate", "small").stdout)["agreement"]
    large = json.loads(cli(*args, "--candidate", "large").stdout)["agreement"]
    assert (small["n"], small["unlabelled"]) == (2, 2)
    assert (large["n"], large["unlabelled"]) == (3, 1)


def test_chinese_text_and_messages_keep_the_json_keys(files, report):
    done = score(files, "--labels", str(files["csv"]), "--lang", "zh_CN", "--min-kappa", "0.99")
    assert done.returncode == 1
    assert "与人工评分的一致性（18 个已标注且已评分、2 个未标注、1 个标注不在数据中）" in done.stdout
    assert "误判通过 2（指标判通过，人工判不通过）" in done.stdout
    assert "一致性门槛未通过：Cohen's κ 为" in done.stderr
    bad = files["folder"] / "bad-zh.csv"
    bad.write_text("id,human\nc1,maybe\n")
    refused = score(files, "--labels", str(bad), "--lang", "zh_CN")
    assert refused.returncode == 2 and "bad-zh.csv，第 2 行：人工评分为 'maybe'" in refused.stderr
    data = json.loads(score(files, "--labels", str(files["csv"]), "--json", "--lang", "zh_CN").stdout)
    assert data["agreement"] == report["agreement"]

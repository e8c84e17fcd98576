"""Errors people read, in Simplified Chinese: a malformed case file, candidate file or roles mapping, a bad
name in the metric folder, a REWARD_SPEC that cannot be rewritten, a path that cannot be written. Each
message is Chinese, keeps the values from the data (file names, ids, columns) as they are, and holds none
of the English sentence; the same call without a language stays English."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from skynet_core.cli import run
from skynet_core.datasets import CandidateFile, DatasetError, load_dataset, roles_from_json
from skynet_core.i18n import use_language
from skynet_core.metric.source import MetricSource, MetricSourceError
from skynet_core.paths import output_problem
from skynet_core.reward import MetricSourceError as SpecNotWritten
from skynet_core.reward import replace_reward_spec
from skynet_core.reward.tradeoffs import summarize

CJK = re.compile(r"[\u4e00-\u9fff]")
SPEC = {
    "weights": {"accuracy": 0.7, "speed": 0.2, "cost": 0.1},
    "speed": {"reference": 2000},
    "cost": {"reference": 0.01},
}


def chinese(text: str) -> bool:
    return bool(CJK.search(text))


def dataset_error(path: Path, **kwargs: object) -> str:
    with use_language("zh_CN"), pytest.raises(DatasetError) as caught:
        load_dataset(path, **kwargs)  # type: ignore[arg-type]
    return str(caught.value)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_csv_with_a_header_and_no_rows_is_refused_in_chinese(tmp_path: Path) -> None:
    path = write(tmp_path / "empty.csv", "input.question,output\n")
    message = dataset_error(path)
    assert chinese(message)
    assert message == "empty.csv 只有列名，没有数据行。请为每个用例添加一行后重新加载。"
    with pytest.raises(DatasetError, match="empty.csv has column names but no rows"):
        load_dataset(path)  # English stays the default


def test_a_jsonl_line_with_a_bad_measurement_names_the_line_and_value_in_chinese(tmp_path: Path) -> None:
    path = write(
        tmp_path / "cases.jsonl",
        '{"input": {"q": "a"}, "output": "x"}\n'
        '{"input": {"q": "b"}, "output": "y", "observation": {"latency_ms": "fast"}}\n',
    )
    message = dataset_error(path)
    assert chinese(message)
    # The place, the key and the value are data; what the value is (文本) and the unit's meaning are translated.
    assert message.startswith("cases.jsonl 第 2 行：observation.latency_ms 是 文本 'fast'，不是数字。")
    assert "以毫秒为单位的延迟" in message
    assert "not a number" not in message and "the text" not in message and "milliseconds" not in message


def test_a_jsonl_line_with_nan_is_not_valid_json_in_chinese(tmp_path: Path) -> None:
    path = write(tmp_path / "nan.jsonl", '{"input": {"q": "a"}, "output": NaN}\n')
    message = dataset_error(path)
    assert message.startswith("nan.jsonl 第 1 行")
    assert "JSON 中不允许使用 NaN；请写 null 或数字" in message
    assert "is not allowed in JSON" not in message


def test_a_csv_with_a_repeated_column_name_is_refused_in_chinese(tmp_path: Path) -> None:
    path = write(tmp_path / "twice.csv", "input.q,output,output\na,b,c\n")
    message = dataset_error(path)
    assert message.startswith("twice.csv：列名 'output' 出现了两次（第 2 列和第 3 列）。")
    assert "appears twice" not in message


def test_rows_without_a_candidate_among_rows_with_one_are_refused_in_chinese(tmp_path: Path) -> None:
    path = write(tmp_path / "mixed.csv", "input.q,output,candidate\na,x,big\nb,y,\n")
    message = dataset_error(path)
    assert message == "mixed.csv 第 2 行没有候选，但其他行有。请为每一行都指定候选，或者都不指定。"
    with pytest.raises(DatasetError, match="mixed.csv, row 2 has no candidate, but other rows do"):
        load_dataset(path)


def test_a_repeated_id_names_both_lines_in_chinese(tmp_path: Path) -> None:
    path = write(
        tmp_path / "ids.jsonl",
        '{"id": "a", "input": {"q": 1}, "output": 1}\n{"id": "b", "input": {"q": 2}, "output": 2}\n'
        '{"id": "a", "input": {"q": 3}, "output": 3}\n',
    )
    message = dataset_error(path)
    assert message == "ids.jsonl：id 'a' 出现了两次（第 1 行和第 3 行）。请为每个用例指定唯一的 id。"


def test_a_bad_candidate_file_entry_is_refused_in_chinese() -> None:
    with use_language("zh_CN"), pytest.raises(DatasetError) as caught:
        CandidateFile.from_json(["large.csv"])
    message = str(caught.value)
    assert message == '候选文件应写成 {"name": ..., "path": ...}，而不是 列表。'
    with pytest.raises(DatasetError, match="not a list"):
        CandidateFile.from_json(["large.csv"])


def test_a_candidate_file_with_an_unknown_id_is_refused_in_chinese(tmp_path: Path) -> None:
    main = write(tmp_path / "main.csv", "id,input.q,output\n1,a,x\n2,b,y\n")
    write(tmp_path / "large.csv", "id,output\n1,x\n7,y\n")
    files = [CandidateFile("large", str(tmp_path / "large.csv"))]
    message = dataset_error(main, candidate_files=files)
    assert message.startswith("large.csv 第 2 行：id '7' 不是 main.csv 中的用例。")
    assert "is not a case of" not in message


def test_roles_that_are_not_a_mapping_are_refused_in_chinese() -> None:
    with use_language("zh_CN"), pytest.raises(DatasetError) as caught:
        roles_from_json(["input", "question"])
    message = str(caught.value)
    assert message.startswith("列角色 必须把每一列映射为 [role, field]")
    assert message.endswith("而不是 列表。")
    assert "must map each column" not in message
    with use_language("zh_CN"), pytest.raises(DatasetError) as caught:
        roles_from_json({"gold": ["answer", "label"]}, "roles.json")
    assert str(caught.value).startswith("roles.json：列 'gold' 的角色 'answer' 不存在。请使用以下之一：input, ")


def test_a_bad_file_name_in_the_metric_folder_is_refused_in_chinese() -> None:
    score = "def score(input, output, expected=None):\n    return 1.0\n"
    with use_language("zh_CN"), pytest.raises(MetricSourceError) as caught:
        MetricSource({"metric.py": score, "../helpers.py": ""})
    assert str(caught.value) == "'../helpers.py' 不是指标文件夹内的文件名。请使用类似 helpers.py 的名字。"
    with use_language("zh_CN"), pytest.raises(MetricSourceError) as caught:
        MetricSource({"metric.py": score, ".secret.py": ""})
    assert str(caught.value) == "'.secret.py' 是隐藏文件。请给文件起一个不以点开头的名字。"
    with use_language("zh_CN"), pytest.raises(MetricSourceError) as caught:
        MetricSource({"helpers.py": ""})
    assert str(caught.value) == "指标文件夹中没有 metric.py。请添加包含函数 score 的 metric.py。"
    with pytest.raises(MetricSourceError, match="is hidden"):
        MetricSource({"metric.py": score, ".secret.py": ""})


def test_a_reward_spec_inside_a_block_cannot_be_rewritten_in_chinese() -> None:
    source = "if True:\n    REWARD_SPEC = {}\n\ndef score(input, output, expected=None):\n    return 1.0\n"
    with use_language("zh_CN"), pytest.raises(SpecNotWritten) as caught:
        replace_reward_spec(source, SPEC)
    assert str(caught.value) == "REWARD_SPEC 是在第 2 行的代码块内赋值的；请把它移到 metric.py 的顶层，以便改写。"
    with use_language("zh_CN"), pytest.raises(SpecNotWritten) as caught:
        replace_reward_spec("def score(:\n", SPEC)
    assert str(caught.value).startswith("metric.py 无法解析（第 1 行：")
    assert "fix it before" not in str(caught.value)


def test_trade_offs_without_candidates_say_so_in_chinese() -> None:
    with use_language("zh_CN"), pytest.raises(ValueError) as caught:
        summarize([], SPEC)
    assert str(caught.value) == "没有可比较的候选；请加载至少包含一个候选的数据集。"


def test_an_output_path_in_a_missing_folder_is_refused_in_chinese(tmp_path: Path) -> None:
    target = tmp_path / "nowhere" / "out.csv"
    with use_language("zh_CN"):
        problem = output_problem(target)
    assert problem == f"文件夹 {target.parent} 不存在；请先创建它，或写到其他位置"
    assert (
        output_problem(target) == f"the folder {target.parent} does not exist; create it first or write somewhere else"
    )


def test_the_cli_reports_a_malformed_case_file_in_chinese(tmp_path: Path) -> None:
    metric = write(tmp_path / "metric.py", "def score(input, output, expected=None):\n    return 1.0\n")
    data = write(tmp_path / "empty.csv", "input.question,output\n")
    err = io.StringIO()
    status = run(["check", str(metric), "--data", str(data), "--lang", "zh_CN"], stdout=io.StringIO(), stderr=err)
    assert status != 0
    assert "empty.csv 只有列名，没有数据行。" in err.getvalue()
    assert "has column names but no rows" not in err.getvalue()
    err = io.StringIO()
    run(["check", str(metric), "--data", str(data), "--lang", "en"], stdout=io.StringIO(), stderr=err)
    assert "empty.csv has column names but no rows" in err.getvalue()


def test_reflection_without_scored_cases_says_so_in_chinese() -> None:
    from skynet_core.engines.reflection import reflection_step

    with use_language("zh_CN"), pytest.raises(ValueError) as caught:
        reflection_step("Answer the ticket.", [], [], None)  # type: ignore[arg-type]
    assert str(caught.value) == "没有可供反思的已评分用例。请先用指标为数据集评分。"

"""The instruction strings of metric.py's llm() calls: which are found and by what name, the refusal that says how to
write one, and a rewrite that changes those literals' bytes and nothing else."""

from __future__ import annotations

import ast

import pytest

from skynet_core.align.prompts import NoPrompt, find_prompts, literal, placeholders, rewrite, with_prompts
from skynet_core.metric.source import MetricSource

SOURCE = '''"""A judge."""
from skynet import llm
import skynet as sk

RUBRIC = """You grade replies.
Answer PASS or FAIL."""  # a comment, é
POLICY: str = 'Fail a reply about {topic} without {what}.'


def score(input, output, expected=None):
    first = llm(RUBRIC, input=str(output))
    second = sk.llm("Literal ünïcode", input="x"); third = llm('two ' 'parts', input=1)
    fourth = llm(POLICY.format(topic="refunds", what="an order number"))
    built = llm(f"{RUBRIC} and more")
    again = llm(instructions=RUBRIC)
    return 1.0, {"feedback": first + second + third + fourth + built + again}
'''


def test_constants_are_found_by_name_and_literals_by_line_once_each() -> None:
    found = {prompt.name: prompt for prompt in find_prompts(SOURCE)}
    assert list(found) == ["RUBRIC", "llm() line 12", "llm() line 12 #2", "POLICY"]
    assert found["RUBRIC"].text == "You grade replies.\nAnswer PASS or FAIL." and found["RUBRIC"].calls == (11, 15)
    assert found["llm() line 12 #2"].text == "two parts"
    assert found["POLICY"].placeholders == {"topic", "what"}


def test_a_rewrite_changes_only_the_literals_bytes() -> None:
    prompts = find_prompts(SOURCE)
    texts = {
        "RUBRIC": 'A rubric with """ quotes, a \\ backslash\nand a tab\there.',
        "llm() line 12": "Ünï 'q' \"d\"",
        "POLICY": "Fail {topic} replies without {what}, always.",
    }
    written = rewrite(SOURCE, prompts, texts)
    again = {prompt.name: prompt.text for prompt in find_prompts(written)}
    assert again == {**{prompt.name: prompt.text for prompt in prompts}, **texts}
    # Putting the old literals back in place of the new ones gives the original file, byte for byte.
    restored = written.encode()
    for prompt in sorted(find_prompts(written), key=lambda item: -item.start):
        old = next(item for item in prompts if item.name == prompt.name)
        restored = restored[: prompt.start] + SOURCE.encode()[old.start : old.end] + restored[prompt.end :]
    assert restored.decode() == SOURCE
    assert '"""' in written.split("RUBRIC = ", 1)[1].split("\n", 1)[0]  # still triple-quoted, double quotes


def test_an_unchanged_text_leaves_the_file_identical() -> None:
    prompts = find_prompts(SOURCE)
    assert rewrite(SOURCE, prompts, {prompt.name: prompt.text for prompt in prompts}) == SOURCE


@pytest.mark.parametrize(
    "text", ["plain", 'it\'s "both"', 'ends with a quote"', "\x00\r\x0b odd\u2028 chars", '"""', "tab\tand\nline"]
)
def test_a_literal_evaluates_to_its_text_in_either_quote_style(text: str) -> None:
    for like in ('"x"', "'x'", '"""x"""', "r'''x'''"):
        assert ast.literal_eval(literal(text, like)) == text


def test_a_metric_folder_keeps_its_other_files() -> None:
    metric = MetricSource({"metric.py": SOURCE, "helpers.py": "X = 1\n"})
    prompts = find_prompts(SOURCE)
    changed = with_prompts(metric, prompts, {"RUBRIC": "New rubric."})
    assert changed.files["helpers.py"] == "X = 1\n" and 'RUBRIC = """New rubric."""' in changed.files["metric.py"]


def test_a_metric_without_llm_is_refused_with_how_to_write_a_prompt() -> None:
    with pytest.raises(NoPrompt, match=r"makes no llm\(\) call.*RUBRIC = .*llm\(RUBRIC, input="):
        find_prompts("def score(input, output, expected=None):\n    return 1.0, {'feedback': ''}\n")


def test_instructions_built_at_run_time_are_refused_with_the_line_and_the_fix() -> None:
    source = "from skynet import llm\n\ndef score(i, o, e=None):\n    return float(llm(f'Grade {o}') == 'PASS'), {}\n"
    with pytest.raises(NoPrompt, match=r"\(line 4\).*RUBRIC.format"):
        find_prompts(source)


def test_a_name_bound_twice_or_inside_a_function_is_no_constant() -> None:
    source = (
        "from skynet import llm\nRUBRIC = 'a'\nRUBRIC = 'b'\nOTHER = 'c'\n\ndef score(i, o, e=None):\n"
        "    global OTHER\n    OTHER = 'd'\n    return llm(RUBRIC) and llm(OTHER), {}\n"
    )
    with pytest.raises(NoPrompt):
        find_prompts(source)


def test_placeholders_are_the_format_fields_not_doubled_braces_or_json() -> None:
    assert placeholders('Rate {answer!r} on {scale:>3}; {{literal}} {"label": 1}') == {"answer", "scale"}

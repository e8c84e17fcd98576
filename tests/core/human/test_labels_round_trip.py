"""A labels export reads back exactly as it was: the CSV keeps its formula guard and its escapes of control and
invisible characters, and the import of the studio's own export undoes both exactly (a file written by hand is
read as it is). Checked on a seeded set of nasty strings."""

from __future__ import annotations

import csv
import io
import random

import pytest

from skynet_core.human import HumanScore, labels_csv, labels_from_bytes, labels_jsonl

NASTY_PARTS = [
    "=", "+", "-", "@", "\t", "\r", "'", "''", '"', "'=", "'-'", "=1+2", "-2", "@SUM(A1)", "=HYPERLINK(\"x\")",
    "\x1b[2J", "\x1b", "\x07", "\x00", "\x7f", "\x85", "\u200b", "\u200d", "\u202e", "\u2066", "\ufeff", "\u2028",
    "\\", "\\e", "\\x1b", "\\u200b", "\\\\", "\\n", ",", ";", "\n", "\r\n", " ", "😀", "👩‍👩‍👧", "é", "é", "中文",
    "שלום", "ع", "a", "plain text", "0.5", "nan", "id", "human", "#", "%",
]  # fmt: skip
EXAMPLES = ["'=x", "'-'", "\x1b", "\u200b", "rater\u200b", "=cmd", "+1", "'", "\\u200b", "\\e", "a\\", "'\x1b"]


def nasty(rng: random.Random, *, one_line: bool = False) -> str:
    text = "".join(rng.choice(NASTY_PARTS) for _ in range(rng.randint(1, 6)))
    if one_line:
        text = "".join(char for char in text if char not in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
    return text


def names(rng: random.Random, count: int) -> list[str]:
    """Ids, raters and candidates as the studio keeps them: trimmed, not empty."""
    found: list[str] = []
    while len(found) < count:
        text = nasty(rng, one_line=True).strip()
        if text and text not in found:
            found.append(text)
    return found


def scores(seed: int) -> list[HumanScore]:
    rng = random.Random(seed)
    ids, raters = [*EXAMPLES, *names(rng, 40)], [*EXAMPLES[:6], *names(rng, 6)]
    candidates = ["", *names(rng, 3)]
    made = []
    for index, case_id in enumerate(ids):
        note = rng.choice(EXAMPLES) if index < len(EXAMPLES) else nasty(rng)
        value = rng.choice([0.0, 1.0, 0.25, rng.random(), -1e-300, 1e300, 0.1 + 0.2])
        made.append(HumanScore("d", case_id, rng.choice(candidates), value, rng.choice(raters), note))
    return made


def kept(scores: list[HumanScore]) -> list[tuple[str, str, float, str, str]]:
    return [(s.case_id, s.candidate, s.value, s.rater, s.note) for s in scores]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("form", ["csv", "jsonl"])
def test_an_export_of_nasty_strings_reads_back_exactly(seed: int, form: str) -> None:
    written = scores(seed)
    data = labels_csv(written) if form == "csv" else labels_jsonl(written)
    again = labels_from_bytes(data, f"labels.{form}", dataset="d", rater="nobody")
    assert kept(list(again)) == kept(written)


def test_the_csv_still_guards_formulas_and_escapes_what_a_terminal_or_a_reader_would_misread() -> None:
    data = labels_csv([HumanScore("d", "=cmd", "", 1.0, "ana\u200b", "'-'\x1b[2J")])
    text = data.decode()
    assert "\x1b" not in text and "\u200b" not in text
    row = next(row for row in csv.reader(io.StringIO(text)) if row[0] != "id")
    assert row[0].startswith("'=") and row[4] == "ana\\u200b" and row[3].startswith("''-'")


def test_a_file_written_by_hand_is_read_as_written() -> None:
    text = "id,human,note,rater\nt1,1,'=x is a formula,ana\\u200b\n"
    [score] = labels_from_bytes(text.encode(), "mine.csv", dataset="d", rater="me")
    assert (score.note, score.rater) == ("'=x is a formula", "ana\\u200b")

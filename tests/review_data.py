"""Review data for the tests: 40 reviews with a sentiment label, answered by two candidates."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from skynet_core.provenance import Provenance
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.runs import RunKey, metric_hash
from skynet_core.store.runs import RunStore

LABELS = ("positive", "negative", "neutral")
REVIEWS = 40


def review_rows(flip_large: bool = False) -> list[dict[str, str]]:
    """One row per review: ``id, text, label`` and each candidate's output, latency and cost.

    ``small`` answers every fourth review wrong; ``large`` answers all right (or, with ``flip_large``,
    every one wrong: a file "whose outputs all differ")."""
    rows = []
    for number in range(1, REVIEWS + 1):
        label = LABELS[number % 3]
        wrong = LABELS[(number + 1) % 3]
        rows.append(
            {
                "id": f"r{number:02d}",
                "text": f"Review {number}: it was {label} overall.",
                "label": label,
                "out_small": wrong if number % 4 == 0 else label,
                "out_large": wrong if flip_large else label,
                "latency_small_ms": str(100 + number),
                "latency_large_ms": str(900 + 10 * number),
                "cost_small_usd": "0.000045",
                "cost_large_usd": "0.0021",
            }
        )
    return rows


def write_csv(path: Path, rows: list[dict[str, str]], columns: list[str]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def reviews_csv(folder: Path, name: str = "reviews.csv") -> Path:
    """The main file as a newcomer first writes it: one output column (small's), prefixed roles."""
    rows = [
        {"id": row["id"], "input.text": row["text"], "expected.label": row["label"], "output": row["out_small"]}
        for row in review_rows()
    ]
    return write_csv(folder / name, rows, ["id", "input.text", "expected.label", "output"])


def ab_csv(folder: Path, name: str = "ab.csv", flip_large: bool = False) -> Path:
    """The A/B export: one output, latency and cost column per candidate."""
    columns = [
        "id",
        "text",
        "label",
        "out_small",
        "out_large",
        "latency_small_ms",
        "latency_large_ms",
        "cost_small_usd",
        "cost_large_usd",
    ]
    return write_csv(folder / name, review_rows(flip_large), columns)


def large_csv(folder: Path, name: str = "large.csv", flip: bool = False) -> Path:
    """Candidate large in a file of its own: ``id, out_large, latency_large_ms, cost_large_usd``."""
    columns = ["id", "out_large", "latency_large_ms", "cost_large_usd"]
    return write_csv(folder / name, review_rows(flip), columns)


LABEL_METRIC = (
    "def score(input, output, expected=None):\n"
    "    want = expected['label']\n"
    "    if output == want:\n"
    "        return 1.0, {'feedback': 'Correct.'}\n"
    "    return 0.0, {'feedback': f'Expected {want!r}, got {output!r}.'}\n"
)

# Line 12 reads expected["label"], which some cases lack: the check's three sampled cases never meet them.
KEY_ERROR_METRIC = '''"""A metric with a bug the check's three cases do not meet."""


def helper(text):
    return text.strip().lower()


def score(input, output, expected=None):
    if expected is None:
        return 0.5, {"feedback": "No expected value."}
    got = helper(output)
    want = expected["label"]
    if got == want:
        return 1.0, {"feedback": "Correct."}
    return 0.0, {"feedback": f"Expected {want!r}, got {got!r}."}
'''


def key_error_reviews(folder: Path, broken: int = 11) -> Path:
    """The reviews as JSON Lines where ``broken`` cases that the check's sample never meets have no ``label`` in
    ``expected`` (``sentiment`` instead): :data:`KEY_ERROR_METRIC` fails on exactly those, at line 12."""
    from skynet_core.cases import Case
    from skynet_core.datasets import sample_for_check

    cases = [Case(row["id"], {"text": row["text"]}, row["label"], {"label": row["label"]}) for row in review_rows()]
    sampled = {case.id for case in sample_for_check(cases)}
    unmet = set(sorted(case.id for case in cases if case.id not in sampled)[:broken])
    lines = [
        {
            "id": case.id,
            "input": case.input,
            "output": case.output,
            "expected": {"sentiment": case.output} if case.id in unmet else case.expected,
        }
        for case in cases
    ]
    path = folder / "reviews.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def four_runs(runs: RunStore, dataset: str) -> list[int]:
    """Four kept runs of the 40 reviews under :data:`KEY_ERROR_METRIC`: small, large, small, large (newest), in
    that order; r07 fails with a ``KeyError`` in the first run of each candidate and scores in the second."""
    ids = [row["id"] for row in review_rows()]
    kept = []
    for candidate, fixed in (("small", False), ("large", False), ("small", True), ("large", True)):
        made_by = Provenance("digest", dataset, "reviews", candidate, None)
        results = [
            CaseResult(case_id, status=CaseStatus.OK, score=0.5, feedback="ok", candidate=candidate)
            if fixed or case_id != "r07"
            else CaseResult(case_id, status=CaseStatus.ERROR, error="KeyError: 'label'", candidate=candidate)
            for case_id in ids
        ]
        key = RunKey(dataset, candidate, None, metric_hash(KEY_ERROR_METRIC), "reviews")
        kept.append(runs.save(key, results, metric_source=KEY_ERROR_METRIC, provenance=made_by, cases=[]))
    return kept

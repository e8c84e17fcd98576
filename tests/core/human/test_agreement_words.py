"""The agreement report's words: the command line's disagreement list tags false fails as well as false passes."""

from __future__ import annotations

from skynet_core.human import agreement_lines, measure_agreement, pair_results
from skynet_core.results import CaseResult


def test_the_text_report_tags_false_passes_and_false_fails() -> None:
    scores = {"pass_wrongly": 0.9, "fail_wrongly": 0.1, "close": 0.6}
    humans = {"pass_wrongly": 0.0, "fail_wrongly": 1.0, "close": 0.7}
    found = measure_agreement(pair_results([CaseResult(id=k, score=v) for k, v in scores.items()], humans))
    lines = agreement_lines(found)
    tagged = {line.split()[0]: line for line in lines if line.startswith("    ")}
    assert tagged["pass_wrongly"].endswith("false pass")
    assert tagged["fail_wrongly"].endswith("false fail")
    assert not tagged["close"].endswith(("false pass", "false fail"))

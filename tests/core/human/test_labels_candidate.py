"""A human score belongs to one candidate's output: a labels file without a ``candidate`` column is imported for
the candidate in use (and the import says so), runs of another candidate never use those scores, and the
labelling view and the agreement report count the same rows."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from skynet_core.results import CaseResult
from skynet_core.workspace import Workspace
from skynet_core.workspace.jobs import JobBoard

IDS = [f"s{n:02d}" for n in range(60)]


@pytest.fixture
def ws_two_candidates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    monkeypatch.setenv("SKYNET_DATA_ROOTS", str(tmp_path))
    workspace = Workspace(tmp_path, jobs=JobBoard(grace_s=60), env={})
    rows = "".join(f"{case_id},question {case_id},small {case_id},large {case_id}\n" for case_id in IDS)
    data = ("id,question,out_small,out_large\n" + rows).encode()
    workspace.data.save_choice(str(workspace.data.save_upload("support.csv", io.BytesIO(data))))
    workspace.human.set_rater("ana")
    assert workspace.data.in_use().data.candidates == ["small", "large"]
    return workspace


def labels_without_candidate() -> bytes:
    return ("id,human\n" + "".join(f"{case_id},{n % 2}\n" for n, case_id in enumerate(IDS))).encode()


def results(candidate: str) -> list[CaseResult]:
    return [CaseResult(id=case_id, score=0.9, candidate=candidate) for case_id in IDS]


def test_a_file_without_a_candidate_column_is_imported_for_the_candidate_in_use_and_says_so(
    ws_two_candidates: Workspace,
) -> None:
    found = ws_two_candidates.human.import_scores("labels.csv", labels_without_candidate())
    assert (found.count, found.candidate) == (60, "small")
    labels = ws_two_candidates.human.labels()
    assert len(labels.values("small")) == 60
    assert labels.values("large") == {}


def test_a_run_of_another_candidate_never_uses_them(ws_two_candidates: Workspace) -> None:
    ws_two_candidates.human.import_scores("labels.csv", labels_without_candidate())
    source = ws_two_candidates.data.in_use().data.source
    assert ws_two_candidates.human.agreement(results("large"), source, "large") is None
    agreement = ws_two_candidates.human.agreement(results("small"), source, "small")
    assert agreement is not None and agreement.n == 60


def test_the_labelling_view_and_the_report_count_the_same_rows_after_a_change_of_candidate(
    ws_two_candidates: Workspace,
) -> None:
    for case_id in IDS[:10]:
        ws_two_candidates.human.set_score(case_id, 1.0)
    ws_two_candidates.human.import_scores("bo.csv", labels_without_candidate(), rater="bo")
    ws_two_candidates.data.choose_cases("large", None)
    in_use = ws_two_candidates.data.in_use()
    labels = ws_two_candidates.human.labels()
    assert in_use.candidate == "large"
    assert labels.of_rater("ana", "large") == {}  # the labelling view: 0 of 60 labelled by you
    assert labels.values("large") == {}  # the report: 0 labelled, by anyone
    ws_two_candidates.data.choose_cases("small", None)
    labels = ws_two_candidates.human.labels()
    assert (len(labels.of_rater("ana", "small")), len(labels.values("small"))) == (10, 60)


def test_a_file_that_names_its_candidates_keeps_each_rows_own(ws_two_candidates: Workspace) -> None:
    text = "id,human,candidate\ns00,1,large\ns01,0,\n"
    found = ws_two_candidates.human.import_scores("mixed.csv", text.encode())
    assert found.candidate == "small"  # the row without one
    labels = ws_two_candidates.human.labels()
    assert (labels.values("large"), labels.values("small")) == ({"s00": 1.0}, {"s01": 0.0})


def test_scores_kept_without_a_candidate_before_can_be_given_to_the_candidate_in_use(
    ws_two_candidates: Workspace,
) -> None:
    from skynet_core.human import HumanScore

    source = ws_two_candidates.data.in_use().data.source
    ws_two_candidates.human.store.set_many([HumanScore(source, case_id, "", 1.0, "old") for case_id in IDS[:3]])
    labels = ws_two_candidates.human.labels()
    assert labels.values("small") == {} and len(labels.without_candidate(["small", "large"])) == 3
    assert ws_two_candidates.human.assign_candidate("small") == 3
    labels = ws_two_candidates.human.labels()
    assert labels.values("small") == dict.fromkeys(IDS[:3], 1.0) and labels.values("large") == {}


def test_the_labelled_cases_of_the_candidate_in_use_come_with_their_score_and_notes(
    ws_two_candidates: Workspace,
) -> None:
    ws_two_candidates.human.set_score("s03", 0.25, "too short")
    ws_two_candidates.human.set_score("s01", 1.0)
    ws_two_candidates.human.import_scores("bo.csv", b"id,human,note\ns01,0,wrong\n", rater="bo")
    ws_two_candidates.data.choose_cases("large", None)
    ws_two_candidates.human.set_score("s02", 1.0)  # another candidate's output: not small's
    ws_two_candidates.data.choose_cases("small", None)
    found = ws_two_candidates.align.labelled().cases
    assert [(item.case.id, item.case.candidate, item.human, item.note) for item in found] == [
        ("s01", "small", 0.5, "wrong"),
        ("s03", "small", 0.25, "too short"),
    ]
    ana = ws_two_candidates.align.labelled(rater="ana").cases
    assert [(item.case.id, item.human) for item in ana] == [("s01", 1.0), ("s03", 0.25)]

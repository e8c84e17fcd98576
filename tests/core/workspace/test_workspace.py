"""The workspace: one owner of the draft (with revisions), versions, dataset choice, provenance and jobs."""

from __future__ import annotations

import ast
import threading
import time

from skynet_core.metric.reward_spec import reward_spec_in, reward_spec_line
from skynet_core.metric.source import MetricSource
from skynet_core.provenance import Provenance
from skynet_core.scoring import LocalScorer, RayScorer
from skynet_core.store import VersionKind
from skynet_core.workspace import Workspace, example_metric
from skynet_core.workspace.jobs import Job, JobBoard, JobSlot

A = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'A'}\n"
B = "def score(input, output, expected=None):\n    return 0.5, {'feedback': 'B'}\n"
C = "def score(input, output, expected=None):\n    return 0.0, {'feedback': 'C'}\n"


def test_a_new_workspace_shows_the_first_example_at_revision_zero(ws):
    draft = ws.drafts.current()
    assert (draft.revision, draft.metric) == (0, example_metric())


def test_typing_raises_the_revision_and_survives_a_new_workspace(ws, tmp_path):
    first = ws.drafts.type(A, 0)
    second = ws.drafts.type(B, first.draft.revision)
    assert (first.draft.revision, second.draft.revision, second.conflict) == (1, 2, False)
    assert Workspace(tmp_path, env={}).drafts.current().source == B


def test_a_write_based_on_an_older_revision_keeps_both_texts(ws):
    ws.drafts.type(A, 0)  # tab A and tab B both opened revision 1
    ws.drafts.type(B, 1)  # tab B typed: revision 2
    write = ws.drafts.type(C, 1)  # tab A typed, still based on revision 1
    assert write.conflict and write.draft.source == C and write.draft.revision == 3
    assert write.kept is not None and write.kept.source == B and write.kept.kind is VersionKind.KEPT
    assert ws.drafts.last_conflict().version_id == write.kept.id


def test_a_stale_write_of_the_same_text_is_not_a_conflict(ws):
    ws.drafts.type(A, 0)
    ws.drafts.type(B, 1)
    write = ws.drafts.type(B, 1)
    assert not write.conflict and write.kept is None and write.draft.revision == 2


def test_replacing_the_draft_keeps_the_old_text_as_a_version_first(ws):
    ws.drafts.type(A, 0)
    write = ws.drafts.replace(B, "example Exact match")
    assert write.draft.source == B and write.kept.source == A and write.kept.name.startswith("before example")
    assert ws.drafts.replace(B, "again").kept is None  # nothing to keep: same text


def test_replacing_a_text_a_version_holds_already_makes_no_twin(ws):
    """Scored, then REWARD_SPEC written: the scored text was kept twice, as "scored …" and "before … wrote
    REWARD_SPEC" (issue 23 item 12). The version that holds it already is the one named as kept."""
    from skynet_core.runs.history import keep_scored_text

    ws.drafts.type(A, 0)
    scored = keep_scored_text(ws.store, MetricSource.of(A), ws.name)
    write = ws.drafts.replace(B, "Reward trade-offs wrote REWARD_SPEC")
    assert write.draft.source == B and write.kept is not None and write.kept.id == scored.id
    assert [version.source for version in ws.drafts.versions()].count(A) == 1


def test_the_names_the_studio_gives_versions_are_in_the_language_of_who_made_them(ws):
    from skynet_core.i18n import use_language
    from skynet_core.runs.history import short_name

    with use_language("zh_CN"):
        ws.drafts.type(A, 0)  # the first typing makes an autosave
        ws.drafts.type(B, 1)
        conflict = ws.drafts.type(C, 1)  # another tab, based on revision 1
        replaced = ws.drafts.replace(A, "上传 metric.py")
        autosave = ws.drafts.versions()[-1]
        assert autosave.kind is VersionKind.AUTO and autosave.name.startswith("自动保存 ")
        assert conflict.kept.name.startswith("被替换的另一标签页文本（")
        assert replaced.kept.name.startswith("上传 metric.py 之前（")
        # Labels say the time once, themselves: the time written into the name goes, with its brackets.
        assert short_name(conflict.kept) == f"#{conflict.kept.id} 被替换的另一标签页文本"
        assert short_name(replaced.kept) == f"#{replaced.kept.id} 上传 metric.py 之前"
    assert ws.drafts.type(B, 1).kept.name.startswith("other tab's text, replaced at ")


def test_save_version_never_duplicates_the_latest_version(ws):
    ws.drafts.type(A, 0)
    first = ws.drafts.save_version("mine")
    again = ws.drafts.save_version("mine again")
    assert first.created and not again.created and again.version.id == first.version.id
    assert [(v.name, v.kind) for v in ws.drafts.versions()] == [("mine", VersionKind.NAMED)]  # the autosave was named


def test_typing_makes_an_automatic_version_at_most_every_few_minutes(ws, monkeypatch):
    import skynet_core.workspace.drafts as module

    revision = ws.drafts.type(A, 0).draft.revision
    revision = ws.drafts.type(B, revision).draft.revision
    autos = [v for v in ws.drafts.versions() if v.kind is VersionKind.AUTO]
    assert [v.source for v in autos] == [A]
    monkeypatch.setattr(module, "AUTO_VERSION_S", 0.0)
    ws.drafts.type(C, revision)
    assert [v.source for v in ws.drafts.versions() if v.kind is VersionKind.AUTO] == [C, A]


def test_multi_file_drafts_and_versions_keep_every_file(ws):
    folder = MetricSource({"metric.py": "from helpers import x\n" + A, "helpers.py": "x = 1\n"})
    ws.drafts.type(folder, 0)
    assert ws.drafts.current().metric == folder
    assert ws.drafts.save_version("folder").version.folder == folder
    assert ws.drafts.versions()[0].folder.files["helpers.py"] == "x = 1\n"


def test_concurrent_writers_never_lose_a_text(ws):
    ws.drafts.type(A, 0)
    texts = [A.replace("'A'", f"'{n}'") for n in range(8)]
    threads = [threading.Thread(target=ws.drafts.type, args=(text, 1)) for text in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    kept = {v.source for v in ws.drafts.versions()} | {ws.drafts.current().source}
    assert set(texts) <= kept


def test_the_dataset_choice_decides_the_cases_and_the_provenance(ws):
    in_use = ws.data.in_use()
    before = ws.settings.provenance(A)
    ws.data.choose_cases(in_use.data.candidates[1], "val")
    after = ws.settings.provenance(A)
    assert ws.data.in_use().split == "val" and all(case.split == "val" for case in ws.data.in_use().cases)
    assert before.changes(after) == [f"the candidate is now {in_use.data.candidates[1]}", "the split is now val"]
    assert after.changes(ws.settings.provenance(A)) == []
    assert "metric.py changed" in after.changes(ws.settings.provenance(B))


def test_a_split_the_data_does_not_have_is_not_chosen(ws):
    """A picker can send back the label it showed in an earlier language ("all (5 cases)"), or a split of the
    dataset used before: the stored split stays, and the call says so, on every page that chooses."""
    assert ws.data.choose_cases(None, "val") is True
    for stale in ("all (72 cases)", "全部", "holdout"):
        assert ws.data.choose_cases(None, stale) is False
        assert ws.data.choice().split == "val" and ws.data.in_use().split == "val"
    other = ws.data.in_use().data.candidates[1]
    assert ws.data.choose_cases(other, "holdout") is False  # the candidate is still taken
    assert (ws.data.choice().candidate, ws.data.choice().split) == (other, "val")
    assert ws.data.choose_cases(None, None) is True and ws.data.choice().split is None


def test_provenance_ignores_what_an_old_run_did_not_record():
    old = Provenance("", "example", "Tickets", "fast", None)
    now = Provenance("abc", "example", "Tickets", "fast", None, "f00", "openai/gpt")
    assert old.changes(now) == []
    assert Provenance.from_json(now.to_json()) == now


def test_the_metric_model_is_part_of_the_provenance(ws):
    before = ws.settings.provenance(A)
    ws.settings.save_models(
        ws.settings.models().with_changes(
            metric=__import__("skynet_core.llm", fromlist=["ModelConfig"]).ModelConfig("openai/judge", None)
        )
    )
    assert before.changes(ws.settings.provenance(A)) == ["the metric model is now openai/judge"]


def test_a_finished_score_all_is_kept_with_its_provenance(ws):
    job = ws.jobs.score_all(JobSlot(), MetricSource.of(A))
    assert job.wait(60) and job.result is not None
    saved = ws.runs.latest()
    assert saved.provenance == job.provenance and len(saved.results) == job.total and saved.metric_source == A
    assert saved.cases == ws.data.in_use().cases  # kept as scored: the Runs page exports inputs and outputs from them


def test_cases_of_a_runs_dataset_are_found_while_it_is_loadable(ws):
    assert ws.data.cases_of("example") == ws.data.load("example").cases
    assert ws.data.cases_of("/data/gone.jsonl") is None


def test_a_cancelled_score_all_is_not_kept(ws):
    hangs = "def score(input, output, expected=None):\n    while True:\n        pass\n"
    job = ws.jobs.score_all(JobSlot(), MetricSource.of(hangs))
    job.cancel.set()
    assert job.wait(60) and job.cancelled and ws.runs.latest() is None


def test_the_check_reports_the_reward_spec_line_in_force(ws):
    source = (
        "REWARD_SPEC = {'weights': {'accuracy': 1, 'speed': 0, 'cost': 0}, 'accuracy': {}}\nx = 1\n"
        "REWARD_SPEC = {'weights': {'accuracy': -1, 'speed': 0, 'cost': 0}}\n" + A
    )
    job = ws.jobs.check(JobSlot(), MetricSource.of(source))
    assert job.wait(60)
    stage = next(stage for stage in job.result.stages if stage.name.value == "reward_spec")
    assert stage.status.value == "failed" and stage.line == 3
    assert reward_spec_line(source) == 3 and reward_spec_in(source).line == 3


def test_reward_spec_in_returns_a_copy_each_time():
    source = (
        "REWARD_SPEC = {'weights': {'accuracy': 1, 'speed': 1, 'cost': 0}, 'accuracy': {}, "
        "'speed': {'reference': 100}}\n" + A
    )
    first = reward_spec_in(source)
    first.spec["weights"]["accuracy"] = 99
    assert reward_spec_in(source).spec["weights"]["accuracy"] == 1
    assert ast.parse(source)


def _hanging_job(board: JobBoard, watcher: str | None, origin: str = "studio") -> Job[None]:
    job: Job[None] = Job(kind="score", total=1)
    board.add(job, watcher, origin)
    return job.start(lambda running: running.cancel.wait(30) and None)


def test_a_job_nobody_watches_is_cancelled_after_the_grace_period(caplog):
    now = [0.0]
    board = JobBoard(grace_s=60, clock=lambda: now[0])
    job = _hanging_job(board, "tab-1")
    cli = _hanging_job(board, "tab-1", origin="cli")
    now[0] = 50
    assert board.reap() == []
    board.running("tab-2")  # another session sees the job: it watches it now
    now[0] = 100
    assert board.reap() == []
    now[0] = 200
    with caplog.at_level("WARNING", logger="skynet_core.workspace.jobs"):
        assert board.reap() == [job] and job.wait(5) and job.cancelled
    # The server's log says which job went and why (the browser test of a closed tab waits for this line).
    assert [record.getMessage() for record in caplog.records] == [
        f"Cancelled job {job.id} (score): no session has watched it for 60 s."
    ]
    assert cli.running
    board.cancel(cli.id)
    assert cli.wait(5) and cli.cancelled


def test_any_session_lists_and_cancels_running_jobs():
    board = JobBoard(grace_s=60)
    job = _hanging_job(board, "tab-1")
    assert board.running("tab-2") == [job]
    board.cancel(job.id)
    assert job.wait(5) and job.cancelled
    time.sleep(0.01)
    assert board.running() == []


def graded_by_a_helper(helper: str) -> MetricSource:
    """A metric folder whose metric.py scores with ``grading_helpers.grade``, written as ``helper``."""
    main = "from grading_helpers import grade\n\ndef score(input, output, expected=None):\n    return grade(output)\n"
    return MetricSource({"metric.py": main, "grading_helpers.py": helper})


def test_a_metric_folder_checks_and_scores_through_the_workspace_with_its_helper(ws):
    folder = graded_by_a_helper("def grade(output):\n    return 1.0, {'feedback': 'graded by the helper'}\n")
    check = ws.jobs.check(JobSlot(), folder)
    assert check.wait(60) and check.result is not None and check.result.ok, check.result
    scored = ws.jobs.score_all(JobSlot(), folder)
    assert scored.wait(60) and scored.result is not None
    assert {result.feedback for result in ws.runs.latest().results} == {"graded by the helper"}


def test_an_error_in_a_helper_is_named_by_its_file_and_line_through_the_workspace(ws):
    folder = graded_by_a_helper("def grade(output):\n    x = 1\n    raise ValueError('bad grade')\n")
    check = ws.jobs.check(JobSlot(), folder)
    assert check.wait(60) and check.result is not None and not check.result.ok
    stage = next(stage for stage in check.result.stages if stage.name.value == "return_value")
    assert stage.file == "grading_helpers.py" and stage.line == 3, stage


def test_a_scoring_job_reports_what_its_llm_calls_spent(ws: Workspace) -> None:
    import dataclasses

    class Spender:
        spent_usd = 0.25

        def __call__(self, request: dict) -> dict:
            return {"error": "no model"}

    options = dataclasses.replace(ws.settings.run_options(), llm=Spender())
    job = ws.jobs.score(JobSlot(), ws.drafts.current().metric, ws.data.in_use().cases[:2], options)
    job.wait(30)
    assert ws.jobs.llm_spent(job) == 0.25
    assert isinstance(ws.settings.scorer(), LocalScorer)  # no Ray address: scored on this machine


def test_a_ray_address_makes_scoring_go_through_a_cluster_scorer(ws: Workspace) -> None:
    ws.settings.set_ray_address(" 127.0.0.2:1 ")
    assert ws.settings.ray_address() == "127.0.0.2:1"
    assert ws.settings.scorer() == RayScorer("127.0.0.2:1")
    ws.settings.set_ray_address("")
    assert isinstance(ws.settings.scorer(), LocalScorer)


def test_a_saved_dataset_choice_outside_the_data_roots_is_not_read(ws: Workspace, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("SKYNET_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("SKYNET_DATA_ROOTS", raising=False)
    outside = tmp_path / "elsewhere" / "cases.jsonl"
    outside.parent.mkdir()
    outside.write_text('{"input": {"q": "x"}, "output": "secret"}\n')
    ws.data.save_choice(str(outside))
    chosen = ws.data.in_use()
    assert chosen.problem is not None and "outside the folders" in chosen.problem
    assert chosen.data.source == "example"


def test_clear_leaves_the_state_of_a_fresh_data_directory(ws, tmp_path):
    from skynet_core.cases import Case
    from skynet_core.results import CaseResult

    ws.drafts.type(A, 0)
    ws.drafts.save_version("kept", B)
    ws.data.choose_cases(None, "val")
    made_by = ws.settings.provenance(A)
    ws.runs.keep(MetricSource.of(A), [CaseResult(id="c1", score=1.0)], made_by)
    ws.runs.marks.set_mark("example", "hash", "c1", "useful")
    ws.data.save_user_case(Case(id="mine", input={"q": 1}, output="x"))
    ws.clear()
    fresh = Workspace(tmp_path, env={})
    assert (fresh.drafts.current().revision, fresh.drafts.versions(), fresh.runs.store.list()) == (0, [], [])
    assert fresh.data.choice().split is None and fresh.runs.marks.marks_for("example", "hash") == {}
    assert not ws.data.uploads_dir().exists()


def test_the_check_of_a_judge_metric_asks_about_its_sampled_cases_side_by_side(ws: Workspace, server) -> None:
    """A judge's answers take most of a check's time: once the first case proved slow, the other sampled cases
    are judged at the same time (as "Score all" does), not one after the other."""
    from skynet_core.llm import ModelConfig

    server.latency_s = 0.4
    ws.settings.save_models(ws.settings.models().with_changes(metric=ModelConfig("openai/judge", server.url)))
    judge = (
        "from skynet import llm\n\ndef score(input, output, expected=None):\n"
        "    answer = llm('Answer PASS or FAIL.', input=str(output))\n"
        "    return 1.0, {'feedback': 'judged: ' + answer}\n"
    )
    check = ws.jobs.check(JobSlot(), MetricSource.of(judge), keys={"OPENAI_API_KEY": "sk-test"})
    assert check.wait(60) and check.result is not None and check.result.ok, check.result
    assert len(server.requests) == 3
    assert server.max_in_flight >= 2

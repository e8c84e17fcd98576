"""No page shows a Python exception while its jobs run (issue 23 item 2: the judge-consistency panel showed a
TypeError for about a second on every run, because its progress line formatted a spend that was still None).

Each test starts a page's job with a slow metric and reruns the page until the job's result is drawn, as the
page's polling does in a browser. ``run_until`` fails on any run that ends in an exception, and each test
checks that some run drew the job still running (its line in the sidebar), so the states in between were seen.
On Feedback review the probes' finding is drawn too (the slow metric rewards a trivial output).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from streamlit.testing.v1 import AppTest

from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.store import Store
from tests.app.harness import button, go_to, open_app, run_until
from tests.i18n_scan import texts

SLOW = (
    "import time\n\ndef score(input, output, expected=None):\n"
    "    time.sleep(0.05)\n    return 1.0, {'feedback': 'Slow but fine: the label matches.'}\n"
)
OLD = "def score(input, output, expected=None):\n    return 0.0, {'feedback': 'Wrong.'}\n"
DEADLINE_S = 120


def watch(at: AppTest, label: str, done: Callable[[AppTest], bool], kind: str) -> None:
    """Click the button ``label`` and rerun the page until ``done``; no run may end in an exception, and one of
    them must show the job (label ``kind``) running in the sidebar."""
    seen_running = False

    def finished(at: AppTest) -> bool:
        nonlocal seen_running
        seen_running |= any(str(caption.value).startswith(f"{kind} · ") for caption in at.sidebar.caption)
        return done(at)

    button(at, label).click().run()
    run_until(at, finished, DEADLINE_S, what=f"the result of {kind}")
    assert seen_running, f"no run of the page drew {kind} while it ran"


def shows(text: str) -> Callable[[AppTest], bool]:
    """The main pane shows ``text`` (in a text, a label or a chart's title)."""
    return lambda at: any(text in found for found in texts(at, "main"))


def has_column(name: str) -> Callable[[AppTest], bool]:
    return lambda at: any(name in frame.value.columns for frame in at.dataframe)


def test_judge_consistency_and_score_all_on_the_author_page(data_dir: Path) -> None:
    Store(data_dir).save_draft(SLOW)
    at = open_app()
    run_until(at, lambda at: any("meets the contract" in success.value for success in at.success))
    watch(at, "Judge each case again", has_column("flipped"), "judge consistency")
    watch(at, "Score all cases", shows("Showing 72 of 72 scored cases"), "scoring")


def test_scoring_and_probes_on_feedback_review(data_dir: Path) -> None:
    Store(data_dir).save_draft(SLOW)
    at = open_app("feedback")
    watch(at, "Score all cases now", shows("Metric health"), "scoring")
    watch(at, "Run probes", shows("Probe results"), "feedback probes")
    # The slow metric scores anything 1: the trivial outputs too, which the page reports as a finding.
    assert any("the metric rewards an output that says nothing" in warning.value for warning in at.warning)


def test_comparing_two_versions_on_history(data_dir: Path) -> None:
    store = Store(data_dir)
    store.save_version("old", OLD)
    store.save_draft(SLOW)
    at = open_app()
    go_to(at, "history")
    watch(at, "Compare scores", shows("Change in score per case"), "comparison")


def test_scoring_the_candidates_on_reward_trade_offs(data_dir: Path) -> None:
    Store(data_dir).save_draft(EXAMPLE_METRICS["Accuracy, speed and cost"].read_text(encoding="utf-8"))
    at = open_app("tradeoffs")
    watch(at, "Score candidates", shows("Winner at these weights"), "reward trade-offs")

"""Reward trade-offs in a real browser: score the example's candidates, move a weight, write the spec back."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Page, expect

from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.reward import replace_reward_spec
from skynet_core.workspace import Workspace
from tests.e2e.browser import WIDTHS, assert_readable_picture, at_widths, shot, wait_for_app_run
from tests.e2e.editor_moves import act_until, enter_number

REWARD_METRIC = EXAMPLE_METRICS["Accuracy, speed and cost"].read_text(encoding="utf-8")
# Near these weights the bundled example's winner changes from balanced to large-careful.
SHIFTED_SPEC = {
    "weights": {"accuracy": 0.76, "speed": 0.2, "cost": 0.04},
    "accuracy": {},
    "speed": {"reference": 2000},
    "cost": {"reference": 0.01},
}


@pytest.fixture
def reward(workspace: Workspace) -> Workspace:
    """The example reward metric as the draft."""
    workspace.drafts.replace(REWARD_METRIC, "the test")
    return workspace


def score_candidates(page: Page) -> None:
    """Click "Score candidates". A click that lands while a fragment of the page reruns is sometimes dropped
    (about one run in three on this machine): when after 10 s no scoring runs (the button is still enabled)
    and nothing is scored yet, click once more."""
    button = page.get_by_role("button", name="Score candidates")
    button.click()
    scored = page.get_by_test_id("stMetric").filter(has_text="Winner at these weights")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if scored.count() or button.is_disabled():
            return
        page.wait_for_timeout(300)
    if not scored.count() and button.is_enabled():
        button.click()


def test_moving_a_weight_changes_the_winner_and_writes_the_spec_into_the_editor(
    server: str, reward: Workspace, page: Page
) -> None:
    page.goto(f"{server}/tradeoffs")
    # A click while the page's first run is still drawing can be lost (seen on a loaded CI machine).
    expect(page.get_by_role("button", name="Score candidates")).to_be_enabled(timeout=60_000)
    wait_for_app_run(page, timeout_ms=60_000)
    score_candidates(page)
    winner = page.get_by_test_id("stMetric").filter(has_text="Winner at these weights")
    expect(winner).to_contain_text("balanced", timeout=60_000)
    expect(page.get_by_text("where large-careful wins")).to_be_visible()
    expect(page.locator(".js-plotly-plot")).to_have_count(5)
    shot(page, "tradeoffs-scored", whole=True)

    normalised = page.get_by_text(re.compile(r"^Normalised: "))
    # A value typed while the run of the one before is still drawing can be reset by that run (seen once in CI:
    # the cost weight stayed 0.1), so each is typed again until its effect shows.
    for label, value, shares in (
        ("Accuracy weight", "0.76", "accuracy 72% · speed 19% · cost 9%"),
        ("Cost weight", "0.04", "accuracy 76% · speed 20% · cost 4%"),
    ):
        act_until(
            lambda label=label, value=value: enter_number(page, label, value),
            lambda ms, shares=shares: expect(normalised).to_have_text(f"Normalised: {shares}", timeout=ms),
        )
    expect(winner).to_contain_text("large-careful")
    expect(page.get_by_text("These values are not in metric.py yet.")).to_be_visible()
    shot(page, "tradeoffs-weight-moved", whole=True)

    page.get_by_role("button", name="Write to metric.py").click()
    expect(page.get_by_text("Wrote REWARD_SPEC to metric.py")).to_be_visible()
    expect(page.get_by_text("metric.py's REWARD_SPEC has these values.")).to_be_visible()
    # Writing changes only REWARD_SPEC, so the scores still hold: no rescoring needed.
    expect(winner).to_contain_text("large-careful")
    assert reward.drafts.current().source == replace_reward_spec(REWARD_METRIC, SHIFTED_SPEC)
    # The text before the write is kept: as the version scored (issue 23 item 12) and the one before the write.
    assert {version.source for version in reward.drafts.versions()} == {REWARD_METRIC}

    page.get_by_role("link", name="Author").click()
    editor = page.frame_locator('iframe[title="code_editor.code_editor"]')
    expect(editor.locator(".ace_content")).to_contain_text(
        '"weights": {"accuracy": 0.76, "speed": 0.2, "cost": 0.04},', timeout=30_000
    )
    shot(page, "tradeoffs-written-into-author-editor")


def open_tradeoffs(page: Page, url: str) -> Page:
    page.set_default_timeout(15_000)
    page.goto(f"{url}/tradeoffs")
    page.get_by_test_id("stMainBlockContainer").locator("h1").wait_for(timeout=60_000)
    # With saved scores the first run draws the whole analysis: on a loaded machine that takes a while.
    wait_for_app_run(page, timeout_ms=60_000)
    return page


def test_a_slider_and_a_click_on_the_map_set_the_weights_in_english_and_chinese(
    server: str, reward: Workspace, page: Page, browser
) -> None:  # noqa: ANN001
    url = server
    page.set_viewport_size({"width": 1400, "height": 1100})
    open_tradeoffs(page, url)
    score_candidates(page)
    winner = page.get_by_test_id("stMetric").filter(has_text="Winner at these weights")
    expect(winner).to_contain_text("balanced", timeout=60_000)
    normalised = page.get_by_text(re.compile(r"^Normalised: "))

    # Drag the accuracy share: a click at 40 % of the track. The boxes follow and speed : cost stays 2 : 1.
    slider = page.get_by_test_id("stSlider").filter(has_text="Accuracy share")
    track = slider.get_by_test_id("stSliderTrack") if slider.get_by_test_id("stSliderTrack").count() else slider

    def drag() -> None:
        box = track.bounding_box()
        assert box is not None
        page.mouse.click(box["x"] + 0.4 * box["width"], box["y"] + box["height"] / 2)

    act_until(drag, lambda ms: expect(normalised).to_have_text(re.compile(r"accuracy [34]\d%"), timeout=ms))
    wait_for_app_run(page)
    accuracy = float(page.get_by_label("Accuracy weight", exact=True).input_value())
    speed = float(page.get_by_label("Speed weight", exact=True).input_value())
    cost = float(page.get_by_label("Cost weight", exact=True).input_value())
    assert 0.3 < accuracy < 0.5
    assert accuracy + speed + cost == pytest.approx(1.0, abs=1e-9)
    assert speed == pytest.approx(2 * cost, abs=0.002)

    # A click on a square of the map that fast-small wins makes its weights the current ones.
    ternary = page.locator(".js-plotly-plot").filter(has=page.locator(".ternarylayer"))
    square = ternary.locator(".scatterlayer .trace").nth(0).locator("path.point").nth(0)
    act_until(lambda: square.click(force=True), lambda ms: expect(winner).to_contain_text("fast-small", timeout=ms))
    wait_for_app_run(page)
    expect(page.get_by_text("These values are not in metric.py yet.")).to_be_visible()
    expect(page.get_by_test_id("stMetric").filter(has_text="Winner under B")).to_contain_text("fast-small")
    assert_readable_picture(shot(page, "tradeoffs-1400-en", whole=True), 1400)
    page.set_viewport_size({"width": 1000, "height": 1100})
    assert_readable_picture(shot(page, "tradeoffs-1000-en", whole=True), 1000)

    # A new visitor whose browser asks for Chinese (its own context: the locale is the browser's) gets the page in
    # Chinese.
    page = browser.new_context(viewport={"width": WIDTHS[0], "height": 1100}, locale="zh-CN").new_page()
    open_tradeoffs(page, url)
    # The scores were saved by the English session: no rescoring.
    expect(page.get_by_test_id("stMetric").filter(has_text="当前权重下的胜出者")).to_contain_text(
        "balanced", timeout=30_000
    )
    expect(page.get_by_text("A 与 B：两组权重并排比较")).to_be_visible()
    expect(page.locator(".js-plotly-plot")).to_have_count(5, timeout=60_000)
    wait_for_app_run(page, timeout_ms=60_000)
    for width in at_widths(page):
        assert_readable_picture(shot(page, f"tradeoffs-{width}-zh", whole=True), width)
    page.context.close()

"""A deep link on a freshly started server still runs through the router (sidebar, menu, wide layout)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.e2e.browser import shot

OWN_SERVER = True  # the deep link must be the first request its server answers


def test_a_deep_link_as_the_first_request_gets_the_whole_app(page: Page, server: str) -> None:
    """The module's one test: its server has answered no page before this one."""
    page.goto(f"{server}/data")
    expect(page.get_by_role("heading", name="Data", exact=True)).to_be_visible(timeout=30_000)
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_text("Isolation")).to_be_visible()
    expect(sidebar.get_by_role("link", name="Reward trade-offs")).to_be_visible()
    assert page.url.rstrip("/").endswith("/data")
    # Nothing over the page (Streamlit's "Page not found" of its pages-folder mode), and the page answers.
    expect(page.get_by_role("dialog")).to_have_count(0)
    page.get_by_text("A file", exact=True).click()
    expect(page.get_by_role("button", name="Open this file")).to_be_visible()
    shot(page, "routing-deep-link-first")

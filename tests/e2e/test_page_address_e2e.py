"""A page opened by its address (a bookmark, a link, a reload) finds the server at once: serve.py's page tells
Streamlit's front end where the server is, so it never asks the page's own address for the server's health."""

from __future__ import annotations

from playwright.sync_api import Page, expect


def test_a_page_opened_by_its_address_asks_only_the_apps_root(page: Page, server: str) -> None:
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(f"{server}/runs")
    expect(page.get_by_role("heading", name="Runs", exact=True)).to_be_visible()
    assert f"{server}/_stcore/health" in asked
    assert not [url for url in asked if "/runs/_stcore/" in url], asked


def test_the_author_pages_own_address_opens_it_at_the_root_without_page_not_found(page: Page, server: str) -> None:
    """Author is the page at the root: /author (a bookmark, a typed address) once drew Streamlit's "Page not found"
    dialog over it."""
    page.goto(f"{server}/author")
    expect(page.get_by_role("heading", name="Author metric.py")).to_be_visible()
    assert page.url == f"{server}/"
    page.wait_for_timeout(500)  # the dialog came with the page's first script run
    expect(page.get_by_text("Page not found")).to_have_count(0)

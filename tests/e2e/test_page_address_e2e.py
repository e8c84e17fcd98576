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

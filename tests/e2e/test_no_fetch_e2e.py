"""A page of the studio never fetches a URL that came from metric output or case data (issue #11 item 1).

A hostile metric puts markdown images and links to a local listener into its feedback
and a named-score key; the dataset's ids and candidate names hold them too. Its runs of
both candidates are seeded in the store (the results it gives, as "Score all cases" would
save them: scoring itself is tested without a browser). The test visits Author (the
automatic contract check runs the metric itself; the saved run's table), Feedback review,
Trade-offs and History, and asserts the listener never received a request: a browser
that rendered any of those strings as markdown or HTML would have fetched it. Nor does
any page (the rest opened too) make the browser ask a host other than the studio's.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from skynet_core.datasets import load_dataset
from skynet_core.results import CaseResult
from skynet_core.runs import RunKey
from skynet_core.workspace import Workspace
from tests.e2e.browser import ARTIFACTS

WAIT_MS = 60_000
SLOW_MS = 180_000
EDITOR_FONT = "https://fonts.googleapis.com/css2?family=Source+Code+Pro:"


class Listener:
    """An HTTP server on 127.0.0.1 that counts every request it receives (and answers with a tiny GIF)."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802  (the name http.server calls)
                owner.paths.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/gif")
                self.end_headers()
                self.wfile.write(b"GIF89a\x01\x00\x01\x00\x00\x00\x00;")

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def hostile_strings(port: int) -> dict[str, str]:
    base = f"http://127.0.0.1:{port}"
    return {
        "feedback": f"![x]({base}/leak?d=feedback) [click]({base}/link) <img src='{base}/html'>\n\n"
        + "| "
        + " | ".join(f"c{i}" for i in range(50))
        + " |\n",
        "score_key": f"![k]({base}/leak?d=score-key)",
        "id": f"![i]({base}/leak?d=id)",
        "candidate": f"x` ![c]({base}/leak?d=candidate) `",
    }


def hostile_metric(strings: dict[str, str]) -> str:
    return (
        "def score(input, output, expected=None):\n"
        f"    return 0.5, {{'feedback': {strings['feedback']!r} + input['q'], "
        f"'scores': {{{strings['score_key']!r}: 1.0, 'plain': 0.5}}}}\n"
    )


@pytest.fixture
def hostile(server: str, workspace: Workspace) -> Iterator[tuple[str, Listener]]:
    listener = Listener()
    strings = hostile_strings(listener.port)
    data = workspace.directory / "hostile.jsonl"  # in the data directory: a file the studio may read
    rows = [
        {
            "id": f"{strings['id']}-{i}",
            "candidate": candidate,
            "input": {"q": f"q{i}"},
            "output": "x",
            "expected": {"label": "x"},
        }
        for i in range(4)
        for candidate in (strings["candidate"], "plain")
    ]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    metric = hostile_metric(strings)
    workspace.drafts.replace(metric, "the test")
    workspace.data.save_choice(str(data))
    dataset = load_dataset(str(data))
    for candidate in dataset.candidates:  # what the metric gives each case, saved as "Score all cases" saves it
        results = [
            CaseResult(
                id=case.id,
                split=case.split,
                score=0.5,
                scores={strings["score_key"]: 1.0, "plain": 0.5},
                feedback=strings["feedback"] + case.input["q"],
                candidate=candidate,
            )
            for case in dataset.for_candidate(candidate)
        ]
        workspace.runs.store.save(RunKey.of(dataset, candidate, None, metric), results, metric_source=metric)
    yield server, listener
    listener.close()


def settle(page) -> None:
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=SLOW_MS)


def visit(page, link: str, heading: str) -> None:
    """Open a page from the sidebar's menu, as a person does (the app stays loaded)."""
    page.get_by_test_id("stSidebar").get_by_role("link", name=link).click()
    expect(page.get_by_role("heading", name=heading).first).to_be_visible(timeout=WAIT_MS)
    settle(page)


def links_to(page, port: int) -> list[str]:
    """Links, images and frames on the page (the app's iframes included) that point at the listener."""
    found = []
    for frame in page.frames:
        found += frame.eval_on_selector_all(
            f'a[href*=":{port}"], img[src*=":{port}"], iframe[src*=":{port}"]', "els => els.map(e => e.outerHTML)"
        )
    return found


def shown_as_text(page, where: str) -> None:
    """The page shows the hostile string whose image asks for ``leak?d=WHERE``, written out as text (so the test
    does not pass for a page that drew none of them)."""
    expect(page.get_by_text(f"leak?d={where}", exact=False).first).to_be_visible()


def click_if_there(page, name: str) -> bool:
    button = page.get_by_role("button", name=name)
    if button.count() == 0 or not button.first.is_enabled():
        return False
    button.first.click()
    settle(page)
    return True


def test_no_page_fetches_a_url_from_metric_output_or_case_data(page, hostile) -> None:
    url, listener = hostile
    elsewhere: list[str] = []  # every request the browser made to a host other than the studio's
    studio_host = urlsplit(url).netloc
    page.on(
        "request", lambda request: urlsplit(request.url).netloc in ("", studio_host) or elsewhere.append(request.url)
    )
    try:
        page.goto(url)
        expect(page.get_by_text("metric return value", exact=False).first).to_be_visible(timeout=SLOW_MS)
        expect(page.get_by_text("Mean score", exact=False).first).to_be_visible(timeout=SLOW_MS)  # the saved run
        settle(page)
        shown_as_text(page, "feedback")  # in the check's sampled cases
        assert links_to(page, listener.port) == []

        visit(page, "Feedback review", "Feedback review")
        expect(page.get_by_text("Cases judged").first).to_be_visible()  # the saved run's review
        shown_as_text(page, "candidate")  # the run's candidate, in its header
        assert links_to(page, listener.port) == []

        visit(page, "Reward trade-offs", "Reward trade-offs")
        click_if_there(page, "Score candidates")
        assert links_to(page, listener.port) == []

        visit(page, "History", "History")
        click_if_there(page, "Compare scores")
        assert links_to(page, listener.port) == []
        for other in ("Data", "Human scores", "Runs", "Settings"):  # what no page may ask another host for
            visit(page, other, other)
        page.wait_for_timeout(1000)  # an image the last page drew would be asked for by now
    except Exception:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "no-fetch-failed.png"), full_page=True)
        raise
    assert listener.paths == [], f"the browser fetched URLs that came from metric output or case data: {listener.paths}"
    # Nothing else leaves the machine either (Streamlit's favicon for a :material/: page icon came from Google),
    # but for one request we do not choose: the code editor component's own theme imports its font from Google
    # Fonts (streamlit-code-editor's streamlit_light.css; offline, the editor falls back to a monospace font).
    assert [url for url in elsewhere if not url.startswith(EDITOR_FONT)] == [], (
        f"the browser asked hosts other than the studio's: {elsewhere}"
    )

"""Author page benchmarks in headless Chromium, against a real `streamlit run serve.py` (the README's command).

    .venv/bin/python benchmarks/bench_author.py [--edits 7] [--loads 5] [--scores 3]

Measures, and prints the median of each:
- first page load: from navigation to the example's passing verdict on screen (target ≤ 3 s);
- end of typing to verdict: from the last keystroke of an edit to that edit's feedback in the
  sampled results (debounce included; target ≤ 1 s);
- "Score all cases" on 10,000 cases: from the click to the filled table (target ≤ 5 s).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parents[1]

from skynet_core.store import Store  # noqa: E402
from skynet_core.workspace import SETTING_DATASET_PATH  # noqa: E402

sys.path.insert(0, str(ROOT))  # the app's own modules and the tests' helpers; skynet_core is installed
from tests.e2e.browser import CHROMIUM_ARGS, WHOLE_BROWSER, start_server, stop_server  # noqa: E402

EDITOR = 'iframe[title="code_editor.code_editor"]'
# The verdict passes: "The metric meets the contract." before any "Score all", and "The metric meets the contract,
# and all N cases of the last run scored." after one (a reload before the next cold score reads the second).
PASSES = re.compile(r"^The metric meets the contract[.,]")
SAMPLES = ".st-key-author-samples"  # the check's sampled cases (before the redesign: a dataframe)
LABELS = ["billing", "technical", "shipping", "refund", "account"]


def trivial_metric(token: str) -> str:
    return f"def score(input, output, expected=None):\n    return 1.0, {{'feedback': 'ok {token}'}}\n"


def write_cases(path: Path, count: int) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for index in range(count):
            label = LABELS[index % len(LABELS)]
            got = label if index % 4 else LABELS[(index + 1) % len(LABELS)]
            handle.write(
                json.dumps(
                    {
                        "id": f"T-{index:05d}",
                        "input": {"subject": f"Ticket {index}", "message": "My order has not arrived yet."},
                        "output": json.dumps({"label": got, "priority": "low", "reply": "Thanks, we are on it."}),
                        "expected": {"label": label} if index % 10 else None,
                        "observation": {"latency_ms": 400 + index % 900, "cost_usd": 0.001},
                    }
                )
                + "\n"
            )


def open_page(page: Page, url: str) -> float:
    started = time.perf_counter()
    page.goto(url)
    expect(page.get_by_text(PASSES)).to_be_visible(timeout=30_000)
    return time.perf_counter() - started


def type_metric(page: Page, text: str) -> None:
    expect(page.locator(EDITOR)).to_have_count(1)
    page.frame_locator(EDITOR).locator(".ace_content").click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(text)


def score_all(page: Page, caption) -> float:
    """Click "Score all cases" and wait for the filled table; seconds taken."""
    button = page.get_by_role("button", name="Score all cases")
    expect(button).to_be_enabled()
    started = time.perf_counter()
    button.click()
    expect(caption).to_be_hidden(timeout=10_000)  # the previous run's table (if any) goes first
    expect(caption).to_be_visible(timeout=60_000)
    expect(page.get_by_test_id("stDataFrame").filter(has_text="duration")).to_be_visible()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=7)
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--scores", type=int, default=3)
    parser.add_argument("--cases", type=int, default=10_000)
    args = parser.parse_args()

    expect.set_options(timeout=30_000)
    data_dir = Path(tempfile.mkdtemp(prefix="skynet-bench-"))
    big = data_dir / "tickets-10k.jsonl"
    write_cases(big, args.cases)
    process, url = start_server(data_dir)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=WHOLE_BROWSER, args=CHROMIUM_ARGS)
            loads = []
            for _ in range(args.loads):
                context = browser.new_context(viewport={"width": 1500, "height": 1400})
                loads.append(open_page(context.new_page(), url))
                context.close()

            context = browser.new_context(viewport={"width": 1500, "height": 1400})
            page = context.new_page()
            open_page(page, url)
            verdicts = []
            for index in range(args.edits):
                token = f"edit-{index}-{time.time_ns()}"
                type_metric(page, trivial_metric(token))
                typed = time.perf_counter()
                expect(page.locator(SAMPLES)).to_contain_text(f"ok {token}", timeout=10_000)
                verdicts.append(time.perf_counter() - typed)
                time.sleep(0.3)

            Store(data_dir).set(SETTING_DATASET_PATH, str(big))
            type_metric(page, (ROOT / "skynet_core/examples/metrics/exact_match.py").read_text())
            expect(page.locator(SAMPLES)).to_contain_text("Correct: the label is", timeout=10_000)
            page.reload()
            expect(page.get_by_text(PASSES)).to_be_visible(timeout=30_000)
            expect(page.get_by_test_id("stSidebar")).to_contain_text(
                f"{args.cases:,} cases"
            )  # grouped, as format_number writes it
            caption = page.get_by_text(re.compile(rf"Showing {args.cases} of {args.cases} scored cases"))
            cold, warm = [], []
            for _ in range(args.scores):
                # Cold: a freshly loaded page, so the table's grid code is loaded by the browser too.
                page.reload()
                expect(page.get_by_text(PASSES)).to_be_visible(timeout=30_000)
                cold.append(score_all(page, caption))
                # Warm: the same page, scoring again.
                warm.append(score_all(page, caption))
            browser.close()
    finally:
        stop_server(process)

    def line(name: str, values: list[float], target: float) -> str:
        median = statistics.median(values)
        verdict = "ok" if median <= target else "OVER TARGET"
        return (
            f"{name:<42} median {median:6.3f} s  (target ≤ {target:g} s, {verdict}; "
            f"runs: {', '.join(f'{v:.3f}' for v in values)})"
        )

    print(line("first page load (server's first included)", loads, 3.0))
    print(line("end of typing to verdict on screen", verdicts, 1.0))
    print(line(f"score all {args.cases} cases, freshly loaded page", cold, 5.0))
    print(line(f"score all {args.cases} cases, again on the same page", warm, 5.0))


if __name__ == "__main__":
    main()

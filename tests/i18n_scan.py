"""Find English left on a page rendered in Chinese: the test side of "every string a person reads".

``english_words(at)`` walks every element an AppTest run drew (labels, bodies, help texts, options,
placeholders, the titles and axes of Plotly charts), drops code (backticks and code blocks), ids,
file names, numbers and the words that are names rather than language (``ALLOWED``, plus the
``allowed`` a test passes for its user data), and returns the English words that remain, each with
the text it came from.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator

from google.protobuf.message import Message

# Names, not language: products, formats, code identifiers and units that stay as they are in Chinese.
ALLOWED = {
    "skynet",
    "metric",
    "gepa",
    "dspy",
    "auto",
    "api",
    "json",
    "jsonl",
    "csv",
    "parquet",
    "zip",
    "sqlite",
    "llm",
    "litellm",
    "openai",
    "python",
    "ray",
    "pareto",
    "reward_spec",
    "score",
    "feedback",
    "scores",
    "reward",
    "url",
    "http",
    "https",
    "gib",
    "mib",
    "mb",
    "kib",
    "utf",
    "id",
    "ids",
    "ctrl",
    "enter",
    "tab",
    "shift",
    "cmd",
    "pip",
    "bubblewrap",
    "bwrap",
    "pss",
    "shm",
    "tmp",
    "dev",
    "max",
    "min",
    "input",
    "output",
    "expected",
    "ok",
    "error",
    "timeout",
    "invalid",
    "memory_limit",
    "cancelled",
    "skipped",
    "train",
    "val",
    "test",
    "all",
    "none",
    "true",
    "false",
    "null",
    "nan",
    "inf",
    "tck",
    "str",
    "float",
    "int",
    "dict",
    "list",
    "tuple",
    "bool",
    "py",
    "md",
    "txt",
    "png",
    "svg",
    "english",
    "azure",
    "anthropic",
    "gpt",
    "ms",
    "usd",
    "token",
    "tokens",
    "mini",
    "claude",
    "sonnet",
    "haiku",
    "opus",
    "ollama",
    "vllm",
    "qwen",
    "deepseek",
    "glm",
}
# Element fields that hold values, ids or machinery rather than words written for a person.
SKIPPED_FIELDS = {
    "id",
    "form_id",
    "type",
    "icon",
    "shortcut",
    "default",
    "value",
    "data",
    "component_name",
    "json_args",
    "url",
    "mime_type",
    "format",
    "element_type",
    "theme",
    "key",
    "arrow_data",
    "raw_value",
    "spec",
    "args",
    "query_params",
    "page_script_hash",
    "page_name",
    "page",  # a page link's URL path (its label is checked)
    "script_hash",
    "name",
    "selection_mode",
    "width_config",
    "height_config",
    "css_class",
    "styles",
    "autocomplete",
    # A code element shows text as written: metric code, its feedback and prints, errors, commands (data).
    "code_text",
    "language",
}
_CODE = re.compile(r"```.*?```|`[^`]*`|<style>.*?</style>", re.S)
_NOISE = re.compile(
    r":material/[a-z_]+:|:[a-z]+(?=\[)|https?://\S+|[\w./-]+\.(?:py|json|jsonl|csv|parquet|zip|txt|po|mo)\b|"
    r"\b[A-Z]+-\d+\b|\b[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+\b|\b\w*\d\w*\b|<[^>]+>|\{[^}]*\}|"
    r"(?<![\w-])--[a-z][a-z0-9-]*",  # a command-line option (--roles) is code
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]+")


def _strings(message: Message) -> Iterator[str]:
    for field, value in message.ListFields():
        if field.name in SKIPPED_FIELDS:
            continue
        if field.name == "columns" and isinstance(value, str):
            yield from _column_labels(value)
            continue
        values = value if isinstance(value, Iterable) and not isinstance(value, str | bytes | Message) else [value]
        for item in values:
            if isinstance(item, Message):
                yield from _strings(item)
            elif isinstance(item, str):
                yield item


def _column_labels(config: str) -> Iterator[str]:
    """A table's column configuration is JSON keyed by column names (code): only its labels and help are text."""
    try:
        columns = json.loads(config)
    except ValueError:
        return
    for column in columns.values() if isinstance(columns, dict) else ():
        if isinstance(column, dict):
            yield from (column[key] for key in ("label", "help") if isinstance(column.get(key), str))


def _chart_titles(spec: str) -> Iterator[str]:
    def walk(node: object) -> Iterator[str]:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "text" and isinstance(value, str):
                    yield value
                elif key in {"title", "xaxis", "yaxis", "layout", "annotations", "legend", "ternary"} or (
                    isinstance(key, str) and key.startswith(("xaxis", "yaxis", "aaxis", "baxis", "caxis"))
                ):
                    yield from walk(value)
                elif key == "name" and isinstance(value, str):
                    yield value
        elif isinstance(node, list):
            for item in node:
                yield from walk(item)

    try:
        yield from walk(json.loads(spec))
    except ValueError:
        return


def literal_box(node: object) -> bool:
    """Whether ``node`` is a box of literal text (``ui.widgets.text.box``): data shown as written, like code."""
    from ui.widgets.text import LITERAL_KEY

    return type(node).__name__ == "Block" and f"-{LITERAL_KEY}" in str(getattr(node.proto, "id", ""))


def literal_texts(at) -> list[str]:
    """The texts the last run showed literally (metric output, feedback, errors, data), in page order."""
    found, stack = [], [at._tree]
    while stack:
        node = stack.pop(0)
        if literal_box(node):
            found += [str(child.value) for child in node.children.values() if type(child).__name__ == "Text"]
        else:
            stack[:0] = list(getattr(node, "children", {}).values())
    return found


def texts(at, where: str = "all") -> Iterator[str]:
    """Every person-facing string the last run drew (``where``: "all", "main" or "sidebar"); literal text is
    data, as code is, and left out."""
    stack = [{"all": at._tree, "main": at.main, "sidebar": at.sidebar}[where]]
    while stack:
        node = stack.pop()
        if literal_box(node):
            continue
        proto = getattr(node, "proto", None)
        if isinstance(proto, Message):
            if proto.DESCRIPTOR.name == "PlotlyChart" and getattr(proto, "spec", ""):
                yield from _chart_titles(proto.spec)
            yield from _strings(proto)
        stack.extend(getattr(node, "children", {}).values())


def english(text: str, allowed: Iterable[str] = ()) -> list[str]:
    """The English words of ``text`` once code, ids, numbers, paths and ``allowed`` names are dropped."""
    allow = ALLOWED | {word.lower() for word in allowed}
    cleaned = _NOISE.sub(" ", _CODE.sub(" ", text))
    return [word for word in _WORD.findall(cleaned) if word.lower().strip("'’") not in allow]


def render(page: str = "author", language: str = "zh_CN", **state):
    """An AppTest run of ``page`` (one of ``tests.app.harness.PAGES``) in ``language``, with ``state`` in the
    session first: the harness's one set-up (``tests.app.harness.open_app``), without failing on an exception."""
    from tests.app.harness import open_app

    return open_app(page, language=language, state=state, check=False)


def english_words(at, allowed: Iterable[str] = (), where: str = "all") -> list[tuple[str, str]]:
    """(word, the text it is in) for every English word left on the page (or its "main" or "sidebar")."""
    allowed = set(allowed)
    found = []
    for text in texts(at, where):
        found.extend((word, text[:160]) for word in english(text, allowed))
    return found

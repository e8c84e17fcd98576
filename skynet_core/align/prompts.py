"""The instruction strings of a metric's ``llm()`` calls: found in metric.py with ``ast``, and written back.

What alignment optimizes is the text a judge model reads as its system message: the first argument of each
``llm()`` call in metric.py (``from skynet import llm``, ``import skynet`` then ``skynet.llm``, any alias), when
that argument is

- a string literal: ``llm("Answer PASS or FAIL…", input=…)``, named for its line (``llm() line 12``);
- a module-level string constant given by name: ``llm(RUBRIC, input=…)``, named ``RUBRIC``;
- either of them filled in with ``.format(…)``: ``llm(RUBRIC.format(policy=…), …)``.

A constant used by several calls is one prompt. Everything else (an f-string, text built at run time) is left
alone. :func:`rewrite` puts new texts in place of those literals and leaves every other byte of the file as it
was, so a new version differs from the original only in its prompts.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from ..i18n import _
from ..metric.pysource import parse
from ..metric.source import MAIN_FILE, MetricSource

_PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_]\w*)(?:![rsa])?(?::[^{}]*)?\}(?!\})")


class NoPrompt(ValueError):
    """metric.py has no instruction string alignment can change; the message says how to write one."""


@dataclass(frozen=True)
class Prompt:
    """One instruction string of metric.py's ``llm()`` calls.

    Invariants: ``name`` is unique among a metric's prompts (``RUBRIC`` for a module-level constant,
    ``llm() line 12`` for a literal argument, ``llm() line 12 #2`` for a second one on that line); ``text`` is
    the string's value; ``start`` and ``end`` are the literal's span in metric.py's UTF-8 bytes (the whole
    literal, its prefix and quotes, every piece of an implicit concatenation), and ``line`` its first line;
    ``calls`` are the lines of the ``llm()`` calls that send it, ascending.
    """

    name: str
    text: str
    line: int
    start: int
    end: int
    calls: tuple[int, ...]

    @property
    def placeholders(self) -> frozenset[str]:
        return placeholders(self.text)


def placeholders(text: str) -> frozenset[str]:
    """The ``{name}`` fields of ``text`` (``{name!r}``, ``{name:>4}`` too; ``{{name}}`` is literal text, not one)."""
    return frozenset(_PLACEHOLDER.findall(text))


def find_prompts(source: str) -> tuple[Prompt, ...]:
    """The prompts of metric.py's ``source``, in the order of their first call; raises :class:`NoPrompt` (with what
    to write instead) when there is none, or ``SyntaxError`` when the source does not parse."""
    tree = parse(source)
    calls = list(_llm_calls(tree))
    constants = _module_constants(tree)
    offsets = _line_offsets(source)
    found: dict[str, Prompt] = {}
    unused: list[int] = []
    for call in calls:
        argument = _instructions(call)
        node, name = _resolve(argument, constants) if argument is not None else (None, None)
        if node is None:
            unused.append(call.lineno)
            continue
        if name is None:
            # A literal is named for its line, in English whatever the language: the name is a key of the JSON.
            base = f"llm() line {node.lineno}"
            twins = sum(1 for known in found if known == base or known.startswith(base + " #"))
            name = base if not twins else f"{base} #{twins + 1}"
        known = found.get(name)
        if known is not None:
            found[name] = Prompt(name, known.text, known.line, known.start, known.end, (*known.calls, call.lineno))
            continue
        assert isinstance(node.value, str) and node.end_lineno is not None and node.end_col_offset is not None
        start = _offset(offsets, node.lineno, node.col_offset)
        end = _offset(offsets, node.end_lineno, node.end_col_offset)
        found[name] = Prompt(name, node.value, node.lineno, start, end, (call.lineno,))
    if not found:
        raise NoPrompt(_no_prompt_message(calls, unused))
    return tuple(found.values())


def prompts_of(metric: MetricSource) -> tuple[Prompt, ...]:
    """The prompts of the metric folder's metric.py (see :func:`find_prompts`)."""
    return find_prompts(metric.files[MAIN_FILE])


def rewrite(source: str, prompts: tuple[Prompt, ...], texts: Mapping[str, str]) -> str:
    """``source`` with each prompt named in ``texts`` holding its new text: only those literals' bytes change.

    A literal keeps its quote character and stays triple-quoted when it was (or when the new text has lines);
    raises ``ValueError`` for a name that is not a prompt of ``prompts``.
    """
    unknown = sorted(set(texts) - {prompt.name for prompt in prompts})
    if unknown:
        raise ValueError(f"not prompts of this metric: {', '.join(unknown)}")
    data = source.encode("utf-8")
    pieces: list[bytes] = []
    at = 0
    for prompt in sorted(prompts, key=lambda item: item.start):
        if prompt.name not in texts or texts[prompt.name] == prompt.text:
            continue
        old = data[prompt.start : prompt.end].decode("utf-8")
        pieces += [data[at : prompt.start], literal(texts[prompt.name], old).encode("utf-8")]
        at = prompt.end
    pieces.append(data[at:])
    return b"".join(pieces).decode("utf-8")


def with_prompts(metric: MetricSource, prompts: tuple[Prompt, ...], texts: Mapping[str, str]) -> MetricSource:
    """The metric folder with metric.py's prompts replaced by ``texts`` (every other file and byte as it was)."""
    return metric.with_file(MAIN_FILE, rewrite(metric.files[MAIN_FILE], prompts, texts))


def literal(text: str, like: str = '"') -> str:
    """A Python string literal whose value is ``text``, written like the literal ``like`` (its quote character,
    triple-quoted when it was or when ``text`` has several lines)."""
    body = like.lstrip("rRuUbBfF")
    quote = "'" if body.startswith("'") else '"'
    triple = body.startswith(quote * 3) or "\n" in text
    written = _triple(text, quote) if triple else _single(text, quote)
    try:
        node = parse(written).body[0]
        same = isinstance(node, ast.Expr) and ast.literal_eval(node.value) == text
    except (SyntaxError, ValueError, IndexError):
        same = False
    return written if same else repr(text)


def _escaped(char: str) -> str:
    return repr(char)[1:-1] if not char.isprintable() else char


def _single(text: str, quote: str) -> str:
    body = "".join(
        "\\\\" if char == "\\" else "\\" + quote if char == quote else _escaped(char) if char != " " else char
        for char in text
    )
    return f"{quote}{body}{quote}"


def _triple(text: str, quote: str) -> str:
    body = "".join("\\\\" if char == "\\" else char if char in "\n\t" else _escaped(char) for char in text)
    # Three quotes in a row would end the literal, and a quote at the very end would join the closing ones.
    body = re.sub(re.escape(quote) + "{3,}", lambda found: ("\\" + quote) * len(found.group()), body)
    run = len(body) - len(body.rstrip(quote))
    if run:
        body = body[: len(body) - run] + ("\\" + quote) * run
    return f"{quote * 3}{body}{quote * 3}"


def _llm_calls(tree: ast.Module) -> Iterator[ast.Call]:
    """The calls of skynet's ``llm`` in the module, in source order."""
    direct: set[str] = set()
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "skynet" and not node.level:
            direct.update(alias.asname or alias.name for alias in node.names if alias.name == "llm")
        elif isinstance(node, ast.Import):
            modules.update(alias.asname or alias.name for alias in node.names if alias.name == "skynet")
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in direct:
            found.append(node)
        elif isinstance(func, ast.Attribute) and func.attr == "llm":
            if isinstance(func.value, ast.Name) and func.value.id in modules:
                found.append(node)
    return iter(sorted(found, key=lambda call: (call.lineno, call.col_offset)))


def _instructions(call: ast.Call) -> ast.expr | None:
    if call.args:
        first = call.args[0]
        return None if isinstance(first, ast.Starred) else first
    return next((keyword.value for keyword in call.keywords if keyword.arg == "instructions"), None)


def _resolve(node: ast.expr, constants: Mapping[str, ast.Constant]) -> tuple[ast.Constant | None, str | None]:
    """The string literal an instructions argument holds, and the constant's name when it is one."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and not isinstance(node.func.value, ast.Call)
    ):
        node = node.func.value
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node, None
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id], node.id
    return None, None


def _module_constants(tree: ast.Module) -> dict[str, ast.Constant]:
    """Names bound once in the whole module, at its top level, to a string literal (``RUBRIC = "…"``)."""
    bound: dict[str, int] = {}
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        elif isinstance(node, ast.Global | ast.Nonlocal):
            for declared in node.names:
                bound[declared] = bound.get(declared, 0) + 2  # another scope may rebind it: not a constant
        for target in targets:
            for part in ast.walk(target):
                if isinstance(part, ast.Name):
                    bound[part.id] = bound.get(part.id, 0) + 1
    constants: dict[str, ast.Constant] = {}
    for statement in tree.body:
        value: ast.expr | None = None
        name: str | None = None
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
            name = target.id if isinstance(target, ast.Name) else None
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            name, value = statement.target.id, statement.value
        if name and isinstance(value, ast.Constant) and isinstance(value.value, str) and bound.get(name) == 1:
            constants[name] = value
    return constants


def _line_offsets(source: str) -> list[int]:
    """The byte offset of each line's start (index 0 is line 1), as ``ast`` counts lines."""
    offsets, at = [], 0
    for line in source.encode("utf-8").splitlines(keepends=True):
        offsets.append(at)
        at += len(line)
    offsets.append(at)
    return offsets


def _offset(offsets: list[int], line: int, column: int) -> int:
    """``ast``'s (line, UTF-8 byte column) as a byte offset in the file."""
    return offsets[line - 1] + column


def _no_prompt_message(calls: list[ast.Call], unused: list[int]) -> str:
    if not calls:
        return _(
            "metric.py makes no llm() call, so there is no judge instruction to align. Alignment rewrites the "
            'instructions of a model judge: write them as a constant, e.g. RUBRIC = "Answer PASS or FAIL, then one '
            'sentence of reasons.", and call llm(RUBRIC, input=…) from score.'
        )
    lines = ", ".join(str(line) for line in unused[:5])
    return _(
        "The llm() calls of metric.py (line {lines}) build their instructions at run time (an f-string or another "
        "expression), so there is no fixed text to align. Move the fixed text into a module-level constant, e.g. "
        'RUBRIC = "… {{policy}} …", and call llm(RUBRIC.format(policy=…), input=…): alignment rewrites RUBRIC and '
        "keeps its {{placeholders}}."
    ).format(lines=lines)

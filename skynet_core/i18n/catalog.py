"""The translation catalogs: extract the strings from the code, merge the parts, compile, check.

Used by ``scripts/i18n.py`` (and the tests); the running studio only reads the compiled ``.mo`` through
:mod:`skynet_core.i18n`. The parts of a language (``locale/<lang>/parts/*.po``) are merged into one
catalog; the same English string may appear in two parts only with the same translation.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from .translate import DOMAIN, LANGUAGES, LOCALE_DIR, SOURCE_LANGUAGE

ROOT = Path(__file__).resolve().parents[2]
KEYWORDS: dict[str, tuple[int, ...] | None] = {"_": None, "N_": None, "ngettext": (1, 2)}
# What a person reads comes from these; metric code (examples, templates, the sandbox's module) is the
# user's, in English, and not translated.
SOURCE_GLOBS = ("app.py", "serve.py", "ui/**/*.py", "pages/**/*.py", "skynet_core/**/*.py")
SKIP_PARTS = ("skynet_core/examples/metrics/", "skynet_core/engines/templates/")
# The metric's child process cannot read the .mo through the studio: the translations of the strings
# written in the sandbox's own files go beside it as JSON (skynet_core/scoring/sandbox/skynet/_i18n.py reads them).
SANDBOX_SOURCES = "skynet_core/scoring/sandbox/"
SANDBOX_LOCALE_DIR = ROOT / "skynet_core" / "scoring" / "sandbox" / "locale"
_PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)(?:[:!][^{}]*)?\}")

Message = str | tuple[str, str]
_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Found:
    """One translatable string in the code and where it is."""

    message: Message
    locations: tuple[tuple[str, int], ...]


@dataclass
class Problems:
    """What ``check`` finds wrong with a language's catalog."""

    untranslated: list[Found] = field(default_factory=list)
    placeholders: list[tuple[Message, str]] = field(default_factory=list)
    conflicts: list[tuple[object, str, str]] = field(default_factory=list)
    stale_mo: bool = False

    def __bool__(self) -> bool:
        return bool(self.untranslated or self.placeholders or self.conflicts or self.stale_mo)


def source_files(root: Path = ROOT) -> list[Path]:
    files: set[Path] = set()
    for pattern in SOURCE_GLOBS:
        files.update(root.glob(pattern))
    return sorted(path for path in files if not any(part in path.relative_to(root).as_posix() for part in SKIP_PARTS))


def extract(paths: Iterable[Path] | None = None, root: Path = ROOT) -> list[Found]:
    """Every translatable string in ``paths`` (default: all of the studio's sources), in order."""
    seen: dict[Message, list[tuple[str, int]]] = {}
    for path in source_files(root) if paths is None else paths:
        relative = path.resolve().relative_to(root).as_posix()
        with open(path, "rb") as handle:
            for lineno, message, _comments, _context in extract_from_file("python", handle.name, keywords=KEYWORDS):
                if not message or (isinstance(message, tuple) and not all(message)):
                    continue
                key: Message = message if isinstance(message, str) else (message[0], message[1])
                seen.setdefault(key, []).append((relative, lineno))
    return [Found(message, tuple(locations)) for message, locations in seen.items()]


def template(found: Iterable[Found]) -> Catalog:
    catalog = Catalog(domain=DOMAIN, project="Skynet Metric Studio", fuzzy=False)
    for item in found:
        catalog.add(item.message, locations=list(item.locations))
    return catalog


def parts_dir(language: str) -> Path:
    return LOCALE_DIR / language / "parts"


def mo_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.mo"


def read_parts(language: str) -> Iterator[tuple[Path, Catalog]]:
    for path in sorted(parts_dir(language).glob("*.po")):
        with open(path, "rb") as handle:
            yield path, read_po(handle, locale=language)


def merged(language: str, problems: Problems | None = None) -> Catalog:
    """The parts of a language as one catalog (fuzzy and empty translations left out)."""
    # Fixed dates in the header: the same parts always compile to the same bytes.
    catalog = Catalog(locale=language, domain=DOMAIN, fuzzy=False, creation_date=_EPOCH, revision_date=_EPOCH)
    for _path, part in read_parts(language):
        for message in part:
            if not message.id or message.fuzzy or not _translated(message.string):
                continue
            existing = catalog.get(message.id)
            if existing is not None and existing.string != message.string:
                if problems is not None:
                    problems.conflicts.append((message.id, str(existing.string), str(message.string)))
                continue
            catalog.add(message.id, message.string, locations=message.locations)
    return catalog


def _translated(string: object) -> bool:
    if isinstance(string, str | bytes):
        return bool(string)
    if isinstance(string, tuple | list):
        return all(bool(s) for s in string)
    return False


def compiled(language: str) -> bytes:
    buffer = io.BytesIO()
    write_mo(buffer, merged(language))
    return buffer.getvalue()


def sandbox_path(language: str) -> Path:
    return SANDBOX_LOCALE_DIR / f"{language}.json"


def sandbox_catalog(language: str, found: list[Found] | None = None) -> bytes:
    """The translations of the strings in the sandbox's files, as the child process reads them:
    ``{msgid: msgstr}``, and ``{singular: [forms...]}`` for plurals."""
    catalog = merged(language)
    table: dict[str, object] = {}
    for item in extract() if found is None else found:
        if not any(path.startswith(SANDBOX_SOURCES) for path, _line in item.locations):
            continue
        key = item.message[0] if isinstance(item.message, tuple) else item.message
        entry = catalog.get(key)
        if entry is None:
            continue
        table[key] = list(entry.string) if isinstance(entry.string, tuple | list) else entry.string
    return (json.dumps(table, ensure_ascii=False, sort_keys=True, indent=0) + "\n").encode("utf-8")


def compile_all() -> list[Path]:
    written = []
    for language in LANGUAGES:
        if language == SOURCE_LANGUAGE:
            continue
        path = mo_path(language)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(compiled(language))
        written.append(path)
        sandbox = sandbox_path(language)
        sandbox.parent.mkdir(parents=True, exist_ok=True)
        sandbox.write_bytes(sandbox_catalog(language))
        written.append(sandbox)
    return written


def placeholders(text: str) -> set[str]:
    return set(_PLACEHOLDER.findall(text))


def check(language: str, found: list[Found] | None = None) -> Problems:
    """What is missing or wrong in ``language``: untranslated strings, lost placeholders, a stale .mo."""
    problems = Problems()
    catalog = merged(language, problems)
    found = extract() if found is None else found
    for item in found:
        key = item.message[0] if isinstance(item.message, tuple) else item.message
        entry = catalog.get(key)
        if entry is None:
            problems.untranslated.append(item)
            continue
        sources = item.message if isinstance(item.message, tuple) else (item.message,)
        targets = entry.string if isinstance(entry.string, tuple | list) else (entry.string,)
        wanted = set().union(*(placeholders(s) for s in sources))
        for target in targets:
            if placeholders(str(target)) != wanted:
                problems.placeholders.append((item.message, str(target)))
    path = mo_path(language)
    sandbox = sandbox_path(language)
    problems.stale_mo = (
        not path.exists()
        or path.read_bytes() != compiled(language)
        or not sandbox.exists()
        or sandbox.read_bytes() != sandbox_catalog(language, found)
    )
    return problems


def todo(language: str, paths: Iterable[Path] | None = None) -> str:
    """A .po text of the strings in ``paths`` that ``language`` does not translate yet (to fill in)."""
    catalog = merged(language)
    missing = Catalog(locale=language, domain=DOMAIN, fuzzy=False)
    for item in extract(paths):
        key = item.message[0] if isinstance(item.message, tuple) else item.message
        if catalog.get(key) is None:
            missing.add(item.message, locations=list(item.locations))
    buffer = io.BytesIO()
    write_po(buffer, missing, omit_header=True, width=0)
    return buffer.getvalue().decode("utf-8")


def write_template(path: Path | None = None) -> Path:
    path = path or LOCALE_DIR / f"{DOMAIN}.pot"
    buffer = io.BytesIO()
    write_po(buffer, template(extract()), width=0)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buffer.getvalue())
    return path

"""Export for engines: a folder that runs the metric inside GEPA or DSPy GEPA, on its own.

The folder holds the metric (``metric/``), the cases (``cases.jsonl``: id, split,
input, expected), the text to optimize (``instruction.txt``), a runnable
``run_gepa.py`` or ``run_dspy.py``, ``requirements.txt`` (the engine, what the
vendored runner needs, and the third-party packages the metric imports) and a
vendored copy of the parts of ``skynet_core`` that run a metric sandboxed and
adapt it to the engines. ``pip install -r requirements.txt`` in a fresh
virtualenv is all it needs.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import io
import os
import re
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import orjson

from ..cases import Case
from ..i18n import _
from ..lazy import face_homes
from ..metric.packages import package_report
from ..metric.pysource import parse as parse_source
from ..metric.source import MetricSource
from ..paths import file_identity
from .dspy_metric import DspyFields
from .export_folder import MARKER, ExportError, is_marker, marker_text, write_folder

ENGINES = ("gepa", "dspy")
# The engine versions the adapters are tested with (requirements-dev.txt).
ENGINE_PINS = {"gepa": ["gepa==0.1.4"], "dspy": ["dspy==3.4.1", "gepa==0.1.4"]}
# What the vendored runner and model calls import at run time, pinned to this environment's versions.
RUNTIME_PACKAGES = ("litellm", "orjson")
DEFAULT_INSTRUCTION = "Answer the task given in the input."
PACKAGE = Path(__file__).resolve().parents[1]
# The engines' face imports its names on first use, so the modules it serves them from are roots too;
# scoring/runner/run.py because the local scorer imports it when it scores; metric/folder.py because the
# exported programs read the metric with it.
VENDOR_ROOTS = (
    "engines/__init__.py",
    *(f"engines/{module}.py" for module in sorted(set(face_homes(PACKAGE / "engines" / "__init__.py").values()))),
    "scoring/runner/__init__.py",
    "scoring/runner/run.py",
    "metric/folder.py",
)
VENDOR_TREES = ("scoring/sandbox",)
VENDORED_INIT = (
    '"""A vendored part of Skynet Metric Studio\'s skynet_core: what runs a metric sandboxed for engines."""\n'
)
# Every exported folder holds MARKER (export_folder): a folder with it was written by an export, so another export
# may write into it again; any other folder that is not empty is the user's, and an export refuses to write into it.
SHOWN_CLASHES = 8
_PROJECT_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")  # PEP 508's name, with re.fullmatch


@dataclass(frozen=True)
class EngineExport:
    """The exported folder's files: relative path → text."""

    engine: str
    files: Mapping[str, str]

    def write_to(self, folder: str | Path, *, inputs: Sequence[str | Path] = ()) -> Path:
        """Write the files into ``folder`` and return it; nothing the user owns is replaced.

        ``folder`` must be new, empty, or written by an export before (it holds :data:`MARKER`);
        ``inputs`` (the data file, the metric's files) must not be among the files written. Each
        file is written to a temporary name and renamed, so a link in the folder is replaced, never
        followed; ``metric/`` is replaced as a whole (:func:`~.export_folder.write_folder`). Raises
        :class:`ExportError` naming the files it would replace, before writing any.
        """
        folder = Path(folder)
        _check_target(folder, self.files, inputs)
        write_folder(folder, self.files)
        return folder

    def to_zip(self, top: str | None = None) -> bytes:
        top = top or f"skynet-{self.engine}"
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, text in self.files.items():
                archive.writestr(f"{top}/{name}", text)
        return buffer.getvalue()


def export_for_engine(
    metric: str | MetricSource,
    engine: str,
    cases: Sequence[Case],
    *,
    instruction: str | None = None,
    fields: DspyFields | None = None,
) -> EngineExport:
    """The folder that runs ``metric`` in ``engine`` (``gepa`` or ``dspy``) on ``cases`` (one per id).

    Without cases, ``cases.jsonl`` is empty and the runner says how to fill it.
    """
    if engine not in ENGINES:
        raise ExportError(f"{engine!r} is not an engine Skynet exports for; choose gepa or dspy.")
    if engine == "dspy" and not cases and fields is None:
        raise ExportError(
            _(
                "DSPy needs the dataset to know the input and expected field names: "
                "give the cases (--data on the command line)."
            )
        )
    source = MetricSource.of(metric)
    files: dict[str, str] = {f"metric/{name}": text for name, text in source.files.items()}
    files["cases.jsonl"] = cases_jsonl(cases)
    files["instruction.txt"] = (instruction or DEFAULT_INSTRUCTION).strip() + "\n"
    if engine == "dspy":
        chosen = fields or DspyFields.infer(cases)
        files["fields.json"] = (
            orjson.dumps(
                {"inputs": chosen.inputs, "expected": chosen.expected, "outputs": chosen.outputs},
                option=orjson.OPT_INDENT_2,
            ).decode()
            + "\n"
        )
    files[f"run_{engine}.py"] = (Path(__file__).parent / "templates" / f"run_{engine}.py").read_text(encoding="utf-8")
    files["requirements.txt"] = requirements(source, engine)
    files["README.md"] = (
        (Path(__file__).parent / "templates" / "README.md").read_text(encoding="utf-8").replace("{engine}", engine)
    )
    files.update(vendored_files())
    files[MARKER] = marker_text(files)
    return EngineExport(engine, files)


def _check_target(folder: Path, files: Mapping[str, str], inputs: Sequence[str | Path]) -> None:
    """Refuse to write ``files`` into ``folder`` when that would replace a file the user owns or reads from."""
    if folder.exists() and not folder.is_dir():
        raise ExportError(_("{folder} is a file, not a folder; give a new or empty folder.").format(folder=folder))
    present = sorted(entry.name for entry in folder.iterdir()) if folder.exists() else []
    if not present or is_marker(folder / MARKER):
        targets = {file_identity(folder / name): name for name in files}
        for item in inputs:
            name = targets.get(file_identity(item))
            if name is not None:
                raise ExportError(
                    _(
                        "The export would write {name} over {path}, which it reads; export into another folder, or "
                        "move {path} out of {folder} first."
                    ).format(name=name, path=item, folder=folder)
                )
        return
    clashes = [name for name in files if os.path.lexists(folder / name)]
    # A file where the export puts a folder (``metric``) is replaced too.
    tops = {name.split("/")[0] for name in files}
    clashes += [top for top in present if top in tops and not (folder / top).is_dir()]
    if clashes:
        raise ExportError(
            _(
                "{folder} is not empty and was not written by an export: exporting into it would replace {files}. "
                "Export into a new or empty folder."
            ).format(folder=folder, files=_some(clashes))
        )
    raise ExportError(
        _(
            "{folder} is not empty and was not written by an export (it holds {files}). Export into a new or empty "
            "folder."
        ).format(folder=folder, files=_some(present))
    )


def _some(names: list[str]) -> str:
    return ", ".join(names[:SHOWN_CLASHES]) + (", …" if len(names) > SHOWN_CLASHES else "")


def cases_jsonl(cases: Sequence[Case]) -> str:
    """One JSON line per case id: ``id``, ``split``, ``input``, ``expected``."""
    seen: dict[str, Case] = {}
    for case in cases:
        seen.setdefault(case.id, case)
    rows = [{"id": c.id, "split": c.split, "input": c.input, "expected": c.expected} for c in seen.values()]
    return "".join(orjson.dumps(row, default=str).decode() + "\n" for row in rows)


def requirements(source: MetricSource, engine: str) -> str:
    """requirements.txt: the engine, the runner's packages, and the third-party packages the metric imports.

    People run ``pip install -r`` on it outside any sandbox, so every line is either a requirement
    built from a checked name and version (:func:`requirement`) or a comment holding only an import
    name and a checked distribution name; a name from the metric folder or an installed package's
    metadata that is not a valid requirement is left out, never written.
    """
    lines = ["# The engine (the version Skynet's adapters are tested with).", *ENGINE_PINS[engine]]
    lines += ["# What the vendored runner and the model calls need.", *(_pin(name) for name in RUNTIME_PACKAGES)]
    report = package_report(source)
    found = [requirement(status.distribution, status.version) for status in report if status.found]
    missing = [
        f"# {status.module} is imported by metric/ but not installed here (install {status.distribution})"
        for status in report
        if not status.found and _is_module(status.module) and requirement(status.distribution, None)
    ]
    if report:
        lines.append("# What metric/ imports.")
        lines += [line for line in found if line is not None]
        lines += missing
    if None in found or len(missing) < sum(not status.found for status in report):
        lines.append("# A package metric/ imports has a name that is not a valid requirement; it was left out.")
    return "\n".join(lines) + "\n"


def requirement(distribution: str, version: str | None) -> str | None:
    """``name==version`` (or ``name``) when ``distribution`` is a valid project name and ``version`` a valid
    version (PEP 508, PEP 440), else None."""
    from packaging.version import InvalidVersion, Version

    if not _PROJECT_NAME.fullmatch(distribution):
        return None
    if version is None:
        return distribution
    try:
        Version(version)
    except InvalidVersion:
        return None
    return f"{distribution}=={version}" if version.isascii() and version.strip() == version else None


def _is_module(name: str) -> bool:
    return all(part.isidentifier() for part in name.split("."))


@functools.cache
def _pin(distribution: str) -> str:
    """``distribution==its installed version`` (read once per process: reading a distribution's metadata parses
    its whole METADATA file)."""
    try:
        return requirement(distribution, importlib.metadata.version(distribution)) or distribution
    except importlib.metadata.PackageNotFoundError:
        return distribution


def vendored_files() -> dict[str, str]:
    """The modules of skynet_core that run a metric sandboxed and adapt it to the engines: what ``engines`` and
    ``runner`` import at load time, and the sandbox's files (the child process runs them).

    Read and parsed once per process (this process's own package does not change while it runs; the Author page
    offers both exports on every script run, and parsing the modules took a fifth of such a run)."""
    return dict(_vendored_files())


@functools.cache
def _vendored_files() -> dict[str, str]:
    todo = [PACKAGE / root for root in VENDOR_ROOTS]
    found: dict[Path, None] = {}
    while todo:
        path = todo.pop()
        if path in found or not path.is_file():
            continue
        found[path] = None
        todo += _relative_imports(path)
    for tree in VENDOR_TREES:
        found.update(dict.fromkeys(sorted((PACKAGE / tree).rglob("*.py"))))
    files = {"skynet_core/__init__.py": VENDORED_INIT}
    for path in found:
        name = path.relative_to(PACKAGE).as_posix()
        if name != "__init__.py" and "__pycache__" not in name:
            files[f"skynet_core/{name}"] = path.read_text(encoding="utf-8")
    return files


def _relative_imports(path: Path) -> list[Path]:
    """The package files a module imports at load time (imports inside functions or under ``TYPE_CHECKING`` are
    what the module uses optionally, so they are left out)."""
    tree = parse_source(path.read_text(encoding="utf-8"))
    targets = []
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or node.level == 0:
            continue
        base = path.parent
        for _level in range(node.level - 1):
            base = base.parent
        parts = node.module.split(".") if node.module else []
        stem = base.joinpath(*parts)
        candidates = [stem.with_suffix(".py"), stem / "__init__.py"]
        if not parts or (stem / "__init__.py").is_file():
            candidates += [(stem / alias.name).with_suffix(".py") for alias in node.names]
        if stem != base:
            candidates.append(stem.parent / "__init__.py")
        # skynet_core's own __init__ (the studio's public face) is replaced by VENDORED_INIT, not followed.
        targets += [c for c in candidates if c.is_file() and c != PACKAGE / "__init__.py"]
    return targets

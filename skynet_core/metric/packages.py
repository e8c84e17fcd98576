"""Third-party packages for metric code: the metric packages folder and what a metric imports.

Metric code imports from the studio's own environment and, after it, from the metric packages
folder (contract Part B, rule 13): ``$SKYNET_METRIC_PACKAGES`` when set, else ``packages`` in
the data directory. The sandbox mounts that folder read-only; packages are installed into it
with ``pip install --target``, so a package only a metric needs never touches the studio's
environment, and nothing is fetched from the network while a metric runs.

``package_report`` lists the third-party modules a metric folder imports, whether each is
found and its version; ``missing_module_hint`` is the sentence the load stage adds to a
``ModuleNotFoundError``. Streamlit-free: the Packages panel and the CLI draw these values.
"""

from __future__ import annotations

import ast
import importlib.machinery
import os
import shlex
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath

from ..i18n import _
from ..store import data_dir
from .pysource import parse as parse_source
from .source import MetricSource

PACKAGES_ENV = "SKYNET_METRIC_PACKAGES"

# Import names whose distribution on PyPI is called something else (import name -> what to install).
IMPORT_TO_DISTRIBUTION = {
    "sklearn": "scikit-learn",
    "skimage": "scikit-image",
    "yaml": "PyYAML",
    "cv2": "opencv-python",
    "PIL": "Pillow",
    "bs4": "beautifulsoup4",
    "rouge_score": "rouge-score",
    "dateutil": "python-dateutil",
    "dotenv": "python-dotenv",
    "docx": "python-docx",
    "pptx": "python-pptx",
    "jwt": "PyJWT",
    "attr": "attrs",
    "Crypto": "pycryptodome",
    "fitz": "PyMuPDF",
    "magic": "python-magic",
    "serial": "pyserial",
    "OpenSSL": "pyOpenSSL",
    "google.protobuf": "protobuf",
    "sentence_transformers": "sentence-transformers",
    "antlr4": "antlr4-python3-runtime",
    "latex2sympy2": "latex2sympy2",
    "math_verify": "math-verify",
    "tree_sitter": "tree-sitter",
    "Levenshtein": "Levenshtein",
    "Bio": "biopython",
    "MySQLdb": "mysqlclient",
    "psycopg2": "psycopg2-binary",
    "gi": "PyGObject",
    "zmq": "pyzmq",
    "websocket": "websocket-client",
    "faiss": "faiss-cpu",
    "sacrebleu": "sacrebleu",
    "bert_score": "bert-score",
}
# Modules the metric may import that are neither stdlib nor third-party: the project provides them.
PROVIDED = frozenset({"skynet", "__future__"})


def packages_dir() -> Path:
    """The metric packages folder: ``$SKYNET_METRIC_PACKAGES``, else ``<data dir>/packages``."""
    configured = os.environ.get(PACKAGES_ENV, "").strip()
    if configured:
        return Path(configured).expanduser().absolute()
    return (data_dir() / "packages").absolute()


def existing_packages_dir() -> Path | None:
    """The packages folder when it exists (a sandbox mounts only an existing folder; creating it
    would create the data directory as a side effect of a check)."""
    folder = packages_dir()
    return folder if folder.is_dir() else None


def distribution_for(module: str) -> str:
    """What to ``pip install`` for an import name (``sklearn`` -> ``scikit-learn``)."""
    top = module.split(".")[0]
    return IMPORT_TO_DISTRIBUTION.get(module) or IMPORT_TO_DISTRIBUTION.get(top) or top


def _python_for_command() -> str:
    """The studio's interpreter, relative to the working directory when it lies under it
    (``.venv/bin/python``): packages must be built for the Python that runs the sandbox."""
    executable = sys.executable
    try:
        relative = os.path.relpath(executable)
    except ValueError:
        return executable
    return relative if not relative.startswith("..") else executable


def install_command(distributions: list[str], folder: Path | None = None) -> str:
    """The exact command that installs ``distributions`` into the metric packages folder."""
    target = folder if folder is not None else packages_dir()
    names = " ".join(shlex.quote(name) for name in distributions)
    return f"{shlex.quote(_python_for_command())} -m pip install --target {shlex.quote(str(target))} {names}"


def missing_module_hint(module: str, source: MetricSource | None = None) -> str:
    """What to do about ``ModuleNotFoundError: No module named <module>``, in one or two sentences."""
    top = module.split(".")[0]
    if source is not None and top in own_modules(source):
        return _(
            "{top} is a file in the metric folder, but {module} is not in it; "
            "check the name of the module or of the function imported from it."
        ).format(top=top, module=module)
    if top in sys.stdlib_module_names:
        return _("{module} is part of Python's standard library but not available in the sandbox.").format(
            module=module
        )
    dist = distribution_for(module)
    message = (
        _(
            "{module} is not a file in the metric folder, nor installed for the studio or in the metric "
            "packages folder. If it is the package {dist} from PyPI, install it for metrics with: {command}"
        )
        if dist.lower() == top.lower()
        else _(
            "{module} is not a file in the metric folder, nor installed for the studio or in the metric "
            "packages folder. If it is the package {dist} (imported as {top}) from PyPI, install it for "
            "metrics with: {command}"
        )
    )
    return message.format(module=module, dist=dist, top=top, command=install_command([dist]))


@dataclass(frozen=True)
class ImportUse:
    """A third-party import in a metric folder: the top-level ``module`` and where it first appears."""

    module: str
    file: str
    line: int


@dataclass(frozen=True)
class PackageStatus:
    """Whether a module a metric imports can be found, where, and its distribution's version.

    ``where`` is ``"studio"`` (the studio's environment), ``"packages"`` (the metric packages
    folder) or ``None`` when it is missing; ``distribution`` is what to install.
    """

    module: str
    distribution: str
    file: str
    line: int
    where: str | None
    version: str | None

    @property
    def found(self) -> bool:
        return self.where is not None


def own_modules(source: MetricSource) -> set[str]:
    """Top-level module names the metric folder itself provides (``helpers.py``, ``checks/``)."""
    names = set()
    for name in source.files:
        path = PurePosixPath(name)
        if len(path.parts) > 1:
            names.add(path.parts[0])
        elif path.suffix == ".py":
            names.add(path.stem)
    return names


def third_party_imports(source: MetricSource) -> list[ImportUse]:
    """The third-party top-level modules the folder's Python files import (each once, first use),
    leaving out the standard library, the folder's own modules and ``skynet``. Files that do not
    parse are skipped: the load stage reports their syntax errors."""
    own = own_modules(source)
    seen: dict[str, ImportUse] = {}
    for name, text in source.files.items():
        if not name.endswith(".py"):
            continue
        try:
            tree = parse_source(text)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                modules = [node.module]
            else:
                continue
            for module in modules:
                top = module.split(".")[0]
                if top in own or top in PROVIDED or top in sys.stdlib_module_names or top in seen:
                    continue
                seen[top] = ImportUse(top, name, node.lineno)
    return sorted(seen.values(), key=lambda use: (use.file != "metric.py", use.file, use.line))


def _studio_paths() -> list[str]:
    from ..scoring.runner.sandbox import SANDBOX_MOUNT, python_paths

    return [path for path in python_paths() if path != SANDBOX_MOUNT]


@lru_cache(maxsize=8)
def _versions(paths: tuple[str, ...], stamp: tuple[float, ...]) -> dict[str, tuple[str, str]]:
    """Top-level module -> (distribution name, version) for the distributions installed under ``paths``
    (``stamp``, the folders' modification times, renews the cache after an install)."""
    import importlib.metadata  # here: the runner imports this module, and the command line should start fast

    found: dict[str, tuple[str, str]] = {}
    for dist in importlib.metadata.distributions(path=list(paths)):
        name = dist.metadata["Name"] or ""
        tops = (dist.read_text("top_level.txt") or "").split()
        if not tops:
            tops = sorted(
                {
                    PurePosixPath(str(item)).parts[0].removesuffix(".py")
                    for item in dist.files or ()
                    if not str(item).startswith(("..", "/"))
                    and ".dist-info" not in str(item)
                    and "__pycache__" not in str(item)
                }
            )
        for top in tops:
            found.setdefault(top, (name, dist.version))
    return found


def _locate(module: str, paths: list[str]) -> bool:
    for path in paths:  # a folder missing at an earlier look is remembered as None; it may exist now
        if path in sys.path_importer_cache and sys.path_importer_cache[path] is None:
            del sys.path_importer_cache[path]
    try:
        return importlib.machinery.PathFinder.find_spec(module, paths) is not None
    except (ImportError, ValueError):
        return False


def _stamp(paths: list[str]) -> tuple[float, ...]:
    stamps = []
    for path in paths:
        try:
            stamps.append(os.stat(path).st_mtime)
        except OSError:
            stamps.append(0.0)
    return tuple(stamps)


def packages_stamp() -> tuple[float, ...]:
    """The metric packages folder's modification time (0 when it does not exist): it changes with an install."""
    return _stamp([str(packages_dir())])


def package_report(source: str | MetricSource) -> list[PackageStatus]:
    """For each third-party module the metric imports: found where, and which version."""
    source = MetricSource.of(source)
    uses = third_party_imports(source)
    if not uses:
        return []
    studio = _studio_paths()
    extra = [str(packages_dir())]
    report = []
    for use in uses:
        where = "studio" if _locate(use.module, studio) else "packages" if _locate(use.module, extra) else None
        version = None
        dist = distribution_for(use.module)
        if where is not None:
            paths = studio if where == "studio" else extra
            known = _versions(tuple(paths), _stamp(paths)).get(use.module)
            if known is not None:
                dist, version = known
        report.append(PackageStatus(use.module, dist, use.file, use.line, where, version))
    return report


def missing_command(report: list[PackageStatus]) -> str | None:
    """One command that installs every missing package of ``report``; None when nothing is missing."""
    missing = list(dict.fromkeys(status.distribution for status in report if not status.found))
    return install_command(missing) if missing else None


WHERE_WORDS = {"studio": "the studio's environment", "packages": "the metric packages folder", None: "missing"}


def package_rows(report: list[PackageStatus]) -> list[dict[str, str]]:
    """The Packages panel's table: one row per third-party module, in the words the panel shows."""
    return [
        {
            "module": status.module,
            "package": status.distribution,
            "found in": WHERE_WORDS[status.where],
            "version": status.version or "",
            "imported at": f"{status.file} line {status.line}",
        }
        for status in report
    ]

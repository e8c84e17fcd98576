"""Datasets: read case files, assign column roles, plan splits, sample cases for the contract check.

The rules a reader can rely on:

Formats (chosen by extension; anything else is refused with a clear message)
    ``.jsonl`` / ``.json`` are JSON Lines, the canonical format: one object a line
    with ``input`` (object), ``output`` (any JSON value), ``expected`` (object or
    null, may be left out) and optional ``id``, ``split``, ``candidate`` and
    ``observation`` (``{"latency_ms": number|null, "cost_usd": number|null}``).
    Blank lines are skipped but still counted, so line numbers match an editor's.
    ``.csv`` and ``.parquet`` are tables whose column names carry a role prefix:
    ``input.question``, ``expected.label``, ``output`` (or ``output.field`` for an
    object output), ``observation.latency_ms``, ``observation.cost_usd``, ``split``,
    ``id``, ``candidate``. A column named exactly ``input``, ``expected`` or
    ``observation`` holds the whole object (a Parquet struct or a JSON cell).

CSV cells are text
    A CSV has no types, so a cell is passed to the metric as the text written,
    with two exceptions: an empty cell is ``None``, and a cell in an input,
    expected or ``output.<field>`` column that starts with ``{`` or ``[`` and
    parses as JSON becomes that object or list. The whole ``output`` column is
    always passed exactly as written, because an artifact's output is often
    JSON *text* that the metric is meant to parse (as it would in Skynet).
    Parquet keeps its own types. In any table, a row whose expected cells are
    all empty has ``expected=None``.

Ids
    A case without an id gets its 1-based line (JSON Lines) or row (tables; row 1
    is the first row after the header) number. With candidates, cases line up by
    id, so a missing id is instead the case's 1-based position among that
    candidate's cases. Each (candidate, id) pair is unique, and every candidate
    must have exactly the same ids with the same input and expected.

Candidate files
    Several candidates come from a ``candidate`` column, or from one file per
    candidate (:class:`CandidateFile`, :func:`join_candidates`): such a file has an
    id column and the candidate's output and observations, and is joined to the
    main file's cases by id; its ids must be exactly the main file's.

Mixed types
    A typed file (JSON Lines, Parquet) passes each value as written, so an input
    or expected field may mix kinds. A column whose role needs one kind says
    which row breaks it: a whole-object column needs objects, an id, split or
    candidate text or whole numbers, and a measurement numbers (a measurement
    column mixing numbers and text is refused as a whole).

Uploads
    :func:`save_upload` keeps an uploaded file on disk under its content hash, so
    a choice of it survives a restart.

Splits (contract Part B rule 11)
    See :func:`split_plan` and :func:`assign_splits`. A ``split`` column overrides
    the plan; it must then give every case a split, the same for every candidate.

Sampling (contract Part B rule 7)
    See :func:`sample_for_check`.

Every problem with a file is a :class:`DatasetError` whose message names the file,
the line or column, what is wrong and how to fix it; nothing here raises a bare
traceback for bad data.

One output column per candidate
    An A/B export holds several candidates' outputs side by side (``out_small``,
    ``out_large``, with ``latency_large_ms``, ``cost_large_usd``...): those columns have
    per-candidate roles and each row becomes one case per candidate (see
    :mod:`~skynet_core.datasets.per_candidate`). :func:`candidate_warnings` flags two
    candidates with identical outputs (the same file or column given twice).

The package keeps one idea a module: ``model`` (Dataset, Role, DatasetError), ``splits``,
``roles``, ``files`` (reading files and their limits), ``frames`` (tables to cases),
``per_candidate`` (one output column per candidate), ``candidates``, ``identity`` (a
dataset's digest), ``load`` and ``lines`` (a JSON Lines file kept compact for scoring very many
cases). Import from the package.
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_face

if TYPE_CHECKING:
    from .candidates import CandidateFile, candidate_file_roles, join_candidates
    from .files import MAX_COLUMNS, MAX_FILE_BYTES, check_size, read_table, save_upload
    from .frames import cases_from_frame
    from .lines import CaseLines, read_case_lines
    from .load import load_dataset, load_example
    from .model import EXAMPLE_PATH, SPLITS, Dataset, DatasetError, Role
    from .per_candidate import CandidateColumns, candidate_warnings
    from .roles import RolesFile, infer_roles, roles_file_from_json, roles_from_json, roles_to_json
    from .splits import assign_splits, sample_for_check, split_plan

__getattr__ = lazy_face(__name__, __file__)


__all__ = [
    "CandidateColumns",
    "CandidateFile",
    "CaseLines",
    "Dataset",
    "DatasetError",
    "EXAMPLE_PATH",
    "MAX_COLUMNS",
    "MAX_FILE_BYTES",
    "Role",
    "RolesFile",
    "SPLITS",
    "assign_splits",
    "candidate_file_roles",
    "candidate_warnings",
    "cases_from_frame",
    "check_size",
    "infer_roles",
    "join_candidates",
    "load_dataset",
    "load_example",
    "read_case_lines",
    "read_table",
    "roles_file_from_json",
    "roles_from_json",
    "roles_to_json",
    "sample_for_check",
    "save_upload",
    "split_plan",
]

"""What the Feedback review page shows, decided here so the page only draws.

Everything returns plain values (texts in the current language, rows, ids): which cases the
filters keep, the rows of the flagged-cases table, the labels of the "Show" box and of each case,
the threshold fields and their defaults, the suggestions worth saying once, the model-review
summary and the export's file names.
"""

from ._filters import (
    MARK_ANY,
    MARK_CHOICES,
    MARK_NONE,
    SHOW_ALL,
    SHOW_FLAGGED,
    CaseFilter,
    filter_ids,
    mark_labels,
    no_match_note,
    score_span,
    show_key,
    show_labels,
)
from ._review import MAX_GRADED, export_note, export_stem, grade_summary, to_grade
from ._table import (
    CASE_IDS_SHOWN,
    case_ids_text,
    case_label,
    fmt,
    grade_text,
    mark_text,
    pair_up,
    suggestions,
    table_columns,
    table_key,
    table_rows,
)
from ._thresholds import ThresholdField, threshold_fields, threshold_values, thresholds_from

__all__ = [
    "CASE_IDS_SHOWN",
    "CaseFilter",
    "MARK_ANY",
    "MARK_CHOICES",
    "MARK_NONE",
    "MAX_GRADED",
    "SHOW_ALL",
    "SHOW_FLAGGED",
    "ThresholdField",
    "case_ids_text",
    "case_label",
    "export_note",
    "export_stem",
    "filter_ids",
    "fmt",
    "grade_summary",
    "grade_text",
    "mark_labels",
    "mark_text",
    "no_match_note",
    "pair_up",
    "score_span",
    "show_key",
    "show_labels",
    "suggestions",
    "table_columns",
    "table_key",
    "table_rows",
    "threshold_fields",
    "threshold_values",
    "thresholds_from",
    "to_grade",
]

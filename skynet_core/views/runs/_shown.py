"""A run's frame as the page shows it (long text clipped, costs readable) and as an exported file."""

from __future__ import annotations

import io
import math
from typing import Any

import orjson
import pandas as pd

from ...display import CELL_CHARS, clipped
from ...i18n import format_cost
from ...results import CaseStatus
from ...reward.lines import localized_feedback
from ...runs.export import safe_csv_cell
from ._cases import JSON_COLUMNS, TEXT_COLUMNS

EXPORT_FORMATS = ("csv", "jsonl", "parquet")


MIMES = {"csv": "text/csv", "jsonl": "application/jsonl", "parquet": "application/vnd.apache.parquet"}


def _json_text(value: Any) -> str:
    if value is None:
        return ""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


COST_COLUMNS = ("judge_cost_usd", "cost_usd")
"""Costs in US dollars: numbers in a run's frame and its downloads, :func:`format_cost` text on screen."""


STATUS_COLUMNS = ("status", "old_status", "new_status")
FEEDBACK_COLUMNS = ("feedback", "old_feedback", "new_feedback")
_STATUSES = {status.value: status for status in CaseStatus}


def status_word(status: Any) -> str:
    """A case's status (``ok``, or a change such as ``ok → error``) as people read it in the current language."""
    text = "" if status is None or (isinstance(status, float) and math.isnan(status)) else str(status)
    return " → ".join(_STATUSES[part].word if part in _STATUSES else part for part in text.split(" → "))


def words_shown(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` in the reader's language: each case's status as a word ("ok" reads "成功" in Chinese) and each
    feedback's reward lines (:func:`~skynet_core.reward.lines.localized_feedback`). A copy when it has such a column:
    ``frame`` keeps the run's own values, which filters compare and downloads hold."""
    statuses = [column for column in (*STATUS_COLUMNS, "status_change") if column in frame]
    feedbacks = [column for column in FEEDBACK_COLUMNS if column in frame]
    if not statuses and not feedbacks:
        return frame
    shown = frame.copy()
    for column in statuses:
        shown[column] = shown[column].map(status_word)
    for column in feedbacks:
        shown[column] = shown[column].map(lambda text: localized_feedback(text) if isinstance(text, str) else text)
    return shown


def costs_shown(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its costs as every page writes them (:func:`~skynet_core.i18n.format_cost`: "$0.000045",
    "$0.0020"); a case without a cost shows nothing. A copy when it has any: ``frame`` keeps its numbers."""
    present = [column for column in COST_COLUMNS if column in frame]
    if not present:
        return frame
    shown = frame.copy()
    for column in present:
        shown[column] = shown[column].map(lambda usd: "" if usd is None or pd.isna(usd) else format_cost(float(usd)))
    return shown


def shown_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` for a table on screen: input, output and expected as JSON text, long texts clipped, costs
    written as everywhere else (:func:`costs_shown`), statuses and reward lines in the reader's language
    (:func:`words_shown`)."""
    shown = words_shown(costs_shown(frame)).copy()
    for column in (*JSON_COLUMNS, *TEXT_COLUMNS, "old_feedback", "new_feedback"):
        if column in shown:
            texts = shown[column].map(_json_text) if column in JSON_COLUMNS else shown[column].fillna("").astype(str)
            shown[column] = texts.map(lambda text: clipped(text, CELL_CHARS))
    return shown


def _plain(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def export_bytes(frame: pd.DataFrame, form: str) -> bytes:
    """``frame`` (from :func:`run_frame`) as a CSV, JSONL or Parquet file. In JSONL input, output and
    expected stay JSON values; in CSV and Parquet they are JSON text. Every CSV cell (and header) that
    starts like a spreadsheet formula is neutralised (:func:`~skynet_core.runs.export.safe_csv_cell`)."""
    if form == "jsonl":
        records = [{key: _plain(value) for key, value in row.items()} for row in frame.to_dict("records")]
        return b"".join(orjson.dumps(record, option=orjson.OPT_NON_STR_KEYS) + b"\n" for record in records)
    flat = frame.copy()
    for column in JSON_COLUMNS:
        if column in flat:
            flat[column] = flat[column].map(_json_text)
    if form == "csv":
        flat = flat.map(safe_csv_cell)
        flat.columns = [safe_csv_cell(column) for column in flat.columns]
        return flat.to_csv(index=False, lineterminator="\n").encode("utf-8")
    if form == "parquet":
        buffer = io.BytesIO()
        flat.to_parquet(buffer, index=False, engine="pyarrow")
        return buffer.getvalue()
    raise ValueError(f"unknown export format {form!r}")

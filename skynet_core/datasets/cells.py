"""One cell of a table as the plain Python value a case holds: numpy and pandas values converted, JSON text
parsed where a role expects an object, object columns put together field by field."""

from __future__ import annotations

import datetime
import decimal
import math
from typing import Any

from skynet_core.i18n import _

from .files import _describe, _parse_json
from .model import DatasetError, Role


def _plain(value: Any) -> Any:
    """A cell as plain Python: numpy and pandas values converted, missing values ``None``."""
    import numpy as np
    import pandas as pd

    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, np.ndarray):
        return [_plain(item) for item in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        # A float holds 15 significant digits exactly; beyond that the digits are kept as text, not rounded.
        return float(value) if len(value.as_tuple().digits) <= 15 else str(value)
    return value


def _json_cell(text: str) -> Any:
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            return _parse_json(stripped)
        except ValueError:
            return text
    return text


def _csv_cell(text: Any, role: Role, field: str) -> Any:
    if not isinstance(text, str):
        return text
    if role is Role.OUTPUT and not field:
        return text
    if text == "":
        return None
    if role in (Role.INPUT, Role.EXPECTED, Role.OUTPUT, Role.OBSERVATION):
        return _json_cell(text)
    return text


def _object_part(target: dict[str, Any], value: Any, role: Role, field: str, where: str) -> None:
    """Put one cell into the input, expected or output object being built."""
    if field:
        target[field] = value
        return
    if value is None:
        return
    if not isinstance(value, dict):
        raise DatasetError(
            _(
                "{where}: the column holds the whole {role} but this cell is {value}, not an object. "
                'Write a JSON object such as {{"question": "..."}}, or give the column a field name (name it '
                "{role}.<field>)."
            ).format(where=where, role=role.value, value=_describe(value))
        )
    target.update(value)

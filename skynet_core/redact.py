"""Keys out of error texts: what a provider (or a proxy) echoes back never reaches the metric, a page or a file.

An error body may repeat the request's ``Authorization`` header. Every error text
that crosses to the metric, the page, the CLI or the database passes through
:func:`redact` first: it removes the keys this process knows (its environment's
key variables and any typed in) and anything shaped like one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

REDACTED = "[redacted]"
NO_ENV: Mapping[str, str] = {}
"""Pass as ``env`` when the environment's keys are already among the ``extra`` ones (read once, for a run)."""
MIN_SECRET_CHARS = 8  # shorter values are no secret worth hiding, and hiding them would garble text
_SECRET_NAMES = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD)$", re.IGNORECASE)
_SHAPES = re.compile(
    r"(?i:\bbearer\s+)[^\s\"',;]+"  # an echoed Authorization header
    r"|\bsk-[A-Za-z0-9_\-]{8,}"  # OpenAI-style keys (sk-…, sk-proj-…, sk-ant-…)
    r"|(?i:(?:api[_-]?key|x-api-key)[\"']?\s*[:=]\s*[\"']?)[^\s\"',;&}]+"  # key=… / "api_key": "…"
)


class Secrets(tuple[str, ...]):
    """Keys gathered by :func:`known_secrets` (each at least :data:`MIN_SECRET_CHARS` long, once, longest first).
    Given again as ``extra`` with an empty ``env``, they are used as they are: a run gathers them once and
    redacts every text of every call with them."""


def known_secrets(env: Mapping[str, str] | None = None, extra: Iterable[str | None] = ()) -> Secrets:
    """The values of the environment's key-like variables, and ``extra`` keys, longest first."""
    if isinstance(extra, Secrets) and env is not None and not env:
        return extra
    env = os.environ if env is None else env
    values = {value for name, value in env.items() if _SECRET_NAMES.search(name)}
    values.update(value for value in extra if value)
    return Secrets(sorted((value for value in values if len(value) >= MIN_SECRET_CHARS), key=len, reverse=True))


def redact(text: str, extra: Iterable[str | None] = (), env: Mapping[str, str] | None = None) -> str:
    """``text`` with every known key (see :func:`known_secrets`) and key-shaped string replaced by ``[redacted]``."""
    for secret in known_secrets(env, extra):
        text = text.replace(secret, REDACTED)
    # Every shape holds "bearer", "key" (either case) or "sk-": a text with none of them has nothing to match,
    # and most texts (a judge's answer, its instructions) are checked without running the pattern.
    lower = text.lower()
    if "key" in lower or "bearer" in lower or "sk-" in text:
        return _SHAPES.sub(_hide_value, text)
    return text


def _hide_value(match: re.Match[str]) -> str:
    found = match.group()
    if found.lower().startswith("bearer"):
        return found.split(None, 1)[0] + " " + REDACTED
    if found.startswith("sk-"):
        return REDACTED
    label = re.match(r"(?i)(?:api[_-]?key|x-api-key)[\"']?\s*[:=]\s*[\"']?", found)
    return (label.group() if label else "") + REDACTED

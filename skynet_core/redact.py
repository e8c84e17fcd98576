"""Keys out of error texts: what a provider (or a proxy) echoes back never reaches the metric, a page or a file.

An error body may repeat the request's ``Authorization`` header. Every error text
that crosses to the metric, the page, the CLI or the database passes through
:func:`redact` first: it removes the keys this process knows (its environment's
key variables and any typed in) and anything shaped like one.

A known key is also found in the copies a provider could make of it (:func:`key_copies`): reversed,
URL-encoded (as ``urllib`` quotes it, and with every other character as ``%XX``, e.g. ``sk%2Dproj%2D…``,
either case of hex digit), in base64 (standard and URL-safe alphabets, alone or at any of the three
offsets a key can start at inside a longer base64 stream: the characters that hold only the key's bits
are removed), in hex (lower and upper case), and with its characters spaced out by whitespace. Not
caught: other encodings and ciphers (ROT13, a base64 stream wrapped across lines, a mix of encoded and
plain characters, a key cut in two), and any copy of a key this process does not know that has no
key's shape.
"""

from __future__ import annotations

import base64
import functools
import os
import re
import urllib.parse
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
    """``text`` with every known key (see :func:`known_secrets`) and its copies (:func:`key_copies`), and every
    key-shaped string, replaced by ``[redacted]``."""
    secrets = known_secrets(env, extra)
    literals, spaced = _copies_of(secrets)
    for copy in literals:
        text = text.replace(copy, REDACTED)
    if spaced is not None:
        # A spaced-out copy is the key once the whitespace is gone: that quick look spares most texts the pattern.
        squeezed = "".join(text.split())
        if any(secret in squeezed for secret in secrets):
            text = spaced.sub(REDACTED, text)
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


def key_copies(key: str) -> list[str]:
    """The copies of ``key`` a provider could echo that :func:`redact` finds literally: the key, reversed,
    URL-encoded, in base64 at each offset of a stream and in hex (see the module's docstring), longest first."""
    raw = key.encode("utf-8", "surrogatepass")
    every = "".join(char if char.isalnum() else "".join(f"%{byte:02X}" for byte in char.encode()) for char in key)
    found = {
        key,
        key[::-1],
        urllib.parse.quote(key, safe=""),
        urllib.parse.quote_plus(key),
        every,
        re.sub(r"%[0-9A-F]{2}", lambda escape: escape.group().lower(), every),
        raw.hex(),
        raw.hex().upper(),
        *_base64_cores(raw),
    }
    return sorted((copy for copy in found if len(copy) >= MIN_SECRET_CHARS), key=len, reverse=True)


def _base64_cores(raw: bytes) -> list[str]:
    """The base64 characters that encode only ``raw``'s bits, for each offset (0, 1, 2 bytes into a group) at
    which ``raw`` can start inside a base64 stream, in both alphabets. The characters at either end that mix
    in the stream's neighbouring bytes are left out: they differ from stream to stream."""
    cores = []
    for offset in range(3):
        data = bytes(offset) + raw
        start = (offset * 4 + 2) // 3  # the first character made of the key's bits alone
        end = 4 * (len(data) // 3) + len(data) % 3  # past the last one
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            cores.append(encode(data).decode("ascii")[start:end])
    return cores


@functools.lru_cache(maxsize=64)
def _copies_of(secrets: tuple[str, ...]) -> tuple[tuple[str, ...], re.Pattern[str] | None]:
    """Every literal copy of ``secrets`` (longest first), and one pattern for their spaced-out copies (None
    without secrets). Computed once for a set of keys: a run redacts every text of every call with the same."""
    literals = sorted({copy for secret in secrets for copy in key_copies(secret)}, key=len, reverse=True)
    spaced = "|".join(r"\s+".join(re.escape(char) for char in secret) for secret in secrets)
    return tuple(literals), re.compile(spaced) if spaced else None

"""Transformed copies of a key (skynet_core/redact.py): a provider that echoes the key URL-encoded, in base64 (at
any offset of a base64 stream, either alphabet), in hex, reversed or with its characters spaced out gets none of
it past the redactor, while ordinary text around it is left as it was."""

from __future__ import annotations

import base64
import binascii
import urllib.parse

import pytest

from skynet_core.redact import NO_ENV, REDACTED, known_secrets, redact

KEY = "sk-proj-Zq9xY8wV7uT6sR5qP4oN3mL2"
PLAIN = "test-secret-Zq9xY8wV7uT6sR5q"  # a key of no known shape: only knowing it finds it


def percent_all(text: str) -> str:
    """Every character that is not a letter or digit percent-encoded, as some clients do (``-`` as ``%2D``)."""
    return "".join(char if char.isalnum() else f"%{ord(char):02X}" for char in text)


def b64_at(key: str, offset: int, alphabet: str = "standard") -> str:
    """``key`` inside a base64 stream: ``offset`` bytes of other data before it, some after."""
    data = b"ab"[:offset] + key.encode() + b"!?"
    encoded = base64.b64encode(data) if alphabet == "standard" else base64.urlsafe_b64encode(data)
    return encoded.decode()


def copies(key: str) -> dict[str, str]:
    return {
        "raw": key,
        "url quote": urllib.parse.quote(key, safe=""),
        "url quote_plus": urllib.parse.quote_plus(key),
        "url every dash": percent_all(key),
        "url every dash, lower": percent_all(key).replace("%2D", "%2d"),
        **{f"base64 offset {offset}": b64_at(key, offset) for offset in range(3)},
        **{f"base64url offset {offset}": b64_at(key, offset, "urlsafe") for offset in range(3)},
        "base64 alone": base64.b64encode(key.encode()).decode(),
        "hex": binascii.hexlify(key.encode()).decode(),
        "HEX": binascii.hexlify(key.encode()).decode().upper(),
        "reversed": key[::-1],
        "spaced": " ".join(key),
        "spaced by newlines": "\n".join(key),
    }


@pytest.mark.parametrize("key", [KEY, PLAIN])
@pytest.mark.parametrize("form", list(copies(KEY)))
def test_a_transformed_copy_of_a_known_key_is_redacted(key: str, form: str) -> None:
    secrets = known_secrets(NO_ENV, [key])
    copy = copies(key)[form]
    text = f"The proxy said: {copy} (request 42)."
    found = redact(text, secrets, NO_ENV)
    assert copy not in found and REDACTED in found
    assert found.startswith("The proxy said: ") and found.endswith(" (request 42).")
    # No stretch of the key's own characters survives either (base64 of a key at an offset leaves at most a
    # character of the stream on each side).
    assert key[3:-3] not in found


def test_a_key_from_the_environment_is_redacted_in_every_form(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", PLAIN)
    for form, copy in copies(PLAIN).items():
        assert copy not in redact(f"echo {copy}"), form


def test_text_that_only_resembles_a_key_is_left_alone() -> None:
    secrets = known_secrets(NO_ENV, [PLAIN])
    text = "The invoice test failed: secret-Zq9 is a code, 7465 is hex of nothing, and so on."
    assert redact(text, secrets, NO_ENV) == text

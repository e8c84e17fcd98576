"""Answers sent ahead to the sandbox, sealed by the request that asks for them.

When the studio scores a case again, it sends with the case the cached answers of the ``llm()`` calls the
case made last time, so that a call whose answer the cache holds is answered inside the sandbox, without a
round trip to the studio. Each answer is sealed by its request (the instructions, the input and how many
identical calls the case made before it): the sandbox finds an answer by the request's :func:`lookup_id`
and can read it only with :func:`seal_key` of the same request. So metric code learns from what was sent
only the answers of the calls it makes, exactly what asking would have given it, and nothing of calls it
does not make (an earlier version of the metric's, say).

The seal is a keystream from SHAKE-256 of the request's key and a random nonce, XORed with the answer's
UTF-8 bytes; the nonce and the result go in base64 (JSON carries text). The id and the key are SHA-256 of
the request under two different prefixes, so the id sent tells nothing of the key. The sealed bytes are the
answer's length (4 bytes) and the answer, padded with zeros to a bucket (:func:`bucket_bytes`: at least
256 bytes, else the next power of two), so a sealed answer's length says nothing of a short answer (a PASS
and a paragraph of reasons look alike) and of a long one only its power of two.

Only the answers of the metric being run are sent (``skynet_core.llm.ahead``): a metric learns nothing,
not even that they exist, of the calls another metric made on the same cases.

STDLIB ONLY: the sandbox's child imports this module by its own name (``sealed``) and the studio as
``skynet_core.scoring.sandbox.sealed``; both must compute the same bytes.
"""

from __future__ import annotations

import base64
import hashlib
import os

ID_CHARS = 32
"""Hex characters of a request's :func:`lookup_id` (128 bits)."""
NONCE_BYTES = 16
LENGTH_BYTES = 4
MIN_SEALED_BYTES = 256


def request_bytes(instructions: str, input: str | None, repeat: int) -> bytes:
    """One ``llm()`` call as bytes, unambiguously: ``repeat`` (the identical calls its case made before it), the
    instructions' length and text, then ``-`` for no input or ``+`` and the input."""
    head = instructions.encode("utf-8", "surrogatepass")
    tail = b"-" if input is None else b"+" + input.encode("utf-8", "surrogatepass")
    return b"%d\n%d\n%s%s" % (repeat, len(head), head, tail)


def lookup_id(request: bytes) -> str:
    """What finds the answer of ``request`` (:func:`request_bytes`) among those sent ahead."""
    return hashlib.sha256(b"skynet-ahead-id\0" + request).hexdigest()[:ID_CHARS]


def seal_key(request: bytes) -> bytes:
    """The key that seals and opens the answer of ``request``; never sent."""
    return hashlib.sha256(b"skynet-ahead-seal\0" + request).digest()


def bucket_bytes(size: int) -> int:
    """The bytes a sealed body of ``size`` bytes (length and answer) is padded to: :data:`MIN_SEALED_BYTES`,
    else the next power of two."""
    bucket = MIN_SEALED_BYTES
    while bucket < size:
        bucket *= 2
    return bucket


def seal(text: str, key: bytes) -> str:
    """``text`` sealed with ``key`` (:func:`seal_key`) and a fresh nonce, padded to its bucket."""
    data = text.encode("utf-8", "surrogatepass")
    body = len(data).to_bytes(LENGTH_BYTES, "big") + data
    body += bytes(bucket_bytes(len(body)) - len(body))
    nonce = os.urandom(NONCE_BYTES)
    return base64.b64encode(nonce + _xor(body, key, nonce)).decode("ascii")


def unseal(sealed: str, key: bytes) -> str:
    """The text :func:`seal` sealed (raises ``ValueError`` when ``sealed`` is not base64, or the key is wrong
    and the length or the bytes make no sense)."""
    raw = base64.b64decode(sealed, validate=True)
    nonce = raw[:NONCE_BYTES]
    body = _xor(raw[NONCE_BYTES:], key, nonce)
    size = int.from_bytes(body[:LENGTH_BYTES], "big")
    if size > len(body) - LENGTH_BYTES:
        raise ValueError("the sealed answer does not open with this key")
    return body[LENGTH_BYTES : LENGTH_BYTES + size].decode("utf-8", "surrogatepass")


def _xor(data: bytes, key: bytes, nonce: bytes) -> bytes:
    stream = hashlib.shake_256(key + nonce).digest(len(data))
    return (int.from_bytes(data, "little") ^ int.from_bytes(stream, "little")).to_bytes(len(data), "little")

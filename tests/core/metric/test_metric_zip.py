"""Issue 21 item 14: a malformed or strange zip gives a clear message, and the whole folder is checked
before it becomes the draft."""

from __future__ import annotations

import io
import struct
import zipfile

import pytest

from skynet_core.metric.archive import read_zip
from skynet_core.metric.source import MetricSourceError

SCORE = 'def score(input, output, expected=None):\n    return 1.0, {"feedback": "ok"}\n'


def archive(files: list[tuple[str, str]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as zipped:
        for name, text in files:
            zipped.writestr(name, text)
    return buffer.getvalue()


def patch_headers(data: bytes, local_offset: int, central_offset: int, fmt: str, value: int) -> bytes:
    """Set one field in every local header and central directory entry of ``data``."""
    out = bytearray(data)
    for signature, offset in ((b"PK\x03\x04", local_offset), (b"PK\x01\x02", central_offset)):
        start = 0
        while (start := out.find(signature, start)) >= 0:
            struct.pack_into(fmt, out, start + offset, value)
            start += 4
    return bytes(out)


def damaged(kind: str) -> bytes:
    good = archive([("metric.py", SCORE * 20)])
    if kind == "bad CRC":
        return patch_headers(good, 14, 16, "<I", 0x12345678)
    if kind == "wrong size":
        return patch_headers(good, 22, 24, "<I", 7)
    if kind == "unknown method":
        return patch_headers(good, 8, 10, "<H", 99)
    if kind == "encrypted":
        return patch_headers(good, 6, 8, "<H", 0x1)
    assert kind == "corrupt deflate"
    data = bytearray(good)
    body = data.find(b"metric.py") + len("metric.py") + 2
    data[body : body + 8] = b"\xff" * 8
    return bytes(data)


@pytest.mark.parametrize("kind", ["bad CRC", "wrong size", "unknown method", "encrypted", "corrupt deflate"])
def test_a_damaged_zip_is_a_message_not_a_traceback(kind):
    with pytest.raises(MetricSourceError) as caught:
        read_zip(damaged(kind))
    assert "metric.py in the archive" in str(caught.value), str(caught.value)


def test_not_a_zip_at_all_says_so():
    with pytest.raises(MetricSourceError, match="not a zip archive"):
        read_zip(b"PK\x03\x04 not really")


@pytest.mark.parametrize(
    ("files", "words"),
    [
        ([("metric.py", SCORE), ("helpers.py", "X = 1\n"), ("helpers.py/inner.py", "Y = 2\n")], "also the folder"),
        ([("metric.py", SCORE), ("metric.py/x.py", "")], "also the folder"),
        ([("metric.py", SCORE), ("x" * 300 + ".py", "")], "too long"),
        (
            [("metric.py", "def score(i, o, e=None):\n    return 0.0, {'feedback': 'first'}\n"), ("metric.py", SCORE)],
            "appears twice",
        ),
    ],
)
@pytest.mark.filterwarnings("ignore:Duplicate name")  # zipfile's own, when the test writes metric.py twice
def test_a_zip_that_cannot_be_a_folder_is_refused_before_it_becomes_the_draft(files, words):
    with pytest.raises(MetricSourceError, match=words):
        read_zip(archive(files))


def test_the_refusals_reach_the_upload_handler_as_the_error_it_shows():
    """The Author page's upload handler shows MetricSourceError; nothing else may escape from_zip."""
    for kind in ("bad CRC", "wrong size", "unknown method", "encrypted", "corrupt deflate"):
        try:
            read_zip(damaged(kind))
        except MetricSourceError:
            continue
        raise AssertionError(f"{kind}: accepted")


def test_an_archive_declaring_a_huge_number_of_entries_is_refused_before_they_are_read():
    data = bytearray(archive([("metric.py", SCORE)]))
    end = data.rfind(b"PK\x05\x06")
    struct.pack_into("<HH", data, end + 8, 60_000, 60_000)
    with pytest.raises(MetricSourceError, match="60,000 entries"):
        read_zip(bytes(data))

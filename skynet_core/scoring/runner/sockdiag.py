"""The bytes queued in the sockets of one network namespace, from the kernel's ``sock_diag`` netlink interface.

A socket's buffers are kernel memory that no process maps: a unix socket pair filled to its send
buffer holds up to twice ``net.core.wmem_max`` (8 MiB here) whatever process holds it. The kernel
lists every unix, TCP and UDP socket of the namespace a netlink socket was made in, with what each
holds (``SK_MEMINFO``); :func:`queued_bytes` sums it. The wire format is Linux's
(``linux/sock_diag.h``, ``linux/unix_diag.h``, ``linux/inet_diag.h``), little-endian on every
machine this runs on (native order, ``=``).
"""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterator

NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
HEADER = struct.Struct("=IHHII")  # nlmsghdr: length, type, flags, sequence, port
ATTRIBUTE = struct.Struct("=HH")  # rtattr: length, type
ALL_STATES = 0xFFFFFFFF
# unix_diag_req: family, protocol, pad, states, inode, what to show, cookie; the reply's header is 16 bytes.
UNIX_REQUEST = struct.Struct("=BBHIIIII")
UDIAG_SHOW_MEMINFO, UNIX_DIAG_MEMINFO, UNIX_MESSAGE = 0x20, 5, 16
# inet_diag_req_v2: family, protocol, extensions, pad, states, then a 48-byte socket id; the reply's is 72.
INET_REQUEST = struct.Struct("=BBBxI48x")
INET_DIAG_SKMEMINFO, INET_MESSAGE = 7, 72
INODE_AT: dict[int, int] = {socket.AF_UNIX: 4, socket.AF_INET: 68, socket.AF_INET6: 68}
# SK_MEMINFO_* positions: what a socket holds in its receive queue, its sent data still queued (a unix
# socket's sent bytes wait in the peer's queue, charged to the sender), its write queue and its backlog.
RMEM_ALLOC, WMEM_ALLOC, WMEM_QUEUED, BACKLOG = 0, 2, 5, 7
READ_BYTES = 1 << 16


def open_diag() -> socket.socket:
    """A netlink socket for :func:`queued_bytes`, in the calling thread's network namespace."""
    diag = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW | socket.SOCK_CLOEXEC, NETLINK_SOCK_DIAG)
    diag.settimeout(1.0)  # the kernel answers at once; a watchdog must never wait for ever
    return diag


def queued_bytes(diag: socket.socket, only: set[int] | None = None) -> tuple[int, int]:
    """(bytes, sockets): what the unix, TCP and UDP sockets of ``diag``'s namespace hold, and how many
    there are; with ``only``, just the sockets of those inode numbers."""
    total = count = 0
    for family, request in _requests():
        for inode, memory in _dump(diag, family, request):
            if only is not None and inode not in only:
                continue
            count += 1
            total += memory[RMEM_ALLOC] + max(memory[WMEM_ALLOC], memory[WMEM_QUEUED]) + memory[BACKLOG]
    return total, count


def _requests() -> Iterator[tuple[int, bytes]]:
    yield socket.AF_UNIX, UNIX_REQUEST.pack(socket.AF_UNIX, 0, 0, ALL_STATES, 0, UDIAG_SHOW_MEMINFO, 0, 0)
    extension = 1 << (INET_DIAG_SKMEMINFO - 1)
    for family in (socket.AF_INET, socket.AF_INET6):
        for protocol in (socket.IPPROTO_TCP, socket.IPPROTO_UDP):
            yield family, INET_REQUEST.pack(family, protocol, extension, ALL_STATES)


def _dump(diag: socket.socket, family: int, request: bytes) -> Iterator[tuple[int, tuple[int, ...]]]:
    """(inode, SK_MEMINFO values) for every socket one dump request lists."""
    diag.send(HEADER.pack(HEADER.size + len(request), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, 1, 0) + request)
    body_at = UNIX_MESSAGE if family == socket.AF_UNIX else INET_MESSAGE
    wanted = UNIX_DIAG_MEMINFO if family == socket.AF_UNIX else INET_DIAG_SKMEMINFO
    while True:
        data = diag.recv(READ_BYTES)
        offset = 0
        while offset + HEADER.size <= len(data):
            length, kind = HEADER.unpack_from(data, offset)[:2]
            if kind == NLMSG_DONE:
                return
            if kind == NLMSG_ERROR or length < HEADER.size:
                return  # a protocol this kernel does not list (no IPv6, say): nothing to count
            message = data[offset + HEADER.size : offset + length]
            memory = _attribute(message, body_at, wanted)
            if memory is not None and len(message) >= INODE_AT[family] + 4:
                yield struct.unpack_from("=I", message, INODE_AT[family])[0], memory
            offset += (length + 3) & ~3


def _attribute(message: bytes, offset: int, wanted: int) -> tuple[int, ...] | None:
    while offset + ATTRIBUTE.size <= len(message):
        length, kind = ATTRIBUTE.unpack_from(message, offset)
        if length < ATTRIBUTE.size:
            return None
        if kind == wanted:
            value = message[offset + ATTRIBUTE.size : offset + length]
            values = struct.unpack(f"={len(value) // 4}I", value[: len(value) // 4 * 4])
            return values if len(values) > BACKLOG else None
        offset += (length + 3) & ~3
    return None

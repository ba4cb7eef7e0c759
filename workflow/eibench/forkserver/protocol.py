"""What the fork server and its clients say to each other, and the names they share.

Every message is a JSON object preceded by its length (4 bytes, big-endian); a request carries
the client's standard streams (file descriptors 0, 1 and 2) with its first bytes (SCM_RIGHTS).
The server listens on an abstract Unix socket (Linux: no file, nothing to remove) named by
``ADDRESS_VARIABLE`` in the environment Snakemake gives its jobs, and answers only processes of
its own user.

Messages:

- request, client to server: ``{"script", "cwd", "argv", "env"}`` and the three descriptors;
- ``{"started": pid}``, the job's process to the client, before the script's first line;
- ``{"exit": code}``, the job's process to the client, after the script and the exit handlers;
- ``{"exit": code}`` or ``{"signal": number}``, the server to the client, once it has reaped the
  job's process (the status a killed process could not report itself).

This module imports only the standard library's light modules: the client imports it in every
job before anything else.
"""

from __future__ import annotations

import json
import os
import socket
import struct
from typing import Any

#: The server's abstract socket name, set by lifecycle.start in the Snakemake process's
#: environment (so every local job inherits it).
ADDRESS_VARIABLE = "EIBENCH_FORKSERVER_ADDRESS"
#: ``EIBENCH_FORKSERVER=0`` (or false, no, off) runs every job cold: no server is started.
SWITCH_VARIABLE = "EIBENCH_FORKSERVER"
#: The variables Snakemake sets from a job's ``threads`` (snakemake/shell.py). The server imports
#: numpy's BLAS with each at "1", the value of every rule's ``threads: 1``; a job that asks for
#: another value runs cold, since its BLAS would have another thread count.
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "GOTO_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)
SERVER_THREADS = "1"
#: What the server writes to its log once it accepts jobs (lifecycle.wait_ready reads it).
READY = "listening"

_HEADER = struct.Struct(">I")
MAX_MESSAGE = 16 * 1024 * 1024  # a request holds an environment: kilobytes, not megabytes


class ProtocolError(Exception):
    """A message that is not a length-prefixed JSON object of this protocol."""


def socket_address(name: str) -> str:
    """The abstract-namespace address of ``name`` (a leading NUL byte)."""
    return "\0" + name


def send_message(sock: socket.socket, message: dict[str, Any], fds: tuple[int, ...] = ()) -> None:
    """Send ``message``; the descriptors ``fds`` go with its first bytes."""
    payload = json.dumps(message, separators=(",", ":")).encode()
    header = _HEADER.pack(len(payload))
    if fds:
        socket.send_fds(sock, [header], list(fds))
        sock.sendall(payload)
    else:
        sock.sendall(header + payload)


def _recv_exactly(sock: socket.socket, n: int) -> bytes | None:
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(n - got)
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def recv_message(sock: socket.socket, max_fds: int = 0) -> tuple[dict[str, Any], list[int]] | None:
    """The next message and the descriptors that came with it; None at the end of the stream
    (the peer closed it, possibly in the middle of a message). Raises ProtocolError on a
    message that is too long or not a JSON object; descriptors received with it are closed."""
    fds: list[int] = []
    if max_fds:
        head, fds, _flags, _addr = socket.recv_fds(sock, _HEADER.size, max_fds)
    else:
        head = sock.recv(_HEADER.size)
    try:
        if not head:
            _close(fds)
            return None
        if len(head) < _HEADER.size:
            rest = _recv_exactly(sock, _HEADER.size - len(head))
            if rest is None:
                _close(fds)
                return None
            head += rest
        (length,) = _HEADER.unpack(head)
        if length > MAX_MESSAGE:
            raise ProtocolError(f"a message of {length} bytes (at most {MAX_MESSAGE})")
        payload = _recv_exactly(sock, length)
        if payload is None:
            _close(fds)
            return None
        message = json.loads(payload)
        if not isinstance(message, dict):
            raise ProtocolError("a message that is not a JSON object")
    except (ProtocolError, ValueError) as exc:
        _close(fds)
        raise ProtocolError(str(exc)) from exc
    return message, fds


def _close(fds: list[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass

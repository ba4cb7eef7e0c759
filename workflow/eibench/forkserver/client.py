"""The first statement of every rule script: hand the job to the run's fork server.

    from eibench.forkserver.client import hand_off

    hand_off()

In a job that Snakemake started while a fork server of the run is listening, ``hand_off`` sends
the job (Snakemake's copy of the script, with its preamble; the working folder, arguments,
environment and standard streams) to the server, forwards the signals it receives to the job's
process, and exits as that process exited: with its exit code, or killed by the same signal. It
returns at once, and the script goes on here, when there is no server (no address in the
environment, a cluster job, a run with ``EIBENCH_FORKSERVER=0``), when the server does not
answer (still importing, or gone), when the job asks for another thread count than the server's,
when the script was not started by Snakemake, and inside the server's child itself. Returning
is always safe: the job's script has not started anywhere else.

Costs nothing measurable: this module and ``protocol`` import only light standard modules.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
from typing import Any, NoReturn

from .protocol import (
    ADDRESS_VARIABLE,
    SERVER_THREADS,
    THREAD_VARIABLES,
    ProtocolError,
    recv_message,
    send_message,
    socket_address,
)

#: Set by the server in its child, where the script runs: hand_off must return there.
in_server_child = False

FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)


def _script_copy() -> str | None:
    """The file Snakemake runs (its preamble and the script), or None outside a script job.
    Snakemake's preamble keeps its path as ``__real_file__`` and sets ``__file__`` to the
    original script."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__real_file__", None)
    return path if isinstance(path, str) and os.path.isfile(path) else None


def request_for(script: str) -> dict[str, Any]:
    """The job as the server needs it to run it as this process would."""
    return {"script": os.path.abspath(script), "cwd": os.getcwd(), "argv": list(sys.argv), "env": dict(os.environ)}


def hand_off() -> None:
    """Run this job in a child of the fork server and exit with its status, or return (see the
    module's docstring for when)."""
    address = os.environ.get(ADDRESS_VARIABLE)
    if in_server_child or not address:
        return
    script = _script_copy()
    if script is None or any(os.environ.get(name) != SERVER_THREADS for name in THREAD_VARIABLES):
        return
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(socket_address(address))
        send_message(sock, request_for(script), fds=(0, 1, 2))
        first = recv_message(sock)
    except (OSError, ProtocolError):
        sock.close()
        return
    if first is None or not isinstance(first[0].get("started"), int):
        # No process of the job was started (the server refused or ended first): run it here.
        sock.close()
        return
    _follow(sock, first[0]["started"])


def _follow(sock: socket.socket, pid: int) -> NoReturn:
    """Forward signals to the job's process ``pid`` until its status arrives; exit with it."""

    def forward(signum: int, _frame: object) -> None:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass

    for signum in FORWARDED_SIGNALS:
        signal.signal(signum, forward)
    status: dict[str, Any] | None = None
    while True:
        try:
            received = recv_message(sock)
        except (OSError, ProtocolError):
            received = None
        if received is None:
            break
        message = received[0]
        if "exit" in message or "signal" in message:
            status = message
            break
    sock.close()
    sys.stdout.flush()
    sys.stderr.flush()
    if status is None:
        print(
            f"eibench fork server: the job's process {pid} ended without reporting its status "
            "(the server was stopped while the job ran?)",
            file=sys.stderr,
        )
        os._exit(1)
    if "signal" in status:
        number = int(status["signal"])
        try:
            signal.signal(number, signal.SIG_DFL)
        except (OSError, ValueError):  # SIGKILL and SIGSTOP have no handler to reset
            pass
        os.kill(os.getpid(), number)
        os._exit(128 + number)  # the signal's default action does not end a process
    os._exit(int(status["exit"]) & 0xFF)

"""Start and stop the run's fork server from Snakemake's ``onstart``, ``onsuccess`` and ``onerror``
(workflow/rules/common.smk).

``start`` writes ``logs/forkserver.log`` (its first line says whether the run has a server and,
if not, why; the server appends what it preloaded and served), starts the server in a session of
its own and puts its address in the environment of the Snakemake process, which every local job
inherits. ``stop`` ends it. The server also ends by itself when the Snakemake process is gone,
however it ended: it holds the read end of a pipe (its *lifeline*) whose only write end is in
the Snakemake process.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .protocol import ADDRESS_VARIABLE, READY, SERVER_THREADS, SWITCH_VARIABLE, THREAD_VARIABLES

LOG = Path("logs/forkserver.log")
STOP_TIMEOUT_S = 10.0
ON, OFF = "fork server: on", "fork server: off"
OFF_VALUES = frozenset({"0", "false", "no", "off"})  # of SWITCH_VARIABLE, in any case


@dataclass
class _Running:
    process: subprocess.Popen[bytes]
    lifeline: int


_running: _Running | None = None


def why_off(local: bool) -> str | None:
    """Why this run starts no server (each job then runs cold), or None."""
    switch = os.environ.get(SWITCH_VARIABLE, "")
    if switch.strip().lower() in OFF_VALUES:
        return f"{SWITCH_VARIABLE}={switch}"
    if not sys.platform.startswith("linux"):
        return f"{sys.platform}: the fork server runs on Linux only"
    if not local:
        return "the jobs run on another executor (a cluster), each in a fresh process"
    return None


def start(local: bool, scripts: Path, log: Path = LOG) -> bool:
    """Start the run's server, unless :func:`why_off` says otherwise or one runs already;
    return whether one runs. ``local``: whether this Snakemake process runs the jobs itself
    (``workflow.local_exec``); ``scripts``: the folder of the rule scripts."""
    global _running
    if _running is not None:
        return True
    log.parent.mkdir(parents=True, exist_ok=True)
    reason = why_off(local)
    if reason is not None:
        log.write_text(f"{OFF} ({reason})\n")
        return False
    address = f"eibench-forkserver-{os.getpid()}-{secrets.token_hex(8)}"
    out = open(log, "w")
    out.write(f"{ON} (address @{address}; jobs run in its children; {SWITCH_VARIABLE}=0 turns it off)\n")
    out.flush()
    read_end, write_end = os.pipe()
    env = dict(os.environ) | {name: SERVER_THREADS for name in THREAD_VARIABLES}
    command = [sys.executable, "-P", "-m", "eibench.forkserver.server"]
    command += ["--address", address, "--lifeline", str(read_end), "--scripts", str(scripts)]
    try:
        process = subprocess.Popen(
            command,
            pass_fds=(read_end,),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,  # a Ctrl-C in the terminal reaches the jobs, not the server
        )
    except OSError as exc:
        os.close(write_end)
        out.write(f"could not start: {exc}; every job runs cold\n")
        return False
    finally:
        os.close(read_end)
        out.close()  # the server has its own copy of the descriptor
    os.environ[ADDRESS_VARIABLE] = address
    _running = _Running(process, write_end)
    return True


def server_pid() -> int | None:
    """The process ID of the running server, or None."""
    return None if _running is None else _running.process.pid


def wait_ready(log: Path = LOG, timeout: float = 120.0) -> bool:
    """Wait until the running server accepts jobs (its log says so); False if there is none, it
    ended, or ``timeout`` seconds passed. A run never waits: its jobs run cold until then. This
    is for benchmarks and tests that time or test the served path."""
    deadline = time.monotonic() + timeout
    while _running is not None and _running.process.poll() is None and time.monotonic() < deadline:
        if READY in log.read_text():
            return True
        time.sleep(0.05)
    return False


def stop() -> None:
    """End the run's server (if any) and wait for it: it exits at once, even in the middle of
    its imports; jobs still running in its children are not touched."""
    global _running
    if _running is None:
        return
    running, _running = _running, None
    os.environ.pop(ADDRESS_VARIABLE, None)
    os.close(running.lifeline)
    running.process.terminate()
    try:
        running.process.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        running.process.kill()
        running.process.wait()


def run_had_server(log: Path = LOG) -> bool | None:
    """Whether the last run that started jobs here had a fork server (from ``log``'s first
    line); None when there is no such log (a run before the server existed, or none)."""
    try:
        with open(log) as f:
            first = f.readline()
    except FileNotFoundError:
        return None
    return first.startswith(ON)

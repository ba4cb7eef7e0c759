"""The fork server: import what the rule scripts import once, then fork one child per job.

    python -P -m eibench.forkserver.server --address NAME --lifeline FD --scripts DIR

(started by ``lifecycle.start``, not by hand). In order:

1. Imports the modules of ``preload.modules_to_preload`` and notes the environment variables
   those imports set (eibench.report gives the process its matplotlib folder): a job's process
   gets them as a fresh process would have set them.
2. Checks that no other thread runs in its process (a fork copies only the calling thread; a
   lock held by another thread would stay locked in the child), but those known to survive a
   fork (``FORK_SAFE_THREADS``). If one does, it exits, and every job runs cold.
3. Listens on the abstract Unix socket ``NAME``; until then a job finds no server and runs cold.
4. For each job: checks that the client runs as the same user, reads the request and its three
   descriptors, forks. The child becomes the job (:func:`_become_job`) and runs the script;
   the server reaps it and sends its status.
5. Ends when the ``lifeline`` descriptor reaches end-of-file (the Snakemake process closed it or
   is gone) or on SIGTERM. Jobs still running go on, as jobs started by a killed Snakemake do.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import io
import json
import os
import runpy
import selectors
import signal
import socket
import struct
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any, NoReturn

from . import client
from .preload import modules_to_preload, preload
from .protocol import READY, ProtocolError, recv_message, send_message, socket_address

REQUEST_TIMEOUT_S = 10.0  # a client sends its request as soon as it connects
_PEERCRED = struct.Struct("3i")  # struct ucred: pid, uid, gid
LIFELINE_CLOSED, STOPPED = "the run is over (lifeline closed)", "stopped (SIGTERM)"  # how serve() ended


def log(message: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} fork server {os.getpid()}: {message}", flush=True)


#: Threads that other libraries start at import and that survive a fork by design: jemalloc
#: (in pyarrow) locks its state around fork() and resets its background threads in the child.
FORK_SAFE_THREADS = frozenset({"jemalloc_bg_thd"})


def other_threads() -> list[str]:
    """The names of this process's threads besides the calling one and those of
    ``FORK_SAFE_THREADS``, as the kernel lists them (native threads that Python did not start
    count too)."""
    me = threading.get_native_id()
    names = []
    for task in sorted(os.listdir("/proc/self/task")):
        if int(task) == me:
            continue
        try:
            with open(f"/proc/self/task/{task}/comm") as comm:
                name = comm.read().strip()
        except FileNotFoundError:  # ended meanwhile
            continue
        if name not in FORK_SAFE_THREADS:
            names.append(name)
    return names


class Stopped(SystemExit):
    """SIGTERM (lifecycle.stop) before the server listens: end it, even in the middle of its
    imports; the exit handlers run. Once it listens, a SIGTERM only ends its loop
    (``Server.request_stop``)."""


def _stop(_signum: int, _frame: FrameType | None) -> None:
    raise Stopped(0)


# --- the job's process --------------------------------------------------------------------------


def _become_job(request: dict[str, Any], fds: list[int], env_added: dict[str, str]) -> str:
    """Turn this freshly forked child into the job's process: its standard streams, working
    folder, environment, arguments and signal handlers are those a cold Python started by
    Snakemake would have. Returns the script to run."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):  # as Python sets them up: stderr line-buffered, stdout on a terminal
            stream.reconfigure(line_buffering=stream is sys.stderr or stream.isatty())
    os.chdir(request["cwd"])
    env = {k: v for k, v in request["env"].items() if k != client.ADDRESS_VARIABLE}
    os.environ.clear()
    os.environ.update(env | env_added)
    tempfile.tempdir = None  # read TMPDIR again: the job's, not the server's
    script = str(request["script"])
    sys.argv = [str(a) for a in request["argv"]] or [script]
    sys.path.insert(0, os.path.dirname(script))  # as `python script` does (the server runs with -P)
    return script


def _script_traceback(tb: TracebackType | None, script: str) -> TracebackType | None:
    """The traceback from the script's first frame on: the frames of this module and of runpy
    above it are not the job's."""
    while tb is not None and tb.tb_frame.f_code.co_filename != script:
        tb = tb.tb_next
    return tb


def run_script(script: str) -> int:
    """Run ``script`` as ``__main__`` and return the exit code a cold ``python script`` would
    have: 0, the code of a SystemExit, or 1 after printing an uncaught exception's traceback.
    An uncaught KeyboardInterrupt ends the process by SIGINT, as Python does."""
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        code = exc.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    except BaseException as exc:
        traceback.print_exception(type(exc), exc, _script_traceback(exc.__traceback__, script) or exc.__traceback__)
        if isinstance(exc, KeyboardInterrupt):
            sys.stderr.flush()
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        return 1
    return 0


def _finish_like_python() -> None:
    """What Python does at exit after the main module: wait for the threads that are not
    daemons, run the exit handlers, flush the standard streams."""
    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None:
        shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


def _watch_client(conn: socket.socket, done: threading.Event) -> None:
    """The client sends nothing after its request: end-of-stream means it is gone (killed), and
    so the job goes too, as it would have died with it."""
    try:
        conn.recv(1)
    except OSError:
        pass
    if not done.is_set():
        os.kill(os.getpid(), signal.SIGKILL)


def _run_child(conn: socket.socket, request: dict[str, Any], fds: list[int], env_added: dict[str, str]) -> NoReturn:
    code = 1
    done = threading.Event()
    try:
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})  # blocked by the server around the fork
        script = _become_job(request, fds, env_added)
        client.in_server_child = True
        send_message(conn, {"started": os.getpid()})
        threading.Thread(target=_watch_client, args=(conn, done), name="client watch", daemon=True).start()
        code = run_script(script)
        _finish_like_python()
    except BaseException:  # the job must never run on in the server's loop
        traceback.print_exc()
    finally:
        done.set()
        try:
            send_message(conn, {"exit": code})
        except OSError:
            pass
        os._exit(code)


# --- the server's loop --------------------------------------------------------------------------


class Server:
    def __init__(self, listener: socket.socket, lifeline: int, env_added: dict[str, str]):
        self.listener = listener
        self.lifeline = lifeline
        self.env_added = env_added
        self.jobs: dict[int, socket.socket] = {}
        self.served = 0
        self.stop_requested = False
        self.receiving: socket.socket | None = None  # the connection whose request is being read
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_w, False)
        os.set_blocking(self.wake_r, False)
        self.selector = selectors.DefaultSelector()

    def request_stop(self, _signum: int, _frame: FrameType | None) -> None:
        """The SIGTERM handler while the server listens: the loop ends at its next turn (the
        signal's byte on the wake-up pipe ends its wait in select; a request being read is cut
        off, so that a client that connected and stalled cannot hold the server for the
        request's timeout: that client runs its job cold). Nothing is raised, so a SIGTERM that
        comes with the lifeline's end (``lifecycle.stop`` sends both) cannot cut the server's
        last log line or its exit short, wherever it lands."""
        self.stop_requested = True
        if self.receiving is not None:
            try:
                self.receiving.shutdown(socket.SHUT_RD)  # the read, retried after the signal, ends at once
            except OSError:
                pass

    def serve(self) -> str:
        """Accept and fork jobs until the lifeline ends or ``request_stop`` is called (before
        or during the call); returns which, for the log."""
        signal.signal(signal.SIGCHLD, lambda _s, _f: None)
        signal.set_wakeup_fd(self.wake_w)
        for fileobj in (self.listener, self.lifeline, self.wake_r):
            self.selector.register(fileobj, selectors.EVENT_READ)
        while not self.stop_requested:
            for key, _ in self.selector.select():
                if self.stop_requested:  # no job is started after a SIGTERM
                    break
                if key.fileobj is self.listener:
                    self.served += self.accept()
                elif key.fileobj == self.lifeline:
                    if not os.read(self.lifeline, 64):
                        return LIFELINE_CLOSED
                else:
                    try:
                        os.read(self.wake_r, 4096)
                    except BlockingIOError:
                        pass
            self.reap()
        return STOPPED

    def accept(self) -> int:
        conn, _ = self.listener.accept()
        fds: list[int] = []
        try:
            _pid, uid, _gid = _PEERCRED.unpack(conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size))
            if uid != os.getuid():
                log(f"refused a client of user {uid}")
                conn.close()
                return 0
            conn.settimeout(REQUEST_TIMEOUT_S)
            self.receiving = conn  # from here request_stop cuts the read off; before, the flag says it
            try:
                received = None if self.stop_requested else recv_message(conn, max_fds=3)
            finally:
                self.receiving = None
            conn.settimeout(None)
            if received is None:
                conn.close()
                return 0
            request, fds = received
            if len(fds) != 3 or not all(isinstance(request.get(k), t) for k, t in REQUEST_FIELDS.items()):
                raise ProtocolError(f"a request with {len(fds)} descriptors and fields {sorted(request)}")
        except (OSError, ProtocolError) as exc:
            log(f"dropped a request: {exc}")
            for fd in fds:
                os.close(fd)
            conn.close()
            return 0
        sys.stdout.flush()
        sys.stderr.flush()
        # A SIGTERM meant for the server waits until the fork is done; in the child, until the
        # job has the default handlers (_run_child), so that it is never taken for the server's.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        try:
            pid = os.fork()
        except OSError:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
            raise
        if pid == 0:
            try:
                signal.set_wakeup_fd(-1)
                self.selector.close()
                for fd in (self.lifeline, self.wake_r, self.wake_w):
                    os.close(fd)
                self.listener.close()
                for other in self.jobs.values():
                    other.close()
            except BaseException:  # the child must never go back into the server's loop
                traceback.print_exc()
                os._exit(1)
            _run_child(conn, request, fds, self.env_added)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
        for fd in fds:
            os.close(fd)
        self.jobs[pid] = conn
        return 1

    def reap(self) -> None:
        while self.jobs:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.jobs.pop(pid, None)
            if conn is None:
                continue
            if os.WIFSIGNALED(status):
                message: dict[str, int] = {"signal": os.WTERMSIG(status)}
            else:
                message = {"exit": os.waitstatus_to_exitcode(status)}
            try:
                send_message(conn, message)
            except OSError:
                pass  # the client has its status already (the job sent it) or is gone
            conn.close()


REQUEST_FIELDS = {"script": str, "cwd": str, "argv": list, "env": dict}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--address", required=True, help="abstract Unix socket name")
    parser.add_argument("--lifeline", type=int, required=True, help="descriptor whose end-of-file ends the server")
    parser.add_argument("--scripts", type=Path, required=True, help="folder of the rule scripts")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _stop)
    try:
        return _preload_and_serve(args)
    except Stopped:
        log("stopped (SIGTERM) before it served")
        return 0


def _preload_and_serve(args: argparse.Namespace) -> int:
    library_root = Path(client.__file__).resolve().parents[1]
    env_before = dict(os.environ)
    names = modules_to_preload(args.scripts, library_root)
    report = preload(names)
    env_added = {k: v for k, v in os.environ.items() if env_before.get(k) != v}
    log(
        f"preloaded {len(report.imported)} modules in {report.seconds:.2f} s "
        f"({len(report.not_modules)} imported names are not modules)"
    )
    for name, error in report.failed.items():
        log(f"not preloaded: {name}: {error}")
    if env_added:
        log(f"the imports set {json.dumps(sorted(env_added))}: each job gets them")
    threads = other_threads()
    if threads:
        log(
            f"threads besides the main one after the imports: {threads}; forking would not be safe, every job runs cold"
        )
        return 1
    gc.freeze()  # the preloaded objects are never collected: children leave their pages shared
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_address(args.address))
    listener.listen(128)
    server = Server(listener, args.lifeline, env_added)
    signal.signal(signal.SIGTERM, server.request_stop)
    log(READY)
    how = server.serve()
    listener.close()
    log(f"{how}: {server.served} jobs served, {len(server.jobs)} still running")
    return 0


if __name__ == "__main__":
    sys.exit(main())

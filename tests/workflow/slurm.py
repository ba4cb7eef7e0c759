"""A one-node SLURM cluster on localhost for the tests: Debian's packages (installed with apt-get
when missing and the user is root), munged, slurmctld and slurmd in the foreground of child
processes, every state, spool, log and socket file in one temporary folder, no accounting
database. Stopped by PID, whatever happened in between.

Only for tests/workflow/test_slurm.py: it writes nothing outside its folder but for the packages.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

#: Debian packages and the programs the cluster needs from them.
PACKAGES = ("slurmctld", "slurmd", "slurm-client", "munge")
PROGRAMS = ("slurmctld", "slurmd", "sbatch", "srun", "squeue", "scancel", "sinfo", "munged", "mungekey")
#: Process names that must not outlive the cluster.
DAEMONS = ("munged", "slurmctld", "slurmd", "slurmstepd")
SBIN = ("/usr/sbin", "/sbin")


def which(program: str) -> str | None:
    return shutil.which(program) or shutil.which(program, path=os.pathsep.join(SBIN))


def missing_programs() -> list[str]:
    return [p for p in PROGRAMS if which(p) is None]


def install_packages(timeout: int = 900) -> str | None:
    """Install the Debian packages with apt-get when a program is missing. Returns None when
    everything is there, else why it cannot be (not root, no apt-get, apt-get failed). The
    packages' services are not started by apt on these machines (policy-rc.d) or are stopped
    by the test before it starts its own."""
    if not missing_programs():
        return None
    if os.geteuid() != 0:
        return f"SLURM is not installed ({', '.join(missing_programs())} missing) and installing it needs root"
    if shutil.which("apt-get") is None:
        return "SLURM is not installed and there is no apt-get to install Debian's packages"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *PACKAGES]
    run = subprocess.run(install, capture_output=True, text=True, env=env, timeout=timeout)
    if run.returncode != 0:  # an old package list: refresh it once
        subprocess.run(["apt-get", "update", "-q"], capture_output=True, text=True, env=env, timeout=timeout)
        run = subprocess.run(install, capture_output=True, text=True, env=env, timeout=timeout)
    if run.returncode != 0:
        return f"apt-get install {' '.join(PACKAGES)} failed: {(run.stderr or run.stdout)[-500:]}"
    if missing_programs():
        return f"after apt-get install, still missing: {', '.join(missing_programs())}"
    return None


def running_daemons() -> set[tuple[int, str]]:
    """(pid, name) of every process named like a SLURM or munge daemon on this machine."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            name = (entry / "comm").read_text().strip()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue  # gone meanwhile
        if name in DAEMONS and state != "Z":
            found.add((int(entry.name), name))
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _mem_total_mb() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) // 1024
    raise RuntimeError("no MemTotal in /proc/meminfo")


class LocalSlurm:
    """One node (this host, 127.0.0.1) and one default partition ``main``."""

    def __init__(self, root: Path | None = None):
        # Not pytest's tmp_path: munged wants every folder above its socket to be searchable by all.
        self.root = Path(root or tempfile.mkdtemp(prefix="eibench-slurm-"))
        self.root.chmod(0o755)
        self.conf = self.root / "slurm.conf"
        self.host = socket.gethostname().split(".")[0]
        self.pids: dict[str, int] = {}
        self._procs: dict[str, subprocess.Popen] = {}
        self.before = running_daemons()

    @property
    def env(self) -> dict[str, str]:
        """The environment of a client (sbatch, squeue, Snakemake's SLURM executor)."""
        path = os.pathsep.join([str(self.root / "bin"), os.environ.get("PATH", ""), *SBIN])
        return {**os.environ, "SLURM_CONF": str(self.conf), "PATH": path}

    def write_config(self) -> None:
        for sub in ("munge", "state", "spool", "log", "bin"):
            (self.root / sub).mkdir(mode=0o755, exist_ok=True)
        # A cluster's nodes read /etc/slurm/slurm.conf; this one's lives here, named by SLURM_CONF,
        # and Snakemake's job-step plugin drops every SLURM_* variable before it calls srun
        # inside a job. This srun, first on the jobs' PATH, names the file again.
        srun = self.root / "bin" / "srun"
        srun.write_text(f'#!/bin/sh\nSLURM_CONF="{self.conf}" exec "{which("srun")}" "$@"\n')
        srun.chmod(0o755)
        key = self.root / "munge" / "munge.key"
        if not key.exists():
            subprocess.run([which("mungekey"), "--create", f"--keyfile={key}"], check=True, capture_output=True)
        cpus = os.cpu_count() or 1
        memory = int(_mem_total_mb() * 0.9)  # below what slurmd detects, else the node is drained
        r = self.root
        self.conf.write_text(f"""\
ClusterName=eibench-test
SlurmctldHost={self.host}(127.0.0.1)
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={r}/munge/munge.socket
StateSaveLocation={r}/state
SlurmdSpoolDir={r}/spool
SlurmctldPidFile={r}/slurmctld.pid
SlurmdPidFile={r}/slurmd.pid
SlurmctldLogFile={r}/log/slurmctld.log
SlurmdLogFile={r}/log/slurmd.log
MailProg=/bin/true
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
# squeue reports a finished job for MinJobAge seconds: long enough for Snakemake's status checks
MinJobAge=300
NodeName={self.host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={memory} State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
""")

    def _start(self, name: str, *args: str) -> None:
        out = open(self.root / "log" / f"{name}.out", "w")
        proc = subprocess.Popen(
            [which(name), *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=self.env,
            start_new_session=True,
        )
        out.close()
        self._procs[name] = proc
        self.pids[name] = proc.pid

    def _wait(self, what: str, ready, timeout: float = 60) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            dead = [n for n, p in self._procs.items() if p.poll() is not None]
            if dead:
                raise RuntimeError(f"{', '.join(dead)} exited while waiting for {what}:\n{self.logs()}")
            if ready():
                return
            time.sleep(0.5)
        raise RuntimeError(f"timed out waiting for {what}:\n{self.logs()}")

    def start(self) -> None:
        self.write_config()
        m = self.root / "munge"
        self._start(
            "munged",
            "--foreground",
            "--force",
            f"--key-file={m}/munge.key",
            f"--socket={m}/munge.socket",
            f"--pid-file={m}/munged.pid",
            f"--log-file={m}/munged.log",
            f"--seed-file={m}/munged.seed",
        )
        self._wait("munged", (m / "munge.socket").exists)
        self._start("slurmctld", "-D", "-c", "-f", str(self.conf))
        self._start("slurmd", "-D", "-f", str(self.conf))
        self._wait("the node to be idle", lambda: self.sinfo() == "idle")

    def sinfo(self) -> str:
        run = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, env=self.env, timeout=30)
        return run.stdout.strip()

    def queue(self) -> list[str]:
        """Jobs the controller still lists as pending or running."""
        run = subprocess.run(["squeue", "-h", "-o", "%i %T"], capture_output=True, text=True, env=self.env, timeout=30)
        return [line for line in run.stdout.splitlines() if line.strip()]

    def logs(self, tail: int = 3000) -> str:
        parts = []
        for path in sorted((self.root / "log").glob("*")) + [self.root / "munge" / "munged.log"]:
            if path.exists():
                parts.append(f"--- {path.name}\n{path.read_text(errors='replace')[-tail:]}")
        return "\n".join(parts)

    def stop(self) -> None:
        """Cancel every job, then stop slurmd, slurmctld and munged by their PIDs (SIGTERM,
        then SIGKILL after 30 s), and remove the folder."""
        if "slurmctld" in self._procs and self._procs["slurmctld"].poll() is None:
            subprocess.run(
                ["scancel", "--full", "--user", str(os.getuid())], env=self.env, capture_output=True, timeout=30
            )
            self._until(lambda: not self.queue() and not self._steps(), 60)
        for name in ("slurmd", "slurmctld", "munged"):
            proc = self._procs.get(name)
            if proc is None or proc.poll() is not None:
                continue
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=30)
        # A job step that outlived its slurmd (this cluster's: it was not running before)
        for pid in self._steps():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self._until(lambda: not self._steps(), 30)
        shutil.rmtree(self.root, ignore_errors=True)

    def _steps(self) -> list[int]:
        return [pid for pid, name in self.leftovers() if name == "slurmstepd"]

    @staticmethod
    def _until(done, timeout: float) -> None:
        end = time.monotonic() + timeout
        while not done() and time.monotonic() < end:
            time.sleep(0.5)

    def leftovers(self, wait: float = 0) -> set[tuple[int, str]]:
        """Daemon processes that did not run before the cluster started and still run (after
        waiting up to ``wait`` seconds for them to exit)."""
        self._until(lambda: not running_daemons() - self.before, wait)
        return running_daemons() - self.before

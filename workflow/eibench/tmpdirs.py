"""Temporary folders that say who made them, so that those of killed processes are removed.

A job's temporary folder (runlog.job_tmpdir) and a process's matplotlib folder are removed when
the job ends or the process exits; a job killed with SIGKILL (an out-of-memory kill, a cluster's
time limit, ``kill -9``) removes nothing, and its ``eibench-*`` folder stayed in the temporary
directory for good. Each folder's name now carries its owner, ``eibench-<label>-<pid>@<host>-<random>``,
and :func:`sweep_stale` (run at the start of every job) removes the folders of this host whose
owner process is gone. Folders of another host (a shared temporary directory), of a live or
unknown process, of another user, and folders named otherwise (made before this scheme) are
left alone: a sweep never removes what a running process may still use.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import tempfile
from pathlib import Path

_STALE = re.compile(r"eibench-(?P<label>[A-Za-z0-9_]+)-(?P<pid>[0-9]+)@(?P<host>.+)-[a-z0-9_]+")


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9.-]", "_", socket.gethostname()) or "localhost"


def owned_tmpdir(label: str, base: str | Path | None = None) -> Path:
    """A new folder ``eibench-<label>-<pid>@<host>-<random>`` in ``base`` (default: Python's
    temporary folder); ``label`` is letters, digits and '_' (a rule name)."""
    if not re.fullmatch(r"[A-Za-z0-9_]+", label):
        raise ValueError(f"label {label!r}: use letters, digits and '_'")
    return Path(tempfile.mkdtemp(prefix=f"eibench-{label}-{os.getpid()}@{_host()}-", dir=base))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    except OverflowError:  # not a PID of this system
        return False
    return True


def sweep_stale(base: str | Path | None = None) -> list[Path]:
    """Remove the folders of ``base`` made by :func:`owned_tmpdir` on this host, owned by this
    user, whose process no longer runs; return them (sorted). Errors (a folder removed meanwhile,
    no permission) leave the folder and are not raised: a sweep must never fail a job."""
    base = Path(base or tempfile.gettempdir())
    host, uid, removed = _host(), os.getuid(), []
    try:
        entries = sorted(base.iterdir())
    except OSError:
        return []
    for entry in entries:
        m = _STALE.fullmatch(entry.name)
        if not m or m["host"] != host or int(m["pid"]) == os.getpid():
            continue
        try:
            if entry.is_symlink() or not entry.is_dir() or entry.stat().st_uid != uid or _alive(int(m["pid"])):
                continue
            shutil.rmtree(entry)
        except OSError:
            continue
        removed.append(entry)
    return removed

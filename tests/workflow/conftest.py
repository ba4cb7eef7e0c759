"""Helpers of the workflow tests: a fresh copy of the repository and a Snakemake runner."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ..conftest import REPO

GENERATED = (".venv*", "cache", "results", ".snakemake", "logs", ".git", "__pycache__", ".pytest_cache", ".hypothesis", "*.egg-info")


def copy_repo(dest: Path) -> Path:
    """Copy the repository's sources (nothing generated) to ``dest``."""
    shutil.copytree(REPO, dest, ignore=shutil.ignore_patterns(*GENERATED))
    shutil.rmtree(dest / "paper" / "build", ignore_errors=True)
    return dest


# Variables that would move matplotlib's or other tools' state out of $HOME, unset for a run
# with a home of its own.
STATE_VARIABLES = ("MPLCONFIGDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR",
                   "JUPYTER_RUNTIME_DIR", "PYTHONPYCACHEPREFIX", "TMP", "TEMP", "TEMPDIR")


def snakemake(workdir: Path, *args: str, timeout: int = 900, env: dict[str, str] | None = None
              ) -> subprocess.CompletedProcess:
    """Run Snakemake in ``workdir``; ``env``: variables to set (then STATE_VARIABLES are unset)."""
    exe = Path(sys.executable).with_name("snakemake")
    environment = None
    if env is not None:
        environment = {k: v for k, v in os.environ.items() if k not in STATE_VARIABLES} | env
    return subprocess.run([str(exe), *args], cwd=workdir, capture_output=True, text=True, timeout=timeout,
                          env=environment)


def file_states(root: Path, directories: bool = False) -> dict[str, tuple[int, int]]:
    """Size and modification time (ns) of every file under ``root`` (and every folder, as
    (-1, 0), when ``directories``), keyed by relative path."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            stat = path.stat()
            out[str(path.relative_to(root))] = (stat.st_size, stat.st_mtime_ns)
        elif directories and path.is_dir():
            out[str(path.relative_to(root))] = (-1, 0)
    return out


def digests(root: Path, *folders: str) -> dict[str, str]:
    """sha256 of every file under the given folders of ``root``, keyed by relative path."""
    out = {}
    for folder in folders:
        for path in sorted((root / folder).rglob("*")):
            if path.is_file():
                out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


# The session fixture small_run (the whole DAG on the small config) lives in tests/conftest.py,
# so that the workflow tests and the paper's reader tests (tests/paper/) share one run.

"""Helpers of the workflow tests: a fresh copy of the repository and a Snakemake runner."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import yaml
from eibench.source_copy import copy_sources

from ..conftest import REPO


def copy_repo(dest: Path) -> Path:
    """Copy the repository's sources (nothing generated) to ``dest``."""
    return copy_sources(REPO, dest)


def write_live_config(work: Path, name: str, models: list[dict]) -> str:
    """A config file of the live-model workflow tests: a small synthetic cohort (8 conversations,
    4 participants, 4 human-rated), ``models``, no progress bar and the cache in ``cache/``;
    written to ``config/<name>`` in the copy ``work``, returned relative to it."""
    config = {
        "cohorts": {"synthetic": {"n_conversations": 8, "n_participants": 4}},
        "models": models,
        "simulation": {"human": {"n_conversations": 4}},
        "collection": {"show_progress": False, "cache_dir": "cache"},
    }
    path = work / "config" / name
    path.write_text(yaml.safe_dump(config))
    return str(path.relative_to(work))


def snakemake(workdir: Path, *args: str, timeout: int = 900, env: dict | None = None) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("snakemake")
    return subprocess.run([str(exe), *args], cwd=workdir, capture_output=True, text=True, timeout=timeout, env=env)


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

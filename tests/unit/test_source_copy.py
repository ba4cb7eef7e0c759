"""copy_sources: what a workflow test or a benchmark copies of the repository."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from eibench.source_copy import copy_environment, copy_sources

from ..conftest import REPO


def _touch(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x")


def test_the_copy_keeps_sources_and_leaves_out_what_runs_generate(tmp_path):
    repo = tmp_path / "repo"
    kept = ["Snakefile", "workflow/eibench/a.py", "paper/main.typ", "config/cache.yaml", "records/r.jsonl"]
    left = [
        ".venv/bin/python",
        ".venv-llm/x",
        "cache/m/a.json",
        "cache-llm-live/m/a.json",
        "results/scores/x.csv",
        "logs/a.log",
        ".snakemake/log/x",
        ".git/HEAD",
        "workflow/eibench/__pycache__/a.pyc",
        "workflow/eibench.egg-info/PKG-INFO",
        "paper/build/paper.pdf",
    ]
    for name in kept + left:
        _touch(repo / name)
    dest = copy_sources(repo, tmp_path / "copy")
    assert dest == tmp_path / "copy"
    copied = sorted(str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file())
    assert copied == sorted(kept)


def test_the_destination_must_not_exist(tmp_path):
    _touch(tmp_path / "repo" / "Snakefile")
    (tmp_path / "copy").mkdir()
    with pytest.raises(FileExistsError):
        copy_sources(tmp_path / "repo", tmp_path / "copy")


def test_a_run_in_the_copy_imports_the_copys_library(tmp_path):
    """With copy_environment, a process started in the copy imports the copy's eibench, not
    the one the environment's (editable) install points at."""
    dest = copy_sources(REPO, tmp_path / "copy")
    env = copy_environment(dest, {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": "/elsewhere"})
    assert env["PYTHONPATH"] == f"{dest / 'workflow'}{os.pathsep}/elsewhere"
    code = "import eibench, eibench.stats.humans as h; print(eibench.__file__); print(h.__file__)"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, check=True
    )
    assert all(Path(line).is_relative_to(dest / "workflow") for line in out.stdout.split())
    assert copy_environment(dest, {})["PYTHONPATH"] == str(dest / "workflow")

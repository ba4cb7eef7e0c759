"""copy_sources: what a workflow test or a benchmark copies of the repository."""

from __future__ import annotations

from pathlib import Path

import pytest
from eibench.source_copy import copy_sources


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

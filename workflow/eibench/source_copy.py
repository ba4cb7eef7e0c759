"""A copy of the repository's sources, without anything a run or an environment generates.

The workflow tests and the benchmarks run the workflow in such a copy (a temporary folder), so a
run starts from the sources as a clean clone has them: no results, logs, caches, virtual
environments, Snakemake state or built paper. ``GENERATED`` names what is left out, as
``shutil.ignore_patterns`` patterns matched against every file and folder name at any depth.
"""

from __future__ import annotations

import shutil
from pathlib import Path

GENERATED = (
    ".venv*",
    "cache",
    "cache-*",  # a live collection's own cache folder (config/local-llm-live.yaml: cache-llm-live)
    "results",
    ".snakemake",
    "logs",
    ".git",
    "__pycache__",
    ".pytest_cache",
    ".hypothesis",
    "*.egg-info",
)


def copy_sources(repo: str | Path, dest: str | Path) -> Path:
    """Copy ``repo`` to ``dest`` (which must not exist) without ``GENERATED`` or the built paper
    (``paper/build``); returns ``dest`` as a Path."""
    dest = Path(dest)
    shutil.copytree(repo, dest, ignore=shutil.ignore_patterns(*GENERATED))
    shutil.rmtree(dest / "paper" / "build", ignore_errors=True)
    return dest

"""A copy of the repository's sources, without anything a run or an environment generates.

The workflow tests and the benchmarks run the workflow in such a copy (a temporary folder), so a
run starts from the sources as a clean clone has them: no results, logs, caches, virtual
environments, Snakemake state or built paper. ``GENERATED`` names what is left out, as
``shutil.ignore_patterns`` patterns matched against every file and folder name at any depth.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
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


def copy_environment(dest: str | Path, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment (``environ``, default ``os.environ``) in which a run in the copy ``dest``
    imports the copy's own library: ``PYTHONPATH`` starts with ``dest/workflow``.

    The README's set-up installs the package editable, pointing at the repository, and a rule's
    script does not have ``workflow/`` on its path; without this, the jobs of a run in a copy
    import the repository's library as it is when each job starts, so edits made while a long
    benchmark runs would reach its later jobs."""
    environ = os.environ if environ is None else environ
    path = os.pathsep.join(p for p in (str(Path(dest) / "workflow"), environ.get("PYTHONPATH")) if p)
    return {**environ, "PYTHONPATH": path}

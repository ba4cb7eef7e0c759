"""Shared fixtures: paths of the repository and of the hand-written release-format corpus;
writing generated release-format files to a folder."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
RELEASE = REPO / "tests" / "data" / "release"


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def release_dir() -> Path:
    return RELEASE


@pytest.fixture(scope="session")
def default_config() -> dict:
    with open(REPO / "config" / "config.yaml", encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def write_files(files: dict, folder: Path) -> list[Path]:
    """Write release-format objects (file name -> JSON object) into ``folder``; return the
    folder's JSON files in the reader's order."""
    from eibench.release.read import list_json_files
    from eibench.release.write import write_json

    folder.mkdir(parents=True, exist_ok=True)
    for name, obj in files.items():
        write_json(obj, folder / name)
    return list_json_files(folder)


@pytest.fixture(scope="session")
def small_run(tmp_path_factory):
    """The whole DAG on the small config in a fresh copy of the repository, once per test
    session (shared by tests/workflow/ and tests/paper/)."""
    from .workflow.conftest import copy_repo, snakemake

    work = copy_repo(tmp_path_factory.mktemp("run") / "repo")
    run = snakemake(work, "--cores", "2", "--configfile", "config/small.yaml")
    assert run.returncode == 0, run.stderr[-4000:]
    return work

"""Shared fixtures: paths of the repository and of the hand-written release-format corpus;
writing generated release-format files to a folder."""

from __future__ import annotations

import json
import os
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


# Variables that would move a tool's state (matplotlib's, jupyter's, caches, temporary files) out
# of $HOME and TMPDIR: unset for the small run, which gets a home and a TMPDIR of its own.
STATE_VARIABLES = (
    "MPLCONFIGDIR",
    "EIBENCH_MPLCONFIGDIR_PID",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_RUNTIME_DIR",
    "JUPYTER_RUNTIME_DIR",
    "PYTHONPYCACHEPREFIX",
    "TMP",
    "TEMP",
    "TEMPDIR",
)


@pytest.fixture(scope="session")
def small_run(tmp_path_factory):
    """The whole DAG on the small config in a fresh copy of the repository, once per test
    session (shared by tests/workflow/ and tests/paper/)."""
    from .workflow.conftest import copy_repo, file_states, snakemake

    root = tmp_path_factory.mktemp("run")
    work = copy_repo(root / "repo")
    # A home and a temporary directory of its own, so that what the jobs write outside the
    # repository is seen too (tests/workflow/test_workflow.py::test_jobs_write_only_...).
    home, tmp = root / "home", root / "tmp"
    home.mkdir()
    tmp.mkdir()
    before = file_states(work)
    env = {k: v for k, v in os.environ.items() if k not in STATE_VARIABLES} | {"HOME": str(home), "TMPDIR": str(tmp)}
    # With the fork server, as `snakemake --cores 8` runs (test_two_runs_give_identical_bytes
    # compares it with a run without).
    env.pop("EIBENCH_FORKSERVER", None)
    # The whole DAG takes minutes idle but passed the helper's default 900 s on a loaded two-core
    # machine; the test's own pytest-timeout (WORKFLOW_TIMEOUT_S) still bounds a hang.
    run = snakemake(
        work, "--cores", "2", "--configfile", "config/small.yaml", env=env, timeout=WORKFLOW_TIMEOUT_S - 300
    )
    assert run.returncode == 0, run.stderr[-4000:]
    after = file_states(work)
    written = {
        "repo": sorted(p for p in after if before.get(p) != after[p]),
        "removed": sorted(set(before) - set(after)),
        "home": sorted(file_states(home, directories=True)),
        "tmp": sorted(file_states(tmp, directories=True)),
    }
    (root / "written.json").write_text(json.dumps(written, indent=1))
    return work


# pytest-timeout: every test has pyproject's `timeout` (600 s); a workflow test gets this much
# instead, since the first one to run also builds the shared small run (the whole DAG) and some
# run the workflow again; a loaded two-core machine needs several minutes for each. A test's own
# @pytest.mark.timeout wins.
WORKFLOW_TIMEOUT_S = 3600


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("workflow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(WORKFLOW_TIMEOUT_S))

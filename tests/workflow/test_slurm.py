"""The workflow on a real SLURM cluster: a one-node cluster on localhost (tests/workflow/slurm.py)
runs the small config through Snakemake's SLURM executor and the SLURM profile; every file of
results/ and the paper is byte-identical to the local run's, and no daemon outlives the test.

Needs the executor plugin (pip install -r envs/requirements-slurm.txt) and Debian's SLURM
packages, which the test installs with apt-get as root. Where either cannot be had it is skipped,
unless EIBENCH_REQUIRE_SLURM=1 (CI), where that is a failure."""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

import pytest

from .conftest import copy_repo, digests, snakemake
from .slurm import LocalSlurm, install_packages

pytestmark = [pytest.mark.workflow, pytest.mark.slurm]


def _unavailable(reason: str) -> None:
    if os.environ.get("EIBENCH_REQUIRE_SLURM") == "1":
        pytest.fail(f"EIBENCH_REQUIRE_SLURM=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")  # session, like small_run: set up before it, so a skip costs no run
def cluster(request):
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        _unavailable(
            "the SLURM executor plugin is not installed in this environment: pip install -r envs/requirements-slurm.txt"
        )
    why = install_packages()
    if why:
        _unavailable(why)
    slurm = LocalSlurm()
    request.addfinalizer(slurm.stop)  # even when start() fails half-way
    slurm.start()
    yield slurm
    slurm.stop()
    left = slurm.leftovers(wait=30)
    assert not left, f"daemons left running: {left}"


def _job_logs(work: Path, tail: int = 3000) -> str:
    """The SLURM logs of the failed jobs (the plugin keeps only those)."""
    return "\n".join(
        f"--- {p}\n{p.read_text(errors='replace')[-tail:]}"
        for p in sorted((work / ".snakemake" / "slurm_logs").rglob("*.log"))
    )


def test_slurm_run_gives_the_bytes_of_the_local_run(cluster, small_run, tmp_path):
    work = copy_repo(tmp_path / "repo")
    # The jobs re-invoke Snakemake with this Python; the venv's bin/ goes first on PATH so that
    # anything they start by name (snakemake, python) is the venv's too.
    env = {**cluster.env, "PATH": os.pathsep.join([str(Path(sys.executable).parent), cluster.env["PATH"]])}
    run = snakemake(
        work,
        "--profile",
        "profiles/slurm",
        "--configfile",
        "config/small.yaml",
        # this cluster has no accounts; check often, jobs here take seconds
        "--slurm-no-account",
        "--slurm-init-seconds-before-status-checks",
        "5",
        timeout=3600,
        env=env,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-6000:] + "\n" + _job_logs(work) + "\n" + cluster.logs()
    assert "Falling back to 'sacct'" not in out
    submitted = set(re.findall(r"submitted with SLURM jobid (\d+)", out))
    jobs = int(re.search(r"^total\s+(\d+)$", out, re.M).group(1)) - 1  # less the target rule `all`
    # the profile's groups: one cluster job per group of small rules (docs/cluster.md)
    assert 0 < len(submitted) <= jobs // 2, (len(submitted), jobs)
    assert not cluster.queue()

    local = digests(small_run, "results", "paper/build")
    on_slurm = digests(work, "results", "paper/build")
    assert local.keys() == on_slurm.keys(), sorted(local.keys() ^ on_slurm.keys())
    differ = [k for k in local if local[k] != on_slurm[k]]
    assert not differ, differ

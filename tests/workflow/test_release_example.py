"""The README's example line for a release folder, read from README.md so the test follows the
docs: with the default (simulated) models it stops at parse time, naming `models` and the
overlay, and writes nothing; as printed (with config/attunebench.yaml) it plans a run on a
release-format folder."""

from __future__ import annotations

import re
import shlex

from ..conftest import RELEASE, REPO
from .conftest import copy_repo, snakemake
from .test_workflow import _job_counts

OVERLAY = ("--configfile", "config/attunebench.yaml")


def release_example(folder) -> list[str]:
    """The arguments of the README's release example (after `.venv/bin/snakemake`), with its
    example folder replaced by ``folder``."""
    lines = [line for line in (REPO / "README.md").read_text().splitlines()
             if line.startswith(".venv/bin/snakemake") and "cohort=attunebench" in line]
    assert len(lines) == 1, lines
    argv = shlex.split(lines[0].split("  #", 1)[0])[1:]
    paths = [i for i, a in enumerate(argv) if re.fullmatch(r"cohorts=\{attunebench: \{path: .+\}\}", a)]
    assert len(paths) == 1, argv
    argv[paths[0]] = f"cohorts={{attunebench: {{path: {folder}}}}}"
    return argv


def without_overlay(argv: list[str]) -> list[str]:
    """The same line with the default models: the overlay's --configfile left out."""
    i = next(k for k in range(len(argv) - 1) if tuple(argv[k:k + 2]) == OVERLAY)
    rest = argv[:i] + argv[i + 2:]
    assert "config/attunebench.yaml" not in rest
    return rest


def test_the_release_example_prints_the_overlay():
    assert "config/attunebench.yaml" in release_example("x")


def test_the_release_example_refuses_the_default_simulated_models(tmp_path):
    work = copy_repo(tmp_path / "repo")
    run = snakemake(work, *without_overlay(release_example(RELEASE / "valid")), timeout=120)
    assert run.returncode != 0
    out = run.stdout + run.stderr
    assert "cohort is 'attunebench' (real conversations), but config key 'models'" in out
    assert "simulated models (models[0-10], kind: simulated)" in out
    assert "simulated human raters (models[11-13], kind: simulated, profile: human)" in out
    assert "--configfile config/attunebench.yaml" in out
    assert "Job stats" not in out  # stopped before any job was planned
    assert not (work / "results").exists() and not (work / "logs").exists()


def test_the_release_example_with_the_overlay_passes_the_parse_stage(tmp_path):
    work = copy_repo(tmp_path / "repo")
    run = snakemake(work, "-n", *release_example(RELEASE / "valid"), timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    jobs = _job_counts(run.stdout)
    assert jobs.get("ingest_conversations") == 1 and jobs.get("predict_baseline") == 3, jobs
    assert "predict_simulated" not in jobs and "synthetic_cohort" not in jobs
    assert not (work / "results").exists()


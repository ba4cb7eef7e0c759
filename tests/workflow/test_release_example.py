"""The README's example line for a release folder, read from README.md so the test follows the
docs: with the default (simulated) models it stops at parse time, naming `models` and the
overlay, and writes nothing; as printed (with config/attunebench.yaml) it plans a run on a
release-format folder, and builds a paper that names the cohort and simulates nothing."""

from __future__ import annotations

import json
import re
import shlex

import pytest
from pypdf import PdfReader

from ..conftest import RELEASE, REPO
from .conftest import copy_repo, snakemake
from .test_workflow import _job_counts

OVERLAY = ("--configfile", "config/attunebench.yaml")


def release_example(folder) -> list[str]:
    """The arguments of the README's release example (after `.venv/bin/snakemake`), with its
    example folder replaced by ``folder``."""
    lines = [
        line
        for line in (REPO / "README.md").read_text().splitlines()
        if line.startswith(".venv/bin/snakemake") and "cohort=attunebench" in line
    ]
    assert len(lines) == 1, lines
    argv = shlex.split(lines[0].split("  #", 1)[0])[1:]
    paths = [i for i, a in enumerate(argv) if re.fullmatch(r"cohorts=\{attunebench: \{path: .+\}\}", a)]
    assert len(paths) == 1, argv
    argv[paths[0]] = f"cohorts={{attunebench: {{path: {folder}}}}}"
    return argv


def without_overlay(argv: list[str]) -> list[str]:
    """The same line with the default models: the overlay's --configfile left out."""
    i = next(k for k in range(len(argv) - 1) if tuple(argv[k : k + 2]) == OVERLAY)
    rest = argv[:i] + argv[i + 2 :]
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


QUICK = """
cohorts:
  attunebench:
    about: {name: Hand-written corpus, source: null, citation: null,
            description: two conversations written for the reader's tests}
statistics:
  n_bootstrap: 200
  split_halves: 20
  simulation: {n_null: 8, n_planted: 8, n_bootstrap: 50, jobs: 1}
"""


@pytest.mark.workflow
def test_the_release_example_builds_a_paper_that_names_the_cohort_and_simulates_nothing(tmp_path):
    """The README's line on the hand-written release corpus, end to end (quick statistics): the
    title, abstract and data section name the cohort from cohorts.attunebench.about and count its
    models by kind; nothing says simulated models or a simulation study. Its source is not
    recorded (as in the README's line, which sets no about): the paper says so and that the build
    does not establish the files to be the official release, and tallies what the files name as
    provider and reply author."""
    work = copy_repo(tmp_path / "repo")
    (work / "config" / "quick.yaml").write_text(QUICK)
    argv = release_example(RELEASE / "valid")
    i = argv.index("config/attunebench.yaml")
    argv[i + 1 : i + 1] = ["config/quick.yaml"]
    argv[argv.index("--cores") + 1] = "1"  # a shared test machine
    run = snakemake(work, *argv, timeout=1800)
    assert run.returncode == 0, run.stderr[-4000:]
    numbers = json.loads((work / "results/paper/numbers.json").read_text())
    meta, entries = numbers["meta"], numbers["entries"]
    assert meta["simulation"] is False and meta["simulated_cohort"] is False and meta["simulated_models"] == []
    assert entries["cohort.name"]["value"] == "Hand-written corpus"
    assert "cohort.citation" not in entries and "cohort.source" not in entries
    assert entries["models.described"]["value"] == "3 offline baselines"
    assert entries["models.n_simulated"]["value"] == entries["models.n_human"]["value"] == 0
    text = " ".join(" ".join(p.extract_text() for p in PdfReader(work / "paper/build/paper.pdf").pages).split())
    text = text.replace("\u00ad", "-")
    assert "The AttuneBench method on Hand-written corpus" in text
    assert "two conversations written for the reader's tests" in text.replace("\u2019", "'")
    assert "through 3 offline baselines" in text and "The predictions come from 3 offline baselines" in text
    assert "no language model was evaluated" in text
    assert "Real data · cohort: Hand-written corpus · offline baselines only, no language model" in text  # header
    assert "On this cohort the composite covers" in text
    assert (
        "Built from Hand-written corpus, two conversations written for the reader's tests, whose source is "
        "not recorded: this build does not establish that its files are the official AttuneBench release."
    ) in text.replace("\u2019", "'")
    assert "The source of these files is not recorded" in text and "Source:" not in text
    assert 'The files name as provider (metadata.provider) "simulated" (1 of 2) and none (1 of 2)' in text
    assert 'original model in the release format) "om-a" (1 of 2) and "om-b" (1 of 2).' in text
    # The reply the behaviour questions are about is named as the files name its author (the
    # release format's metadata.model), not called a model's; the annotations are the files'.
    assert entries["files.reply_author"]["value"] == '"om-a" or "om-b"'
    assert (
        "questions about the original reply (as observer and as predicted participant; the files name the "
        'reply\'s author "om-a" or "om-' in text.replace("\u2019", "'")
    )
    assert "original model's reply" not in text.replace("\u2019", "'")
    assert "Their predictions of the turn-by-turn annotations in the files are scored with the published" in text
    assert "predictions of the participants' own" not in text.replace("\u2019", "'")
    # Related work states this build's design, not the published one's question.
    assert "This paper applies its method to Hand-written corpus: 2 conversations by 1 participant" in text
    assert "This paper asks what such a design can support" not in text
    # The corpus has no post-chat ratings (a release-format extension): Table 1 leaves them out.
    assert "Post-chat ratings normalised" not in text and "post-chat ratings of whoever wrote the replies" not in text
    # (the scaling record of the reproducibility section is measured on the synthetic cohort: named there)
    for wording in (
        "Simulation study",
        "simulation study of",
        "simulated model",
        "simulated human",
        "Built from the synthetic cohort",
        "Every model, participant",
    ):
        assert wording not in text, wording

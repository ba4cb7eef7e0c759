"""The workflow end to end on the small config: PDF with its numbers, no-op rerun, identical
bytes across runs, and a bad input file stopping the run before scoring."""

from __future__ import annotations

import json
import os
import shutil

import pandas as pd
import pytest
import yaml
from eibench.forkserver import lifecycle
from eibench.forkserver.protocol import ADDRESS_VARIABLE, SWITCH_VARIABLE
from eibench.tables import write_parquet

from ..conftest import RELEASE
from ..paper.manuscript import pdf_text
from ..unit.test_release_read import _cohort_with_one_bad_file
from .conftest import copy_repo, digests, snakemake

pytestmark = pytest.mark.workflow


def test_pdf_is_built_and_prints_the_numbers(small_run):
    pdf = small_run / "paper" / "build" / "paper.pdf"
    assert pdf.exists() and pdf.stat().st_size > 10_000
    numbers = json.loads((small_run / "results" / "paper" / "numbers.json").read_text())
    text = " ".join(pdf_text(pdf).split())
    assert numbers["meta"]["cohort"] == "synthetic"
    assert "Simulation study" in text
    assert numbers["entries"]["n_conversations"]["display"] == "20"
    for key in ("top_model", "top_composite", "bottom_composite", "n_turns"):
        assert numbers["entries"][key]["display"] in text, key
    assert numbers["entries"]["top_composite"]["ci_display"] in text


def test_the_claims_under_the_configured_scheme_are_rule_stats_claims_rows(small_run):
    """Rule stats_claim_schemes reruns the claims' analyses under every scheme; under the scheme
    the analyses themselves use (statistics.cluster) it gives rule stats_claims' rows."""
    schemes = pd.read_csv(small_run / "results" / "stats" / "uncertainty" / "claim_schemes.csv")
    claims = pd.read_csv(small_run / "results" / "stats" / "claims.csv")
    config = yaml.safe_load((small_run / "config" / "config.yaml").read_text())
    small = yaml.safe_load((small_run / "config" / "small.yaml").read_text())
    cluster = small.get("statistics", {}).get("cluster", config["statistics"]["cluster"])
    assert list(schemes["scheme"].unique()) == small.get("uncertainty", config["uncertainty"])["schemes"]
    same = schemes[schemes["scheme"] == cluster].reset_index(drop=True)
    assert list(same["id"]) == list(claims["id"]) and list(same["verdict"]) == list(claims["verdict"])
    for column in ("estimate", "lo", "hi", "p_value", "p_adjusted"):
        pd.testing.assert_series_equal(same[column], claims[column], check_names=False, rtol=1e-8)


def test_second_run_does_nothing(small_run):
    run = snakemake(small_run, "--cores", "2", "--configfile", "config/small.yaml", "-n")
    assert run.returncode == 0
    assert "Nothing to be done" in run.stdout + run.stderr


def test_two_runs_give_identical_bytes(small_run, tmp_path):
    """Same inputs, same bytes; and the same bytes whether the jobs ran in children of the fork
    server (the shared run) or each in a fresh Python (this one: EIBENCH_FORKSERVER=0)."""
    other = copy_repo(tmp_path / "repo")
    cold = {k: v for k, v in os.environ.items() if k != ADDRESS_VARIABLE} | {SWITCH_VARIABLE: "0"}
    run = snakemake(other, "--cores", "2", "--configfile", "config/small.yaml", env=cold)
    assert run.returncode == 0, run.stderr[-4000:]
    assert lifecycle.run_had_server(small_run / lifecycle.LOG) is True
    assert "jobs served" in (small_run / lifecycle.LOG).read_text()
    assert lifecycle.run_had_server(other / lifecycle.LOG) is False
    first = digests(small_run, "results", "paper/build")
    second = digests(other, "results", "paper/build")
    assert first.keys() == second.keys()
    differ = [k for k in first if first[k] != second[k]]
    assert not differ, differ


def test_manifest_lists_every_file_with_its_sha256_and_job(small_run):
    manifest = json.loads((small_run / "results" / "manifest.json").read_text())
    on_disk = digests(small_run, "results", "paper/build")
    del on_disk["results/manifest.json"]
    # The executed notebooks read the manifest, so they come after it (workflow/rules/notebooks.smk).
    notebooks = [p for p in on_disk if p.startswith("results/notebooks/")]
    assert notebooks
    for p in notebooks:
        del on_disk[p]
    listed = {e["path"]: e for e in manifest["files"]}
    assert listed.keys() == on_disk.keys()
    assert all(listed[p]["sha256"] == on_disk[p] for p in on_disk)
    jobs = manifest["jobs"]
    owner = {p: jobs[e["job"]] for p, e in listed.items() if e["job"] is not None}
    assert owner.keys() == listed.keys(), "every file of a fresh run has the job that wrote it"
    assert owner["paper/build/paper.pdf"]["rule"] == "paper"
    assert owner["results/scores/leaderboard.csv"]["script"] == "workflow/scripts/aggregate_scores.py"
    assert all(p in job["output"] or any(p.startswith(o + "/") for o in job["output"]) for p, job in owner.items())
    # Every number names the script its rule ran (the numbers file's rule-to-script map, checked
    # against what the jobs themselves recorded), and that script exists.
    ran = {job["rule"]: job["script"] for job in jobs if job.get("script")}
    numbers = json.loads((small_run / "results" / "paper" / "numbers.json").read_text())["entries"]
    wrong = {
        k: (e["rule"], e["script"]) for k, e in numbers.items() if e["rule"] in ran and ran[e["rule"]] != e["script"]
    }
    assert not wrong
    assert all((small_run / e["script"]).is_file() for e in numbers.values())


def test_aggregated_scores_are_the_pandas_concatenation_of_the_models(small_run, tmp_path):
    """Rule aggregate_scores streams the models' score tables in Arrow (tables.concat_parquet);
    the file is byte for byte the one the pandas concatenation it replaced wrote."""
    for part, name in (("turn", "turn_scores"), ("conversation", "conversation_scores")):
        out = small_run / f"results/scores/{name}.parquet"
        keys = pd.read_parquet(out, columns=["em_model", "mode"]).drop_duplicates()
        files = [small_run / f"results/scores/{m}/{mode}/{part}.parquet" for m, mode in keys.itertuples(index=False)]
        assert set(files) == set((small_run / "results/scores").glob(f"*/*/{part}.parquet"))
        write_parquet(pd.concat([pd.read_parquet(f) for f in files], ignore_index=True), tmp_path / "pandas.parquet")
        assert out.read_bytes() == (tmp_path / "pandas.parquet").read_bytes(), name


def test_jobs_write_only_their_outputs_and_logs(small_run):
    """Cluster-safe rules: the run changes only declared outputs (results/, the paper), logs and
    Snakemake's own .snakemake/; it leaves nothing in the home folder (no matplotlib or other
    tool cache shared between jobs) and nothing in the temporary directory."""
    written = json.loads((small_run.parent / "written.json").read_text())
    assert not written["removed"]
    outside = [p for p in written["repo"] if not p.startswith(("results/", "paper/build/", "logs/", ".snakemake/"))]
    assert not outside, outside
    manifest = json.loads((small_run / "results" / "manifest.json").read_text())
    declared = {e["path"] for e in manifest["files"] if e["job"] is not None} | {"results/manifest.json"}
    declared |= {
        f"results/notebooks/{nb.stem}{ext}"
        for nb in (small_run / "notebooks").glob("[0-9]*.ipynb")
        for ext in (".ipynb", ".html")
    }
    undeclared = [p for p in written["repo"] if p.startswith(("results/", "paper/build/")) and p not in declared]
    assert not undeclared, undeclared
    # logs/: each job's log, and its benchmark file (the `benchmark:` directive, logs/benchmarks/<rule>*.tsv)
    logs = [p for p in written["repo"] if p.startswith("logs/")]
    assert all(p.endswith(".log") or (p.startswith("logs/benchmarks/") and p.endswith(".tsv")) for p in logs), logs
    assert any(p.startswith("logs/benchmarks/") for p in logs)
    # Snakemake itself keeps a per-run copy of the sources under ~/.cache/snakemake (the engine's, not a job's)
    home = [p for p in written["home"] if p != ".cache" and not p.startswith(".cache/snakemake")]
    assert not home, home
    assert not written["tmp"], written["tmp"]


def test_bad_conversation_file_fails_before_scoring_and_writes_nothing(tmp_path):
    work = copy_repo(tmp_path / "repo")
    cohort = tmp_path / "release"
    cohort.mkdir()
    for p in (RELEASE / "valid").glob("*.json"):
        shutil.copy(p, cohort / p.name)
    shutil.copy(RELEASE / "invalid" / "wrong_type_turn_number.json", cohort / "conversation_99.json")
    run = snakemake(
        work,
        "--cores",
        "2",
        "--configfile",
        "config/attunebench.yaml",
        "--config",
        f"cohorts={{attunebench: {{path: {cohort}}}}}",
    )
    assert run.returncode != 0
    out = run.stdout + run.stderr
    assert "conversation_99.json" in out and "$.turns[1].turnNumber" in out
    assert "valid integer" in out
    assert not list((work / "results").rglob("*.parquet"))
    assert not (work / "results" / "scores").exists()
    assert not (work / "paper" / "build" / "paper.pdf").exists()


def test_a_rejected_cohort_names_the_bad_file_and_path_once(tmp_path):
    """225 files, one bad: the console names that file and its JSON path once, no other file of
    the folder, and counts the rest (it printed every input file on one line, twice: 14.5 KB)."""
    work = copy_repo(tmp_path / "repo")
    cohort = tmp_path / "release"
    cohort.mkdir()
    bad = _cohort_with_one_bad_file(cohort, 224)
    run = snakemake(
        work,
        "results/tables/gold/ingest_report.json",
        "--cores",
        "1",
        "--configfile",
        "config/attunebench.yaml",
        "--config",
        f"cohorts={{attunebench: {{path: {cohort}}}}}",
    )
    assert run.returncode != 0
    out = run.stdout + run.stderr
    assert out.count(str(bad)) == 1 and out.count("$.turns[0].annotations.pairwiseComparisons[0].winner") == 1
    assert not any(str(p) in out for p in cohort.glob("*.json") if p != bad)
    assert "Of the other 224 of the 225 files" in out
    assert "Traceback" not in out
    assert len(out.encode()) < 6000, len(out.encode())
    assert not list((work / "results").rglob("*.parquet"))


def test_editing_a_release_file_reruns_the_ingest(tmp_path):
    """The ingest's input is the release folder alone; the digest of its files (a param) makes
    an edited file rerun it, and an untouched folder does not."""
    work = copy_repo(tmp_path / "repo")
    cohort = tmp_path / "release"
    shutil.copytree(RELEASE / "valid", cohort)
    args = (
        "results/tables/gold/ingest_report.json",
        "--cores",
        "1",
        "--configfile",
        "config/attunebench.yaml",
        "--config",
        f"cohorts={{attunebench: {{path: {cohort}}}}}",
    )
    assert snakemake(work, *args).returncode == 0
    assert "Nothing to be done" in (lambda r: r.stdout + r.stderr)(snakemake(work, "-n", *args))
    edited = cohort / "conversation_5.json"
    edited.write_text(edited.read_text().replace("\n", " \n"))  # same JSON, other bytes; mtimes of the folder kept
    run = snakemake(work, "-n", *args)
    assert _job_counts(run.stdout) == {"ingest_conversations": 1}, run.stdout


#: The one lint we keep, justified in workflow/rules/common.smk: rules declare no conda
#: environment or container because neither can run here; envs/ pins one venv for all rules.
JUSTIFIED_LINTS = {"Specify a conda environment or container for each rule."}


def test_lint_is_clean_but_for_the_justified_finding(repo):
    run = snakemake(repo, "--lint", timeout=120)
    out = run.stdout + run.stderr
    findings = {line.strip()[2:].rstrip(":") for line in out.splitlines() if line.strip().startswith("* ")}
    assert findings <= JUSTIFIED_LINTS, findings


def _job_counts(dry_run_output: str) -> dict[str, int]:
    """The 'Job stats' table of a dry run: rule -> number of jobs."""
    counts, inside = {}, False
    for line in dry_run_output.splitlines():
        if line.startswith("job ") and "count" in line:
            inside = True
            continue
        if inside:
            parts = line.split()
            if not parts or parts[0] == "total":
                break
            if len(parts) == 2 and parts[1].isdigit():
                counts[parts[0]] = int(parts[1])
    return counts


def test_editing_one_prediction_file_reruns_only_what_depends_on_it(small_run, tmp_path):
    """A model of kind outputs_dir (a researcher's own prediction files) beside the small
    config's models: after one of its files is edited, a dry run schedules that model's scoring
    and what is downstream of the scores, and no other model's prediction or scoring job."""
    outputs = tmp_path / "mine" / "default"
    outputs.mkdir(parents=True)
    for src in sorted((small_run / "results/predictions/sim-01/default/shard-0").glob("*.json")):
        data = json.loads(src.read_text())
        data["em_model"] = "mine"
        (outputs / src.name).write_text(json.dumps(data))
    work = copy_repo(tmp_path / "repo")
    small = (work / "config" / "small.yaml").read_text()
    models = small[small.index("models:") : small.index("statistics:")]
    (work / "config" / "mine.yaml").write_text(
        models + f"  - {{name: mine, kind: outputs_dir, path: {tmp_path / 'mine'}}}\n"
    )
    args = ("--cores", "2", "--configfile", "config/small.yaml", "config/mine.yaml")
    run = snakemake(work, *args)
    assert run.returncode == 0, run.stderr[-4000:]
    edited = sorted(outputs.glob("*.json"))[0]
    data = json.loads(edited.read_text())
    data["turns"][0]["em_emotion_tags"] = []
    edited.write_text(json.dumps(data))
    dry = snakemake(work, *args, "--dry-run")
    assert dry.returncode == 0, dry.stderr[-4000:]
    jobs = _job_counts(dry.stdout + dry.stderr)
    assert jobs.get("score_model") == 1, jobs
    assert "results/scores/mine/default" in dry.stdout + dry.stderr
    assert not {"synthetic_cohort", "ingest_conversations", "predict_simulated", "predict_baseline"} & jobs.keys()
    assert {"aggregate_scores", "paper", "manifest"} <= jobs.keys()

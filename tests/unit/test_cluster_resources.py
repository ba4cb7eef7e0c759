"""Cluster resources: benchmark files read back, peaks per rule, the declared memory and time
derived with the stated headroom, the table the workflow reads; and each job's own temporary
folder."""

from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from eibench import cluster
from eibench.cluster import declare, read_benchmarks, read_declared, summarise
from eibench.runlog import job_tmpdir, rule_log

from ..conftest import REPO

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def _bench(path: Path, s: float, rss: float, load: float = 95.0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + f"{s}\t0:00:01\t{rss}\t900\t100\t110\t0\t1\t{load}\t{s}\n")


def test_peaks_per_rule_over_its_jobs(tmp_path):
    _bench(tmp_path / "score_model" / "m1" / "default.tsv", 10.0, 300.0)
    _bench(tmp_path / "score_model" / "m2" / "default.tsv", 30.0, 200.0, load=180.0)
    _bench(tmp_path / "paper.tsv", 2.0, 150.0)
    jobs = read_benchmarks(tmp_path)
    assert sorted(jobs["job"]) == ["paper", "score_model/m1/default", "score_model/m2/default"]
    table = summarise(jobs).set_index("rule")
    assert table.loc["score_model", "jobs"] == 2
    assert table.loc["score_model", "max_rss_mb"] == 300.0 and table.loc["score_model", "max_s"] == 30.0
    assert table.loc["score_model", "max_load"] == 1.8
    assert (table.loc["score_model", "mem_mb"], table.loc["score_model", "runtime"]) == declare(300.0, 30.0)


def test_benchmarks_of_a_run_with_the_fork_server_are_refused(tmp_path, capsys):
    """A job of the fork server computes in the server's child, outside what Snakemake's
    benchmark watches: its peak memory would be the client's, a few MB."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("rule_resources", REPO / "benchmarks" / "rule_resources.py")
    rule_resources = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rule_resources)
    _bench(tmp_path / "logs" / "benchmarks" / "paper.tsv", 2.0, 150.0)
    args = ["--benchmarks", str(tmp_path / "logs" / "benchmarks"), "--out", str(tmp_path)]
    (tmp_path / "logs" / "forkserver.log").write_text("fork server: on (address @x)\n")
    assert rule_resources.main(args) == 1
    assert "EIBENCH_FORKSERVER=0" in capsys.readouterr().err
    assert not (tmp_path / "rule_resources.csv").exists()
    (tmp_path / "logs" / "forkserver.log").write_text("fork server: off (EIBENCH_FORKSERVER=0)\n")
    assert rule_resources.main(args) == 0
    assert (tmp_path / "rule_resources.csv").exists()


def test_declared_memory_and_time_follow_the_stated_headroom():
    mem, runtime = declare(1000.0, 600.0)
    assert mem % cluster.MEM_STEP_MB == 0
    assert (
        cluster.MEM_HEADROOM * 1000 + cluster.JOB_OVERHEAD_MB
        <= mem
        < (cluster.MEM_HEADROOM * 1000 + cluster.JOB_OVERHEAD_MB + cluster.MEM_STEP_MB)
    )
    assert runtime == math.ceil(cluster.TIME_HEADROOM * 600 / 60)
    assert declare(1.0, 1.0) == (cluster.MIN_MEM_MB, cluster.MIN_RUNTIME_MIN)
    assert declare(float("nan"), float("nan")) == (cluster.MIN_MEM_MB, cluster.MIN_RUNTIME_MIN)


def test_a_file_that_is_not_a_benchmark_is_named(tmp_path):
    (tmp_path / "x.tsv").write_text("a\tb\n1\t2\n")
    with pytest.raises(ValueError, match=r"x\.tsv.*max_rss"):
        read_benchmarks(tmp_path)


def test_the_declared_table_round_trips_and_a_bad_cell_is_named(tmp_path):
    _bench(tmp_path / "b" / "paper.tsv", 2.0, 150.0)
    summarise(read_benchmarks(tmp_path / "b")).to_csv(tmp_path / "r.csv", index=False)
    assert read_declared(tmp_path / "r.csv") == {"paper": dict(zip(("mem_mb", "runtime"), declare(150.0, 2.0)))}
    assert read_declared(tmp_path / "absent.csv") == {}
    (tmp_path / "bad.csv").write_text("rule,jobs,max_rss_mb,max_s,max_load,mem_mb,runtime\npaper,1,1,1,1,lots,5\n")
    with pytest.raises(ValueError, match=r"bad\.csv, line 2 \(rule 'paper'\): column 'mem_mb'"):
        read_declared(tmp_path / "bad.csv")


def test_the_committed_table_is_derived_from_the_committed_record():
    """benchmarks/rule_resources.csv is what benchmarks/rule_resources.py makes of
    benchmarks/rule_benchmarks.csv: no hand-edited figure."""
    import pandas as pd

    record = pd.read_csv(REPO / "benchmarks" / "rule_benchmarks.csv")
    committed = pd.read_csv(REPO / "benchmarks" / "rule_resources.csv")
    pd.testing.assert_frame_equal(summarise(record), committed, check_dtype=False)


def test_a_job_gets_a_temporary_folder_of_its_own_removed_at_the_end(tmp_path):
    smk = SimpleNamespace(rule="paper", resources=SimpleNamespace(tmpdir=str(tmp_path)))
    before = os.environ.get("TMPDIR")
    with job_tmpdir(smk) as mine:
        assert mine.parent == tmp_path and mine.name.startswith("eibench-paper-")
        assert os.environ["TMPDIR"] == str(mine) and tempfile.gettempdir() == str(mine)
        (mine / "scratch").write_text("x")
    assert not mine.exists() and os.environ.get("TMPDIR") == before and tempfile.gettempdir() != str(mine)
    with pytest.raises(RuntimeError), job_tmpdir(smk) as failed:
        raise RuntimeError("boom")
    assert not failed.exists()


def test_rule_log_runs_the_job_in_its_own_temporary_folder(tmp_path):
    smk = SimpleNamespace(
        rule="paper",
        log=[str(tmp_path / "paper.log")],
        resources=SimpleNamespace(tmpdir=str(tmp_path)),
        input=[],
        output=[],
        wildcards={},
        params={},
    )
    with rule_log(smk):
        inside = Path(tempfile.gettempdir())
        assert inside.parent == tmp_path
    assert not inside.exists()


def _profile(name: str) -> dict:
    import yaml

    return yaml.safe_load((REPO / "profiles" / name / "config.yaml").read_text())


def _rules() -> set[str]:
    import re

    texts = [f.read_text() for f in (REPO / "workflow" / "rules").glob("*.smk")]
    return {m for t in texts for m in re.findall(r"^\s*rule (\w+):", t, re.M)} | {
        m for t in texts for m in re.findall(r"^\s*use rule \w+ as (\w+)", t, re.M)
    }


# The rules that run as cluster jobs of their own, and why (docs/cluster.md, Grouping).
ALONE = {
    "aggregate_scores": "joins every model's scores: in a group it would merge all prediction jobs into one",
    "null_aggregate_scores": "the same for the null cohort",
    "stats_simulate": "the validation by simulation, split into parts to run in parallel",
    "stats_operating": "operating characteristics: hundreds of simulated studies",
    "stats_operating_curves": "the same, along the design axes",
    "truth_curves": "Monte-Carlo expectations of every metric",
    "stats_seed_noise": "re-simulates the cohort per seed",
    "collect_live": "one job per shard of live collection, in parallel",
    "fetch_dataset": "a download",
    "eqbench_replication": "a replication outside the default run",
    "emobench_m_replication": "a replication outside the default run",
    "cross_benchmark_replication": "a replication outside the default run",
}


def test_the_workflow_profile_leaves_the_cluster_settings_to_the_slurm_profile():
    """Snakemake applies profiles/default on top of --profile, key by key: a key in both would
    silently take the workflow profile's value."""
    default, slurm = _profile("default"), _profile("slurm")
    assert not default.keys() & slurm.keys(), default.keys() & slurm.keys()
    assert slurm["executor"] == "slurm" and slurm["slurm-status-command"] == "squeue"


def test_the_groups_and_the_measured_resources_name_rules_of_the_workflow():
    rules = _rules()
    grouped = {entry.split("=")[0] for entry in _profile("slurm")["groups"]}
    assert grouped <= rules, grouped - rules
    assert read_declared(REPO / "benchmarks" / "rule_resources.csv").keys() <= rules


def test_the_null_cohorts_jobs_count_towards_the_rule_they_copy(tmp_path):
    _bench(tmp_path / "stats_ranks.tsv", 2.0, 150.0)
    _bench(tmp_path / "null" / "stats_ranks.tsv", 3.0, 100.0)
    _bench(tmp_path / "null" / "score_model" / "m1" / "default.tsv", 1.0, 90.0)
    jobs = read_benchmarks(tmp_path)
    assert sorted(zip(jobs["rule"], jobs["job"])) == [
        ("score_model", "null/score_model/m1/default"),
        ("stats_ranks", "null/stats_ranks"),
        ("stats_ranks", "stats_ranks"),
    ]
    table = summarise(jobs).set_index("rule")
    assert table.loc["stats_ranks", "jobs"] == 2 and table.loc["stats_ranks", "max_s"] == 3.0


def test_every_rule_is_grouped_or_runs_alone_on_purpose():
    """A new rule left out of the SLURM profile's groups becomes one more cluster job (the SLURM test
    bounds their number): each rule is in a group or named, with its reason, in ALONE and in the
    profile's and docs/cluster.md's list."""
    rules = _rules() - {"all"}
    grouped = {entry.split("=")[0] for entry in _profile("slurm")["groups"]}
    assert not grouped & ALONE.keys(), grouped & ALONE.keys()
    assert rules == grouped | ALONE.keys(), {
        "in neither": sorted(rules - grouped - ALONE.keys()),
        "not a rule": sorted((grouped | ALONE.keys()) - rules),
    }
    profile_text = (REPO / "profiles" / "slurm" / "config.yaml").read_text()
    docs = (REPO / "docs" / "cluster.md").read_text()
    for rule in ALONE:
        replication = rule.endswith("_replication")
        assert rule in profile_text or (replication and "the replications" in profile_text), rule
        assert f"`{rule}`" in docs or (replication and "the replications" in docs), f"docs/cluster.md: {rule}"


def test_cluster_jobs_are_the_connected_parts_of_each_group():
    from eibench.cluster_groups import count_jobs

    # a -> b -> c in group g, d in g but joined to the others only through x (no group), e alone
    jobs = {0: "all", 1: "a", 2: "b", 3: "c", 4: "d", 5: "x", 6: "e"}
    edges = [(1, 0), (2, 1), (3, 2), (5, 3), (4, 5), (6, 0)]
    groups = {"a": "g", "b": "g", "c": "g", "d": "g"}
    assert count_jobs(jobs, edges, groups) == {"g": 2, "e": 1, "x": 1}
    assert count_jobs(jobs, edges, groups, {"g": 2}) == {"g": 1, "e": 1, "x": 1}


def test_a_dag_that_is_not_one_is_named():
    from eibench.cluster_groups import parse_dag

    with pytest.raises(ValueError, match="not a Snakemake DAG"):
        parse_dag("Error in rule x")
    with pytest.raises(ValueError, match="does not list"):
        parse_dag('digraph {\n 0[label = "all"];\n 1 -> 0\n}')


@pytest.mark.parametrize("configfile", ["config/small.yaml", None], ids=["small", "default"])
def test_the_slurm_profile_packs_the_dag_into_the_cluster_jobs_docs_state(configfile, tmp_path):
    """The count is Snakemake's own rule (connected parts per group: it gave the 43 cluster jobs a
    SLURM run of an earlier profile submitted), on the DAG of `snakemake --dag`; the SLURM test
    (tests/workflow/test_slurm.py) checks it on a real cluster. docs/cluster.md states both."""
    import re
    import subprocess
    import sys

    from eibench.cluster_groups import count_jobs, parse_dag, profile_groups
    from eibench.source_copy import copy_sources

    work = copy_sources(REPO, tmp_path / "repo")
    args = [sys.executable, "-m", "snakemake", "--dag", "--quiet", "all"]
    if configfile:
        args += ["--configfile", configfile]
    dot = subprocess.run(args, cwd=work, capture_output=True, text=True, timeout=300)
    assert dot.returncode == 0, dot.stderr[-3000:]
    jobs, edges = parse_dag(dot.stdout)
    n_jobs = sum(rule != "all" for rule in jobs.values())
    counts = count_jobs(jobs, edges, *profile_groups(_profile("slurm")))
    assert sum(counts.values()) <= n_jobs // 2, counts
    name = configfile and f"`{configfile}`"
    docs = (REPO / "docs" / "cluster.md").read_text()
    row = re.search(rf"^\| {re.escape(name or 'default')}[^|]*\| (\d+) \| (\d+) \|$", docs, re.M)
    assert row, f"docs/cluster.md has no row for {name or 'default'} in its table of cluster jobs"
    assert (int(row[1]), int(row[2])) == (n_jobs, sum(counts.values())), counts

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

    return {
        m
        for f in (REPO / "workflow" / "rules").glob("*.smk")
        for m in re.findall(r"^\s*rule (\w+):", f.read_text(), re.M)
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

"""The manifest: every file with its sha256 and the job that wrote it, read from the provenance
line each successful job writes at the end of its log."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from types import SimpleNamespace

import pytest
from eibench.report.manifest import build_manifest, read_provenance, results_files
from eibench.runlog import PROVENANCE_TAG, rule_log


class _Named(dict):
    """A stand-in for Snakemake's named lists: iterable over values, with items()."""

    def __iter__(self):
        return iter(self.values())


def _smk(tmp_path, rule="score_model", **params):
    return SimpleNamespace(
        rule=rule,
        log=[str(tmp_path / "logs" / f"{rule}.log")],
        input=_Named(gold="results/tables/gold/turns.parquet"),
        output=_Named(table="results/scores/m/default/turn.parquet"),
        wildcards=_Named(model="m", mode="default"),
        params=_Named(params),
    )


def _write(path, text: bytes):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text)


def test_a_successful_job_ends_its_log_with_its_provenance(tmp_path):
    smk = _smk(tmp_path, seed=7, stats={"alpha": 0.05})
    with rule_log(smk) as log:
        log.info("working")
    logging.shutdown()
    records = read_provenance([tmp_path / "logs" / "score_model.log"])
    assert len(records) == 1
    r = records[0]
    assert r["rule"] == "score_model" and r["wildcards"] == {"model": "m", "mode": "default"}
    assert r["input"] == ["results/tables/gold/turns.parquet"]
    assert r["output"] == ["results/scores/m/default/turn.parquet"]
    assert r["params"] == {"seed": 7, "stats": {"alpha": 0.05}}


def test_a_failed_job_leaves_no_provenance(tmp_path):
    smk = _smk(tmp_path)
    with pytest.raises(ValueError), rule_log(smk):
        raise ValueError("bad input")
    text = (tmp_path / "logs" / "score_model.log").read_text()
    assert "bad input" in text and PROVENANCE_TAG not in text
    assert read_provenance([tmp_path / "logs" / "score_model.log"]) == []


def test_params_that_json_cannot_hold_are_kept_as_text(tmp_path):
    with rule_log(_smk(tmp_path, where=tmp_path)):
        pass
    (record,) = read_provenance([tmp_path / "logs" / "score_model.log"])
    assert record["params"] == {"where": str(tmp_path)}


def _record(rule, outputs, inputs=()):
    return {
        "rule": rule,
        "script": f"workflow/scripts/{rule}.py",
        "wildcards": {},
        "input": list(inputs),
        "output": list(outputs),
        "params": {},
    }


def _log(path, record, mtime_ns):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"2026-01-01 INFO x: start\n2026-01-01 INFO x: {PROVENANCE_TAG}{json.dumps(record)}\n")
    os.utime(path, ns=(mtime_ns, mtime_ns))


def test_files_map_to_their_job_including_files_inside_directory_outputs(tmp_path):
    _write(tmp_path / "results/scores/a.csv", b"a,b\n1,2\n")
    _write(tmp_path / "results/predictions/m/default/shard-0/c1.json", b"{}")
    _write(tmp_path / "results/predictions/m/default/shard-0/c2.json", b"[]")
    _write(tmp_path / "results/stray.txt", b"by hand")
    jobs = [
        _record("predict", ["results/predictions/m/default/shard-0"]),
        _record("aggregate", ["results/scores/a.csv"], ["results/predictions/m/default/shard-0"]),
    ]
    paths = results_files(tmp_path, ["results"])
    m = build_manifest(tmp_path, paths, jobs)
    by_path = {e["path"]: e for e in m["files"]}
    assert list(by_path) == sorted(by_path)
    assert by_path["results/scores/a.csv"]["sha256"] == hashlib.sha256(b"a,b\n1,2\n").hexdigest()
    assert by_path["results/scores/a.csv"]["bytes"] == 8
    rules = {p: (None if e["job"] is None else m["jobs"][e["job"]]["rule"]) for p, e in by_path.items()}
    assert rules == {
        "results/predictions/m/default/shard-0/c1.json": "predict",
        "results/predictions/m/default/shard-0/c2.json": "predict",
        "results/scores/a.csv": "aggregate",
        "results/stray.txt": None,
    }
    assert len(m["jobs"]) == 2  # each job listed once, only the jobs that own a listed file


def test_the_newest_log_wins_when_a_stale_one_claims_the_same_output(tmp_path):
    _write(tmp_path / "results/x.csv", b"1\n")
    _log(tmp_path / "logs/new.log", _record("new_rule", ["results/x.csv"]), 2_000_000_000_000_000_000)
    _log(tmp_path / "logs/old.log", _record("old_rule", ["results/x.csv"]), 1_000_000_000_000_000_000)
    (tmp_path / "logs/cut.log").write_text(f'INFO {PROVENANCE_TAG}{{"rule": "cut\n')
    records = read_provenance(sorted((tmp_path / "logs").glob("*.log")))
    assert [r["rule"] for r in records] == ["old_rule", "new_rule"]
    m = build_manifest(tmp_path, ["results/x.csv"], records)
    assert m["jobs"][m["files"][0]["job"]]["rule"] == "new_rule"
    assert "log" not in m["jobs"][0]


def test_results_files_excludes_the_manifest_and_takes_single_files(tmp_path):
    _write(tmp_path / "results/manifest.json", b"{}")
    _write(tmp_path / "results/a/b.csv", b"1")
    _write(tmp_path / "paper/build/paper.pdf", b"%PDF")
    assert results_files(tmp_path, ["results", "paper/build/paper.pdf"], exclude=["results/manifest.json"]) == [
        "paper/build/paper.pdf",
        "results/a/b.csv",
    ]


def test_results_files_leaves_out_the_excluded_folders(tmp_path):
    _write(tmp_path / "results/notebooks/01.html", b"<html>")
    _write(tmp_path / "results/notebooks_list.csv", b"1")  # a sibling whose name starts alike stays
    _write(tmp_path / "results/a/b.csv", b"1")
    assert results_files(tmp_path, ["results"], exclude_folders=["results/notebooks"]) == [
        "results/a/b.csv",
        "results/notebooks_list.csv",
    ]


def test_only_the_files_upstream_of_the_targets_are_of_the_run(tmp_path):
    """results/ can hold another configuration's files (an ESConv cohort after a default run, a
    model no longer configured): their job records name inputs that now hold other data, so
    they are left out, with files nobody wrote; a folder input takes the jobs writing into it."""
    from eibench.report.manifest import of_this_run

    jobs = [
        _record("cohort", ["results/cohort/synthetic"]),
        _record("predict", ["results/predictions/m/default/shard-0"], ["results/cohort/synthetic"]),
        _record("score", ["results/scores/m.csv"], ["results/predictions/m/default"]),
        _record("paper", ["paper/build/paper.pdf"], ["results/scores/m.csv"]),
        _record("esconv_cohort", ["results/cohort/esconv"]),  # another configuration's
        _record("predict", ["results/predictions/old/default/shard-0"], ["results/cohort/synthetic"]),
    ]
    paths = [
        "paper/build/paper.pdf",
        "results/cohort/esconv/c1.json",
        "results/cohort/synthetic/c1.json",
        "results/predictions/m/default/shard-0/c1.json",
        "results/predictions/old/default/shard-0/c1.json",
        "results/scores/m.csv",
        "results/stray.txt",
    ]
    kept, others = of_this_run(paths, jobs, ["paper/build/paper.pdf"])
    assert kept == [
        "paper/build/paper.pdf",
        "results/cohort/synthetic/c1.json",
        "results/predictions/m/default/shard-0/c1.json",
        "results/scores/m.csv",
    ]
    assert others == [
        "results/cohort/esconv/c1.json",
        "results/predictions/old/default/shard-0/c1.json",
        "results/stray.txt",
    ]


def test_a_folder_claimed_by_a_stale_record_belongs_to_the_newer_one():
    """Two records of the same output folder (a renamed log, a model moved between rules): the
    newer one owns the files inside it, so they stay in the run's manifest."""
    from eibench.report.manifest import of_this_run

    jobs = [
        _record("old", ["results/predictions/m"]),
        _record("predict", ["results/predictions/m"]),
        _record("paper", ["paper/build/paper.pdf"], ["results/predictions/m"]),
    ]
    kept, others = of_this_run(
        ["paper/build/paper.pdf", "results/predictions/m/a.json"], jobs, ["paper/build/paper.pdf"]
    )
    assert kept == ["paper/build/paper.pdf", "results/predictions/m/a.json"] and others == []


def test_the_deepest_folder_output_owns_a_file_whatever_the_order_of_the_records(tmp_path):
    """A file inside two claimed folders, one within the other, is the deeper folder's, even
    when the shallower record is the newer; a folder whose name only begins alike owns nothing."""
    for rel in ("results/a/b/c.json", "results/a/d.json", "results/ab/e.json"):
        _write(tmp_path / rel, b"{}")
    jobs = [_record("deep", ["results/a/b"]), _record("shallow", ["results/a"])]
    m = build_manifest(tmp_path, results_files(tmp_path, ["results"]), jobs)
    rules = {e["path"]: None if e["job"] is None else m["jobs"][e["job"]]["rule"] for e in m["files"]}
    assert rules == {"results/a/b/c.json": "deep", "results/a/d.json": "shallow", "results/ab/e.json": None}

"""Scaling study: how DAG construction, scoring and the statistics grow with the size of the
study (docs/scaling.md).

For each configuration of the family in config/scaling/ (1x, 10x and 50x the published 200
conversations with the published 17 models; 100 models on 200 conversations) it runs, in a
temporary copy of the repository (your results/ are never touched):

1. ``snakemake -n`` of the whole workflow on the fresh copy (DAG construction), wall time;
2. the data (cohort, gold tables, predictions), not a measured stage;
3. scoring: rules score_model and aggregate_scores (target results/scores/leaderboard.csv);
4. statistics: the stats_* rules up to the claims and the bootstrap intervals, without the
   validation by simulation;
5. the validation by simulation at 2 + 2 simulated studies: its CPU time per study (each
   simulated study has the design, hence the size, of the configuration).

Per job it samples the process tree every 50 ms (psutil): CPU time (user + system) and the peak
resident set (VmHWM) of each rule's script process (the runs are made without the fork server,
``EIBENCH_FORKSERVER=0``, so that each job computes in that process); per stage it records the wall time and the
CPU time of the jobs. The growth exponents are fitted on CPU time, which other processes on the
machine do not inflate (wall time is recorded too). They are the log-log slope between 10x and
50x and the least-squares slope over 1x, 10x and 50x. The table is printed and written to
benchmarks/records/scaling.csv (one row per configuration, with the machine, date and commit of
its measurement; a run of some configurations replaces their rows only);
benchmarks/records/scaling_rules.csv has the per-rule detail.

Usage:

    .venv/bin/python benchmarks/bench_scaling.py [--cores 2] [--only 1x 10x] [--out DIR]
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import psutil
import yaml
from eibench.report.scaling import FAMILY, GROWTH, RecordError, exponents, paper_table, read_record
from eibench.source_copy import copy_environment, copy_sources

REPO = Path(__file__).resolve().parents[1]
SCORING = ("score_model", "aggregate_scores")
STATISTICS = (
    "stats_uncertainty",
    "stats_ranks",
    "stats_discriminability",
    "stats_subgroups",
    "stats_topics",
    "stats_drift",
    "stats_profiles",
    "stats_humans",
    "stats_claims",
)
SIMULATION = ("stats_simulate",)
STAGE_TARGETS = {
    "data": ["results/tables/gold/conversations.parquet"],  # + every model's predictions (measure())
    "scoring": ["results/scores/leaderboard.csv"],
    "statistics": ["results/stats/claims.csv", "results/stats/uncertainty/intervals.csv"],
    "simulation": ["results/stats/simulation/null-0.parquet", "results/stats/simulation/planted-0.parquet"],
}
STAGE_RULES = {"scoring": SCORING, "statistics": STATISTICS, "simulation": SIMULATION}
EXPONENT_BAR = 1.1  # issue 8: scoring and statistics no worse than linear between 10x and 50x
DRY_RUN_BAR_S = 30.0  # issue 8: snakemake -n of the 50x configuration
# A rule's script runs as `python .snakemake/scripts/tmp<random>.<script>.py`; the scripts of
# the measured rules are named after their rules.
SCRIPT = re.compile(r"\.snakemake/scripts/tmp[^/ ]*?\.(\w+)\.py$")


@dataclass
class Job:
    rule: str
    cpu_s: float = 0.0
    peak_kib: int = 0
    start: float = 0.0
    last: float = 0.0


@dataclass
class Sampler:
    """Samples every script process under ``root`` until stopped."""

    root: int
    interval: float = 0.05
    jobs: dict[int, Job] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)

    def _rule(self, proc: psutil.Process) -> str | None:
        for arg in proc.cmdline():
            m = SCRIPT.search(arg)
            if m:
                return m.group(1)
        return None

    def run(self) -> None:
        try:
            root = psutil.Process(self.root)
        except psutil.NoSuchProcess:
            return
        while not self._stop.is_set():
            try:
                procs = root.children(recursive=True)
            except psutil.NoSuchProcess:
                return
            for proc in procs:
                try:
                    job = self.jobs.get(proc.pid)
                    if job is None:
                        rule = self._rule(proc)
                        if rule is None:
                            continue
                        job = self.jobs[proc.pid] = Job(rule, start=proc.create_time())
                    t = proc.cpu_times()
                    job.cpu_s = t.user + t.system + t.children_user + t.children_system
                    job.peak_kib = max(job.peak_kib, _vmhwm_kib(proc.pid))
                    job.last = time.time()
                except (
                    psutil.NoSuchProcess,
                    psutil.ZombieProcess,
                    psutil.AccessDenied,
                    FileNotFoundError,
                    ProcessLookupError,
                ):
                    continue
            self._stop.wait(self.interval)

    def stop(self) -> None:
        self._stop.set()


def _vmhwm_kib(pid: int) -> int:
    """Peak resident set size of a process so far (Linux /proc/<pid>/status VmHWM), KiB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


class Failed(RuntimeError):
    """A Snakemake invocation of the benchmark failed."""


@dataclass
class Run:
    wall_s: float
    cpu_s: float  # the snakemake process and every job it waited for (user + system)
    jobs: list[Job]


def snakemake(work: Path, args: list[str], sample: bool = False) -> Run:
    exe = Path(sys.executable).with_name("snakemake")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # Without the fork server: each job in a process of its own, which the sampler can find and
    # whose CPU time and peak memory are the job's alone (docs/scaling.md).
    # The jobs import the library of the copy, taken when the study started (copy_environment).
    env = copy_environment(work) | {"EIBENCH_FORKSERVER": "0"}
    proc = subprocess.Popen(
        [str(exe), *args], cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    sampler = Sampler(proc.pid) if sample else None
    thread = threading.Thread(target=sampler.run, daemon=True) if sampler else None
    if thread:
        thread.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    if sampler and thread:
        sampler.stop()
        thread.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise Failed(
            f"snakemake {' '.join(args)} failed in {work} (exit code {proc.returncode}):\n{(err or out)[-4000:]}"
        )
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(wall, cpu, list(sampler.jobs.values()) if sampler else [])


def stage_figures(run: Run, rules: tuple[str, ...]) -> dict:
    jobs = [j for j in run.jobs if j.rule in rules]
    found = {j.rule for j in jobs}
    if not set(rules) <= found:
        raise Failed(f"no job of {sorted(set(rules) - found)} was seen: was the stage already built?")
    return {
        "wall_s": run.wall_s,
        "cpu_s": sum(j.cpu_s for j in jobs),
        "peak_mib": max(j.peak_kib for j in jobs) / 1024,
        "jobs": len(jobs),
        "per_rule": jobs,
    }


def measure(name: str, cores: str, work: Path) -> tuple[dict, list[dict]]:
    """Measure one configuration in ``work``, a fresh copy of the repository."""
    configfile = f"config/scaling/{name}.yaml"
    cfg = yaml.safe_load((REPO / configfile).read_text())
    base = yaml.safe_load((REPO / "config/config.yaml").read_text())
    n_conv = (
        cfg.get("cohorts", {})
        .get("synthetic", {})
        .get("n_conversations", base["cohorts"]["synthetic"]["n_conversations"])
    )
    models = cfg.get("models", base["models"])
    n_models = len(models)
    sim = cfg["statistics"]["simulation"]
    if sim["jobs"] != 1:
        sys.exit(f"{configfile}: statistics.simulation.jobs must be 1 (the stage builds part 0 of each kind)")
    n_sim = sim["n_null"] + sim["n_planted"]
    opts = ["--cores", cores, "--configfile", configfile]
    print(f"[{name}] {n_conv} conversations, {n_models} models: snakemake -n", flush=True)
    dry = snakemake(work, ["-n", "--quiet", *opts])
    print(f"[{name}]   {dry.wall_s:.1f} s; data", flush=True)
    predictions = [f"results/predictions/{m['name']}/default/shard-0" for m in models]
    data = snakemake(work, [*STAGE_TARGETS["data"], *predictions, *opts])
    print(f"[{name}]   {data.wall_s:.1f} s", flush=True)
    stages = {}
    for stage in ("scoring", "statistics", "simulation"):
        run = snakemake(work, [*STAGE_TARGETS[stage], *opts], sample=True)
        stages[stage] = stage_figures(run, STAGE_RULES[stage])
        print(
            f"[{name}]   {stage}: {run.wall_s:.1f} s wall, {stages[stage]['cpu_s']:.1f} s CPU of its jobs, "
            f"peak {stages[stage]['peak_mib']:.0f} MiB",
            flush=True,
        )
    row = {
        "configuration": name,
        "conversations": n_conv,
        "models": n_models,
        "dry_run_wall_s": round(dry.wall_s, 2),
        "data_wall_s": round(data.wall_s, 1),
        "scoring_wall_s": round(stages["scoring"]["wall_s"], 1),
        "scoring_cpu_s": round(stages["scoring"]["cpu_s"], 1),
        "scoring_peak_mib": round(stages["scoring"]["peak_mib"]),
        "statistics_wall_s": round(stages["statistics"]["wall_s"], 1),
        "statistics_cpu_s": round(stages["statistics"]["cpu_s"], 1),
        "statistics_peak_mib": round(stages["statistics"]["peak_mib"]),
        "simulation_cpu_s_per_study": round(stages["simulation"]["cpu_s"] / n_sim, 2),
        "simulation_peak_mib": round(stages["simulation"]["peak_mib"]),
    }
    rules = []
    for stage, figures in stages.items():
        by_rule: dict[str, list[Job]] = {}
        for job in figures["per_rule"]:
            by_rule.setdefault(job.rule, []).append(job)
        for rule, jobs in sorted(by_rule.items()):
            rules.append(
                {
                    "configuration": name,
                    "stage": stage,
                    "rule": rule,
                    "jobs": len(jobs),
                    "cpu_s": round(sum(j.cpu_s for j in jobs), 2),
                    "wall_s": round(sum(j.last - j.start for j in jobs), 2),
                    "peak_mib": round(max(j.peak_kib for j in jobs) / 1024),
                }
            )
    return row, rules


def machine() -> dict:
    commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=REPO, capture_output=True, text=True)
    # The record itself does not make the measured sources dirty.
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)benchmarks/records"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    return {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d"),
        "commit": (commit.stdout.strip() or "unknown") + ("+dirty" if dirty.stdout.strip() else ""),
        "machine": f"{os.cpu_count()} cores ({cpu}), {psutil.virtual_memory().total / 2**30:.0f} GiB RAM, "
        f"Python {platform.python_version()}",
    }


def write_csv(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    tmp.replace(path)


def merged(path: Path, new: list[dict]) -> list[dict]:
    """The record at ``path`` with the rows of the configurations measured now replaced by
    ``new``, in the order of the family (each row keeps its own date, commit and machine)."""
    measured = {r["configuration"] for r in new}
    old = []
    if path.exists():
        with path.open(newline="") as f:
            old = [r for r in csv.DictReader(f) if r["configuration"] not in measured]
    return sorted(old + new, key=lambda r: FAMILY.index(r["configuration"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cores", default="2")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=FAMILY,
        default=list(FAMILY),
        help="measure these configurations only (their rows of the record are replaced)",
    )
    parser.add_argument(
        "--out", type=Path, default=REPO / "benchmarks" / "records", help="folder of scaling.csv and scaling_rules.csv"
    )
    args = parser.parse_args()
    info = machine()
    load_before = os.getloadavg()[0]
    rows, failed = {}, []
    tmp = tempfile.TemporaryDirectory(prefix="scaling-")
    # Every copy is taken now, so the whole family measures the sources as they were at the start.
    works = {name: Path(tmp.name) / name for name in args.only}
    for work in works.values():
        copy_sources(REPO, work)
    for name in args.only:
        try:
            rows[name], detail = measure(name, args.cores, works[name])
            shutil.rmtree(works[name])
        except Failed as err:  # the other configurations are still measured; this row is kept as it was
            print(f"[{name}] FAILED, its row of the record is unchanged: {err}", flush=True)
            failed.append(name)
            continue
        # Written after each configuration, so a later failure loses nothing measured.
        write_csv(args.out / "scaling.csv", merged(args.out / "scaling.csv", [{**rows[name], **info}]))
        write_csv(args.out / "scaling_rules.csv", merged(args.out / "scaling_rules.csv", detail))
    tmp.cleanup()
    load_after = os.getloadavg()[0]
    print(
        f"\nmachine: {info['machine']}; commit {info['commit']}; {info['date']}; "
        f"load average {load_before:.1f} before, {load_after:.1f} after"
    )
    print(
        f"wrote {args.out / 'scaling.csv'} and {args.out / 'scaling_rules.csv'}"
        + (f"; FAILED: {', '.join(failed)}" if failed else "")
        + "\n"
    )
    try:
        full = read_record(args.out / "scaling.csv")
    except RecordError as err:  # a partial family so far: the rows measured now
        print(f"{err}\n" + "\n".join(str(row) for row in rows.values()))
        return
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(paper_table(full).to_string(index=False))
    fitted = exponents(full)
    if "50x" in set(full["configuration"]) and "10x" in set(full["configuration"]):
        verdicts = [
            f"{GROWTH[col]} {fitted[col]['10x-50x']:.2f} "
            f"({'PASS' if fitted[col]['10x-50x'] <= EXPONENT_BAR else 'FAIL'})"
            for col in ("scoring_cpu_s", "statistics_cpu_s")
        ]
        print(f"\nbar: CPU-time exponent 10x -> 50x <= {EXPONENT_BAR}: {'; '.join(verdicts)}")
    if "50x" in set(full["configuration"]):
        dry = float(full.set_index("configuration").loc["50x", "dry_run_wall_s"])
        print(
            f"bar: snakemake -n at 50x <= {DRY_RUN_BAR_S:.0f} s: {dry:.1f} s "
            f"({'PASS' if dry <= DRY_RUN_BAR_S else 'FAIL'})"
        )
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()

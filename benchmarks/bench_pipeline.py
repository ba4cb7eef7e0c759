"""Time the whole workflow as a user runs it (one ``snakemake`` command), the part of it up to
the scores, a no-op rerun and the paper compile alone.

"cohort to scores" is read from the same run: the time from its start to when it wrote
``results/scores/leaderboard.csv`` (the last file of the scoring stage); "statistics + paper" is
the rest. The full run's CPU time (user + system, of Snakemake and every job) is printed
beside it: it counts only this run's processes, so other work on the machine does not inflate
it, but it grows as the wall time does when the host itself runs slower (on this 2-core VM the
same commit took 99.7 s and 123.0 s of CPU, 57.0 s and 69.0 s of wall time, five minutes
apart). Compare two commits by runs alternated in one window. The last line says whether the
run had the fork server (``logs/forkserver.log``; set ``EIBENCH_FORKSERVER=0`` to time a run
without it).

Runs in a temporary copy of the repository (your results/ are never touched) and prints one
line per figure with the bar it is held to. Usage:

    .venv/bin/python benchmarks/bench_pipeline.py [--cores 8] [--configfile config/small.yaml]
    .venv/bin/python benchmarks/bench_pipeline.py --cores 2 --configfile config/mirrors.yaml config/esconv.yaml

The copy lies in a temporary folder beside a link named ``shared`` to the ``shared`` folder next
to this repository (when there is one), so a config that reads the public-data mirrors
(config/mirrors.yaml: ``../shared/data``) finds them there as it does here.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from eibench.source_copy import copy_environment, copy_sources

REPO = Path(__file__).resolve().parents[1]


def children_cpu() -> float:
    """User + system CPU seconds of this process's children that have ended, and of theirs:
    Snakemake, the fork server and every job (each process is waited for by its parent)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(work: Path, *args: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one ``snakemake`` command in ``work``."""
    exe = Path(sys.executable).with_name("snakemake")
    start, cpu = time.perf_counter(), children_cpu()
    proc = subprocess.run([str(exe), *args], cwd=work, capture_output=True, text=True, env=copy_environment(work))
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"snakemake {' '.join(args)} failed:\n{proc.stderr[-3000:]}")
    return elapsed, children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cores", default="8")
    parser.add_argument("--configfile", nargs="+", default=None, help="config files, as snakemake takes them")
    args = parser.parse_args()
    extra = ["--configfile", *args.configfile] if args.configfile else []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "repo"
        copy_sources(REPO, work)
        if (REPO.parent / "shared").is_dir():
            (Path(tmp) / "shared").symlink_to(REPO.parent / "shared")
        started = time.time()
        full, full_cpu = run(work, "--cores", args.cores, *extra)
        scores = (work / "results" / "scores" / "leaderboard.csv").stat().st_mtime - started
        rest = full - scores
        server = (work / "logs" / "forkserver.log").read_text().splitlines()
        noop, _ = run(work, "--cores", args.cores, *extra)
        os.utime(work / "paper" / "main.typ")
        paper, _ = run(work, "--cores", args.cores, *extra)
    configs = " + ".join(args.configfile) if args.configfile else "config/config.yaml"
    print(f"machine: {os.cpu_count()} cores; config: {configs}")
    print(f"cohort to scores    {scores:7.1f} s   (the foundation's stages: cohort, predictions, scores)")
    print(f"statistics + paper  {rest:7.1f} s   (incl. the validation by simulation at its configured size)")
    print(f"full run            {full:7.1f} s   (bars: default config <= 60 s and ESConv <= 300 s, issue 19)")
    print(
        f"  CPU time of it    {full_cpu:7.1f} s   (user + system of Snakemake and every job; {full_cpu / full:.2f} "
        "cores busy on average)"
    )
    print(f"no-op rerun         {noop:7.1f} s   (bar: <= 5 s)")
    print(f"paper rebuild only  {paper:7.1f} s   (bar: the compile itself <= 5 s; this includes Snakemake start-up)")
    print(f"ratio no-op / full  {noop / full:7.3f}")
    print(f"{server[0]}; {server[-1].split(': ', 1)[-1] if len(server) > 1 else ''}")


if __name__ == "__main__":
    main()

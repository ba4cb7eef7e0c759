"""Regenerate the rules' cluster resources from a run's benchmark files.

Every rule writes a Snakemake benchmark file (``logs/benchmarks/<rule>[/<wildcards>].tsv``: wall
time, peak RSS, CPU load). After a full run of the workflow without the fork server (the
default config, to measure what the paper's own run needs; with the server, each job computes
in a child of the server, which Snakemake's benchmark does not watch, so this script refuses
such a run, as ``logs/forkserver.log`` records it):

    EIBENCH_FORKSERVER=0 .venv/bin/snakemake --cores 8 -F
    .venv/bin/python benchmarks/rule_resources.py

writes

- ``benchmarks/rule_benchmarks.csv``: the record, one row per job (rule, job, s, max_rss in MB,
  mean_load in CPU percent), sorted;
- ``benchmarks/rule_resources.csv``: per rule, the number of jobs, the peaks and the declared
  ``mem_mb`` and ``runtime`` (minutes) that the workflow reads (headroom in
  ``eibench.cluster``, documented in docs/cluster.md);

and prints the table with the number of jobs of the run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from eibench.cluster import read_benchmarks, summarise
from eibench.forkserver.lifecycle import run_had_server

HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--benchmarks",
        type=Path,
        default=Path("logs/benchmarks"),
        help="folder of the run's benchmark files (default: logs/benchmarks)",
    )
    parser.add_argument("--out", type=Path, default=HERE, help="folder of the two CSV files (default: benchmarks/)")
    args = parser.parse_args(argv)
    if not args.benchmarks.is_dir():
        print(f"{args.benchmarks}: no such folder; run the workflow first (snakemake --cores 8)", file=sys.stderr)
        return 1
    if run_had_server(args.benchmarks.parent / "forkserver.log"):
        print(
            f"{args.benchmarks}: written by a run with the fork server (logs/forkserver.log), whose jobs' memory and "
            "CPU Snakemake's benchmarks do not see; measure with EIBENCH_FORKSERVER=0 snakemake --cores 8 -F",
            file=sys.stderr,
        )
        return 1
    jobs = read_benchmarks(args.benchmarks)
    if jobs.empty:
        print(f"{args.benchmarks}: no benchmark files; run the workflow first (snakemake --cores 8)", file=sys.stderr)
        return 1
    record = jobs.sort_values(["rule", "job"]).round({"s": 2, "max_rss": 1, "mean_load": 1})
    record.to_csv(args.out / "rule_benchmarks.csv", index=False)
    table = summarise(record)  # from the record as written, so the two files agree exactly
    table.to_csv(args.out / "rule_resources.csv", index=False)
    print(table.to_string(index=False))
    print(
        f"{len(jobs)} jobs of {len(table)} rules; peak RSS {table['max_rss_mb'].max():.0f} MB, "
        f"longest job {table['max_s'].max():.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

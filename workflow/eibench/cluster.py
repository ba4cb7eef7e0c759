"""Cluster resources of the workflow's rules, derived from measured peaks.

Every rule has a ``benchmark:`` file (``logs/benchmarks/<rule>[/<wildcards>...].tsv``, one row per
run of the job, written by Snakemake: wall time ``s`` in seconds, peak resident memory
``max_rss`` in MB, ...). :func:`read_benchmarks` gathers them, :func:`summarise` keeps each rule's
peaks, and :func:`declare` turns a peak into what the rule asks a scheduler for:

- ``mem_mb`` = ``MEM_HEADROOM`` x peak RSS + ``JOB_OVERHEAD_MB`` (the two Snakemake processes
  that wrap a job on a cluster: the job step and the rule's own), rounded up to a multiple of
  ``MEM_STEP_MB``, at least ``MIN_MEM_MB``;
- ``runtime`` (minutes) = ``TIME_HEADROOM`` x peak wall time, rounded up, at least
  ``MIN_RUNTIME_MIN``.

The resulting table (``benchmarks/rule_resources.csv``) is read back by :func:`read_declared`
when the workflow is parsed (``workflow/rules/common.smk``); a rule without a row asks for
``DEFAULT_MEM_MB`` and ``DEFAULT_RUNTIME_MIN``. Pure functions, no Snakemake import.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pandas as pd

MEM_HEADROOM = 1.5
JOB_OVERHEAD_MB = 400
MEM_STEP_MB = 128
MIN_MEM_MB = 512
TIME_HEADROOM = 3.0
MIN_RUNTIME_MIN = 5
#: What a rule without a measurement asks for (a new rule, or one the measured run did not run).
DEFAULT_MEM_MB = 2048
DEFAULT_RUNTIME_MIN = 60

#: Columns of the resources table, in order.
NULL_BENCHMARKS = "null"  # the folder of the null cohort's benchmark files (workflow/rules/truth.smk)
COLUMNS = ("rule", "jobs", "max_rss_mb", "max_s", "max_load", "mem_mb", "runtime")


def read_benchmarks(root: Path) -> pd.DataFrame:
    """Every row of every benchmark file under ``root`` (``<root>/<rule>.tsv`` or
    ``<root>/<rule>/<wildcards>/...tsv``), with columns ``rule``, ``job`` (the file's path below
    ``root``), ``s``, ``max_rss`` (MB) and ``mean_load`` (CPU percent). The null cohort's files,
    ``<root>/null/<rule>/...``, count as jobs of ``<rule>``, whose resources they declare. A file
    that is not a Snakemake benchmark table raises ValueError naming it; no files at all gives an
    empty frame."""
    frames = []
    for path in sorted(Path(root).rglob("*.tsv")):
        rel = path.relative_to(root)
        table = pd.read_csv(path, sep="\t")
        missing = {"s", "max_rss"} - set(table.columns)
        if missing:
            raise ValueError(
                f"{path}: not a Snakemake benchmark file (no column {', '.join(sorted(missing))}); "
                f"remove it from {root}"
            )
        rule = rel.parts[0].removesuffix(".tsv")
        if rule == NULL_BENCHMARKS and len(rel.parts) > 1:
            # null/<rule>/...: the null cohort's copy of <rule> (`use rule <rule> as null_<rule>`)
            # declares <rule>'s resources, so its jobs count towards <rule>'s peaks
            rule = rel.parts[1].removesuffix(".tsv")
        frames.append(
            pd.DataFrame(
                {
                    "rule": rule,
                    "job": rel.with_suffix("").as_posix(),
                    "s": pd.to_numeric(table["s"], errors="coerce"),
                    "max_rss": pd.to_numeric(table["max_rss"], errors="coerce"),
                    "mean_load": pd.to_numeric(table.get("mean_load"), errors="coerce"),
                }
            )
        )
    if not frames:
        return pd.DataFrame(columns=["rule", "job", "s", "max_rss", "mean_load"])
    return pd.concat(frames, ignore_index=True)


def declare(max_rss_mb: float, max_s: float) -> tuple[int, int]:
    """(mem_mb, runtime in minutes) for a job whose peak RSS was ``max_rss_mb`` MB and wall time
    ``max_s`` seconds (a missing measure, NaN, counts as 0: the floors apply)."""
    rss = 0.0 if max_rss_mb is None or math.isnan(max_rss_mb) else float(max_rss_mb)
    sec = 0.0 if max_s is None or math.isnan(max_s) else float(max_s)
    mem = math.ceil((MEM_HEADROOM * rss + JOB_OVERHEAD_MB) / MEM_STEP_MB) * MEM_STEP_MB
    runtime = math.ceil(TIME_HEADROOM * sec / 60)
    return max(mem, MIN_MEM_MB), max(runtime, MIN_RUNTIME_MIN)


def summarise(benchmarks: pd.DataFrame) -> pd.DataFrame:
    """One row per rule: the number of jobs measured, the peak RSS (MB, one decimal) and wall
    time (s, one decimal) over them, the highest mean CPU load (in CPUs, two decimals: about 1
    or less for a single-threaded rule) and the declared ``mem_mb`` and ``runtime``
    (:func:`declare`). Sorted by rule."""
    rows = []
    for rule, group in benchmarks.groupby("rule", sort=True):
        rss, sec = group["max_rss"].max(), group["s"].max()
        mem, runtime = declare(rss, sec)
        rows.append(
            {
                "rule": rule,
                "jobs": int(group["job"].nunique()),
                "max_rss_mb": round(float(rss), 1) if pd.notna(rss) else float("nan"),
                "max_s": round(float(sec), 1) if pd.notna(sec) else float("nan"),
                "max_load": round(float(group["mean_load"].max()) / 100, 2),
                "mem_mb": mem,
                "runtime": runtime,
            }
        )
    return pd.DataFrame(rows, columns=list(COLUMNS))


def read_declared(path: Path) -> dict[str, dict[str, int]]:
    """rule -> {"mem_mb", "runtime"} from a resources table written by
    :func:`summarise`; an absent file gives {} (every rule then takes the defaults).
    A row with a missing or non-integer value raises ValueError naming the file, rule and column."""
    path = Path(path)
    if not path.exists():
        return {}
    out = {}
    with open(path, encoding="utf-8", newline="") as fh:
        for line, row in enumerate(csv.DictReader(fh), start=2):
            values = {}
            for key in ("mem_mb", "runtime"):
                try:
                    values[key] = int(row[key])
                except (KeyError, TypeError, ValueError):
                    raise ValueError(
                        f"{path}, line {line} (rule {row.get('rule')!r}): column {key!r} must be a "
                        f"whole number, got {row.get(key)!r}; regenerate the file with "
                        f"benchmarks/rule_resources.py"
                    ) from None
            out[row["rule"]] = values
    return out

"""Time of the cluster bootstrap of every metric: 2,000 resamples, 11 models x 200 conversations.

The statistics resample per-conversation values (the sufficient statistics of every mean the
paper reports) with conversation weights; nothing is re-scored. This script builds a study of
that size with every metric the statistics stage reads (values drawn at random, human raters on
a subset, some missing values), then times what the stats_uncertainty rule computes: the
resample weights, every model x metric interval, every paired difference between the models
and every rank interval. Bar: <= 20 s. Usage:

    .venv/bin/python benchmarks/bench_bootstrap.py [--resamples 2000] [--models 11] [--conversations 200]
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def build_study(n_models: int, n_conversations: int, seed: int = 0):
    from eibench.stats.load import STUDY_METRICS
    from eibench.stats.study import Study

    rng = np.random.default_rng(seed)
    n_humans = 3
    models = [f"m{i:02d}" for i in range(n_models)] + [f"human_{i + 1}" for i in range(n_humans)]
    roles = {m: ("human" if m.startswith("human_") else "model") for m in models}
    values = {}
    for metric in sorted(set(STUDY_METRICS)):
        grid = rng.normal(0.6, 0.2, size=(len(models), n_conversations)) + rng.normal(0, 0.05, size=(len(models), 1))
        grid[n_models:, 30:] = np.nan  # human raters answer a subset
        grid[rng.random(grid.shape) < 0.01] = np.nan  # a few missing values
        values[metric] = grid
    participant = rng.integers(0, 11, size=n_conversations)
    return Study(
        models,
        roles,
        [f"c{j:04d}" for j in range(n_conversations)],
        participant,
        [f"P{p:02d}" for p in range(11)],
        participant < 6,
        np.array(["Family"] * n_conversations, dtype=object),
        rng.integers(3, 16, size=n_conversations).astype(float),
        values,
        None,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--models", type=int, default=11)
    parser.add_argument("--conversations", type=int, default=200)
    args = parser.parse_args()

    from eibench.stats.bootstrap import cluster_weights
    from eibench.stats.uncertainty import model_intervals, paired_differences, rank_intervals

    study = build_study(args.models, args.conversations)
    metrics = sorted(study.values)
    models = study.with_role("model")
    start = time.perf_counter()
    weights = cluster_weights(np.arange(study.n_conversations), args.resamples, np.random.default_rng(1))
    t_weights = time.perf_counter()
    intervals = model_intervals(study, metrics, weights)
    t_intervals = time.perf_counter()
    paired = paired_differences(study, metrics, weights, models)
    t_paired = time.perf_counter()
    ranks = rank_intervals(study, metrics, weights, models)
    end = time.perf_counter()
    print(
        f"{args.resamples} resamples x {len(metrics)} metrics x {len(study.models)} rows "
        f"({args.models} models + 3 humans) x {args.conversations} conversations"
    )
    print(f"  weights          {t_weights - start:7.2f} s")
    print(f"  intervals        {t_intervals - t_weights:7.2f} s  ({len(intervals)} model x metric rows)")
    print(f"  paired diffs     {t_paired - t_intervals:7.2f} s  ({len(paired)} pairs x metric rows)")
    print(f"  rank intervals   {end - t_paired:7.2f} s  ({len(ranks)} rows)")
    print(f"total: {end - start:.2f} s (bar: <= 20 s)")


if __name__ == "__main__":
    main()

"""Time Kendall tau-b over stacks of resamples (``stats.ranks.tau_b_matrix``) both ways: every
pair at once, and one first model at a time (what it does from ``ranks.LOOP_FROM_MODELS``
models on), alternated, so that both see the same machine.

    .venv/bin/python benchmarks/bench_tau_b.py [--rounds 7]

Prints, per stack size (resamples x models x 4 metrics), the median milliseconds of each way,
their ratio and which way ``tau_b_matrix`` takes; the two give the same numbers bit for bit
(tests/stats/test_ranks.py).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from eibench.stats import ranks

SIZES = [(1, 17), (200, 11), (200, 17), (200, 24), (200, 32), (200, 40), (200, 80), (2000, 17), (2000, 40)]


def timed(means: np.ndarray, loop_from: int, reps: int) -> float:
    """Milliseconds per call of ``tau_b_matrix`` with the loop taken from ``loop_from`` models."""
    saved, ranks.LOOP_FROM_MODELS = ranks.LOOP_FROM_MODELS, loop_from
    try:
        start = time.perf_counter()
        for _ in range(reps):
            ranks.tau_b_matrix(means)
        return (time.perf_counter() - start) / reps * 1e3
    finally:
        ranks.LOOP_FROM_MODELS = saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'resamples x models':>20s} {'all pairs':>10s} {'by model':>10s} {'ratio':>6s}  taken")
    for lead, n in SIZES:
        means = rng.normal(size=(lead, n, 4))
        reps = max(1, 400 // lead)
        pairs, loop = [], []
        for _ in range(args.rounds):
            pairs.append(timed(means, n + 1, reps))
            loop.append(timed(means, 0, reps))
        p, q = statistics.median(pairs), statistics.median(loop)
        taken = "by model" if n >= ranks.LOOP_FROM_MODELS else "all pairs"
        print(f"{f'{lead} x {n}':>20s} {p:8.2f}ms {q:8.2f}ms {p / q:6.2f}  {taken}")


if __name__ == "__main__":
    main()

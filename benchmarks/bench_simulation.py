"""Time the validation by simulation: the per-study path (simulation.simulate_and_test) against
the vectorised one (simulation_batch), and how the vectorised one grows with the number of
studies. Default design: the Generator's defaults (200 conversations, 11 participants, 11
models, 3 raters), or the design of a built cohort (--design results/stats/design.json).

    .venv/bin/python benchmarks/bench_simulation.py [--design results/stats/design.json]

Prints seconds for 200 null + 200 planted studies (bar: <= 10 s, one process), the per-study
time of both paths and the scaling exponent of the vectorised path (bar: <= 1.1).
"""

from __future__ import annotations

import argparse
import json
import resource
import time
import warnings

import numpy as np
import yaml
from eibench.seeding import rng_for
from eibench.stats import simulation as sim
from eibench.stats import simulation_batch as sb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--design", default=None)
    parser.add_argument("--conversations", type=int, nargs="*", default=[200, 2000, 10000])
    parser.add_argument("--old", type=int, default=4, help="studies timed on the per-study path")
    args = parser.parse_args()
    config = yaml.safe_load(open("config/config.yaml"))
    s = config["statistics"]
    alpha, B, planted = s["alpha"], s["simulation"]["n_bootstrap"], s["simulation"]["planted"]
    design = sim.generator_design(json.load(open(args.design)), alpha) if args.design else None
    gens = {"null": sim.null_generator(design), "planted": sim.planted_generator(planted, design)}
    weights = sb.shared_weights(gens["null"], B, rng_for(1, "simulation", "resampling"))

    cpu_used = {}

    def vectorised(n: int) -> float:
        start, cpu_start = time.perf_counter(), time.process_time()
        for kind, g in gens.items():
            sb.simulate_and_test_many(
                g,
                [rng_for(1, "simulation", kind, str(i)) for i in range(n)],
                weights,
                alpha,
                design_rng=rng_for(1, "simulation", "design"),
            )
        cpu_used[n] = time.process_time() - cpu_start
        return time.perf_counter() - start

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        for i in range(args.old):
            sim.simulate_and_test(gens["planted"], B, rng_for(1, "simulation", "planted", str(i)), alpha)
        old = (time.perf_counter() - start) / args.old
        sizes = (50, 100, 200)
        times = [vectorised(n) for n in sizes]
    slope = float(np.polyfit(np.log(sizes), np.log(times), 1)[0])
    print(f"per-study path      {old:8.3f} s per study ({args.old} studies)")
    for n, t in zip(sizes, times):
        print(f"vectorised {n:4d}+{n:<4d}{t:8.2f} s   ({t / (2 * n) * 1000:.1f} ms per study)")
    print(
        f"200 + 200 studies   {times[-1]:8.2f} s wall, {cpu_used[sizes[-1]]:.2f} s CPU (bar: <= 10 s); "
        f"per-study path would take {400 * old:.0f} s"
    )
    print(f"speed-up            {400 * old / times[-1]:8.1f} x")
    print(f"scaling exponent    {slope:8.3f}   (time ~ studies^k; bar: k <= 1.1)")
    # Growth with the size of a study (the configurations of config/scaling/: 1x, 10x, 50x the
    # published 200 conversations), CPU time per study of 10 planted studies.
    cpu = []
    for n in args.conversations:
        g = sim.planted_generator(planted, {"n_conversations": n})
        w = sb.shared_weights(g, B, rng_for(1, "simulation", "resampling"))
        start = time.process_time()
        sb.simulate_and_test_many(
            g,
            [rng_for(1, "simulation", "planted", str(i)) for i in range(10)],
            w,
            alpha,
            design_rng=rng_for(1, "simulation", "design"),
        )
        cpu.append((time.process_time() - start) / 10)
        print(f"{n:6d} conversations {cpu[-1]:8.3f} CPU s per study")
    if len(cpu) > 1:
        k = float(np.polyfit(np.log(args.conversations), np.log(cpu), 1)[0])
        print(f"growth in conversations {k:6.3f}   (CPU time ~ conversations^k; bar: k <= 1.1)")
    print(
        f"peak resident set  {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:8.0f} MiB (bar: 2 GiB per job)"
    )


if __name__ == "__main__":
    main()

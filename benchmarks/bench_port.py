"""Side by side with the public TypeScript port of the AttuneBench scorer, end to end.

Times whole processes (start-up, imports, reading, validating, scoring: what a user waits for),
median of ``--runs``: ours is ``bench_ingest.py --once`` on the built cohort (every model's EM
output files, parity rules only, as the issue measured it); the port's is the command given with
``--port-cmd``, run with the conversation folder and the predictions folder appended as its last
two arguments. The harness lives outside the repository (the port is not ours to vendor); it
must read those files and score every model's outputs with the port's scorer.ts.

    .venv/bin/python benchmarks/bench_port.py [--runs 5] [--port-cmd "node /work/port/harness.js"]

Prints both medians and the ratio port / ours (issue 19's bar: >= 2).
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BAR = 2.0


def whole_process(cmd: list[str], runs: int) -> float:
    """Median wall time of ``cmd`` (seconds); stops on a failing run."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            sys.exit(f"{shlex.join(cmd)} failed:\n{proc.stderr[-3000:]}")
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=Path, default=REPO / "results/cohort/synthetic/conversations")
    parser.add_argument("--predictions", type=Path, default=REPO / "results/predictions")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--port-cmd", default=None, help="the port harness command (paths are appended)")
    args = parser.parse_args()
    ours_cmd = [
        sys.executable,
        str(REPO / "benchmarks/bench_ingest.py"),
        "--once",
        "--rule-sets",
        "parity",
        "--conversations",
        str(args.conversations),
        "--predictions",
        str(args.predictions),
    ]
    ours = whole_process(ours_cmd, args.runs)
    print(f"ours (whole process)   {ours:6.2f} s   median of {args.runs}: {shlex.join(ours_cmd[1:])}")
    if args.port_cmd is None:
        print("port: not run (give --port-cmd)")
        return
    port_cmd = [*shlex.split(args.port_cmd), str(args.conversations), str(args.predictions)]
    port = whole_process(port_cmd, args.runs)
    print(f"port (whole process)   {port:6.2f} s   median of {args.runs}: {shlex.join(port_cmd)}")
    print(f"ratio port / ours      {port / ours:6.2f}     (bar: >= {BAR})")


if __name__ == "__main__":
    main()

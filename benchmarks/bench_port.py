"""Side by side with the public TypeScript port of the AttuneBench scorer, end to end.

Times whole processes (start-up, imports, reading, validating, scoring: what a user waits for),
median of ``--runs``, the commands alternated round by round so that all see the same machine
(its speed drifts by up to 25% within an hour here):

- ours: ``bench_ingest.py --once`` on the built cohort (every model's EM output files, parity
  rules only, as the issue measured it). It ends as the workflow's jobs end, without the
  interpreter's final collections over the heap the imports made (see bench_ingest.py);
- ours with Python's whole exit: the same with ``--full-teardown`` (about 0.12 s more);
- the floor of a pandas-free pass: ``bench_read_floor.py`` on the same files (start-up, the
  library's readers validating every file in two processes, the binary answers gathered; no
  table, no score): what a reader and scorer rebuilt without pandas would start from;
- the port's: the command given with ``--port-cmd``, run with the conversation folder and the
  predictions folder appended as its last two arguments: ``node benchmarks/port/harness.js``,
  built as benchmarks/port/README.md says (the port's own files are fetched at pinned commits,
  not vendored), or any harness that reads those files and scores every model's outputs with
  the port's scorer.ts.

    .venv/bin/python benchmarks/bench_port.py [--runs 5] [--port-cmd "node benchmarks/port/harness.js"]

Prints the medians, the ratios port / ours (issue 19's bar: >= 2) and the time a pass meeting
the bar may take, beside the floor.
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


def timed(cmd: list[str]) -> float:
    """Wall time of one run of ``cmd`` (seconds); stops on a failing run."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{shlex.join(cmd)} failed:\n{proc.stderr[-3000:]}")
    return elapsed


def alternated(commands: dict[str, list[str]], runs: int) -> dict[str, float]:
    """Median wall time of each command over ``runs`` rounds, each round running every command once."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, cmd in commands.items():
            times[name].append(timed(cmd))
    return {name: statistics.median(t) for name, t in times.items()}


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
    floor_cmd = [
        sys.executable,
        str(REPO / "benchmarks/bench_read_floor.py"),
        "--conversations",
        str(args.conversations),
        "--predictions",
        str(args.predictions),
    ]
    commands = {
        "ours": ours_cmd,
        "ours, Python's whole exit": [*ours_cmd, "--full-teardown"],
        "floor: validated read only": floor_cmd,
    }
    if args.port_cmd is not None:
        commands["port"] = [*shlex.split(args.port_cmd), str(args.conversations), str(args.predictions)]
    medians = alternated(commands, args.runs)
    for name, cmd in commands.items():
        print(f"{name + ' (whole process)':40s} {medians[name]:6.2f} s   median of {args.runs}: {shlex.join(cmd[1:])}")
    if args.port_cmd is None:
        print("port: not run (give --port-cmd)")
        return
    floor = "floor: validated read only"
    for name in commands:
        if name not in ("port", floor):
            print(f"ratio port / {name:27s} {medians['port'] / medians[name]:6.2f}     (bar: >= {BAR})")
    print(
        f"a pass with the 2x bar met may take {medians['port'] / BAR:.2f} s; the floor leaves "
        f"{medians['port'] / BAR - medians[floor]:.2f} s for tidying and scoring"
    )


if __name__ == "__main__":
    main()

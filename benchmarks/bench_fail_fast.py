"""Time how fast a run that cannot be done honestly stops (bar: under 5 s, nothing written).

Five cases, each in a fresh temporary copy of the repository: a replication whose mirror-only
files have no mirror (EQ-Bench), the ESConv cohort with no mirror and download URLs that do not
answer (a closed loopback port, so the figure does not depend on this machine's network), and
the same run as a dry run (-n); the README's release example (read from README.md) with the
default, simulated models, on the hand-written release folder tests/data/release/valid (it must
stop at parse time naming `models` and config/attunebench.yaml), and the same as a dry run. For
reference it also times a dry run of the default workflow,
whose parse the failing runs share. Prints one line per case: seconds (median of --repeat runs),
whether the run failed as it must, and whether anything was written. Usage:

    .venv/bin/python benchmarks/bench_fail_fast.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from eibench.source_copy import copy_sources

REPO = Path(__file__).resolve().parents[1]
ESCONV_FILES = ("train.json", "valid.json", "test.json", "strategy.json")
OFFLINE_ESCONV = {
    "datasets": {"esconv": {"mirror": None, "files": {f: {"url": f"https://127.0.0.1:9/{f}"} for f in ESCONV_FILES}}}
}


def release_example_default_models() -> list[str]:
    """The README's release example without its overlay (the default models), on tests/data/release/valid."""
    (line,) = [
        x
        for x in (REPO / "README.md").read_text().splitlines()
        if x.startswith(".venv/bin/snakemake") and "cohort=attunebench" in x
    ]
    argv = shlex.split(line.split("  #", 1)[0])[1:]
    argv = [
        re.sub(r"path: .+\}\}$", "path: tests/data/release/valid}}", a) if a.startswith("cohorts=") else a for a in argv
    ]
    i = argv.index("config/attunebench.yaml")
    return argv[: i - 1] + argv[i + 1 :]


def timed(args: list[str], overlay: dict | None, expect: tuple[str, ...] = ()) -> tuple[float, int, bool]:
    """(seconds, return code, whether results/ or logs/ were created) of one run in a fresh copy;
    the return code is forced to 0 when the output lacks one of ``expect`` (a failure for the wrong reason)."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "repo"
        copy_sources(REPO, work)
        if overlay is not None:
            (work / "config" / "bench.yaml").write_text(json.dumps(overlay))
            args = [*args, "config/bench.yaml"]
        exe = Path(sys.executable).with_name("snakemake")
        start = time.perf_counter()
        proc = subprocess.run([str(exe), *args], cwd=work, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        out = proc.stdout + proc.stderr
        code = proc.returncode if all(e in out for e in expect) else 0
        return elapsed, code, (work / "results").exists() or (work / "logs").exists()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    cases = [
        ("dry run of the default workflow (reference)", ["-n", "--cores", "1"], None, True),
        (
            "replication without its data (eqbench)",
            ["--cores", "1", "--configfile"],
            {"replications": {"include": ["eqbench"]}},
            False,
        ),
        (
            "ESConv cohort, no mirror, URL unreachable",
            ["--cores", "1", "--configfile", "config/esconv.yaml"],
            OFFLINE_ESCONV,
            False,
        ),
        ("same, dry run", ["-n", "--cores", "1", "--configfile", "config/esconv.yaml"], OFFLINE_ESCONV, False),
        ("README release example, default models", release_example_default_models(), None, False),
        ("same, dry run", ["-n", *release_example_default_models()], None, False),
    ]
    refusal = ("config key 'models'", "--configfile config/attunebench.yaml")
    for name, argv, overlay, should_succeed in cases:
        expect = refusal if "cohort=attunebench" in argv else ()
        runs = [timed(argv, overlay, expect) for _ in range(args.repeat)]
        seconds = statistics.median(r[0] for r in runs)
        ok = all((r[1] == 0) == should_succeed for r in runs)
        wrote = any(r[2] for r in runs) and not should_succeed
        bar = "" if should_succeed else f"  bar 5 s: {'met' if seconds < 5 else 'NOT met'}"
        print(
            f"{name:48s} {seconds:6.2f} s  {'as expected' if ok else 'UNEXPECTED exit code'}"
            f"{'  WROTE FILES' if wrote else ''}{bar}"
        )


if __name__ == "__main__":
    main()

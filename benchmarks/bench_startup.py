"""The start-up floor of a run: what the jobs of the DAG spend starting Python and importing
their script's modules before any work, summed over the jobs.

Every rule with ``script:`` runs its script in a fresh Python process: the interpreter starts,
unpickles the ``snakemake`` object (``import snakemake.script``) and runs the script's
module-level imports. This script times exactly that for each rule's script (fresh processes,
median of ``--runs``), counts the rule's jobs in the DAG of a full run (``snakemake -n -F``,
nothing is run or written) and prints, per rule and in total, the seconds of job time that go
to start-up, and the least wall time that start-up alone takes on ``--cores`` cores. A notebook
job also starts a kernel, which is not counted: the floor is a lower bound.

That is the floor of a run without the fork server (``EIBENCH_FORKSERVER=0``, or a cluster run).
With it (eibench/forkserver), a job's process only starts Python, runs Snakemake's preamble and
hands the job to a fork of the warm server; the script then finds its modules imported. The
last lines time that too: a job that does nothing, handed to a server started as a run starts
it (median of ``--runs`` x 5 jobs), times the jobs of the DAG.

    .venv/bin/python benchmarks/bench_startup.py [--cores 2] [--configfile config/small.yaml] [--runs 3]
"""

from __future__ import annotations

import argparse
import ast
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RULES = REPO / "workflow" / "rules"
_RULE = re.compile(r"^\s*rule (\w+):")
_USE = re.compile(r"^\s*use rule (\w+) as (\w+)")
_SCRIPT = re.compile(r"""^\s*["'](.+\.py)["']""")


def rule_scripts(rules_dir: Path = RULES) -> dict[str, Path]:
    """Each rule's script (``script:`` in workflow/rules/*.smk); a rule made by ``use rule A as
    B`` has A's script unless it names its own. Rules without a script are left out."""
    scripts: dict[str, Path] = {}
    copies: dict[str, str] = {}
    for smk in sorted(rules_dir.glob("*.smk")):
        current, want_script = None, False
        for line in smk.read_text(encoding="utf-8").splitlines():
            if m := _USE.match(line):
                current, want_script = m.group(2), False
                copies[current] = m.group(1)
            elif m := _RULE.match(line):
                current, want_script = m.group(1), False
            elif line.strip() == "script:":
                want_script = True
            elif want_script and (m := _SCRIPT.match(line)):
                scripts[current] = (smk.parent / m.group(1)).resolve()  # type: ignore[index]
                want_script = False
    for copy, original in copies.items():
        if copy not in scripts and original in scripts:
            scripts[copy] = scripts[original]
    return scripts


def import_lines(script: Path) -> str:
    """The script's module-level import statements, as source (what runs before its work)."""
    source = script.read_text(encoding="utf-8")
    tree = ast.parse(source)
    lines = [
        ast.get_source_segment(source, node)
        for node in tree.body
        if isinstance(node, ast.Import) or (isinstance(node, ast.ImportFrom) and node.module != "__future__")
    ]
    return "\n".join(line for line in lines if line)


def time_process(code: str, runs: int) -> float:
    """Median wall seconds of ``runs`` fresh ``python -c code`` processes."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# Snakemake's preamble of a script (snakemake/script/__init__.py), then the first statement of
# every rule script; the job has nothing else to do.
_EMPTY_JOB = (
    "import sys; import pickle; from snakemake.logging import logger; from snakemake.iocontainers import Snakemake\n"
    "__real_file__ = __file__\n"
    "from eibench.forkserver.client import hand_off\nhand_off()\n"
    "import os\nassert 'EIBENCH_FORKSERVER_ADDRESS' not in os.environ, 'the job ran cold'\n"
)


def time_forkserver_job(runs: int) -> float:
    """Median wall seconds of a job that does nothing, through a fork server of the workflow's
    rule scripts (started, and waited for until it listens, beforehand)."""
    import os
    import tempfile

    from eibench.forkserver import lifecycle
    from eibench.forkserver.protocol import THREAD_VARIABLES

    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "forkserver.log"
        if not lifecycle.start(local=True, scripts=REPO / "workflow" / "scripts", log=log):
            sys.exit(f"no fork server: {log.read_text().strip()}")
        try:
            if not lifecycle.wait_ready(log):
                sys.exit(f"the fork server did not start:\n{log.read_text()}")
            job = Path(tmp) / "tmpjob.py"
            job.write_text(_EMPTY_JOB)
            env = dict(os.environ) | {name: "1" for name in THREAD_VARIABLES}
            times = []
            for _ in range(runs * 5):
                start = time.perf_counter()
                subprocess.run([sys.executable, str(job)], check=True, cwd=tmp, env=env)
                times.append(time.perf_counter() - start)
        finally:
            lifecycle.stop()
    return statistics.median(times)


def job_counts(configfiles: list[str] | None) -> dict[str, int]:
    """Jobs per rule of a full run (``snakemake -n -F --quiet rules``), without ``all``."""
    exe = Path(sys.executable).with_name("snakemake")
    extra = ["--configfile", *configfiles] if configfiles else []
    proc = subprocess.run([str(exe), "-n", "-F", "--quiet", "rules", *extra], cwd=REPO, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"snakemake -n failed:\n{proc.stderr[-3000:]}")
    counts = {}
    for line in (proc.stdout + proc.stderr).splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and parts[0] not in ("total", "all", "job"):
            counts[parts[0]] = int(parts[1])
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--configfile", nargs="+", default=None)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    counts = job_counts(args.configfile)
    scripts = rule_scripts()
    bare = time_process("pass", args.runs)
    preamble = time_process("import snakemake.script", args.runs)
    per_script: dict[Path, float] = {}
    rows = []
    for rule, n in sorted(counts.items()):
        script = scripts.get(rule)
        if script is None:
            rows.append((rule, n, 0.0, "no script"))
            continue
        if script not in per_script:
            per_script[script] = time_process("import snakemake.script\n" + import_lines(script), args.runs)
        rows.append((rule, n, per_script[script], script.name))
    total_jobs = sum(n for _, n, s, _ in rows if s)
    total = sum(n * s for _, n, s, _ in rows)
    print(f"{'rule':<30} {'jobs':>4} {'start-up s':>10} {'x jobs':>7}  script")
    for rule, n, s, name in sorted(rows, key=lambda r: -r[1] * r[2]):
        print(f"{rule:<30} {n:>4} {s:>10.2f} {n * s:>7.1f}  {name}")
    print(f"python -c pass: {bare:.2f} s; import snakemake.script: {preamble:.2f} s (in every job)")
    print(
        f"start-up floor: {total:.1f} s of job time over {total_jobs} script jobs; "
        f"at least {total / args.cores:.1f} s of wall time on {args.cores} cores"
    )
    warm = time_forkserver_job(args.runs)
    print(
        f"with the fork server: {warm:.2f} s per job (Python, Snakemake's preamble, the hand-off, the fork); "
        f"{warm * total_jobs:.1f} s of job time over {total_jobs} script jobs, "
        f"{warm * total_jobs / args.cores:.1f} s of wall time on {args.cores} cores"
    )


if __name__ == "__main__":
    main()

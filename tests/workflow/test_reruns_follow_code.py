"""Reruns follow the code: after a full small run, editing one library module makes a dry run
list exactly the jobs of the rules whose scripts import it (transitively) and every job
downstream of them; undoing the edit makes the run a no-op again.

The expected jobs are computed here independently of eibench/code_digest.py: which scripts
import the module by the standard library's modulefinder (which follows the byte code, not the
source's ast), which rule runs which script by reading the .smk files, and the jobs downstream
from Snakemake's own DAG (``--d3dag``)."""

from __future__ import annotations

import json
import modulefinder
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from .conftest import snakemake

pytestmark = pytest.mark.workflow

SMALL = ("--configfile", "config/small.yaml")


def rule_scripts(repo: Path) -> dict[str, Path]:
    """rule name -> its script, read from the `rule NAME:` ... `script: "PATH"` of every .smk
    (indented rules inside an `if` too), and `use rule A as B with:`, which runs A's script
    unless its block names another."""
    out, uses = {}, {}
    for smk in sorted((repo / "workflow" / "rules").glob("*.smk")):
        text = smk.read_text(encoding="utf-8")
        for block in re.split(r"^(?=[ \t]*(?:use )?rule \w+)", text, flags=re.M):
            script = re.search(r"^\s+script:\s*\n\s+\"([^\"]+)\"", block, flags=re.M)
            path = (smk.parent / script.group(1)).resolve() if script else None
            if used := re.match(r"[ \t]*use rule (\w+) as (\w+)", block):
                uses[used.group(2)] = (used.group(1), path)
            elif (name := re.match(r"[ \t]*rule (\w+):", block)) and path:
                out[name.group(1)] = path
    for name, (base, path) in uses.items():
        if path or base in out:
            out[name] = path or out[base]
    return out


def importers(repo: Path, module: str) -> set[str]:
    """The rules whose scripts import ``module`` (dotted name), directly or through the library."""
    found = set()
    for rule, script in rule_scripts(repo).items():
        finder = modulefinder.ModuleFinder(path=[str(repo / "workflow")])
        finder.run_script(str(script))
        if module in finder.modules:
            found.add(rule)
    return found


def downstream_jobs(repo: Path, rules: set[str]) -> Counter:
    """Number of jobs per rule among the jobs of ``rules`` and every job that depends on them,
    in the whole DAG of the small run."""
    run = snakemake(repo, *SMALL, "--forceall", "--d3dag")
    assert run.returncode == 0, run.stderr[-3000:]
    dag = json.loads(run.stdout[run.stdout.index("{") :])
    rule_of = {node["id"]: node["value"]["rule"] for node in dag["nodes"]}
    children: dict[int, list[int]] = {}
    for edge in dag["edges"]:  # u is an input of v
        children.setdefault(edge["u"], []).append(edge["v"])
    todo = [job for job, rule in rule_of.items() if rule in rules]
    seen = set(todo)
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return Counter(rule_of[job] for job in seen)


def dry_run_jobs(repo: Path) -> Counter:
    """Number of jobs per rule that a dry run of the small config would run (its job stats)."""
    run = snakemake(repo, *SMALL, "--cores", "2", "-n")
    assert run.returncode == 0, run.stderr[-3000:]
    out = run.stdout + run.stderr
    if "Nothing to be done" in out:
        return Counter()
    table = out[out.index("Job stats:") :].splitlines()[3:]
    counts = Counter()
    for line in table:
        cells = line.split()
        if len(cells) != 2 or cells[0] == "total":
            break
        counts[cells[0]] = int(cells[1])
    return counts


@pytest.fixture(scope="module")
def run_copy(small_run, tmp_path_factory) -> Path:
    """A copy of the finished small run (sources, results, Snakemake's metadata, times kept)."""
    dest = tmp_path_factory.mktemp("rerun") / "repo"
    shutil.copytree(small_run, dest, symlinks=True)
    shutil.rmtree(dest / ".snakemake" / "locks", ignore_errors=True)
    return dest


# (the file edited, relative to workflow/eibench; the module whose importers must rerun). A data
# file counts for every module of its package (eibench/code_digest.py), so for topics.csv the
# importers are those of the package eibench.synthetic (any of its modules imports it).
EDITS = [
    ("stats/topics.py", "eibench.stats.topics"),
    ("metrics/binary.py", "eibench.metrics.binary"),
    ("synthetic/topics.csv", "eibench.synthetic"),
]


@pytest.mark.parametrize(("edited", "module"), EDITS, ids=[e for e, _ in EDITS])
def test_editing_the_library_reruns_its_importers_and_downstream(run_copy, edited, module):
    assert dry_run_jobs(run_copy) == Counter(), "the copied run is not up to date before the edit"
    path = run_copy / "workflow" / "eibench" / edited
    edit = b"\n# an edit that changes no behaviour\n" if path.suffix == ".py" else b"\n"
    original = path.read_bytes()
    rules = importers(run_copy, module)
    assert rules, f"no rule script imports {module}"
    expected = downstream_jobs(run_copy, rules)
    every_job = downstream_jobs(run_copy, set(rule_scripts(run_copy)))
    assert sum(expected.values()) < sum(every_job.values())
    try:
        path.write_bytes(original + edit)
        assert dry_run_jobs(run_copy) == expected
    finally:
        path.write_bytes(original)
    assert dry_run_jobs(run_copy) == Counter(), "undoing the edit should leave nothing to do"

"""The manifest of a run: every file of results/ (and the paper) with its size, its sha256 and
the job that wrote it (rule, script, wildcards, inputs, params), so a reviewer can walk from any
number back to its code and data.

The jobs come from the provenance line that ``eibench.runlog.rule_log`` writes at the end of
each successful job's log. A file whose job left no such line (written by hand, or by an older
version of the workflow) is listed with ``job: null``: the manifest never guesses.
"""

from __future__ import annotations

import itertools
import json
from bisect import bisect_left
from pathlib import Path
from typing import Any, Iterable, Iterator

from ..checksums import sha256_of
from ..runlog import PROVENANCE_TAG


def read_provenance(log_files: Iterable[Path]) -> list[dict[str, Any]]:
    """The provenance record of every log that has one (the last one of a log wins), the
    logs taken from the oldest to the newest, so that when a stale log and a fresh one claim the
    same output the fresh one is read last."""
    dated = []
    for path in log_files:
        record = None
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                at = line.find(PROVENANCE_TAG)
                if at >= 0:
                    try:
                        record = json.loads(line[at + len(PROVENANCE_TAG) :])
                    except json.JSONDecodeError:
                        continue  # a line cut by a killed job: not a record
        if record is not None:
            dated.append((path.stat().st_mtime_ns, str(path), record))
    return [{**record, "log": log} for _, log, record in sorted(dated)]


def _owner_index(jobs: list[dict[str, Any]]) -> tuple[dict[str, int], dict[str, int]]:
    """Output path -> job index; and directory output + '/' -> job index. Of two records
    claiming the same output, the newer (later in ``jobs``) wins."""
    files: dict[str, int] = {}
    dirs: dict[str, int] = {}
    for k, job in enumerate(jobs):
        for out in job["output"]:
            norm = Path(out).as_posix().rstrip("/")
            files[norm] = k
            dirs[norm + "/"] = k
    return files, dirs


def _owner(rel: str, files: dict[str, int], dirs: dict[str, int]) -> int | None:
    """The job that wrote ``rel``: the one naming it as an output, else the one whose output
    folder holds it (the deepest); None when no job claims it."""
    k = files.get(rel)
    if k is not None:
        return k
    end = rel.rfind("/")
    while end > 0:  # the folders holding rel, deepest first
        k = dirs.get(rel[: end + 1])
        if k is not None:
            return k
        end = rel.rfind("/", 0, end)
    return None


def _below(paths: list[str], folder: str) -> Iterator[str]:
    """The paths of ``paths`` (sorted) that lie below ``folder``: one run of the list."""
    prefix = folder + "/"
    start = bisect_left(paths, prefix)
    return itertools.takewhile(lambda p: p.startswith(prefix), itertools.islice(paths, start, None))


def of_this_run(
    paths: Iterable[str], jobs: list[dict[str, Any]], targets: Iterable[str]
) -> tuple[list[str], list[str]]:
    """``paths`` split into the files of the run that built ``targets`` and the others.

    A file is the run's when the job that wrote it is upstream of a target: the target's job,
    the jobs that wrote its inputs (a folder input takes every job writing into it), and so on.
    Files that another configuration left in results/ (a cohort or model the config no longer
    selects) have no such path: listed, they would carry a job record whose inputs now hold
    other data. Unclaimed files (no job record) are not the run's either."""
    files, dirs = _owner_index(jobs)
    outputs = sorted(files)  # every output once; a folder's contents are a run of this list
    todo, seen, upstream = list(targets), set[str](), set[int]()
    while todo:
        path = Path(todo.pop()).as_posix().rstrip("/")
        if path in seen:
            continue
        seen.add(path)
        # the jobs writing inside a folder input: the current owner of each output (a stale
        # record of the same output is not the run's)
        owners = {files[o] for o in _below(outputs, path)}
        k = _owner(path, files, dirs)
        if k is not None:
            owners.add(k)
        for k in owners - upstream:
            upstream.add(k)
            todo.extend(jobs[k]["input"])
    kept: list[str] = []
    others: list[str] = []
    for rel in paths:
        (kept if _owner(Path(rel).as_posix(), files, dirs) in upstream else others).append(rel)
    return kept, others


def build_manifest(root: Path, paths: Iterable[str], jobs: list[dict[str, Any]]) -> dict[str, Any]:
    """The manifest of ``paths`` (relative to ``root``): one entry per file, sorted by path,
    and the jobs that wrote them (only those, numbered in order of first use). A later job that
    claims the same output replaces an earlier one."""
    files_owner, dir_owner = _owner_index(jobs)
    used: dict[int, int] = {}
    entries = []
    for rel in sorted(Path(p).as_posix() for p in paths):
        k = _owner(rel, files_owner, dir_owner)
        if k is not None and k not in used:
            used[k] = len(used)
        full = root / rel
        entries.append(
            {
                "path": rel,
                "bytes": full.stat().st_size,
                "sha256": sha256_of(full),
                "job": None if k is None else used[k],
            }
        )
    listed: list[dict[str, Any] | None] = [None] * len(used)
    for k, slot in used.items():
        job = dict(jobs[k])
        job.pop("log", None)  # its log file carries timestamps; the record is what matters
        listed[slot] = job
    return {"files": entries, "jobs": listed}


def results_files(
    root: Path, folders: Iterable[str], exclude: Iterable[str] = (), exclude_folders: Iterable[str] = ()
) -> list[str]:
    """Every file below ``folders`` of ``root`` (relative POSIX paths), minus the files
    ``exclude`` and whatever lies below ``exclude_folders``."""
    skip = {Path(e).as_posix() for e in exclude}
    skip_below = tuple(Path(f).as_posix().rstrip("/") + "/" for f in exclude_folders)
    out = []
    for folder in folders:
        base = root / folder
        if base.is_file():
            out.append(Path(folder).as_posix())
            continue
        for p in base.rglob("*"):
            if p.is_file():
                rel = p.relative_to(root).as_posix()
                if rel not in skip and not rel.startswith(skip_below):
                    out.append(rel)
    return sorted(out)

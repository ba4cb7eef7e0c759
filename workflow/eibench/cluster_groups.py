"""How many cluster jobs a run's DAG becomes under a profile's job groups.

Snakemake's ``groups:`` puts rules into named groups; on a cluster, each connected part of the
DAG formed by jobs of one group (jobs joined by an edge whose both ends are in that group) is one
cluster job, and ``group-components: {group}=k`` packs k such parts into one. A job of no group is
a cluster job of its own. The target rule ``all`` runs locally and is not counted.

:func:`parse_dag` reads the DAG that ``snakemake --dag`` prints (Graphviz dot); :func:`count_jobs`
counts. Pure functions, no Snakemake import. docs/cluster.md gives the counts for the shipped
configs; tests/unit/test_cluster_resources.py checks them on the small config.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping

import numpy as np
from scipy.sparse import coo_array
from scipy.sparse.csgraph import connected_components

_NODE = re.compile(r'^\s*(\d+)\[label = "([A-Za-z_]\w*)', re.M)
_EDGE = re.compile(r"^\s*(\d+) -> (\d+)", re.M)


def parse_dag(dot: str) -> tuple[dict[int, str], list[tuple[int, int]]]:
    """(job id -> rule name, edges) of the dot text of ``snakemake --dag``. A text with no job
    raises ValueError (it is not such a DAG: Snakemake may have printed an error instead)."""
    jobs = {int(i): rule for i, rule in _NODE.findall(dot)}
    if not jobs:
        raise ValueError("not a Snakemake DAG (no job in the dot text): did `snakemake --dag` fail?")
    edges = [(int(a), int(b)) for a, b in _EDGE.findall(dot)]
    unknown = {j for edge in edges for j in edge} - jobs.keys()
    if unknown:
        raise ValueError(f"the DAG's edges name jobs it does not list: {sorted(unknown)[:5]}")
    return jobs, edges


def profile_groups(profile: Mapping) -> tuple[dict[str, str], dict[str, int]]:
    """(rule -> group, group -> components per job) of a Snakemake profile's ``groups:`` and
    ``group-components:`` lists (``rule=group``, ``group=k``); absent lists give empty maps."""
    groups = dict(entry.split("=", 1) for entry in profile.get("groups", []) or [])
    components = {g: int(k) for g, k in (entry.split("=", 1) for entry in profile.get("group-components", []) or [])}
    return groups, components


def count_jobs(
    jobs: Mapping[int, str],
    edges: Iterable[tuple[int, int]],
    groups: Mapping[str, str],
    components: Mapping[str, int] | None = None,
) -> dict[str, int]:
    """Cluster jobs per group (key: the group's name) and of jobs in no group (key: the rule's
    name), for the DAG ``jobs``/``edges`` (:func:`parse_dag`) under ``groups`` (rule -> group) and
    ``components`` (group -> parts per cluster job, default 1). ``all`` is left out."""
    components = components or {}
    ids = sorted(j for j, rule in jobs.items() if rule != "all")
    index = {j: n for n, j in enumerate(ids)}
    group_of = {j: groups.get(jobs[j]) for j in ids}
    same = [
        (index[a], index[b])
        for a, b in edges
        if a in index and b in index and group_of[a] is not None and group_of[a] == group_of[b]
    ]
    rows = np.array([a for a, _ in same], dtype=np.int64)
    cols = np.array([b for _, b in same], dtype=np.int64)
    graph = coo_array((np.ones(len(same)), (rows, cols)), shape=(len(ids), len(ids)))
    _, label = connected_components(graph, directed=False)
    parts: dict[str, set[int]] = {}
    alone: Counter[str] = Counter()
    for j in ids:
        group = group_of[j]
        if group is None:
            alone[jobs[j]] += 1
        else:
            parts.setdefault(group, set()).add(int(label[index[j]]))
    counts = {g: math.ceil(len(p) / components.get(g, 1)) for g, p in sorted(parts.items())}
    return {**counts, **dict(sorted(alone.items()))}

"""The summary of a collection job that the paper reads (``results/collection/<model>/<mode>/
shard-<k>.json``, rule collect_live): where its answers came from and, per task, what was asked,
repaired and invalid. Kept apart from ``collect`` (no HTTP client to import) for the report.

Where the answers came from is counted by the response cache (``cache.ResponseCache``):
``record_hits`` from a committed response record (``record``), ``cache_hits`` from the cache
folder (answers stored by earlier calls to the model), ``calls`` asked of the model by this job.
``answers`` counts every answer used: one per request and sample, one per repair request.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Mapping

#: The kinds of invalid answer (``collect.answer_problem``), in the order the paper lists them.
PROBLEMS = ("empty", "not_json", "structure", "bounds", "parser")

#: The fields of ``collection_summary`` taken from the job's statistics as they are.
SUMMARY_FIELDS = ("requests", "answers", "calls", "record_hits", "repairs", "refused", "tasks")

#: Per-task counters that add up over jobs (``collect.Stats.task``): requests asked (once per
#: request, whatever the samples), answers used (repairs included), first answers (attempt 0)
#: the parser refused, repair requests sent, answers to repair requests the parser refused, and
#: requests still invalid after their repairs.
TASK_COUNTS = ("requests", "answers", "first_invalid", "repairs", "repair_invalid", "invalid")


def task_counters() -> dict[str, Any]:
    """The counters of one task, all empty: ``TASK_COUNTS``; ``problems``, the answers that
    break the schema or the parser by kind (``collect.answer_problem``); ``values``, the [lowest,
    highest] number at a bounded place of the 'bounds' answers, and ``allowed``, the [minimum,
    maximum] the schema allows there (None until one is seen)."""
    return {**{k: 0 for k in TASK_COUNTS}, "problems": Counter(), "values": None, "allowed": None}


def collection_summary(stats: dict[str, Any]) -> dict[str, Any]:
    """What the paper reports of one collection job (``collect.Stats.as_dict``). No timing and no
    retry count, so a rerun from the same stored answers writes the same bytes."""
    return {
        **{k: stats[k] for k in SUMMARY_FIELDS},
        "cache_hits": stats["cache_hits"] - stats["record_hits"],  # ResponseCache.hits counts both
    }


def span(a: list[float] | None, b: list[float] | None) -> list[float] | None:
    """The range [lowest, highest] that holds both ranges (None: no range yet)."""
    if a is None or b is None:
        return a if b is None else b
    return [min(a[0], b[0]), max(a[1], b[1])]


def combine_summaries(summaries: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The summaries of several jobs (shards, modes) of one model as one: counts added, value
    ranges joined."""
    out: dict[str, Any] = {k: 0 for k in ("requests", "answers", "calls", "record_hits", "cache_hits", "repairs")}
    out["refused"], out["tasks"] = 0, {}
    for s in summaries:
        for k in out:
            if k != "tasks":
                out[k] += s[k]
        for task, c in s["tasks"].items():
            t = out["tasks"].setdefault(task, task_counters())
            for k in TASK_COUNTS:
                t[k] += c[k]
            t["problems"].update(c["problems"])
            t["values"], t["allowed"] = span(t["values"], c["values"]), span(t["allowed"], c["allowed"])
    return out


def answers_source(summary: Mapping[str, Any]) -> str:
    """Where a model's answers came from: ``record`` (every one replayed from a committed record),
    ``server`` (none from a record: asked of the model now or by earlier calls, from the cache),
    ``mixed`` (some of each), ``none`` (no answer used)."""
    if summary["answers"] == 0:
        return "none"
    if summary["record_hits"] == 0:
        return "server"
    return "record" if summary["record_hits"] == summary["answers"] else "mixed"

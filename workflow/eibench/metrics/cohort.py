"""Score every model of a cohort in one call: ingest and score each model, in worker processes.

What rule score_model does for one model, for all of them: read and validate the model's EM
output files (``release.ingest.ingest_em_outputs``), score them under each rule set
(``score.score_rule_sets``) and summarise (``score.model_summary``). The gold side is built once
(``GoldIndex``) and shared.

Models are independent, so with ``workers`` > 1 they are scored in that many processes, forked
from this one after the gold index is built (the workers inherit it; nothing of it is copied).
The result does not depend on ``workers``: every table is built by the same code in one process
per model and comes back whole (tests/unit/test_cohort_scoring.py checks that one worker and
two give equal frames). Errors are those of the one-process path: the first model (in the order
given) whose files are invalid raises its ``ReleaseFormatError``, and the other models' work is
cancelled.

The Snakemake workflow does not call this: it scores each model in a job of its own, which
Snakemake already runs in parallel. This is the library path (notebooks, benchmarks/bench_ingest.py).
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import pandas as pd

from ..release.ingest import EMIngest, ingest_em_outputs
from . import RULE_SETS
from .gold import GoldIndex
from .score import Scores, model_summary, score_rule_sets


@dataclass(frozen=True)
class ModelScores:
    """One model's ingest (its tidy EM tables), and per rule set its scores and summary."""

    model: str
    ingest: EMIngest
    scores: dict[str, Scores]
    summary: dict[str, pd.DataFrame]  # rule set -> model_summary


@dataclass(frozen=True)
class _Job:
    index: GoldIndex
    known: set[str]
    n_cohort: int
    mode: str
    rule_sets: tuple[str, ...]
    va_matching: str
    compat: str
    report_all: bool


def _score_one(job: _Job, model: str, sources: Sequence[str | Path]) -> ModelScores:
    ingest = ingest_em_outputs(sources, model, job.mode, job.known, job.report_all)
    scores = score_rule_sets(job.index, ingest.tables, job.rule_sets, job.va_matching, job.compat)
    summary = {r: model_summary(s.turn, s.conversation, job.n_cohort) for r, s in scores.items()}
    return ModelScores(model, ingest, scores, summary)


_WORKER_JOB: _Job | None = None  # set in each worker process by _init_worker (inherited at fork)


def _init_worker(job: _Job) -> None:
    global _WORKER_JOB
    _WORKER_JOB = job


def _score_in_worker(model: str, sources: Sequence[str | Path]) -> ModelScores:
    assert _WORKER_JOB is not None, "worker started without _init_worker"
    return _score_one(_WORKER_JOB, model, sources)


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity; at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def score_cohort(
    gold: GoldIndex | dict[str, pd.DataFrame],
    models: Mapping[str, Sequence[str | Path]],
    mode: str,
    rule_sets: tuple[str, ...] = RULE_SETS,
    va_matching: str = "optimal",
    compat: str = "none",
    report_all: bool = False,
    workers: int | None = None,
) -> dict[str, ModelScores]:
    """Every model of ``models`` (name -> its sources: shard folders, a mode folder or files, as
    ``ingest_em_outputs`` takes them) ingested and scored on the gold tables ``gold`` (or their
    ``GoldIndex``), in the order given.

    ``workers``: processes to score in; None = the cores available (``available_cores``), at
    most one per model; 1 = in this process, no worker. Worker processes are forked (POSIX
    only); where fork is not available, the models are scored in this process.
    Raises what ``ingest_em_outputs`` raises, for the first model in order whose files fail.
    """
    index = gold if isinstance(gold, GoldIndex) else GoldIndex.build(gold)
    conversations = index.tables["conversations"]
    job = _Job(
        index,
        set(conversations["conversation_id"]),
        len(conversations),
        mode,
        tuple(rule_sets),
        va_matching,
        compat,
        report_all,
    )
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1 (or None for every available core), not {workers}")
    n = min(available_cores() if workers is None else workers, len(models))
    if n <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return {model: _score_one(job, model, sources) for model, sources in models.items()}
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(n, mp_context=context, initializer=_init_worker, initargs=(job,)) as pool:
        futures: dict[str, Future[ModelScores]] = {
            model: pool.submit(_score_in_worker, model, list(sources)) for model, sources in models.items()
        }
        out: dict[str, Any] = {}
        try:
            for model, future in futures.items():
                out[model] = future.result()
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    return out

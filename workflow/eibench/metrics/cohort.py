"""Score every model of a cohort in one call: ingest and score each model, in worker processes.

What rule score_model does for one model, for all of them: read and validate the model's EM
output files (``release.ingest.ingest_em_outputs``), score them under each rule set
(``score.score_rule_sets``) and summarise (``score.model_summary``). The gold side is built once
(``GoldIndex``) and shared.

Models are independent, so with ``workers`` > 1 they are scored in that many processes: this
one and ``workers`` - 1 forked workers, each model by whichever takes it first (in the order
given). Given the gold side, the workers are forked after its index is built and inherit it.
Given a function that reads it, the workers are forked first and start reading and tidying the
models' files (which need no gold side) while this process reads the conversation files; the
index then reaches them once, through a file, and this process scores the reads they made
before it. The result does not depend on ``workers`` or on the form of the gold side: every
table is built by the same code in one process per model and comes back whole
(tests/unit/test_cohort_scoring.py checks that one worker and two give equal frames). Errors
are those of the one-process path: the gold side's first, then those of the first model (in
the order given) whose files are invalid; no model after it is started.

The Snakemake workflow does not call this: it scores each model in a job of its own, which
Snakemake already runs in parallel. This is the library path (notebooks, benchmarks/bench_ingest.py).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import tempfile
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, Union

import pandas as pd

from ..gcpause import cyclic_gc_paused
from ..release.ingest import EMIngest, EMRead, checked, read_em_tables
from . import RULE_SETS
from .gold import GoldIndex
from .score import Scores, model_summary, score_rule_sets

#: The gold side: its tidy tables, their ``GoldIndex``, or a function that returns either (such
#: as one that reads the conversation files).
Gold = Union[GoldIndex, dict[str, pd.DataFrame], Callable[[], Union[GoldIndex, dict[str, pd.DataFrame]]]]


@dataclass(frozen=True)
class ModelScores:
    """One model's ingest (its tidy EM tables), and per rule set its scores and summary."""

    model: str
    ingest: EMIngest
    scores: dict[str, Scores]
    summary: dict[str, pd.DataFrame]  # rule set -> model_summary


@dataclass(frozen=True)
class _Settings:
    mode: str
    rule_sets: tuple[str, ...]
    va_matching: str
    compat: str
    report_all: bool


@dataclass(frozen=True)
class _Job:
    """What scoring needs besides a model's files: the gold side and the settings."""

    index: GoldIndex
    known: set[str]
    n_cohort: int
    settings: _Settings


def _job(index: GoldIndex, settings: _Settings) -> _Job:
    conversations = index.tables["conversations"]
    return _Job(index, set(conversations["conversation_id"]), len(conversations), settings)


def _scored(job: _Job, read: EMRead) -> ModelScores:
    ingest = checked(read, job.known)
    s = job.settings
    scores = score_rule_sets(job.index, ingest.tables, s.rule_sets, s.va_matching, s.compat)
    summary = {r: model_summary(x.turn, x.conversation, job.n_cohort) for r, x in scores.items()}
    return ModelScores(read.model, ingest, scores, summary)


def _read(settings: _Settings, model: str, sources: Sequence[str | Path]) -> EMRead:
    return read_em_tables(sources, model, settings.mode, settings.report_all)


@dataclass
class _Worker:
    """A worker's state, set at its start (``_init_worker``): the settings, the gold side once
    it is known (inherited at fork, or loaded once from ``gold_file`` after ``ready``), and
    the claims (one flag per model: set by whichever process, worker or parent, takes it)."""

    settings: _Settings
    job: _Job | None
    ready: Any  # multiprocessing Event: set once gold_file is written
    gold_file: Path | None
    claims: Any  # multiprocessing Array of bytes, with a lock
    folder: Path  # where results are handed over


_WORKER: _Worker | None = None  # set in each worker process by _init_worker (inherited at fork)


def _init_worker(worker: _Worker) -> None:
    global _WORKER
    _WORKER = worker


def _claim(claims: Any, k: int) -> bool:
    """Take model ``k`` unless another process has; True when this one took it."""
    with claims.get_lock():
        if claims[k]:
            return False
        claims[k] = 1
        return True


def _score_in_worker(k: int, model: str, sources: Sequence[str | Path]) -> Path | None:
    """Model ``k`` read and, once the gold side is ready, scored; its ``EMRead`` when the gold
    side is not ready yet (the parent scores it); None when another process took it. The
    result is handed over in a file, whose path is returned: sent through the pool's pipe, a
    result of megabytes is read in chunks by a thread of the parent that waits for the GIL
    between chunks, while the parent scores, and the worker waits with it."""
    w = _WORKER
    assert w is not None, "worker started without _init_worker"
    if not _claim(w.claims, k):
        return None
    read = _read(w.settings, model, sources)
    if w.job is None and w.gold_file is not None and w.ready.is_set():
        with open(w.gold_file, "rb") as f:
            w.job = _job(pickle.load(f), w.settings)
    result = read if w.job is None else _scored(w.job, read)
    path = w.folder / f"model-{k}.pickle"
    with open(path, "wb") as f:
        pickle.dump(result, f, protocol=pickle.HIGHEST_PROTOCOL)
    return path


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity; at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _index(gold: GoldIndex | dict[str, pd.DataFrame]) -> GoldIndex:
    return gold if isinstance(gold, GoldIndex) else GoldIndex.build(gold)


@cyclic_gc_paused()
def score_cohort(
    gold: Gold,
    models: Mapping[str, Sequence[str | Path]],
    mode: str,
    rule_sets: tuple[str, ...] = RULE_SETS,
    va_matching: str = "optimal",
    compat: str = "none",
    report_all: bool = False,
    workers: int | None = None,
) -> dict[str, ModelScores]:
    """Every model of ``models`` (name -> its sources: shard folders, a mode folder or files, as
    ``ingest_em_outputs`` takes them) ingested and scored on the gold side ``gold`` (its tidy
    tables, their ``GoldIndex``, or a function returning either), in the order given.

    ``workers``: processes to score in; None = the cores available (``available_cores``), at
    most one per model; 1 = in this process, no worker. Worker processes are forked (POSIX
    only); where fork is not available, the models are scored in this process.

    When ``gold`` is a function and there are workers, it is called in this process while the
    workers already read and tidy the models' files, which need no gold side; a model read
    before the gold side is ready is checked against the cohort and scored in this process.
    The result is the same either way.

    Raises what ``gold`` raises, then what ``ingest_em_outputs`` raises for the first model in
    order whose files fail.

    The whole call runs with the cyclic garbage collector paused (``gcpause``; the workers are
    forked with it paused), not only the reading, tidying and scoring inside it: each of those
    turns it back on while its results, hundreds of thousands of young objects, are still
    alive, and the next collection walks them all, while a full one walks every object the
    imports made. On the default cohort (17 models, parity rules, 2 processes) the whole
    ``bench_ingest --once`` process took 1.64 s with the pass paused against 1.71 s without
    (medians of 7, alternated; benchmarks/records/ingest.csv), at the same peak memory (271 MB
    in one process, both rule sets; 5 objects in cycles left to collect).
    """
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1 (or None for every available core), not {workers}")
    settings = _Settings(mode, tuple(rule_sets), va_matching, compat, report_all)
    n = min(available_cores() if workers is None else workers, len(models))
    if n <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        job = _job(_index(gold() if callable(gold) else gold), settings)
        return {model: _scored(job, _read(settings, model, sources)) for model, sources in models.items()}
    return _score_in_parallel(gold, models, settings, n)


def _score_in_parallel(
    gold: Gold, models: Mapping[str, Sequence[str | Path]], settings: _Settings, n: int
) -> dict[str, ModelScores]:
    """``score_cohort`` in this process and ``n`` - 1 forked workers. Each model is taken by
    one of them (``_claim``), the largest first (``_work_order``): this process takes models
    once its gold side is ready, and scores the reads the workers made before that; the
    workers' results come back whole. Outcomes are raised in the order given, as one process
    raises them: every model before the first that fails is scored, no later one is started."""
    names = list(models)
    context = multiprocessing.get_context("fork")
    with tempfile.TemporaryDirectory(prefix="eibench-cohort-") as tmp:
        deferred = callable(gold)
        worker = _Worker(
            settings,
            None if deferred else _job(_index(gold), settings),  # type: ignore[arg-type]
            context.Event(),
            Path(tmp) / "gold.pickle" if deferred else None,
            context.Array("b", len(names)),
            Path(tmp),
        )
        order = _work_order(models)
        with ProcessPoolExecutor(n - 1, mp_context=context, initializer=_init_worker, initargs=(worker,)) as pool:
            finished: deque[int] = deque()  # appended by the pool's thread as workers finish
            futures: dict[int, Future[Path | None]] = {}
            for k in order:
                futures[k] = pool.submit(_score_in_worker, k, names[k], list(models[names[k]]))
                futures[k].add_done_callback(lambda _, k=k: finished.append(k))  # type: ignore[misc]
            try:
                if deferred:
                    job = _job(_index(gold()), settings)  # type: ignore[operator]
                    _send_gold(job.index, worker)
                else:
                    assert worker.job is not None
                    job = worker.job
                outcomes: dict[int, ModelScores | Exception | None] = {}
                failed = len(names)  # the first model, in the order given, known to have failed

                def record(k: int, outcome: ModelScores | Exception | None) -> None:
                    nonlocal failed
                    outcomes[k] = outcome
                    if isinstance(outcome, Exception):
                        failed = min(failed, k)

                for k in order:
                    while finished:  # the reads made before the gold side, first
                        done = finished.popleft()
                        if done not in outcomes:
                            record(done, _outcome(job, futures[done]))
                    if k < failed and k not in outcomes and _claim(worker.claims, k):
                        record(k, _attempt(job, partial(_read, settings, names[k], models[names[k]])))
                for k in range(len(names)):  # nothing left for the workers to start
                    _claim(worker.claims, k)
                out: dict[str, ModelScores] = {}
                for k, name in enumerate(names):
                    if k not in outcomes:
                        outcomes[k] = _outcome(job, futures[k])
                    result = outcomes[k]
                    if isinstance(result, Exception):
                        raise result
                    if result is None:  # taken by no process: only after a model that failed
                        raise RuntimeError(f"model {name!r} was scored by no process")
                    out[name] = result
            except BaseException:
                pool.shutdown(wait=True, cancel_futures=True)
                raise
    return out


def _work_order(models: Mapping[str, Sequence[str | Path]]) -> list[int]:
    """Positions of ``models``, the largest first (bytes of their ``*.json`` files): the last
    models to be taken are then the shortest, and the processes finish close together."""
    sizes = [_json_bytes(sources) for sources in models.values()]
    return sorted(range(len(sizes)), key=lambda k: (-sizes[k], k))


def _json_bytes(sources: Sequence[str | Path]) -> int:
    """Bytes of the ``*.json`` files of ``sources`` (folders or files); what cannot be read
    counts 0 (the read names the problem)."""
    total = 0
    for source in map(Path, sources):
        try:
            if source.is_dir():
                with os.scandir(source) as entries:
                    total += sum(
                        e.stat(follow_symlinks=False).st_size
                        for e in entries
                        if e.name.endswith(".json") and e.is_file(follow_symlinks=False)
                    )
            else:
                total += source.stat().st_size
        except OSError:
            pass
    return total


def _attempt(job: _Job, read: Callable[[], EMRead]) -> ModelScores | Exception:
    """The scores of ``read()``, or what it or the scoring raised."""
    try:
        return _scored(job, read())
    except Exception as e:
        return e


def _outcome(job: _Job, future: Future[Path | None]) -> ModelScores | Exception | None:
    """A worker's result: its scores, an ``EMRead`` scored here, None (taken here), or what
    the worker raised."""
    try:
        path = future.result()
    except Exception as e:
        return e
    if path is None:
        return None
    with open(path, "rb") as f:
        result = pickle.load(f)
    path.unlink()
    return _attempt(job, lambda: result) if isinstance(result, EMRead) else result


def _send_gold(index: GoldIndex, worker: _Worker) -> None:
    """Make the gold side known to the workers: written to ``worker.gold_file``, then ``ready``."""
    assert worker.gold_file is not None
    with open(worker.gold_file, "wb") as f:
        pickle.dump(index, f, protocol=pickle.HIGHEST_PROTOCOL)
    worker.ready.set()

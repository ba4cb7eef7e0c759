"""Collect one shard of conversations from a live model into release-format EM output files.

For every conversation of the shard: every request of the protocol (``prompts``) is answered
through the response cache or the model's adapter; an answer that does not validate gets up to
``max_repairs`` repair messages, then is recorded as invalid with its raw text kept
(``em_invalid_answers``) and marked invalid in the output (binary answers and picks 'invalid',
``em_emotion_tags_invalid``), never replaced by a made-up answer. With ``samples`` > 1 each
request is asked that many times (the sample index is part of the cache key) and the answers
are aggregated (majority for choices, median for numbers, words named by most samples).

Output files carry no timestamps or timings (``run_timestamp`` and ``duration_seconds`` are
null), so an interrupted and resumed collection ends with the same bytes as an uninterrupted
one; timings, calls, cache hits, tokens and cost go to the job's log. ``collection_summary``
(``summary``) keeps of them what the paper reports and a rerun from the same stored answers reproduces:
where the answers came from (a committed record, the response cache, calls made now) and, per
task, the requests, repair requests and invalid answers, each invalid answer classified by how
it breaks the task's JSON schema (``answer_problem``, ``schemas.violations``).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import statistics
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from tqdm import tqdm

from .. import instrument
from ..release.write import write_json
from . import media
from .adapters import ADAPTERS, Adapter, CollectionError, Completion, LiveModel, RequestRefused, Stopped
from .answers import REPAIR_MESSAGE, Parsed, extract_json, parse
from .cache import Entry, ResponseCache, request_key
from .conversation import ConversationView
from .estimate import estimate, format_estimate
from .lifeline import ParentWatch
from .outputs import output_file
from .prompts import OMNISCIENT, PANAS_TASKS, PromptSet, Request
from .record import read_record
from .schemas import answer_schema, bounded_values, violations
from .settings import LOCK_STALE_SECONDS
from .shardlock import LOCK_SUFFIX, ShardLock
from .summary import span, task_counters

INVALID = "invalid"
log = logging.getLogger(__name__)


@dataclass
class Stats:
    """Counters of one collection job (written to its log). ``cost_usd`` and the token counts
    cover every answer used (cached or not); the ``*_spent`` ones only the calls made now. Both
    sum the known counts only: ``usage_unknown`` counts the answers used whose token usage the
    endpoint did not give as a plausible count (their cost is unknown, not 0)."""

    requests: int = 0
    cache_hits: int = 0
    calls: int = 0
    retries: int = 0
    repairs: int = 0
    refused: int = 0
    invalid: Counter = field(default_factory=Counter)
    invalid_samples: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    input_tokens_spent: int = 0
    output_tokens_spent: int = 0
    cost_usd_spent: float = 0.0
    usage_unknown: int = 0
    record_hits: int = 0
    estimate: dict = field(default_factory=dict)  # what the collection expected before it started
    latency_seconds: float = 0.0  # summed over the answers used (their stored latencies)
    answers: int = 0  # answers used: one per request and sample, and one per repair request
    tasks: dict = field(default_factory=dict)  # per task: its counters (``task``)

    def task(self, name: str) -> dict[str, Any]:
        """The counters of one task (``summary.task_counters``, created at its first use)."""
        if name not in self.tasks:
            self.tasks[name] = task_counters()
        return self.tasks[name]

    def as_dict(self) -> dict[str, Any]:
        tasks = {t: {**c, "problems": dict(sorted(c["problems"].items()))} for t, c in sorted(self.tasks.items())}
        rest = {k: v for k, v in self.__dict__.items() if k not in ("invalid", "tasks")}
        return {**rest, "invalid": dict(self.invalid), "tasks": tasks}


def answer_problem(
    task: str, text: str, expect: tuple[str, ...], mode: str, parsed_ok: bool
) -> tuple[str, list[tuple[float, float, float]]] | None:
    """How an answer breaks its task's JSON schema, or None when it meets the schema and the
    parser (``parsed_ok``): ``empty``, ``not_json`` (no JSON object in it), ``structure`` (a key,
    type, option or length the schema does not allow), ``bounds`` (every key and type as the
    schema asks, a number outside its bounds: the second item lists (value, minimum, maximum) of
    every bounded number of the answer) or ``parser`` (valid by the schema, refused by the
    parser). A draft has no schema: ``empty`` when the parser refused it. Every answer is
    checked, not only those the parser refused (it accepts forms the schema does not), so a
    count of ``structure`` answers says whether constrained decoding kept to the structure."""
    schema = answer_schema(task, expect, mode)
    if schema is None:
        return None if parsed_ok else ("empty", [])
    if not isinstance(text, str) or not text.strip():
        return "empty", []
    obj, _ = extract_json(text)
    if obj is None:
        return "not_json", []
    kinds = {kind for kind, _, _ in violations(obj, schema)}
    if "structure" in kinds:
        return "structure", []
    if "bounds" in kinds:
        return "bounds", bounded_values(obj, schema)
    return None if parsed_ok else ("parser", [])


def _note_problem(counters: dict[str, Any], kind: str, bounded: list[tuple[float, float, float]]) -> None:
    counters["problems"][kind] += 1
    if bounded:
        seen = [min(v for v, _, _ in bounded), max(v for v, _, _ in bounded)]
        allowed = [min(lo for _, lo, _ in bounded), max(hi for _, _, hi in bounded)]
        for key, new in (("values", seen), ("allowed", allowed)):
            counters[key] = span(counters[key], new)


@dataclass
class Answer:
    value: Any  # the validated (aggregated) answer, or None when invalid
    raw: str  # the last raw text when invalid
    cost_usd: float | None  # None: unknown (an answer used had no usable token counts)


class Collector:
    def __init__(
        self, model: LiveModel, adapter: Adapter, cache: ResponseCache, prompts: PromptSet, progress: tqdm | None = None
    ):
        self.model, self.adapter, self.cache, self.prompts = model, adapter, cache, prompts
        self.stats = Stats()
        self.progress = progress
        self._in_flight: dict[str, asyncio.Task] = {}

    def plan(self, views: list[ConversationView], mode: str, strategy: str) -> dict[str, Any]:
        """The estimate (``estimate.estimate``) of collecting ``views``: every first request and
        sample looked up in the cache (nothing is counted as a hit), the stored ones observed."""
        pending, observed = [], []
        for view in views:
            for request in self.prompts.conversation_requests(view, mode, strategy):
                schema = answer_schema(request.task, request.expect, mode) if self.model.structured_output else None
                messages = [dict(m) for m in request.messages]
                for sample in range(self.model.samples):
                    key = request_key(self._identity(schema), self.prompts.version, messages, sample)
                    entry = self.cache.get(key, count=False)
                    if entry is None:
                        pending.append(sum(len(media.text_of(m["content"])) for m in messages))
                    else:
                        observed.append(entry)
        return estimate(pending, len(observed), self.model, observed)

    def _identity(self, schema: dict[str, Any] | None) -> dict[str, Any]:
        """The model's identity for one request: with ``structured_output``, the answer schema sent
        is part of it (so a changed schema is asked afresh)."""
        identity = self.model.identity()
        if self.model.structured_output and schema is not None:
            identity["response_schema"] = schema
        return identity

    async def _ask(
        self, messages: list[dict[str, str]], sample: int, schema: dict[str, Any] | None = None
    ) -> Completion:
        """The answer to one request: from the cache, or from the model (then stored). Identical
        requests in flight share one call; the stored answer is the one used, so every reader
        of a key sees the same text even when two jobs asked at once."""
        key = request_key(self._identity(schema), self.prompts.version, messages, sample)
        entry = self.cache.get(key)
        if entry is not None:
            self.stats.cache_hits += 1
            return Completion(
                entry.text, entry.input_tokens, entry.output_tokens, entry.latency_seconds, entry.created_at
            )
        if key in self._in_flight:
            return await asyncio.shield(self._in_flight[key])
        # A task of its own, shielded: a request once sent is awaited and stored even when the
        # conversation that asked is abandoned (drain), so no paid answer is lost to a stop.
        call = asyncio.ensure_future(self._call(key, messages, sample, schema))
        self._in_flight[key] = call
        call.add_done_callback(functools.partial(self._settled, key))
        return await asyncio.shield(call)

    async def _call(
        self, key: str, messages: list[dict[str, str]], sample: int, schema: dict[str, Any] | None = None
    ) -> Completion:
        done = await self.adapter.complete(messages, schema=schema)
        self.stats.calls += 1
        self.stats.input_tokens_spent += done.input_tokens or 0
        self.stats.output_tokens_spent += done.output_tokens or 0
        self.stats.cost_usd_spent += self.model.cost(done.input_tokens, done.output_tokens) or 0.0
        self.cache.put(
            key,
            {
                "identity": self._identity(schema),
                "prompt_version": self.prompts.version,
                "messages": messages,
                "sample": sample,
            },
            Entry(done.text, done.input_tokens, done.output_tokens, done.latency_seconds, done.created_at),
        )
        stored = self.cache.get(key, count=False) or Entry(
            done.text, done.input_tokens, done.output_tokens, done.latency_seconds, done.created_at
        )
        return Completion(
            stored.text, stored.input_tokens, stored.output_tokens, stored.latency_seconds, stored.created_at
        )

    def _settled(self, key: str, task: asyncio.Task) -> None:
        del self._in_flight[key]
        if not task.cancelled():
            task.exception()  # retrieved here, so a failed call nobody awaits logs no warning

    async def drain(self) -> None:
        """Wait until every call in flight has ended (its answer stored, or its error raised)."""
        while self._in_flight:
            await asyncio.wait(list(self._in_flight.values()))

    async def _one_sample(
        self, request: Request, sample: int, mode: str = "default"
    ) -> tuple[Parsed, str, float | None]:
        messages = [dict(m) for m in request.messages]
        schema = answer_schema(request.task, request.expect, mode) if self.model.structured_output else None
        cost: float | None = 0.0
        for attempt in range(self.model.max_repairs + 1):
            try:
                done = await self._ask(messages, sample, schema)
            except RequestRefused as e:  # refused for good: this answer is invalid, the rest goes on
                self.stats.refused += 1
                return Parsed(None, str(e)), f"[refused: {e}]", cost
            cost = _add_cost(cost, self.model.cost(done.input_tokens, done.output_tokens))
            if done.input_tokens is None or done.output_tokens is None:
                self.stats.usage_unknown += 1
            self.stats.input_tokens += done.input_tokens or 0
            self.stats.output_tokens += done.output_tokens or 0
            self.stats.latency_seconds += done.latency_seconds
            self.stats.answers += 1
            counters = self.stats.task(request.task)
            counters["answers"] += 1
            parsed = parse(request.task, done.text, request.expect)
            if not parsed.ok:
                counters["repair_invalid" if attempt else "first_invalid"] += 1
            problem = answer_problem(request.task, done.text, request.expect, mode, parsed.ok)
            if problem is not None:
                _note_problem(counters, *problem)
            if parsed.ok or attempt == self.model.max_repairs:
                return parsed, done.text, cost
            self.stats.repairs += 1
            counters["repairs"] += 1
            messages += [
                {"role": "assistant", "content": done.text or "(empty answer)"},
                {"role": "user", "content": REPAIR_MESSAGE.format(problem=parsed.problem)},
            ]
        raise AssertionError("unreachable")

    async def answer(self, request: Request, mode: str = "default") -> Answer:
        results = await asyncio.gather(*(self._one_sample(request, s, mode) for s in range(self.model.samples)))
        self.stats.requests += 1
        self.stats.task(request.task)["requests"] += 1
        if self.progress is not None:
            self.progress.update(1)
            self.progress.set_postfix(
                hits=self.stats.cache_hits,
                calls=self.stats.calls,
                retries=self.adapter.retries,
                invalid=sum(self.stats.invalid.values()),
                cost=f"${self.stats.cost_usd:.2f}",
                refresh=False,
            )
        cost = _sum_costs(c for _, _, c in results)
        self.stats.cost_usd += sum(c for _, _, c in results if c is not None)
        valid = [p.value for p, _, _ in results if p.ok]
        self.stats.invalid_samples += len(results) - len(valid)
        if not valid:
            self.stats.invalid[request.task] += 1
            self.stats.task(request.task)["invalid"] += 1
            return Answer(None, results[-1][1], cost)
        return Answer(aggregate(request.task, valid), "", cost)

    async def conversation(self, view: ConversationView, mode: str, strategy: str) -> dict[str, Any]:
        requests = self.prompts.conversation_requests(view, mode, strategy)
        answers = await asyncio.gather(*(self.answer(r, mode) for r in requests))
        return assemble(
            view, self.model.name, mode, strategy, self.prompts.version, requests, answers, self.prompts.digest
        )


def _add_cost(a: float | None, b: float | None) -> float | None:
    """A sum of costs in USD that is unknown (None) as soon as one part is."""
    return None if a is None or b is None else a + b


def _sum_costs(costs: Any) -> float | None:
    total: float | None = 0.0
    for c in costs:
        total = _add_cost(total, c)
    return total


def _majority(values: list[Any]) -> Any:
    counts = Counter(values)
    best = max(counts.values())
    return next(v for v in values if counts[v] == best)  # ties: the earliest sample's answer


def aggregate(task: str, values: list[Any]) -> Any:
    """One answer from the valid answers of several samples (the first when there is one)."""
    if len(values) == 1 or task == "draft":
        return values[0]
    if task == "emotions":
        named = Counter(t["emotion"] for tags in values for t in {x["emotion"]: x for x in tags}.values())
        words = [w for w in dict.fromkeys(t["emotion"] for tags in values for t in tags) if named[w] * 2 > len(values)]
        out = []
        for w in words:
            levels = [
                t["intensity"] for tags in values for t in tags if t["emotion"] == w and t["intensity"] is not None
            ]
            out.append({"emotion": w, "intensity": int(round(statistics.median(levels))) if levels else None})
        return out
    if task.startswith("binary_") or task == "pairwise":
        return {k: _majority([v[k] for v in values]) for k in values[0]}
    if task.startswith("post_panas") or task == "post_chat_ratings":
        return {k: int(round(statistics.median(v[k] for v in values))) for k in values[0]}
    if task == "conversation_wide":
        first = values[0]
        chosen = Counter(o for v in values for o in v["q1_lookingFor"])
        q1 = [o for o in dict.fromkeys(o for v in values for o in v["q1_lookingFor"]) if chosen[o] * 2 > len(values)]
        return {
            "q1_lookingFor": q1 or first["q1_lookingFor"],
            "q2_emotionClarity": _majority([v["q2_emotionClarity"] for v in values]),
            "q3_modelFit": _majority([v["q3_modelFit"] for v in values]),
            "q3_followUp_whatFeltOff": first["q3_followUp_whatFeltOff"],
            "fourBranchScores": {
                b: statistics.median(v["fourBranchScores"][b] for v in values) for b in first["fourBranchScores"]
            },
        }
    raise ValueError(f"unknown task {task!r}")


def assemble(
    view: ConversationView,
    model: str,
    mode: str,
    strategy: str,
    prompt_version: str,
    requests: list[Request],
    answers: list[Answer],
    prompt_digest: str = "",
) -> dict[str, Any]:
    """The EM output file of one conversation from its requests and answers."""
    by_turn: dict[int | None, dict[str, tuple[Request, Answer]]] = {}
    for request, answer in zip(requests, answers):
        by_turn.setdefault(request.turn_number, {})[request.task] = (request, answer)
    fields = {
        "binary_om_observer": "em_binary_om_assessment",
        "binary_hp_observer": "em_binary_human_prediction",
        "binary_om_participant": "em_binary_om_assessment_hp",
        "binary_hp_participant": "em_binary_human_prediction_hp",
    }
    turns = []
    cost = _sum_costs(a.cost_usd for a in answers)
    for turn in view.turns:
        got = by_turn.get(turn.turn_number, {})
        entry: dict[str, Any] = {"turnNumber": turn.turn_number}
        invalid_raw: dict[str, str] = {}
        emotions = got.get("emotions")
        entry["em_emotion_tags"] = emotions[1].value if emotions and emotions[1].value is not None else []
        if emotions and emotions[1].value is None:
            entry["em_emotion_tags_invalid"] = True
            invalid_raw["emotions"] = emotions[1].raw
        draft = got.get("draft")
        entry["em_drafted_response"] = draft[1].value if draft else None
        if draft and draft[1].value is None:
            invalid_raw["draft"] = draft[1].raw
        for task, name in fields.items():
            request, answer = got[task]
            entry[name] = answer.value if answer.value is not None else {k: INVALID for k in request.expect}
            if answer.value is None:
                invalid_raw[task] = answer.raw
        if "pairwise" in got:
            request, answer = got["pairwise"]
            entry["em_pairwise_selections"] = (
                answer.value if answer.value is not None else {k: INVALID for k in request.expect}
            )
            if answer.value is None:
                invalid_raw["pairwise"] = answer.raw
        else:
            entry["em_pairwise_selections"] = {}
        if invalid_raw:
            entry["em_invalid_answers"] = invalid_raw
        turns.append(entry)

    post_got = by_turn.get(None, {})
    if not post_got:  # a conversation without turns: nothing was asked
        post = None
    else:
        post = _post(view, mode, strategy, post_got)
    return output_file(view, model, mode, prompt_version, turns, post, cost, prompt_digest)


def _post(
    view: ConversationView, mode: str, strategy: str, post_got: dict[str, tuple[Request, Answer]]
) -> dict[str, Any]:
    panas_request, panas = post_got[PANAS_TASKS[strategy]]
    cw_request, cw = post_got["conversation_wide"]
    shown = bool(view.pre_panas_items) and (strategy == "delta" or mode in OMNISCIENT)
    post: dict[str, Any] = {
        "panas_strategy": strategy,
        "pre_panas_shown": shown,
        "predicted_post_panas": None,
        "predicted_panas_delta": None,
        "predicted_conversation_wide": cw.value,
    }
    if panas.value is not None:
        key = "predicted_post_panas" if strategy == "absolute" else "predicted_panas_delta"
        post[key] = {"items": panas.value, "totals": instrument.panas_totals(panas.value)}
    if "post_chat_ratings" in post_got:  # asked only of a cohort with post-chat ratings
        post["predicted_post_chat_ratings"] = post_got["post_chat_ratings"][1].value
    invalid_post = {t: a.raw for t, (r, a) in post_got.items() if a.value is None}
    if invalid_post:
        post["em_invalid_answers"] = invalid_post
    return post


async def _run(
    views: list[ConversationView],
    model: LiveModel,
    mode: str,
    strategy: str,
    prompts: PromptSet,
    cache: ResponseCache,
    outdir: Path,
    seed: int,
    show_progress: bool,
    stopping: threading.Event,
) -> Stats:
    limits = httpx.Limits(
        max_connections=max(model.concurrency, 1), max_keepalive_connections=max(model.concurrency, 1)
    )
    async with httpx.AsyncClient(limits=limits) as client:
        adapter = ADAPTERS[model.kind](model, client, seed=seed, stopping=stopping)
        total = sum(prompts.count_requests(v) for v in views)
        collector_for_keys = Collector(model, adapter, cache, prompts)
        planned = collector_for_keys.plan(views, mode, strategy)
        line = format_estimate(model.name, mode, planned)
        log.info("estimate before the first request: %s", line)
        if show_progress:
            print(line, file=sys.stderr, flush=True)
        with tqdm(
            total=total, desc=f"{model.name} ({mode})", unit="req", disable=not show_progress, mininterval=1.0
        ) as bar:
            collector = Collector(model, adapter, cache, prompts, bar)
            window = asyncio.Semaphore(max(4, model.concurrency * 2))  # conversations in flight

            async def one(view: ConversationView) -> None:
                async with window:
                    output = await collector.conversation(view, mode, strategy)
                write_json(output, outdir / f"{view.conversation_id}.json")

            try:
                await asyncio.gather(*(one(v) for v in views))
            except Exception:
                stopping.set()  # nothing more is sent; what was sent is awaited and stored
                await collector.drain()
                raise
        collector.stats.estimate = planned
        collector.stats.retries = adapter.retries
        collector.stats.record_hits = cache.record_hits
        return collector.stats


def collect_shard(
    views: list[ConversationView],
    model: LiveModel,
    mode: str,
    strategy: str,
    prompt_version: str,
    cache_dir: str | Path,
    shard: str,
    outdir: str | Path,
    seed: int = 0,
    show_progress: bool = True,
    lock_stale_seconds: float = LOCK_STALE_SECONDS,
    lock_wait_seconds: float = 0.0,
    record: str | Path | None = None,
) -> dict[str, Any]:
    """Collect every conversation of ``views``; write one EM output file each into ``outdir``.

    The shard is owned through ``<cache_dir>/<model>/<shard>.lock`` (``shardlock``): held by a
    live collector, it is waited for up to ``lock_wait_seconds``, then ``ShardLocked``; a stale
    one (``lock_stale_seconds`` without heartbeat, or its process gone) is taken over. When the
    parent process dies or the lock is taken over, nothing more is sent, the answers in flight
    are stored, and ``CollectionError`` says so (a rerun asks only what is missing).

    ``record``: a committed response record (``record.py``), verified against the model's
    identity and the prompt version before anything is asked, whose answers serve as a
    read-only cache (an answer is served only to the request whose digest it carries).

    Returns the collection statistics (requests, cache hits, calls, repairs, invalid answers per
    task, tokens, cost, wall seconds) for the log. Raises ``CollectionError`` when the model
    cannot be queried (missing key, refused request, unreachable endpoint).
    """
    fixed = read_record(record, model.identity(), prompt_version).entries if record is not None else None
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    directory = Path(cache_dir) / model.name
    stopping = threading.Event()
    lock = ShardLock(directory / f"{shard}{LOCK_SUFFIX}", lock_stale_seconds, lock_wait_seconds, on_lost=stopping.set)
    start = time.perf_counter()
    with ParentWatch(stopping.set) as parent:
        lock.acquire(cancel=stopping)  # an orphan waiting for its shard gives up
        try:
            cache = ResponseCache(directory, shard, record=fixed)  # opened only once the shard is this collector's
            try:
                stats = asyncio.run(
                    _run(
                        views,
                        model,
                        mode,
                        strategy,
                        PromptSet.load(prompt_version),
                        cache,
                        outdir,
                        seed,
                        show_progress,
                        stopping,
                    )
                )
            except Stopped:
                why = (
                    f"its parent process {parent.parent} died (the run was killed)"
                    if parent.gone.is_set()
                    else f"its shard lock {lock.path} was taken over by another collector"
                    if lock.lost.is_set()
                    else "it was stopped"
                )
                raise CollectionError(
                    f"model {model.name!r}, shard {shard}: stopped because {why}; the answers "
                    "in flight were stored, so a rerun asks only what is missing"
                ) from None
            finally:
                cache.close()
        finally:
            lock.release()
    return {**stats.as_dict(), "wall_seconds": time.perf_counter() - start}

"""The numbers of the paper's section on a real local model (paper/sections/local_model.typ).

``add_local_model(nums, model, record, conversation_scores, invalid, metric, chance, seed, ...)``
adds the entries ``local_model.*`` for one live model whose answers come from a committed
response record (``eibench.predict.record``): how much was asked (requests, answers, tokens),
how long it took (latency per answer, as measured when the answers were collected), how often
its answers stayed invalid, its score on ``metric`` with a 95% conversation-bootstrap interval,
and a paired test against the chance baseline on the same conversations:

- the difference model - chance per conversation, its mean with a 95% percentile bootstrap
  interval (conversations resampled, ``n_bootstrap`` draws seeded by ``seed``);
- an exact sign-flip permutation test of that mean (two-sided; every one of the 2^n sign
  patterns when n <= 16, else ``n_permutations`` seeded draws). With n conversations the
  smallest attainable p-value is 2 / 2^n, which the entry ``min_p`` states, and ``can_reject``
  says whether it is at most ``alpha`` (``rejects_chance``: whether p is), so a small sample
  is never read as evidence it cannot give.

Where this build's answers came from, from the model's collection summary (``collection``:
eibench.predict.summary, the jobs of ``mode`` combined): ``answers_used`` and of them
``answers_from_record`` (replayed from the committed record), ``answers_from_cache`` (stored by
earlier calls to the server) and ``answers_asked_now`` (asked of the server by this build), with
``answers_source`` (record, server or mixed); ``recorded`` says when the record's answers were
collected (the dates of their ``created_at``), so the section says what happened in the build
it is printed from: replayed from the record, or asked live.

With fewer than ``MIN_CONVERSATIONS`` (2) conversations there is nothing to resample and no test:
the interval would be the score itself and the only attainable p-value is 1. The entries
``ci`` of the scores, ``p_vs_chance`` and ``min_p`` are then left out and ``testable`` is false,
so the section prints no interval and no p-value and says why.

Pure: reads only what it is given. ValueError when the model or chance has no score.
"""

from __future__ import annotations

import itertools
import statistics
from datetime import date
from typing import Any, Mapping

import numpy as np
import pandas as pd

from ..predict.record import ResponseRecord
from ..predict.summary import answers_source
from .numbers import Numbers

RULE = "paper_numbers"
MAX_EXACT = 16
MIN_CONVERSATIONS = 2


def sign_flip_p(diffs: np.ndarray, n_permutations: int, seed: int) -> float:
    """Two-sided p of a mean difference under sign flips (exact when len <= MAX_EXACT)."""
    observed = abs(diffs.mean())
    if len(diffs) <= MAX_EXACT:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=len(diffs))))
    else:
        rng = np.random.default_rng(seed)
        signs = rng.choice((1.0, -1.0), size=(n_permutations, len(diffs)))
    means = np.abs((signs * diffs).mean(axis=1))
    return float((means >= observed - 1e-12).mean())


def bootstrap_mean(values: np.ndarray, n_bootstrap: int, seed: int) -> tuple[float, float]:
    """95% percentile interval of the mean, resampling the values (conversations)."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(values), size=(n_bootstrap, len(values)))
    means = values[draws].mean(axis=1)
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def _day(d: date) -> str:
    return f"{d.day} {d:%B %Y}"


def recorded(created_at: list[str]) -> str | None:
    """When answers were collected, from their ``created_at`` (ISO 8601): 'on 6 December 2026',
    or 'between 5 December 2026 and 6 December 2026'; None when none carries a date."""
    days = sorted({date.fromisoformat(c[:10]) for c in created_at if c})
    if not days:
        return None
    return f"on {_day(days[0])}" if len(days) == 1 else f"between {_day(days[0])} and {_day(days[-1])}"


def add_local_model(
    nums: Numbers,
    model: str,
    model_id: str,
    record: ResponseRecord,
    conversation_scores: pd.DataFrame,
    invalid: pd.DataFrame,
    metric: str,
    chance: str,
    seed: int,
    mode: str = "default",
    rule_set: str = "parity",
    n_bootstrap: int = 2000,
    n_permutations: int = 20000,
    alpha: float = 0.05,
    *,
    collection: Mapping[str, Any],
) -> None:
    """Add ``local_model.*`` (see the module docstring). ``conversation_scores``: one row per
    model, mode, rule set and conversation with a column ``metric``; ``invalid``: the rows of
    results/scores/invalid_answers.csv (em_model, mode, task, asked, invalid); ``collection``:
    the model's collection summary for ``mode`` (eibench.predict.summary.combine_summaries)."""

    def add(key: str, value: Any, **kw: Any) -> None:
        nums.add(f"local_model.{key}", value, RULE, **kw)

    scores = conversation_scores[(conversation_scores["mode"] == mode) & (conversation_scores["rule_set"] == rule_set)]
    mine = scores[scores["em_model"] == model].set_index("conversation_id")[metric].dropna()
    base = scores[scores["em_model"] == chance].set_index("conversation_id")[metric].dropna()
    common = sorted(set(mine.index) & set(base.index))
    if not common:
        raise ValueError(f"no conversation has a {metric} score for both {model!r} and {chance!r}")
    a, b = mine.loc[common].to_numpy(float), base.loc[common].to_numpy(float)
    diffs = a - b
    add("present", True)
    add("name", model)
    add("model_id", model_id)
    add("revision", record.identity.get("revision", ""))
    add("metric", metric)
    add("n_conversations", len(common))
    testable = len(common) >= MIN_CONVERSATIONS
    add("testable", testable)
    add("min_conversations", MIN_CONVERSATIONS)

    def interval(values: np.ndarray, offset: int) -> tuple[float, float] | None:
        return bootstrap_mean(values, n_bootstrap, seed + offset) if testable else None

    add("score", float(a.mean()), digits=3, ci=interval(a, 0))
    add("chance_score", float(b.mean()), digits=3, ci=interval(b, 1))
    add("difference", float(diffs.mean()), digits=3, ci=interval(diffs, 2))
    if testable:
        p_value = sign_flip_p(diffs, n_permutations, seed + 3)
        min_p = 2.0 / 2 ** len(common) if len(common) <= MAX_EXACT else 1.0 / n_permutations
        add("p_vs_chance", p_value, digits=3)
        add("min_p", min_p, digits=3)
        add("alpha", alpha)
        add("can_reject", min_p <= alpha)  # whether any answers at all could reach the level
        add("rejects_chance", p_value <= alpha)
    add("n_better_than_chance", int((diffs > 0).sum()))

    rows = invalid[(invalid["em_model"] == model) & (invalid["mode"] == mode) & (invalid["asked"] > 0)]
    asked, bad = int(rows["asked"].sum()), int(rows["invalid"].sum())
    add("answers_asked", asked)
    add("answers_invalid", bad)
    add("pct_invalid", 100.0 * bad / asked if asked else float("nan"), digits=1)
    worst = rows.assign(rate=rows["invalid"] / rows["asked"]).sort_values(["rate", "task"], ascending=[False, True])
    if len(worst):
        add("worst_task", str(worst.iloc[0]["task"]))
        add("pct_invalid_worst_task", 100.0 * float(worst.iloc[0]["rate"]), digits=1)

    entries = list(record.entries.values())
    add("answers_used", int(collection["answers"]))
    add("answers_from_record", int(collection["record_hits"]))
    add("answers_from_cache", int(collection["cache_hits"]))
    add("answers_asked_now", int(collection["calls"]))
    add("answers_source", answers_source(collection))
    when = recorded([e.created_at for e in entries])
    if when is not None:
        add("recorded", when)
    latencies = [e.latency_seconds for e in entries]
    add("n_requests", len(entries))
    add("structured_output", bool(record.identity.get("structured_output", False)))
    add("latency_mean_s", statistics.fmean(latencies), digits=2)
    add("latency_median_s", statistics.median(latencies), digits=2)
    add("latency_max_s", max(latencies), digits=1)
    add("collection_minutes", sum(latencies) / 60.0, digits=1)
    tokens_in = [e.input_tokens for e in entries if e.input_tokens is not None]
    tokens_out = [e.output_tokens for e in entries if e.output_tokens is not None]
    add("input_tokens", int(sum(tokens_in)))
    add("output_tokens", int(sum(tokens_out)))
    add("input_tokens_mean", statistics.fmean(tokens_in) if tokens_in else float("nan"), digits=0)
    add("output_tokens_mean", statistics.fmean(tokens_out) if tokens_out else float("nan"), digits=0)
    add("n_usage_unknown", len(entries) - min(len(tokens_in), len(tokens_out)))

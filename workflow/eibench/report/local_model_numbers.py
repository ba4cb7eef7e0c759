"""The numbers of the paper's section on a real local model (paper/sections/local_model.typ).

``add_local_model(nums, model, record, conversation_scores, invalid, metric, chance, seed, ...)``
adds the entries ``local_model.*`` for one live model whose answers come from a committed
response record (``eibench.predict.record``): how much was asked (calls, each a request or a
repair request, and tokens), how long it took (latency per call, as measured when the answers
were collected), how often
its answers stayed invalid, its score on ``metric`` with a 95% conversation-bootstrap interval,
and a paired test against the chance baseline on the same conversations:

- the difference model - chance per conversation, its mean with a 95% percentile bootstrap
  interval (conversations resampled, ``n_bootstrap`` draws seeded by ``seed``);
- how many conversations the model is ahead of chance in, behind in and tied in;
- the same under the strict rules (``strict_*``), beside the parity rules' figures, with how many
  of the model's answers the parity rules read as 'no' (``n_read_as_no``);
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

Invalid answers are counted per request (``requests_*``: one per turn or conversation and task,
however many questions it asks) and per answer (``answers_*``: each behaviour question on its
own, as the appendix's table counts them); the worst task (``worst_task``) is the one with the
highest share of invalid requests, given with its counts and ``worst_task_scored``, whether the
cohort scores that task at all.

What the answers' JSON schemas did, from the same summary: ``schema_findings`` names each task
with an invalid answer, how many of its requests and repair requests got one and how those
answers break the schema (``eibench.predict.collect.answer_problem``), and
``structure_kept_bounds_broken`` says whether every answer of a structured task kept the schema's
structure while some broke its numeric bounds (what a grammar that enforces the structure but
not the bounds gives). ``unscored_tasks``: the tasks asked whose metrics (``TASK_METRICS``)
have no value for the model on this cohort (no gold for them), whose answers nothing here checks.

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

from ..predict.local_revision import packaged_weights, parse_revision
from ..predict.record import ResponseRecord
from ..predict.summary import answers_source
from .cohort_numbers import joined
from .invalid import task_family
from .numbers import Numbers, plural

RULE = "paper_numbers"
#: A paired difference this close to 0 is a tie (the scores are means of a few 0/1 answers).
TIE = 1e-12
#: The answers of a gold yes/no item that the parity rules read as 'no' and the strict rules count
#: wrong (the suffixes of the rules in rule_counts.csv, eibench.metrics.binary).
READ_AS_NO = ("missing", "na", "invalid", "unrecognised")
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


#: The metrics (conversation_scores columns) that score each task's answers (invalid_answers.csv's
#: task names): a task none of whose metrics has a value for a model is asked, never scored.
TASK_METRICS = {
    "emotions": ("emotion_f1", "emotion_f1_intensity", "emotion_va", "emotion_va_intensity"),
    "binary_om_observer": ("binary_om_acc",),
    "binary_hp_observer": ("binary_hp_acc",),
    "binary_om_participant": ("binary_om_acc_pw",),
    "binary_hp_participant": ("binary_hp_acc_pw",),
    "pairwise": ("pairwise_acc", "kendall_tau"),
    "draft": ("response_similarity", "preference_alignment", "draft_judge"),
    "post_panas": ("panas_normalized", "panas_adjusted", "panas_items_normalized", "panas_items_adjusted"),
    "conversation_wide": ("cw_q1_f1", "cw_q2_exact", "cw_q3_exact", "cw_followup_f1", "four_branch_mae"),
    "post_chat_ratings": ("post_chat_ratings_mae",),
}


def unscored(scores: pd.DataFrame, tasks: list[str]) -> list[str]:
    """The ``tasks`` (in order) none of whose metrics has a value in ``scores`` (one model's rows)."""
    return [
        t
        for t in tasks
        if not any(c in scores and scores[c].notna().any() for c in TASK_METRICS.get(task_family(t), ()))
    ]


def _number(x: float) -> str:
    return f"{x:g}"


def _each(n: int, of: int) -> str:
    """The subject of a finding about ``n`` of ``of`` flawed answers."""
    which = "that broke the schema or the parser"
    if of == 1:
        return f"the one answer {which}"
    return f"each of the {of} answers {which}" if n == of else f"{n} of the {of} answers {which}"


#: How an answer breaks its schema (eibench.predict.collect.answer_problem), in words: after
#: one answer or each of several, after several.
PROBLEM_WORDS = {
    "structure": ("broke the schema's structure (a key, type, option or length)",) * 2,
    "not_json": ("held no JSON object",) * 2,
    "empty": ("was empty", "were empty"),
    "parser": ("met the schema but not the answer parser",) * 2,
}


def schema_findings(tasks: Mapping[str, Mapping[str, Any]]) -> str:
    """Each task with an answer that breaks its JSON schema or the parser (collection summary
    ``tasks``), in words: how many of its requests and repair requests got an invalid answer and
    how its answers break the schema, e.g. 'post_panas_absolute: 10 of its 10 requests got an
    invalid first answer, and 10 of its 10 repair requests an invalid answer again; each of the
    20 answers that broke the schema or the parser had the schema's keys and types but numbers
    from 1 to 20 where it allows 1 to 7'; '' when there is none."""
    clauses = []
    for task, c in sorted(tasks.items()):
        p = {k: n for k, n in c["problems"].items() if n}
        bad = sum(p.values())
        if not bad:
            continue
        text = (
            f"{task}: {c['first_invalid']} of its {c['requests']} {plural(c['requests'], 'request', 'requests')} "
            "got an invalid first answer"
        )
        if c["repairs"]:
            text += (
                f", and {c['repair_invalid']} of its {c['repairs']} repair "
                f"{plural(c['repairs'], 'request', 'requests')} an invalid answer again"
            )
        reasons = []
        if p.get("bounds"):
            (lo, hi), (low, high) = c["values"], c["allowed"]
            reasons.append(
                f"{_each(p['bounds'], bad)} had the schema's keys and types but numbers from {_number(lo)} to "
                f"{_number(hi)} where it allows {_number(low)} to {_number(high)}"
            )
        reasons += [
            f"{_each(p[k], bad)} {w[0] if p[k] == bad or p[k] == 1 else w[1]}"
            for k, w in PROBLEM_WORDS.items()
            if p.get(k)
        ]
        clauses.append(f"{text}; {', and '.join(reasons)}")
    return "; ".join(clauses)


def _day(d: date) -> str:
    return f"{d.day} {d:%B %Y}"


def recorded(created_at: list[str]) -> str | None:
    """When answers were collected, from their ``created_at`` (ISO 8601): 'on 6 December 2026',
    or 'between 5 December 2026 and 6 December 2026'; None when none carries a date."""
    days = sorted({date.fromisoformat(c[:10]) for c in created_at if c})
    if not days:
        return None
    return f"on {_day(days[0])}" if len(days) == 1 else f"between {_day(days[0])} and {_day(days[-1])}"


def add_model_description(nums: Numbers, identity: Mapping[str, Any], served: str) -> None:
    """What the record's identity establishes about the model, for the section to describe it by
    facts rather than by the configuration this repository ships: ``served`` (``local``: an
    endpoint on the collecting machine, ``api``: elsewhere), ``temperature`` (None when the
    identity has none), and, for a revision written by ``local_revision.revision``,
    ``server_version`` (llama-cpp-python's); when that revision's weights digest is the packaged
    file's (``local_revision.PACKAGED_WEIGHTS``), ``packaged`` True with ``packaged_model``,
    ``packaged_quantisation``, ``packaged_parameters``, ``packaged_package`` and
    ``packaged_licence``. A model served any other way gets no key it cannot back."""

    def add(key: str, value: Any) -> None:
        nums.add(f"local_model.{key}", value, RULE)

    add("served", served)
    temperature = identity.get("temperature")
    add("greedy", temperature is not None and float(temperature) == 0.0)
    if temperature is not None:
        add("temperature", float(temperature))
    parts = parse_revision(str(identity.get("revision") or ""))
    if parts:
        add("server_version", parts["server_version"])
    packaged = packaged_weights(parts.get("gguf_sha256"))
    add("packaged", packaged is not None)
    for key, value in (packaged or {}).items():
        if key != "sha256":
            add(f"packaged_{key}", value)


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
    served: str = "local",
    rule_counts: pd.DataFrame | None = None,
) -> None:
    """Add ``local_model.*`` (see the module docstring). ``conversation_scores``: one row per
    model, mode, rule set and conversation with a column ``metric``; ``invalid``: the rows of
    results/scores/invalid_answers.csv (em_model, mode, task, asked, invalid, requests,
    invalid_requests); ``collection``:
    the model's collection summary for ``mode`` (eibench.predict.summary.combine_summaries);
    ``served``: ``local`` or ``api`` (``eibench.cohorts.live_served``);
    ``rule_counts``: the rows of results/scores/rule_counts.csv (how often each parity rule fired)."""

    def add(key: str, value: Any, **kw: Any) -> None:
        nums.add(f"local_model.{key}", value, RULE, **kw)

    def paired(rules: str) -> tuple[pd.DataFrame, list[str], np.ndarray, np.ndarray]:
        """The rows of a rule set, the conversations both models have a score on, and the scores."""
        rows = conversation_scores[(conversation_scores["mode"] == mode) & (conversation_scores["rule_set"] == rules)]
        mine = rows[rows["em_model"] == model].set_index("conversation_id")[metric].dropna()
        base = rows[rows["em_model"] == chance].set_index("conversation_id")[metric].dropna()
        both = sorted(set(mine.index) & set(base.index))
        return rows, both, mine.loc[both].to_numpy(float), base.loc[both].to_numpy(float)

    def signs(d: np.ndarray, prefix: str = "") -> None:
        """How many conversations the model is ahead of chance in, behind in and tied in."""
        add(f"{prefix}n_better_than_chance", int((d > TIE).sum()))
        add(f"{prefix}n_worse_than_chance", int((d < -TIE).sum()))
        add(f"{prefix}n_tied_with_chance", int((np.abs(d) <= TIE).sum()))

    scores, common, a, b = paired(rule_set)
    if not common:
        raise ValueError(f"no conversation has a {metric} score for both {model!r} and {chance!r}")
    diffs = a - b
    add("present", True)
    add("name", model)
    add("model_id", model_id)
    add("revision", record.identity.get("revision", ""))
    add_model_description(nums, record.identity, served)
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
    signs(diffs)
    # The same comparison under the strict rules, which count a missing, 'na' or invalid answer
    # wrong where the parity rules read it as 'no' (docs/metrics.md): the parity figure may rest
    # on such answers. ``n_read_as_no``: the model's gold items of the metric that the parity
    # rules read so (rule_counts.csv; binary metrics only).
    if rule_set == "parity":
        _, both, sa, sb = paired("strict")
        if both:
            add("strict_n_conversations", len(both))
            add("strict_score", float(sa.mean()), digits=3)
            add("strict_chance_score", float(sb.mean()), digits=3)
            add("strict_difference", float((sa - sb).mean()), digits=3)
            signs(sa - sb, "strict_")
        if rule_counts is not None and metric.startswith("binary_"):
            prefix = metric.replace("_acc", "") + "_prediction_"
            fired = rule_counts[
                (rule_counts["em_model"] == model)
                & (rule_counts["mode"] == mode)
                & (rule_counts["rule_set"] == "parity")
                & rule_counts["rule"].isin([prefix + k for k in READ_AS_NO])
            ]
            add("n_read_as_no", int(fired["count"].sum()))

    rows = invalid[(invalid["em_model"] == model) & (invalid["mode"] == mode) & (invalid["asked"] > 0)]
    asked, bad = int(rows["asked"].sum()), int(rows["invalid"].sum())
    add("answers_asked", asked)
    add("answers_invalid", bad)
    add("pct_invalid", 100.0 * bad / asked if asked else float("nan"), digits=1)
    # Per request (one per turn or conversation and task, whatever the questions it asks): the
    # unit the worst task is named by, with its counts and whether the cohort scores it at all.
    requests, bad_requests = int(rows["requests"].sum()), int(rows["invalid_requests"].sum())
    add("requests_asked", requests)
    add("requests_invalid", bad_requests)
    add("pct_invalid_requests", 100.0 * bad_requests / requests if requests else float("nan"), digits=1)
    worst = rows[rows["invalid_requests"] > 0]
    worst = worst.assign(rate=worst["invalid_requests"] / worst["requests"]).sort_values(
        ["rate", "task"], ascending=[False, True]
    )
    if len(worst):
        top = worst.iloc[0]
        add("worst_task", str(top["task"]))
        add("worst_task_requests", int(top["requests"]))
        add("worst_task_invalid_requests", int(top["invalid_requests"]))
        add("pct_invalid_worst_task", 100.0 * float(top["rate"]), digits=1)
        add("worst_task_scored", not unscored(scores[scores["em_model"] == model], [str(top["task"])]))

    entries = list(record.entries.values())
    add("answers_used", int(collection["answers"]))
    add("answers_from_record", int(collection["record_hits"]))
    add("answers_from_cache", int(collection["cache_hits"]))
    add("answers_asked_now", int(collection["calls"]))
    add("answers_source", answers_source(collection))
    # What the schemas did: the tasks with an invalid answer and how those answers break the schema.
    tasks = collection["tasks"]
    structured = bool(record.identity.get("structured_output", False))
    add("schema_findings", schema_findings(tasks))
    add("n_tasks_with_invalid", sum(1 for c in tasks.values() if any(c["problems"].values())))
    kinds = {k for t, c in tasks.items() if t != "draft" for k, n in c["problems"].items() if n}
    add(
        "structure_kept_bounds_broken",
        structured and "bounds" in kinds and not kinds & {"structure", "not_json", "empty"},
    )
    families = {task_family(t) for t in tasks}
    off = unscored(scores[scores["em_model"] == model], [t for t in TASK_METRICS if t in families])
    add("unscored_tasks", joined(off) or "none")
    add("n_unscored_tasks", len(off))
    when = recorded([e.created_at for e in entries])
    if when is not None:
        add("recorded", when)
    latencies = [e.latency_seconds for e in entries]
    # The record holds one answer per call: a request's or a repair request's. The collection
    # says how many of each this build asked, and whether they are the record's answers.
    add("n_calls", len(entries))
    add("collection_requests", int(collection["requests"]))
    add("collection_repairs", int(collection["repairs"]))
    add("calls_are_requests_and_repairs", len(entries) == collection["requests"] + collection["repairs"])
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

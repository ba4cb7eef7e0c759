"""Which kinds of annotation a cohort has at all, and the metrics a missing kind leaves undefined.

The release format lets a cohort leave out whole kinds of annotation: an adapted public corpus
such as ESConv (docs/esconv.md) has behaviour judgements but no mood-shift tags, no preferred
behaviour, no pairwise comparisons, no PANAS totals, no post-chat survey; the synthetic cohort
and an AttuneBench release have no post-chat ratings (an extension that ESConv has). The parity rule set
reproduces the official scorer's defaults for a *turn or conversation* without an annotation
(e.g. pairwise accuracy 1.0 for a turn without comparisons, four-branch 1.0 without ratings);
applied to a cohort that never had that annotation, those defaults would invent perfect scores.
So a kind that is absent from every conversation of the cohort makes its metrics undefined (NaN)
under both rule sets, and the pillars and composite renormalise over what is present
(``composite.add_pillars``). A kind present in at least one conversation keeps the usual
per-turn and per-conversation rules: this check never changes the scores of the synthetic
cohort or of an AttuneBench release, which have every kind of the published instrument.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import pandas as pd

from .binary import ACCURACY_NAME

_CONFUSION = ("tp", "fp", "tn", "fn")


@dataclass(frozen=True)
class AnnotationKind:
    name: str
    description: str
    metrics: tuple[str, ...]  # turn- and conversation-level columns left undefined when absent
    confusion_prefixes: tuple[str, ...] = ()  # pooled confusion counts left undefined when absent
    rule_prefixes: tuple[str, ...] = ()  # parity-rule counts that do not apply when absent (score.py)
    #: An extension of the published instrument (docs/release-format.md): its absence is the
    #: normal case (the synthetic cohort, an AttuneBench release), so it is not reported as a
    #: missing kind in the rule counts; its metrics are still NaN with their reason.
    extension: bool = False


KINDS: tuple[AnnotationKind, ...] = (
    AnnotationKind(
        "mood_tags",
        "mood-shift tags (moodShiftTags)",
        ("emotion_f1", "emotion_f1_intensity", "emotion_va", "emotion_va_intensity", "tracking"),
    ),
    AnnotationKind(
        "binary_judgements",
        "behaviour judgements (binaryJudgements)",
        ("binary_om_acc", "binary_om_acc_pw", "binary_hp_acc", "binary_hp_acc_pw", "perspective_gap"),
        ("om", "om_pw", "hp", "hp_pw"),
        ("binary_",),
    ),
    AnnotationKind(
        "preferred_behaviour",
        "preferred behaviour (preferredBehavior)",
        ("binary_hp_acc", "binary_hp_acc_pw", "perspective_gap"),
        ("hp", "hp_pw"),
        ("binary_hp_",),
    ),
    AnnotationKind(
        "pairwise_comparisons",
        "pairwise comparisons (pairwiseComparisons)",
        ("pairwise_acc", "kendall_tau", "preference_alignment"),
        (),
        ("pairwise_", "kendall_tau_"),
    ),
    AnnotationKind(
        "panas_totals",
        "PANAS totals or a complete set of PANAS items (prePanas/postPanas)",
        ("panas_adjusted", "panas_normalized", "panas_part"),
        (),
        ("panas_total_", "panas_affect_", "panas_adjusted_", "panas_post_equals_pre"),
    ),
    AnnotationKind(
        "panas_items", "PANAS items (prePanas/postPanas items)", ("panas_items_adjusted", "panas_items_normalized")
    ),
    AnnotationKind(
        "survey",
        "post-chat survey answers (conversationWideQuestions)",
        ("conversation_wide", "cw_q1_f1", "cw_q2_exact", "cw_q3_exact", "cw_q3_distance", "cw_followup_f1"),
        (),
        ("conversation_wide_",),
    ),
    AnnotationKind(
        "four_branch",
        "four-branch ratings (fourBranchScores)",
        ("four_branch", "four_branch_mae"),
        (),
        ("four_branch_",),
    ),
    AnnotationKind(
        "post_chat_ratings",
        "post-chat ratings of the assistant (postChatRatings, an extension)",
        ("post_chat_ratings", "post_chat_ratings_mae"),
        (),
        ("post_chat_ratings_",),
        extension=True,
    ),
)
BY_NAME = {k.name: k for k in KINDS}


def _present(tables: dict[str, pd.DataFrame]) -> dict[str, bool]:
    totals = tables["panas_totals"]
    return {
        "mood_tags": len(tables["mood_tags"]) > 0,
        "binary_judgements": len(tables["binary_judgements"]) > 0,
        # The HP gold falls back to the observed answer per judgement (the official rule); a
        # cohort in which no judgement has a preferred answer has no HP gold of its own.
        "preferred_behaviour": bool(tables["binary_judgements"]["preferred"].notna().any()),
        "pairwise_comparisons": len(tables["pairwise_comparisons"]) > 0,
        "panas_totals": bool(totals[["positive", "negative"]].notna().any(axis=None)),
        "panas_items": len(tables["panas_items"]) > 0,
        "survey": len(tables["survey_answers"]) > 0,
        "four_branch": len(tables["four_branch"]) > 0,
        "post_chat_ratings": len(tables["post_chat_ratings"]) > 0,
    }


def absent_kinds(tables: dict[str, pd.DataFrame]) -> tuple[str, ...]:
    """Names of the annotation kinds (``KINDS`` order) that no conversation of the gold tidy
    tables has; () for a cohort with every kind. An empty cohort has none of them."""
    present = _present(tables)
    return tuple(k.name for k in KINDS if not present[k.name])


def reported_absent(absent: tuple[str, ...]) -> tuple[str, ...]:
    """The absent kinds of the published instrument (extensions left out): what the rule counts
    report as ``annotation_absent_from_cohort:<kind>``."""
    return tuple(name for name in absent if not BY_NAME[name].extension)


def undefined_metrics(absent: tuple[str, ...]) -> dict[str, str]:
    """{metric column: reason} for the metrics the absent kinds leave undefined (the first
    absent kind names the reason when two apply)."""
    out: dict[str, str] = {}
    for name in absent:
        kind = BY_NAME[name]
        for metric in kind.metrics:
            out.setdefault(metric, f"the cohort has no {kind.description} in any conversation")
    return out


def undefined_confusion(absent: tuple[str, ...]) -> list[str]:
    """Confusion-count columns (``<prefix>_tp`` ...) of the pooled statistics left undefined."""
    prefixes = {p for name in absent for p in BY_NAME[name].confusion_prefixes}
    return [f"{p}_{c}" for p in ACCURACY_NAME if p in prefixes for c in _CONFUSION]


def inapplicable_rules(absent: tuple[str, ...], rules: list[str]) -> list[str]:
    """The parity-rule counters among ``rules`` that concern an absent kind: they would only
    count that the kind is missing everywhere, which ``annotation_absent_from_cohort`` says once."""
    prefixes = tuple(p for name in absent for p in BY_NAME[name].rule_prefixes)
    return [r for r in rules if prefixes and r.startswith(prefixes)]


def conversations_with_values(
    conversation: pd.DataFrame, metrics: Iterable[str], mode: str | None = None, rule_set: str | None = None
) -> dict[str, int]:
    """Per metric of ``metrics`` (columns of ``conversation``, a conversation score table with
    a ``conversation_id`` column and one row per model, mode, rule set and conversation): the
    number of distinct conversations in which some row of ``mode`` and ``rule_set`` (each:
    every row when None) has a value, 0 when none has (a metric a kind the cohort lacks leaves
    undefined). An empty table gives 0 for every metric. KeyError naming the metrics that are
    no column (a pooled statistic has none: leave it out)."""
    metrics = list(metrics)
    missing = [m for m in metrics if m not in conversation]
    if missing:
        raise KeyError(f"conversations_with_values: no column {', '.join(missing)} in the conversation scores")
    keep = pd.Series(True, index=conversation.index)
    for column, value in (("mode", mode), ("rule_set", rule_set)):
        if value is not None:
            keep &= conversation[column] == value
    rows = conversation[keep]
    ids = rows["conversation_id"]
    return {m: int(ids[rows[m].notna()].nunique()) for m in metrics}

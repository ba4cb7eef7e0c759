"""The metric registry: every reported metric declared once.

The statistics, the figures, the paper and the data dictionary enumerate metrics from here.
``level`` says where a value is first computed (turn or conversation); every metric is then
averaged over turns within a conversation (turn level), and over conversations for a model.
``principal`` marks the metrics whose model rankings the paper compares; ``in_composite`` the
per-conversation parts the composite is made of (``composite.COMPOSITE_PARTS``, tracking by its
two parts) and the composite itself; ``extension`` a metric of an extension of the release format
(docs/release-format.md) that the published instrument does not have, which only a cohort with
that annotation scores (Table 1 lists it only then).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Mapping, Sequence

import pandas as pd


@dataclass(frozen=True)
class Metric:
    name: str
    label: str
    pillar: str  # tracking | evaluation | holistic | composite | draft | diagnostic
    level: str  # turn | conversation | model
    higher_is_better: bool
    low: float
    high: float
    unit: str
    aggregation: str
    definition: str
    spec: str  # section of docs/metrics.md
    principal: bool = False
    in_composite: bool = False
    extension: bool = False


_M = Metric
MEAN = "mean over turns within a conversation, then mean over conversations"
CMEAN = "mean over conversations"
POOLED = "confusion counts summed over every scored turn of the model"

METRICS: tuple[Metric, ...] = (
    _M(
        "emotion_f1",
        "Emotion F1",
        "tracking",
        "turn",
        True,
        0,
        1,
        "proportion",
        MEAN,
        "Set F1 between the lower-cased gold mood tags and the EM's tags at a turn; both empty 1, one empty 0.",
        "Emotion tracking",
        principal=True,
        in_composite=True,
    ),
    _M(
        "emotion_f1_intensity",
        "Emotion F1 x intensity",
        "tracking",
        "turn",
        True,
        0,
        1,
        "proportion",
        MEAN,
        "Emotion F1 times the mean of 1 - |intensity gold - predicted| / 6 over matched labels with both intensities "
        "(both lists empty 1, else 0 if none).",
        "Emotion tracking",
    ),
    _M(
        "emotion_va",
        "Emotion VA similarity",
        "tracking",
        "turn",
        True,
        0,
        1,
        "proportion",
        MEAN,
        "Mean valence-arousal similarity (1 - distance / sqrt 2) over a one-to-one match of gold and predicted "
        "labels, times min/max of the list sizes; both empty 1, one empty 0.",
        "Emotion tracking",
        principal=True,
        in_composite=True,
    ),
    _M(
        "emotion_va_intensity",
        "Emotion VA x intensity",
        "tracking",
        "turn",
        True,
        0,
        1,
        "proportion",
        MEAN,
        "As emotion VA with pair similarity 0.7 x label similarity + 0.3 x (1 - |intensity difference| / 6).",
        "Emotion tracking",
    ),
    _M(
        "tracking",
        "Emotion tracking pillar",
        "tracking",
        "turn",
        True,
        0,
        1,
        "proportion",
        MEAN,
        "0.5 x emotion F1 + 0.5 x emotion VA.",
        "Emotion tracking",
    ),
    _M(
        "binary_om_acc",
        "Binary OM accuracy",
        "evaluation",
        "turn",
        True,
        0,
        1,
        "proportion",
        MEAN,
        "Share of gold yes/no OM-behaviour judgements (observed, else llmValue) the EM answers correctly.",
        "Evaluation quality",
        principal=True,
        in_composite=True,
    ),
    _M(
        "binary_hp_acc",
        "Binary HP accuracy",
        "evaluation",
        "turn",
        True,
        0,
        1,
        "proportion",
        MEAN,
        "Share of gold yes/no HP preferences (preferred, else observed) the EM predicts correctly; undefined "
        "in a cohort where no judgement has a preferred answer (the observed one is then no HP gold of its own).",
        "Evaluation quality",
        principal=True,
        in_composite=True,
    ),
    _M(
        "binary_om_acc_pw",
        "Binary OM accuracy (participant wording)",
        "evaluation",
        "turn",
        True,
        0,
        1,
        "proportion",
        MEAN,
        "Binary OM accuracy when the EM is asked with the participant-facing wording.",
        "Evaluation quality",
    ),
    _M(
        "binary_hp_acc_pw",
        "Binary HP accuracy (participant wording)",
        "evaluation",
        "turn",
        True,
        0,
        1,
        "proportion",
        MEAN,
        "Binary HP accuracy when the EM is asked with the participant-facing wording.",
        "Evaluation quality",
    ),
    _M(
        "perspective_gap",
        "Perspective gap",
        "diagnostic",
        "conversation",
        False,
        -1,
        1,
        "proportion",
        CMEAN,
        "Binary HP accuracy minus binary HP accuracy with the participant wording (closer to 0 is better).",
        "Evaluation quality",
    ),
    _M(
        "pairwise_acc",
        "Pairwise accuracy",
        "evaluation",
        "turn",
        True,
        0,
        1,
        "proportion",
        MEAN,
        "Share of a turn's pairwise comparisons where the EM's A/B pick equals the HP's (null gold winners count, "
        "never matched).",
        "Evaluation quality",
        principal=True,
        in_composite=True,
    ),
    _M(
        "kendall_tau",
        "Kendall tau of win rankings",
        "evaluation",
        "turn",
        True,
        -1,
        1,
        "correlation",
        MEAN + " (turns with a value)",
        "Kendall tau between the HP's and the EM's rankings of original/alternate/human by wins (ties broken "
        "alphabetically).",
        "Evaluation quality",
        principal=True,
    ),
    _M(
        "evaluation",
        "Evaluation quality pillar",
        "evaluation",
        "conversation",
        True,
        0,
        1,
        "proportion",
        CMEAN,
        "0.5 x mean(binary OM accuracy, binary HP accuracy) + 0.5 x pairwise accuracy.",
        "Evaluation quality",
    ),
    _M(
        "panas_adjusted",
        "PANAS baseline-adjusted",
        "holistic",
        "conversation",
        True,
        -1,
        1,
        "skill score",
        CMEAN + " (conversations with a value)",
        "Mean over PA and NA of clip((raw - naive) / (1 - naive), -1, 1), raw = max(0, 1 - |post - predicted| / 60), "
        "naive = max(0, 1 - |post - pre| / 60); null when post = pre.",
        "Holistic comprehension",
        principal=True,
    ),
    _M(
        "panas_normalized",
        "PANAS normalised accuracy",
        "holistic",
        "conversation",
        True,
        0,
        1,
        "proportion",
        CMEAN,
        "max(0, 1 - MAE / 60) over PA and NA totals (a missing side taken as 40).",
        "Holistic comprehension",
    ),
    _M(
        "panas_items_adjusted",
        "PANAS items baseline-adjusted",
        "holistic",
        "conversation",
        True,
        -1,
        1,
        "skill score",
        CMEAN + " (conversations with a value)",
        "The mean baseline-adjusted score (maximum error 6) over the PANAS items the conversation has, nulls skipped.",
        "Holistic comprehension",
    ),
    _M(
        "panas_items_normalized",
        "PANAS items normalised accuracy",
        "holistic",
        "conversation",
        True,
        0,
        1,
        "proportion",
        CMEAN,
        "1 - MAE / 6 over the items present on both sides.",
        "Holistic comprehension",
    ),
    _M(
        "panas_part",
        "PANAS composite part",
        "holistic",
        "conversation",
        True,
        0,
        1,
        "proportion",
        CMEAN,
        "(PANAS adjusted + 1) / 2, or 0.5 when the adjusted score is null.",
        "Holistic comprehension",
        in_composite=True,
    ),
    _M(
        "cw_q1_f1",
        "Q1 looking-for set F1",
        "holistic",
        "conversation",
        True,
        0,
        1,
        "proportion",
        CMEAN,
        "Set F1 of the trimmed lower-cased q1_lookingFor options; both empty 1, one empty 0.",
        "Holistic comprehension",
    ),
    _M(
        "cw_q2_exact",
        "Q2 emotion clarity exact",
        "holistic",
        "conversation",
        True,
        0,
        1,
        "proportion",
        CMEAN,
        "1 when the q2 answers match after trim and lower-case.",
        "Holistic comprehension",
    ),
    _M(
        "cw_q3_exact",
        "Q3 model fit exact",
        "holistic",
        "conversation",
        True,
        0,
        1,
        "proportion",
        CMEAN,
        "1 when the q3 answers match after trim and lower-case.",
        "Holistic comprehension",
    ),
    _M(
        "cw_q3_distance",
        "Q3 ordinal distance",
        "holistic",
        "conversation",
        False,
        0,
        3,
        "options",
        CMEAN,
        "|position gold - position predicted| over the four fit options; both unknown 0, one unknown 3.",
        "Holistic comprehension",
    ),
    _M(
        "cw_followup_f1",
        "Follow-up fuzzy F1",
        "holistic",
        "conversation",
        True,
        0,
        1,
        "proportion",
        CMEAN,
        "Fuzzy set F1 of what-felt-off items: exact match 1, else best token-Jaccard if >= 0.3, else 0.",
        "Holistic comprehension",
    ),
    _M(
        "conversation_wide",
        "Conversation-wide questions",
        "holistic",
        "conversation",
        True,
        0,
        1,
        "proportion",
        CMEAN,
        "Mean of Q1 F1, Q2 exact, Q3 exact and follow-up fuzzy F1.",
        "Holistic comprehension",
        principal=True,
        in_composite=True,
    ),
    _M(
        "four_branch_mae",
        "Four-branch MAE",
        "holistic",
        "conversation",
        False,
        0,
        6,
        "rating points",
        CMEAN,
        "Mean absolute error over the gold four-branch ratings (a missing prediction counts as 4).",
        "Holistic comprehension",
    ),
    _M(
        "four_branch",
        "Four-branch normalised",
        "holistic",
        "conversation",
        True,
        0,
        1,
        "proportion",
        CMEAN,
        "1 - four-branch MAE / 6.",
        "Holistic comprehension",
        principal=True,
        in_composite=True,
    ),
    _M(
        "post_chat_ratings_mae",
        "Post-chat ratings MAE",
        "holistic",
        "conversation",
        False,
        0,
        4,
        "rating points",
        CMEAN,
        "Extension: mean absolute error over the gold post-chat ratings of the replies' author (ESConv's empathy and "
        "relevance, 1..5); a missing prediction counts as the midpoint 3 (parity) or the farthest value (strict).",
        "Holistic comprehension",
        extension=True,
    ),
    _M(
        "post_chat_ratings",
        "Post-chat ratings normalised",
        "holistic",
        "conversation",
        True,
        0,
        1,
        "proportion",
        CMEAN,
        "Extension: 1 - post-chat ratings MAE / 4; only a cohort with the ratings has it (e.g. ESConv).",
        "Holistic comprehension",
        in_composite=True,
        extension=True,
    ),
    _M(
        "holistic",
        "Holistic pillar",
        "holistic",
        "conversation",
        True,
        0,
        1,
        "proportion",
        CMEAN,
        "0.4 x PANAS part + 0.3 x conversation-wide + 0.3 x four-branch (+ 0.3 x post-chat ratings where a cohort "
        "has them), renormalised over the parts present.",
        "Holistic comprehension",
    ),
    _M(
        "composite",
        "Composite",
        "composite",
        "conversation",
        True,
        0,
        100,
        "points",
        CMEAN,
        "100 x (0.24 x tracking + 0.49 x evaluation + 0.27 x holistic), rounded to 2 decimals per conversation.",
        "Composite",
        in_composite=True,
    ),
    _M(
        "composite_equal",
        "Equal-weight composite",
        "composite",
        "conversation",
        True,
        0,
        100,
        "points",
        CMEAN,
        "100 x mean(turn-level average of tracking, binary and pairwise; conversation-wide average of PANAS part, "
        "conversation-wide, four-branch and, where a cohort has them, post-chat ratings).",
        "Composite",
    ),
    _M(
        "draft_judge",
        "Judged draft quality",
        "draft",
        "turn",
        True,
        0,
        1,
        "proportion",
        MEAN + " (turns with a judgement)",
        "(mean of the judge's 1..7 ratings - 1) / 6, clipped to [0, 1]; reported apart from the composite.",
        "Composite",
        principal=True,
    ),
    _M(
        "response_similarity",
        "Draft response similarity",
        "draft",
        "turn",
        True,
        0,
        1,
        "proportion",
        MEAN + " (turns with a draft)",
        "Best token-Jaccard of the EM's draft with the original, improved and human-edited replies.",
        "Parity details",
    ),
    _M(
        "preference_alignment",
        "Draft preference alignment",
        "draft",
        "turn",
        True,
        0,
        1,
        "proportion",
        MEAN + " (turns with a draft and a winner)",
        "Token-Jaccard of the draft with each reply, weighted by the reply's share of the turn's pairwise wins.",
        "Parity details",
    ),
)

POOLED_METRICS: tuple[Metric, ...] = tuple(
    _M(
        f"{target}_{stat}",
        f"{name} {stat.upper() if stat == 'mcc' else stat}",
        "evaluation",
        "model",
        True,
        -1 if stat == "mcc" else 0,
        1,
        "proportion",
        POOLED,
        f"{stat} of the EM's yes answers for {name}, pooled over turns; 0 when undefined.",
        "Evaluation quality",
    )
    for target, name in (
        ("om", "binary OM"),
        ("hp", "binary HP"),
        ("om_pw", "binary OM (participant wording)"),
        ("hp_pw", "binary HP (participant wording)"),
    )
    for stat in ("precision", "recall", "f1", "mcc")
)

BY_NAME = {m.name: m for m in METRICS + POOLED_METRICS}
TURN_METRICS = tuple(m.name for m in METRICS if m.level == "turn")
PRINCIPAL = tuple(m.name for m in METRICS if m.principal)
#: Metrics with one value per model and conversation: what the statistics can analyse.
ANALYSABLE = tuple(m.name for m in METRICS if m.level in ("turn", "conversation"))


def label_of(metric: str) -> str:
    """How the paper names ``metric``: its label, or the name itself when it is no metric of
    the registry (a composite part, a pillar named by its key)."""
    return BY_NAME[metric].label if metric in BY_NAME else metric


def data_dictionary(
    principal: Sequence[str] | None = None, with_values: Mapping[str, int] | None = None
) -> pd.DataFrame:
    """One row per metric: the columns of every score table, documented. ``principal`` marks
    the cohort's principal metrics (``statistics.principal_metrics``); by default the
    registry's. ``n_conversations_with_values`` holds ``with_values[name]`` (the cohort's
    conversations in which the metric has a value: ``availability.conversations_with_values``)
    and is null for a metric it does not give (a pooled statistic, or no counts given)."""
    chosen = set(PRINCIPAL if principal is None else principal)
    counts = with_values or {}
    rows = [
        asdict(m)
        | {
            "principal": m.name in chosen,
            "direction": "higher is better" if m.higher_is_better else "lower is better",
            "n_conversations_with_values": counts.get(m.name),
        }
        for m in METRICS + POOLED_METRICS
    ]
    table = pd.DataFrame(rows)
    table["n_conversations_with_values"] = table["n_conversations_with_values"].astype("Int64")
    return table

"""The numbers of an ESConv cohort's data paragraph, from the adapter's counts
(results/cohort/esconv/counts.json, rule esconv_cohort): what was kept, dropped and mapped; and
the mean-drop reference predictor that docs/esconv.md (section 5) asks the paper to report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from .. import instrument
from ..metrics.reference import ITEM_HIGH, ITEM_LOW, mean_drop_reference
from ..public.esconv import (
    INTENSITY_HIGH,
    INTENSITY_LOW,
    POST_CHAT_RATINGS,
    PROBLEM_TYPE_CATEGORY,
    STRATEGY_QUESTION,
)
from .numbers import Numbers

RULE = "esconv_cohort"
ROMANTIC_PROBLEM = "breakup with partner"


def add_esconv(nums: Numbers, counts_path: str | Path) -> None:
    """Add the entries ``esconv.*``. Percentages are of the supporter messages (strategies) or
    of the judgements; a count absent from the file raises KeyError naming it."""
    c = json.loads(Path(counts_path).read_text())

    def add(key: str, value, **kw) -> None:
        nums.add(f"esconv.{key}", value, RULE, **kw)

    add("n_conversations", int(c["conversations"]))
    for split, n in sorted(c["conversations_per_split"].items()):
        add(f"n_{split}", int(n))
        add(f"n_source_{split}", int(c["source_per_split"][split]))
        add(f"kept_{split}", split in c["splits_kept"])
    # a sample: some split left out, or fewer of a kept split's dialogs than the source has
    add("sample", int(c["conversations"]) < sum(map(int, c["source_per_split"].values())))
    add("n_turns", int(c["turns"]))
    add("n_supporter_messages", int(c["supporter_messages"]))
    add("n_dropped_leading", int(c["dropped_leading_supporter_messages"]))
    add("n_conversations_dropped_leading", int(c["conversations_with_dropped_leading"]))
    add("n_dropped_trailing", int(c["dropped_trailing_seeker_messages"]))
    add("n_conversations_cut", int(c["conversations_cut"]))
    if c["max_turns"] is not None:  # a sample of the first turns (write_cohort's max_turns)
        add("max_turns", int(c["max_turns"]))
    add("n_conversations_dropped_trailing", int(c["conversations_with_dropped_trailing"]))
    add("romantic_category", PROBLEM_TYPE_CATEGORY[ROMANTIC_PROBLEM])
    add("n_romantic", int(c["categories"].get(PROBLEM_TYPE_CATEGORY[ROMANTIC_PROBLEM], 0)))
    mapped, unmapped = int(c["strategies_mapped"]), int(c["strategies_unmapped"])
    add("pct_strategies_mapped", 100.0 * mapped / (mapped + unmapped) if mapped + unmapped else float("nan"), digits=1)
    add("n_mapped_strategies", sum(q is not None for q in STRATEGY_QUESTION.values()))
    add("n_strategies", len(STRATEGY_QUESTION))
    add("n_judgements", int(c["judgements"]))
    add(
        "pct_judgements_yes",
        100.0 * c["judgements_yes"] / c["judgements"] if c["judgements"] else float("nan"),
        digits=1,
    )
    add("n_with_pre_panas", int(c["with_pre_panas"]))
    add("n_with_post_panas", int(c["with_post_panas"]))
    add("n_with_post_chat_ratings", int(c["with_post_chat_ratings"]))
    add("n_post_chat_ratings_cut", int(c["post_chat_ratings_cut"]))
    scales = {(i.low, i.high) for i in instrument.post_chat_ratings() if i.name in POST_CHAT_RATINGS}
    if len(scales) != 1:
        raise ValueError(f"ESConv's post-chat ratings should share one scale, found {sorted(scales)}")
    ((low, high),) = scales
    add("rating_scale", f"{low}..{high}")
    for item, distribution in sorted(c["post_chat_ratings"].items()):
        n = sum(distribution.values())
        mean = sum(int(r) * k for r, k in distribution.items()) / n if n else float("nan")
        add(f"mean_{item}_rating", mean, digits=2)


#: The metric the mean-drop reference is scored as (docs/esconv.md, section 5).
REFERENCE_METRIC = "panas_items_adjusted"


def add_mean_drop_reference(nums: Numbers, panas_items: pd.DataFrame, compared: pd.DataFrame) -> None:
    """Add ``esconv.reference.*``: the mean-drop reference predictor
    (``metrics.reference.mean_drop_reference`` of the gold ``panas_items`` table) beside the
    compared models (``compared``: their leaderboard rows, with ``em_model`` and, when the
    cohort's principal metrics include it, ``panas_items_adjusted``).

    Entries: the conversations with a pre- and post-chat value (``n_pairs``) and those in which
    every such value went down (``n_down``), the drop averaged over the conversations (item points,
    each conversation's leave-one-out drop: ``mean_drop`` on the rescaled PANAS item range
    ``item_scale``, ``mean_drop_intensity`` on ESConv's own intensity scale ``intensity_scale``,
    onto which the adapter rescaled it linearly), the reference's mean score over the conversations
    with a score and their number, and the best compared model by that metric with its value
    (left out when no compared model has one)."""
    reference = mean_drop_reference(panas_items)

    def add(key: str, value: Any, **kw: Any) -> None:
        nums.add(f"esconv.reference.{key}", value, "paper_numbers", **kw)

    scored = reference["score"].dropna()
    add("n_pairs", int(len(reference)))
    add("n_down", int((reference["n_down"] == reference["n_items"]).sum()))
    mean_drop = float(reference["mean_drop"].mean()) if len(reference) else float("nan")
    add("mean_drop", mean_drop, digits=2)
    add("item_scale", f"{ITEM_LOW:g}..{ITEM_HIGH:g}")
    add("mean_drop_intensity", mean_drop * (INTENSITY_HIGH - INTENSITY_LOW) / (ITEM_HIGH - ITEM_LOW), digits=2)
    add("intensity_scale", f"{INTENSITY_LOW}..{INTENSITY_HIGH}")
    add("score", float(scored.mean()) if len(scored) else float("nan"), digits=3)
    add("n_scored", int(len(scored)))
    values = compared.set_index("em_model")[REFERENCE_METRIC].dropna() if REFERENCE_METRIC in compared else None
    if values is not None and len(values):
        add("best_model", str(values.idxmax()))
        add("best_score", float(values.max()), digits=3)

"""The leaderboard: one row per model, mode and rule set, from the per-model summaries."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from ..metrics.registry import BY_NAME, PRINCIPAL

#: The composites and the pillars: the first columns of the leaderboard.
COMPOSITES = ("composite", "composite_equal", "tracking", "evaluation", "holistic")
#: Principal metrics the leaderboard leaves out: the judged draft is reported apart.
APART = ("draft_judge",)
Z95 = 1.959963984540054


def board_metrics(principal: Sequence[str] | None = None) -> tuple[str, ...]:
    """Columns of the leaderboard, in order: the composite, the pillars, the registry's
    principal metrics, then those of the cohort's ``principal`` metrics
    (``statistics.principal_metrics``) the registry does not mark (ESConv's PANAS items and
    post-chat ratings), all but the judged draft. The registry's stay whatever the cohort: the
    paper's numbers (``emotion_f1.<model>``) and the notebooks read them; the printed table
    chooses its columns from the cohort's (``board_numbers.table_metrics``)."""
    metrics = COMPOSITES + tuple(PRINCIPAL) + tuple(principal or ())
    return tuple(m for m in dict.fromkeys(metrics) if m not in APART)


def leaderboard(
    summary: pd.DataFrame, ranked_roles: tuple[str, ...] = ("model",), principal: Sequence[str] | None = None
) -> pd.DataFrame:
    """Wide table: mean, se and a normal 95% interval over conversations for each metric of
    :func:`board_metrics` (``principal``: the cohort's principal metrics; one without any value
    is a column of NaN, not left out).

    ``summary`` is the long per-model table (em_model, mode, rule_set, role, metric, mean,
    sd, se, n). Rows are sorted by composite (descending), then model name; ``rank`` is
    1-based within (mode, rule_set), among the models of ``ranked_roles`` with a composite only
    (by default the evaluated models: human raters answer a subset of conversations, baselines
    are references; a cohort without evaluated models ranks its baselines), tied composites
    sharing the best rank of the tie.
    """
    keys = ["em_model", "mode", "rule_set", "role"]
    summary = summary[summary["subset"] == "all"]
    wide = summary.set_index(keys + ["metric"])[["mean", "se"]].unstack("metric")
    board = wide.index.to_frame(index=False)
    metrics = board_metrics(principal)
    for m in metrics + ("n_conversations", "coverage", "n_turns"):
        mean = wide[("mean", m)].to_numpy(float) if ("mean", m) in wide else np.full(len(board), np.nan)
        board[m] = mean
        if m in metrics:
            se = wide[("se", m)].to_numpy(float) if ("se", m) in wide else np.full(len(board), np.nan)
            board[f"{m}_se"] = se
            board[f"{m}_lo"] = mean - Z95 * se
            board[f"{m}_hi"] = mean + Z95 * se
    board["n_conversations"] = board["n_conversations"].astype("int64")
    board = board.sort_values(
        ["mode", "rule_set", "composite", "em_model"],
        ascending=[True, True, False, True],
        kind="stable",
        na_position="last",
    )
    ranked = board["role"].isin(ranked_roles) & board["composite"].notna()
    board["rank"] = pd.array([pd.NA] * len(board), dtype="Int64")
    board.loc[ranked, "rank"] = (
        board[ranked]
        .groupby(["mode", "rule_set"])["composite"]
        .rank(method="min", ascending=False)
        .astype("int64")
        .to_numpy()
    )
    return board.reset_index(drop=True)


def label(metric: str) -> str:
    return BY_NAME[metric].label

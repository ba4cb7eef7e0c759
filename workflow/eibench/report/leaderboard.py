"""The leaderboard: one row per model, mode and rule set, from the per-model summaries."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..metrics.registry import BY_NAME, PRINCIPAL

#: Columns of the leaderboard, in order: the composite, the pillars, the principal metrics.
BOARD_METRICS = ("composite", "composite_equal", "tracking", "evaluation", "holistic") + tuple(
    m for m in PRINCIPAL if m not in ("draft_judge",)
)
Z95 = 1.959963984540054


def leaderboard(summary: pd.DataFrame, ranked_roles: tuple[str, ...] = ("model",)) -> pd.DataFrame:
    """Wide table: mean, se and a normal 95% interval over conversations for each metric.

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
    for m in BOARD_METRICS + ("n_conversations", "coverage", "n_turns"):
        mean = wide[("mean", m)].to_numpy(float) if ("mean", m) in wide else np.full(len(board), np.nan)
        board[m] = mean
        if m in BOARD_METRICS:
            se = wide[("se", m)].to_numpy(float)
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

"""Each planted effect of the prediction simulator as an estimand on its claim's scale.

The estimand of a claim is the value its estimate targets: the claim's statistic computed on the
noise-free study of the simulated cohort (stats.operating.study_estimands, the same function the
operating characteristics use), whose every value is a simulated model's expected score with the
random effects zero (synthetic.expected_mc: exact binary accuracies, Monte-Carlo curves for the
other metrics). It is computed for each Monte-Carlo draw of the expectations; the estimand is the
statistic of their mean and its Monte-Carlo standard error the spread of the draws' statistics
over sqrt(draws) (0 when the claim reads exact values only).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..stats.operating import study_estimands
from ..stats.study import Study
from .expected_mc import EXPECTED_METRICS, TURN_METRICS, mc_summary


def noise_free_study(
    conversations: pd.DataFrame,
    turns: pd.DataFrame,
    gold: dict[str, pd.DataFrame],
    roles: dict[str, str],
    mode: str,
) -> Study:
    """The study of the expected scores (``conversations``: em_model, conversation_id and the
    metrics; ``turns``: em_model, conversation_id, turn_number, rel_position and the turn metrics),
    built as the pipeline builds its study from the scores (Study.from_tables)."""
    conv = conversations.assign(mode=mode, rule_set="parity")
    turn = turns.assign(mode=mode, rule_set="parity")
    metrics = [m for m in EXPECTED_METRICS if m in conv]
    return Study.from_tables(conv, turn, gold["conversations"], gold["participants"], roles, metrics, mode, "parity")


def cohort_estimands(
    conversations: pd.DataFrame,
    turns: pd.DataFrame,
    gold: dict[str, pd.DataFrame],
    roles: dict[str, str],
    mode: str,
    claims: list[dict[str, Any]],
) -> pd.DataFrame:
    """One row per claim with an estimand (id, estimand, mc_se, draws): the claim's statistic on
    the mean expected study and its Monte-Carlo error over the draws (``draw`` column of both
    tables, synthetic.expected_mc.expected_scores for every simulated model)."""
    keys = ["em_model", "conversation_id"]
    mean_conv = conversations.drop(columns="draw").groupby(keys, sort=True).mean().reset_index()
    tkeys = [*keys, "turn_number"]
    mean_turn = turns.drop(columns="draw").groupby(tkeys, sort=True).mean().reset_index()
    point = study_estimands(noise_free_study(mean_conv, mean_turn, gold, roles, mode), claims)
    draws = sorted(set(conversations["draw"]))
    per_draw = [
        study_estimands(
            noise_free_study(
                conversations[conversations["draw"] == d].drop(columns="draw"),
                turns[turns["draw"] == d].drop(columns="draw"),
                gold,
                roles,
                mode,
            ),
            claims,
        )
        for d in draws
    ]
    rows = []
    for cid, value in point.items():
        _, se = mc_summary(np.array([r.get(cid, np.nan) for r in per_draw]))
        rows.append({"id": cid, "estimand": value, "mc_se": se, "draws": len(draws)})
    return pd.DataFrame(rows, columns=["id", "estimand", "mc_se", "draws"])


__all__ = ["noise_free_study", "cohort_estimands", "TURN_METRICS"]

"""Pillars and composites per conversation.

Published weights: tracking 0.24, evaluation quality 0.49, holistic 0.27; inside the pillars
tracking = 0.5 F1 + 0.5 VA; evaluation = 0.5 mean(OM, HP accuracy) + 0.5 pairwise accuracy;
holistic = 0.4 PANAS part + 0.3 conversation-wide + 0.3 four-branch. The composite is
100 x the weighted sum, rounded to 2 decimals per conversation (Python's round, as the public
scorer), then averaged over conversations.

When a part is NaN (a strict-mode exclusion, or a cohort without that annotation), the
weights of the parts present are renormalised; ``composite_parts`` records how many pillars
entered.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

PILLAR_WEIGHTS = {"tracking": 0.24, "evaluation": 0.49, "holistic": 0.27}
HOLISTIC_WEIGHTS = {"panas_part": 0.4, "conversation_wide": 0.3, "four_branch": 0.3}


def weighted(df: pd.DataFrame, weights: dict[str, float]) -> np.ndarray:
    """Row-wise weighted mean of the columns, weights renormalised over non-NaN parts."""
    values = df[list(weights)].to_numpy(float)
    w = np.array(list(weights.values()))
    present = ~np.isnan(values)
    total_w = (present * w).sum(axis=1)
    s = np.nansum(values * w, axis=1)
    return np.divide(s, total_w, out=np.full(len(df), np.nan), where=total_w > 0)


def add_pillars(conv: pd.DataFrame) -> pd.DataFrame:
    """Add tracking (if absent), evaluation, holistic, composite and composite_equal columns."""
    conv = conv.copy()
    binary = conv[["binary_om_acc", "binary_hp_acc"]].mean(axis=1, skipna=True)
    conv["evaluation"] = weighted(conv.assign(binary=binary), {"binary": 0.5, "pairwise_acc": 0.5})
    conv["holistic"] = weighted(conv, HOLISTIC_WEIGHTS)
    raw = 100.0 * weighted(conv, PILLAR_WEIGHTS)
    # Snapped to 1e-9 first, so the last bits of a summation order cannot flip a .xx5 rounding.
    conv["composite"] = [round(round(float(x), 9), 2) if not np.isnan(x) else np.nan for x in raw]
    conv["composite_parts"] = conv[list(PILLAR_WEIGHTS)].notna().sum(axis=1).astype("int64")
    turn_avg = conv.assign(binary=binary)[["tracking", "binary", "pairwise_acc"]].mean(axis=1, skipna=True)
    conv_avg = conv[list(HOLISTIC_WEIGHTS)].mean(axis=1, skipna=True)
    conv["composite_equal"] = 100.0 * pd.concat([turn_avg, conv_avg], axis=1).mean(axis=1, skipna=True)
    return conv

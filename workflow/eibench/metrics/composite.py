"""Pillars and composites per conversation.

Published weights: tracking 0.24, evaluation quality 0.49, holistic 0.27; inside the pillars
tracking = 0.5 F1 + 0.5 VA; evaluation = 0.5 mean(OM, HP accuracy) + 0.5 pairwise accuracy;
holistic = 0.4 PANAS part + 0.3 conversation-wide + 0.3 four-branch (+ 0.3 post-chat ratings,
an extension that only a cohort with those ratings has, e.g. ESConv). The composite is
100 x the weighted sum, rounded to 2 decimals per conversation (Python's round, as the public
scorer), then averaged over conversations.

When a part is NaN (a strict-mode exclusion, or a cohort without that annotation), the
weights of the parts present are renormalised; ``composite_parts`` records how many pillars
entered. A cohort without post-chat ratings (the synthetic cohort, an AttuneBench release) leaves
that part NaN, so its holistic pillar and composite are exactly the published formula.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

PILLAR_WEIGHTS = {"tracking": 0.24, "evaluation": 0.49, "holistic": 0.27}
HOLISTIC_WEIGHTS = {"panas_part": 0.4, "conversation_wide": 0.3, "four_branch": 0.3, "post_chat_ratings": 0.3}
#: Extension parts: a table without the column (written before the extension) reads as NaN.
EXTENSION_PARTS = ("post_chat_ratings",)


def _weighted(values: np.ndarray, weights: list[float]) -> np.ndarray:
    """Row-wise weighted mean of the columns of ``values``, weights renormalised over non-NaN parts."""
    w = np.asarray(weights, dtype=float)
    present = ~np.isnan(values)
    total_w = (present * w).sum(axis=1)
    s = np.nansum(values * w, axis=1)
    return np.divide(s, total_w, out=np.full(len(values), np.nan), where=total_w > 0)


def _row_mean(*columns: np.ndarray) -> np.ndarray:
    """Row-wise mean over the non-NaN values (NaN when a row has none), as pandas' skipna mean
    (equal to it up to the last bits of the summation order)."""
    values = np.column_stack(columns)
    n = (~np.isnan(values)).sum(axis=1)
    return np.divide(np.nansum(values, axis=1), n, out=np.full(len(values), np.nan), where=n > 0)


def add_pillars(conv: pd.DataFrame) -> pd.DataFrame:
    """Add tracking (if absent), evaluation, holistic, composite and composite_equal columns."""
    col = {name: conv[name].to_numpy(float) if name in conv or name not in EXTENSION_PARTS else np.full(len(conv), np.nan)
           for name in ("binary_om_acc", "binary_hp_acc", "pairwise_acc", "tracking", *HOLISTIC_WEIGHTS)}
    binary = _row_mean(col["binary_om_acc"], col["binary_hp_acc"])
    evaluation = _weighted(np.column_stack([binary, col["pairwise_acc"]]), [0.5, 0.5])
    holistic = _weighted(np.column_stack([col[k] for k in HOLISTIC_WEIGHTS]), list(HOLISTIC_WEIGHTS.values()))
    pillars = np.column_stack([col["tracking"], evaluation, holistic])
    raw = 100.0 * _weighted(pillars, list(PILLAR_WEIGHTS.values()))
    # Snapped to 1e-9 first, so the last bits of a summation order cannot flip a .xx5 rounding.
    composite = [round(round(float(x), 9), 2) if not np.isnan(x) else np.nan for x in raw]
    turn_avg = _row_mean(col["tracking"], binary, col["pairwise_acc"])
    conv_avg = _row_mean(*(col[k] for k in HOLISTIC_WEIGHTS))
    added = pd.DataFrame({
        "evaluation": evaluation,
        "holistic": holistic,
        "composite": np.array(composite, dtype=float),
        "composite_parts": (~np.isnan(pillars)).sum(axis=1).astype("int64"),
        "composite_equal": 100.0 * _row_mean(turn_avg, conv_avg),
    }, index=conv.index)
    # A column already present (e.g. a rescored table) is replaced in place, as assignment did.
    return pd.concat([conv.drop(columns=[c for c in added if c in conv.columns]), added], axis=1)

"""Per-topic and per-group breakdowns of one metric by model: the mean over the
conversations of each topic category (or participant group) with a percentile interval from
the shared resamples, restricted to that cell's conversations."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .bootstrap import percentile_interval, resampled_means
from .study import Study

#: The fewest conversations with a value for which a cell gets an interval.
MIN_CONVERSATIONS = 2


def breakdown(
    study: Study, metric: str, models: list[int], labels: np.ndarray, weights: np.ndarray, by: str, level: float = 0.95
) -> pd.DataFrame:
    """One row per model and level of ``labels`` (one label per conversation; None/NaN are
    left out): the model's mean of ``metric`` over that level's conversations, its interval
    (NaN for a cell with fewer than ``MIN_CONVERSATIONS`` conversations with a value), and the
    number of conversations with a value. ``by`` names the grouping in the output."""
    labels = np.asarray(labels, dtype=object)
    known = np.array([isinstance(x, str) for x in labels])
    rows = []
    for level_name in sorted(set(labels[known])):
        mask = (labels == level_name) & known
        values = np.where(mask[None, :], study.values[metric][models], np.nan)
        boot = resampled_means(values, weights)
        lo, hi = percentile_interval(boot, level)
        for j, i in enumerate(models):
            x = values[j][np.isfinite(values[j])]
            # One conversation resamples to itself: a zero-width interval that says nothing.
            bounds = (float(lo[j]), float(hi[j])) if len(x) >= MIN_CONVERSATIONS else (np.nan, np.nan)
            rows.append(
                (
                    by,
                    level_name,
                    study.models[i],
                    study.roles[study.models[i]],
                    float(x.mean()) if len(x) else np.nan,
                    *bounds,
                    len(x),
                )
            )
    return pd.DataFrame(rows, columns=["by", "level", "em_model", "role", "estimate", "lo", "hi", "n_conversations"])

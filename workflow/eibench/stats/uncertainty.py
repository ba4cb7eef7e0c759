"""Intervals for every model x metric, paired differences between models, rank intervals."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from ..metrics.registry import BY_NAME
from .bootstrap import bootstrap_p, percentile_interval, ranks_desc, resampled_means
from .study import Study


def model_intervals(study: Study, metrics: list[str], weights: np.ndarray, level: float = 0.95) -> pd.DataFrame:
    """One row per model and metric: mean over conversations, bootstrap se and interval."""
    rows = []
    for metric in metrics:
        values = study.values[metric]
        boot = resampled_means(values, weights)
        lo, hi = percentile_interval(boot, level)
        se = np.nanstd(boot, axis=0, ddof=1)
        for i, model in enumerate(study.models):
            x = values[i][~np.isnan(values[i])]
            rows.append((model, study.roles[model], metric, float(x.mean()) if len(x) else np.nan, float(se[i]),
                         float(lo[i]), float(hi[i]), len(x)))
    return pd.DataFrame(rows, columns=["em_model", "role", "metric", "estimate", "se", "lo", "hi", "n_conversations"])


def paired_differences(study: Study, metrics: list[str], weights: np.ndarray, models: list[int],
                       level: float = 0.95) -> pd.DataFrame:
    """Every pair of the given models: mean difference a - b over the conversations both
    answered, its bootstrap interval and two-sided bootstrap p-value (unadjusted)."""
    rows = []
    for metric in metrics:
        values = study.values[metric]
        for a, b in combinations(models, 2):
            diff = values[a] - values[b]  # NaN where either is missing
            boot = resampled_means(diff[None, :], weights)[:, 0]
            lo, hi = percentile_interval(boot, level)
            est = np.nanmean(diff) if np.isfinite(diff).any() else np.nan
            rows.append((metric, study.models[a], study.models[b], float(est), float(lo), float(hi),
                         float(bootstrap_p(boot)), int(np.isfinite(diff).sum())))
    return pd.DataFrame(rows, columns=["metric", "model_a", "model_b", "difference", "lo", "hi", "p_boot", "n_conversations"])


def rank_intervals(study: Study, metrics: list[str], weights: np.ndarray, models: list[int],
                   level: float = 0.95) -> pd.DataFrame:
    """Rank of each of the given models (1 = best) on each metric, with its bootstrap interval."""
    rows = []
    for metric in metrics:
        higher = BY_NAME[metric].higher_is_better
        values = study.values[metric][models]
        point = ranks_desc(np.nanmean(values, axis=1), higher)
        boot = ranks_desc(resampled_means(values, weights), higher)
        lo, hi = percentile_interval(boot, level)
        lo, hi = np.floor(lo), np.ceil(hi)  # ranks are whole (or tied halves): widen to whole ranks
        for j, i in enumerate(models):
            rows.append((study.models[i], metric, float(point[j]), float(lo[j]), float(hi[j])))
    return pd.DataFrame(rows, columns=["em_model", "metric", "rank", "rank_lo", "rank_hi"])

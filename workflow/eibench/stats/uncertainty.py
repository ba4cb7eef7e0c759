"""Intervals for every model x metric, paired differences between models, rank intervals."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
from scipy.stats import chi2

from ..metrics.registry import BY_NAME
from .bootstrap import bootstrap_p, percentile_interval, ranks_desc, resampled_means, smallest_p
from .study import Study

#: The metrics of intervals.csv besides the principal ones: the composites and the pillars
#: (first), the participant-wording accuracies and the perspective gap (after).
INTERVAL_METRICS_BEFORE = ("composite", "composite_equal", "tracking", "evaluation", "holistic")
INTERVAL_METRICS_AFTER = ("binary_om_acc_pw", "binary_hp_acc_pw", "perspective_gap")


def interval_metrics(principal: list[str]) -> list[str]:
    """The metrics whose intervals rule stats_uncertainty writes (intervals.csv), in order: the
    composites and pillars, the cohort's ``principal`` metrics (``load.principal_metrics``: the
    capability-profile figure draws them from this table), then the others; each once."""
    return list(dict.fromkeys([*INTERVAL_METRICS_BEFORE, *principal, *INTERVAL_METRICS_AFTER]))


def sd_interval_factors(df: int, level: float = 0.95) -> tuple[float, float]:
    """The factors (lo, hi) that turn a sample standard deviation with ``df`` degrees of freedom
    (``df`` + 1 draws) into its ``level`` interval for the true standard deviation, when the draws
    are normal: sigma in [lo * s, hi * s], from the chi-square distribution with ``df`` degrees of
    freedom (lo < 1 < hi). With 3 degrees of freedom they are about 0.57 and 3.7: a standard
    deviation from 4 draws is known only within a factor of about 6. NaN for ``df`` < 1."""
    if df < 1:
        return float("nan"), float("nan")
    tail = (1 - level) / 2
    return float(np.sqrt(df / chi2.ppf(1 - tail, df))), float(np.sqrt(df / chi2.ppf(tail, df)))


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
            rows.append(
                (
                    model,
                    study.roles[model],
                    metric,
                    float(x.mean()) if len(x) else np.nan,
                    float(se[i]),
                    float(lo[i]),
                    float(hi[i]),
                    len(x),
                )
            )
    return pd.DataFrame(rows, columns=["em_model", "role", "metric", "estimate", "se", "lo", "hi", "n_conversations"])


def paired_differences(
    study: Study, metrics: list[str], weights: np.ndarray, models: list[int], level: float = 0.95
) -> pd.DataFrame:
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
            rows.append(
                (
                    metric,
                    study.models[a],
                    study.models[b],
                    float(est),
                    float(lo),
                    float(hi),
                    float(bootstrap_p(boot)),
                    int(np.isfinite(diff).sum()),
                )
            )
    return pd.DataFrame(
        rows, columns=["metric", "model_a", "model_b", "difference", "lo", "hi", "p_boot", "n_conversations"]
    )


def rank_intervals(
    study: Study, metrics: list[str], weights: np.ndarray, models: list[int], level: float = 0.95
) -> pd.DataFrame:
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


def scheme_table(
    study: Study, metric: str, models: list[int], weights: dict[str, np.ndarray], level: float = 0.95
) -> pd.DataFrame:
    """One row per resampling scheme and model (or human rater): the mean of ``metric`` over
    the conversations it answered, its percentile interval and width (metric units), and, for
    the ranked ``models`` only, the rank (1 = best) with its bootstrap interval. Every row
    of a scheme uses that scheme's resamples ``weights[scheme]``; a human rater, scored on its
    own subset of conversations, carries that n and no rank."""
    higher = BY_NAME[metric].higher_is_better
    values = study.values[metric]
    point = np.array([np.nanmean(v) if np.isfinite(v).any() else np.nan for v in values])
    rows = []
    for scheme, w in weights.items():
        boot = resampled_means(values, w)  # [B, all models]
        lo, hi = percentile_interval(boot, level)
        ranked = {i: j for j, i in enumerate(models)}
        r_point = ranks_desc(point[models], higher)
        r_boot = ranks_desc(boot[:, models], higher)
        r_lo, r_hi = percentile_interval(r_boot, level)
        for i, model in enumerate(study.models):
            j = ranked.get(i)
            rows.append(
                (
                    scheme,
                    model,
                    study.roles[model],
                    float(point[i]),
                    float(lo[i]),
                    float(hi[i]),
                    float(hi[i] - lo[i]),
                    float(r_point[j]) if j is not None else np.nan,
                    float(np.floor(r_lo[j])) if j is not None else np.nan,
                    float(np.ceil(r_hi[j])) if j is not None else np.nan,
                    int(np.isfinite(values[i]).sum()),
                )
            )
    return pd.DataFrame(
        rows,
        columns=[
            "scheme",
            "em_model",
            "role",
            "estimate",
            "lo",
            "hi",
            "width",
            "rank",
            "rank_lo",
            "rank_hi",
            "n_conversations",
        ],
    )


def adjacent_pairs(
    study: Study,
    metric: str,
    models: list[int],
    weights: dict[str, np.ndarray],
    alpha: float = 0.05,
    level: float = 0.95,
) -> pd.DataFrame:
    """Each ranked model against the next one down (by the point estimate), paired over the
    conversations both answered, under every resampling scheme: the difference better - next
    (metric units, positive when the better-ranked model is ahead), its percentile interval,
    the two-sided bootstrap p and Holm's adjustment over the adjacent pairs of that scheme.
    ``separated``: Holm-adjusted p at most ``alpha``, also with every bootstrap p of 0 raised to
    the smallest its resamples resolve (2 / resamples: bootstrap.bootstrap_p); a pair whose
    adjusted p the resamples cannot place at or below ``alpha`` is not shown separated."""
    from .multiplicity import adjust, reject_resolved

    higher = BY_NAME[metric].higher_is_better
    values = study.values[metric]
    point = np.nanmean(values[models], axis=1)
    order = [models[j] for j in np.argsort(-point if higher else point, kind="stable")]
    rows = []
    for scheme, w in weights.items():
        block, floors = [], []
        for pos, (a, b) in enumerate(zip(order[:-1], order[1:]), start=1):
            diff = values[a] - values[b] if higher else values[b] - values[a]
            boot = resampled_means(diff[None, :], w)[:, 0]
            lo, hi = percentile_interval(boot, level)
            block.append(
                [
                    scheme,
                    pos,
                    study.models[a],
                    study.models[b],
                    float(np.nanmean(diff)),
                    float(lo),
                    float(hi),
                    float(bootstrap_p(boot)),
                    int(np.isfinite(diff).sum()),
                ]
            )
            floors.append(smallest_p(np.isfinite(boot).sum()))
        adjusted = adjust([r[7] for r in block], "holm") if block else np.array([])
        separated, _ = reject_resolved([r[7] for r in block], floors, alpha) if block else (np.array([]), None)
        for r, q, sep in zip(block, adjusted, separated):
            rows.append((*r, float(q), bool(sep)))
    return pd.DataFrame(
        rows,
        columns=[
            "scheme",
            "rank",
            "model",
            "next_model",
            "difference",
            "lo",
            "hi",
            "p_boot",
            "n_conversations",
            "p_holm",
            "separated",
        ],
    )

"""How well each metric separates the models.

Per metric, over the evaluated models: the reliability of the model means (the share of their
observed variance that is not sampling noise: 1 - mean(se^2) / var(means), an ICC of model
means), a signal-to-noise ratio (sd of the true-score spread / typical se), and the share of
model pairs whose paired cluster-bootstrap difference is significant after Holm's correction
within the metric (on ``pairwise_resamples`` resamples: enough that a bootstrap p of 0, which
only says p < 2 / resamples, still gives a Holm-adjusted p at most alpha). Two metrics are
compared on the same resamples through the log of their F ratios, log(var(model means) /
mean(se^2)) (smooth, unlike the truncated SNR, and calibrated in the simulation study):
'preference separates models more than emotion F1' is a positive difference.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from .bootstrap import bootstrap_p, percentile_interval, resampled_means, smallest_p
from .multiplicity import reject_resolved
from .study import Study

#: How far above the least the pairwise test's resamples go: twice the number at which a p of 0
#: (below 2 / resamples) bounds the first Holm step at exactly alpha, so that it lies below it.
RESOLUTION_MARGIN = 2


def pairwise_resamples(n_models: int, alpha: float, n_bootstrap: int) -> int:
    """Resamples for the Holm-corrected pairwise tests of ``n_models`` models: at least
    ``n_bootstrap``, and enough that a bootstrap p of 0 (p < 2 / resamples) times the number of
    pairs, Holm's first factor, stays below ``alpha`` with a margin (``RESOLUTION_MARGIN``):
    55 pairs at alpha 0.05 need 2,200, so 4,400; 3 pairs need none beyond ``n_bootstrap``."""
    pairs = n_models * (n_models - 1) // 2
    return max(n_bootstrap, int(np.ceil(RESOLUTION_MARGIN * 2 * pairs / alpha)))


def _reliability_snr(means: np.ndarray, se2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Reliability and SNR along the last axis (models); inputs [..., n_models]."""
    observed = np.nanvar(means, axis=-1, ddof=1)
    noise = np.nanmean(se2, axis=-1)
    true = np.maximum(observed - noise, 0.0)
    reliability = np.divide(true, observed, out=np.full(np.shape(observed), np.nan), where=observed > 0)
    snr = np.divide(np.sqrt(true), np.sqrt(noise), out=np.full(np.shape(noise), np.nan), where=noise > 0)
    return reliability, snr


def _weighted_se2(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Squared standard error of each model's weighted mean in each resample: [B, n_models]."""
    ok = ~np.isnan(values)
    x = np.where(ok, values, 0.0)
    n = weights @ ok.T.astype(float)
    mean = np.divide(weights @ x.T, n, out=np.full(n.shape, np.nan), where=n > 0)
    second = np.divide(weights @ (x**2).T, n, out=np.full(n.shape, np.nan), where=n > 0)
    var = np.maximum(second - mean**2, 0.0) * np.divide(n, n - 1, out=np.full(n.shape, np.nan), where=n > 1)
    return np.divide(var, n, out=np.full(n.shape, np.nan), where=n > 0)


def log_f(means: np.ndarray, se2: np.ndarray) -> np.ndarray:
    """log(var(model means) / mean(se^2)) along the last axis."""
    observed = np.nanvar(means, axis=-1, ddof=1)
    noise = np.nanmean(se2, axis=-1)
    return np.log(np.divide(observed, noise, out=np.full(np.shape(noise), np.nan), where=noise > 0))


def discriminability(
    study: Study,
    metrics: list[str],
    models: list[int],
    weights: np.ndarray,
    alpha: float = 0.05,
    pairs: bool = True,
    pair_weights: np.ndarray | None = None,
) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """One row per metric; also the per-resample log F ratio of each metric (for comparisons).
    ``pairs`` False skips the Holm-separated pairs (the slow part), e.g. inside simulations.
    ``pair_weights`` (default ``weights``) are the resamples of the pairwise tests, enough of
    them to resolve Holm's correction over the pairs (``pairwise_resamples``); a pair that the
    resamples cannot resolve is not counted separated, and ``pairs_unresolved`` counts such pairs."""
    pair_weights = weights if pair_weights is None else pair_weights
    ones = np.ones((1, study.n_conversations))
    rows, snr_boot = [], {}
    for metric in metrics:
        values = study.values[metric][models]
        means = resampled_means(values, ones)[0]
        rel, snr = _reliability_snr(means, _weighted_se2(values, ones)[0])
        boot_means = resampled_means(values, weights)
        boot_se2 = _weighted_se2(values, weights)
        rel_b, snr_b = _reliability_snr(boot_means, boot_se2)
        snr_boot[metric] = log_f(boot_means, boot_se2)
        p, floors = [], []
        for a, b in combinations(range(len(models)), 2) if pairs else ():
            boot = resampled_means((values[a] - values[b])[None, :], pair_weights)[:, 0]
            p.append(float(bootstrap_p(boot)))
            floors.append(smallest_p(np.isfinite(boot).sum()))
        tested = int(np.isfinite(p).sum()) if p else 0  # pairs where both models have values
        separated, unresolved = reject_resolved(p, floors, alpha) if p else (np.array([], bool), np.array([], bool))
        lo, hi = percentile_interval(snr_b)
        rlo, rhi = percentile_interval(rel_b)
        point_log_f = float(log_f(means, _weighted_se2(values, ones)[0]))
        rows.append(
            (
                metric,
                float(rel),
                float(rlo),
                float(rhi),
                float(snr),
                float(lo),
                float(hi),
                point_log_f,
                float(np.sum(separated) / tested) if tested else np.nan,
                int(np.sum(separated)),
                tested,
                int(np.sum(unresolved)),
                int(pair_weights.shape[0]) if pairs else 0,
            )
        )
    table = pd.DataFrame(
        rows,
        columns=[
            "metric",
            "reliability",
            "reliability_lo",
            "reliability_hi",
            "snr",
            "snr_lo",
            "snr_hi",
            "log_f",
            "share_pairs_separated",
            "pairs_separated",
            "pairs",
            "pairs_unresolved",
            "pair_resamples",
        ],
    )
    return table, snr_boot


def compare(
    log_f_boot: dict[str, np.ndarray], metric_a: str, metric_b: str, log_f_point: dict[str, float] | None = None
) -> dict[str, Any]:
    """Discriminability of metric a minus metric b as a log F-ratio difference: estimate (on
    the full sample when ``log_f_point`` is given, else the median of the resamples), 95%
    percentile interval, two-sided bootstrap p-value, and the F ratio exp(estimate)."""
    d = log_f_boot[metric_a] - log_f_boot[metric_b]
    lo, hi = percentile_interval(d)
    est = float(log_f_point[metric_a] - log_f_point[metric_b]) if log_f_point else float(np.nanmedian(d))
    return {
        "metric_a": metric_a,
        "metric_b": metric_b,
        "difference": est,
        "lo": float(lo),
        "hi": float(hi),
        "p_boot": float(bootstrap_p(d)),
        "f_ratio": float(np.exp(est)),
    }

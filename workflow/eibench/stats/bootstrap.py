"""Cluster bootstrap of means, paired differences and ranks, on per-conversation values.

A resample draws clusters with replacement (conversations by default; participants, taking all
of a participant's conversations, as an option) and gives each conversation a weight = how
many times it was drawn. A model's mean in a resample is the weighted mean of its conversation
values (conversations without a value are skipped). Every model and metric uses the same
resamples, so paired differences and rank statistics keep their dependence. Intervals are
percentile intervals.
"""

from __future__ import annotations

import numpy as np


def cluster_weights(cluster: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """[n_resamples, n_conversations] counts: how often each conversation's cluster was drawn.

    ``cluster`` holds a cluster code (0..k-1) per conversation; a conversation whose code is -1
    forms a cluster of its own.
    """
    cluster = np.asarray(cluster).copy()
    alone = cluster < 0
    cluster[alone] = cluster.max(initial=-1) + 1 + np.arange(alone.sum())
    k = int(cluster.max(initial=-1)) + 1
    draws = rng.multinomial(k, np.full(k, 1.0 / k), size=n_resamples) if k else np.zeros((n_resamples, 0))
    return draws[:, cluster].astype(float)


def resampled_means(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """[n_resamples, n_models] weighted means of ``values`` [n_models, n_conversations]."""
    ok = ~np.isnan(values)
    num = weights @ np.where(ok, values, 0.0).T
    den = weights @ ok.T.astype(float)
    return np.divide(num, den, out=np.full(num.shape, np.nan), where=den > 0)


def percentile_interval(samples: np.ndarray, level: float = 0.95, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The (lower, upper) percentile interval of bootstrap samples along ``axis`` (NaN samples
    skipped; all NaN gives NaN). Without NaN it is computed by np.quantile, vectorised, which gives
    np.nanquantile's numbers (it loops over the other axes in Python). Both ends come from one
    call, which partitions the samples once: the numbers of one call per end, in about 2/3 of
    the time."""
    alpha = (1 - level) / 2
    q = np.nanquantile if np.isnan(samples).any() else np.quantile
    lower, upper = q(samples, [alpha, 1 - alpha], axis=axis)
    return lower, upper


def smallest_p(n_resamples: int) -> float:
    """The smallest non-zero :func:`bootstrap_p` of ``n_resamples`` resamples, 2 / n_resamples:
    a p of 0 only says that the p-value lies below it."""
    return 2 / max(int(n_resamples), 1)


def bootstrap_p(differences: np.ndarray, axis: int = 0) -> np.ndarray:
    """Two-sided bootstrap p-value of 'no difference': 2 x the smaller tail share of the
    resampled differences on either side of 0, capped at 1; NaN when no resample has a value.

    0 means that no resample fell on the other side of 0, i.e. p < 2 / n_resamples (the
    smallest non-zero value; the paper prints a 0 as that bound after any adjustment,
    report.numbers.fmt_p_bounded). It is the percentile interval inverted,
    not a Monte-Carlo test under the null,
    so no +1 correction applies; with it, Holm over many pairs could never reject with 2,000
    resamples (the smallest p would be 2 / 2,001)."""
    d = np.asarray(differences)
    n = np.sum(~np.isnan(d), axis=axis)
    below = np.sum(d <= 0, axis=axis) / np.maximum(n, 1)
    above = np.sum(d >= 0, axis=axis) / np.maximum(n, 1)
    return np.where(n > 0, np.minimum(1.0, 2 * np.minimum(below, above)), np.nan)


def ranks_desc(means: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """Ranks (1 = best) of models along the last axis; ties get the average rank."""
    from scipy.stats import rankdata

    x = -means if higher_is_better else means
    return rankdata(x, axis=-1, method="average", nan_policy="omit")


def two_stage_weights(cluster: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """[n_resamples, n_conversations] counts of a two-stage bootstrap: participants drawn with
    replacement, then, for each drawn copy of a participant, that participant's conversations
    drawn with replacement (as many as they have).

    The copies of one participant pool into one multinomial draw of ``copies x n_p`` over its
    ``n_p`` conversations (the sum of independent multinomials with the same probabilities), so
    the loop runs over participants, not resamples. A conversation whose code is -1 is a
    participant of its own (one conversation, so its second stage is trivial). Each resample
    has as many conversations in expectation as the data, not exactly as many.
    """
    cluster = np.asarray(cluster).copy()
    alone = cluster < 0
    cluster[alone] = cluster.max(initial=-1) + 1 + np.arange(alone.sum())
    k = int(cluster.max(initial=-1)) + 1
    out = np.zeros((n_resamples, len(cluster)))
    if not k:
        return out
    copies = rng.multinomial(k, np.full(k, 1.0 / k), size=n_resamples)  # [B, k]
    for p in range(k):
        members = np.flatnonzero(cluster == p)
        if len(members):
            out[:, members] = rng.multinomial(copies[:, p] * len(members), np.full(len(members), 1.0 / len(members)))
    return out


#: The resampling schemes: name -> weights function (cluster codes, n_resamples, rng).
SCHEMES = {
    "conversation": lambda cluster, n, rng: cluster_weights(np.arange(len(cluster)), n, rng),
    "participant": cluster_weights,
    "two_stage": two_stage_weights,
}

"""Rank independence of the principal metrics: Kendall tau-b between the models' rankings on
every pair of metrics, with cluster-bootstrap intervals, Kendall's W, split-half reliability of
each metric's ranking, correlations corrected for that reliability, and the claim stated as an
equivalence bound with the power the number of models gives.

'Not significant' is not 'independent': with few models |tau| must be large to be significant,
so the verdict 'independent' needs the whole 90% interval inside (-margin, margin).
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import pandas as pd
from scipy import stats

from ..metrics.registry import BY_NAME
from .bootstrap import percentile_interval, resampled_means
from .study import Study
from .testability import min_kendall_models


def _signs(x: np.ndarray) -> np.ndarray:
    """sign(x_i - x_j) for i < j along the last axis: [..., n_pairs]."""
    i, j = np.triu_indices(x.shape[-1], k=1)
    return np.sign(x[..., i] - x[..., j])


#: Bytes of the pairwise signs (and the differences they come from) computed at once: a
#: stack of resamples is taken in blocks, so that 2,000 resamples of 100 models x 10 metrics
#: (4,950 model pairs: 0.8 GB of signs, 2.2 GiB with the differences) stay within this.
_BLOCK_BYTES = 128 * 2**20


def tau_b_matrix(means: np.ndarray) -> np.ndarray:
    """Kendall tau-b between every pair of columns of ``means`` [..., n_models, n_metrics],
    vectorised over leading axes: [..., n_metrics, n_metrics]. NaN rows (models) are kept out
    only if the caller removes them; a metric with all ties gives NaN.

    The leading axes are taken in blocks of at most about ``_BLOCK_BYTES`` of work arrays; each
    matrix is computed on its own, so the numbers do not depend on the blocks."""
    n_models, n_metrics = means.shape[-2:]
    lead = means.shape[:-2]
    per_matrix = 3 * 8 * n_metrics * (n_models * (n_models - 1) // 2)  # signs, and two differences
    n_matrices = int(np.prod(lead, dtype=np.int64))
    if not lead or n_matrices * per_matrix <= _BLOCK_BYTES:
        return _tau_b(means)
    flat = means.reshape(n_matrices, n_models, n_metrics)
    step = max(1, _BLOCK_BYTES // per_matrix)
    out = np.empty((n_matrices, n_metrics, n_metrics))
    for start in range(0, n_matrices, step):
        out[start : start + step] = _tau_b(flat[start : start + step])
    return out.reshape(*lead, n_metrics, n_metrics)


#: From this many models on, ``_tau_b`` takes the pairs one first model at a time: its work
#: arrays then stay in the cache instead of spanning every pair (200 resamples of 80 models:
#: 10 ms against 24 ms). With fewer models the loop's overhead can outweigh that (2,000
#: resamples of 17 models: 9 ms against 8 ms): benchmarks/bench_tau_b.py prints both ways.
LOOP_FROM_MODELS = 32


def _tau_b(means: np.ndarray) -> np.ndarray:
    """``tau_b_matrix`` in one block."""
    x = np.moveaxis(means, -1, -2)  # [..., n_metrics, n_models]
    # Sums of products of -1, 0 and 1, and counts: whole numbers, exact in any order, so the
    # two ways (and matmul's BLAS against einsum) give the same numbers bit for bit.
    if x.shape[-1] >= LOOP_FROM_MODELS:
        x = np.ascontiguousarray(x)  # each model's row read contiguously (twice as fast at 80 models)
        num = np.zeros(x.shape[:-1] + x.shape[-2:-1])
        nonzero = np.zeros(x.shape[:-1], dtype=np.int64)
        for i in range(x.shape[-1] - 1):  # the pairs (i, j > i)
            s = np.sign(x[..., i, None] - x[..., i + 1 :])
            num += s @ np.swapaxes(s, -1, -2)
            nonzero += np.count_nonzero(s, axis=-1)
    else:
        s = _signs(x)  # [..., n_metrics, n_pairs]
        num = s @ np.swapaxes(s, -1, -2)
        nonzero = np.count_nonzero(s, axis=-1)  # untied pairs per metric
    nonzero = nonzero.astype(float)
    den = np.sqrt(nonzero[..., :, None] * nonzero[..., None, :])
    return np.divide(num, den, out=np.full(num.shape, np.nan), where=den > 0)


def oriented_means(
    study: Study, metrics: list[str], models: list[int], weights: np.ndarray | None = None
) -> np.ndarray:
    """Model means [.., n_models, n_metrics], sign-flipped where lower is better, so that a
    higher value always ranks a model higher."""
    cols = []
    for metric in metrics:
        values = study.values[metric][models]
        m = np.nanmean(values, axis=1) if weights is None else resampled_means(values, weights)
        cols.append(m if BY_NAME[metric].higher_is_better else -m)
    return np.stack(cols, axis=-1)


def kendall_w(means: np.ndarray) -> float:
    """Kendall's coefficient of concordance of the metrics' rankings of the models
    (``means`` [n_models, n_metrics]; ties get average ranks, with the tie correction)."""
    ranks = stats.rankdata(-means, axis=0)  # rank models within each metric
    n, m = ranks.shape
    s = np.sum((ranks.sum(axis=1) - m * (n + 1) / 2) ** 2)
    ties = sum(np.sum(c**3 - c) for c in (np.unique(ranks[:, k], return_counts=True)[1] for k in range(m)))
    den = m**2 * (n**3 - n) - m * ties
    return float(12 * s / den) if den > 0 else float("nan")


def critical_tau(n: int, alpha: float = 0.05) -> float:
    """Smallest |tau| that is significant (two-sided, exact null distribution, no ties) for n."""
    pairs = comb(n, 2)
    for d in range(pairs // 2, -1, -1):  # from tau near 0 up to tau = 1
        perm = _permutation_with_discordances(n, d)
        if stats.kendalltau(np.arange(n), perm, method="exact").pvalue <= alpha:
            return 1 - 2 * d / pairs
    return float("nan")


def _permutation_with_discordances(n: int, d: int) -> np.ndarray:
    """A permutation of 0..n-1 with exactly ``d`` inversions (Lehmer code, greedy)."""
    code = []
    for i in range(n):
        c = min(d, n - 1 - i)
        code.append(c)
        d -= c
    items, out = list(range(n)), []
    for c in code:
        out.append(items.pop(c))
    return np.array(out)


def power(n: int, tau: float, alpha: float, n_sims: int, rng: np.random.Generator) -> float:
    """Chance that the exact test rejects tau = 0 for n models when the true tau is ``tau``
    (bivariate normal with Pearson rho = sin(pi tau / 2), Greiner's relation)."""
    rho = np.sin(np.pi * tau / 2)
    z = rng.standard_normal((n_sims, n, 2))
    x, y = z[..., 0], rho * z[..., 0] + np.sqrt(1 - rho**2) * z[..., 1]
    t = tau_b_matrix(np.stack([x, y], axis=-1))[:, 0, 1]
    return float(np.mean(np.abs(t) >= critical_tau(n, alpha) - 1e-12))


def split_half_reliability(
    study: Study, metrics: list[str], models: list[int], n_splits: int, rng: np.random.Generator
) -> dict[str, float]:
    """Per metric: the mean Kendall tau between the model rankings of two random halves of the
    conversations, stepped up to the full sample with Spearman-Brown (2 t / (1 + t))."""
    n = study.n_conversations
    out = {}
    halves = []
    for _ in range(n_splits):
        perm = rng.permutation(n)
        w1 = np.zeros((1, n))
        w1[0, perm[: n // 2]] = 1
        halves.append((w1, 1 - w1))
    for metric in metrics:
        taus = []
        for w1, w2 in halves:
            a = oriented_means(study, [metric], models, w1)[0, :, 0]
            b = oriented_means(study, [metric], models, w2)[0, :, 0]
            taus.append(tau_b_matrix(np.stack([a, b], axis=-1))[0, 1])
        t = float(np.nanmean(taus))
        out[metric] = 2 * t / (1 + t) if t > -1 else float("nan")
    return out


def equivalence_p(joint: np.ndarray, margin: float) -> np.ndarray:
    """Equivalence (TOST) p of each pair of metrics within +-``margin``, from resampled tau-b
    matrices ``joint`` [B, m, m]: the bootstrap percentile test inverted, the larger share of
    resamples at or beyond either bound; NaN where no resample has a value."""
    valid = np.isfinite(joint)
    n_valid = np.maximum(valid.sum(axis=0), 1)
    return np.where(
        valid.any(axis=0),
        np.maximum((joint >= margin).sum(axis=0) / n_valid, (joint <= -margin).sum(axis=0) / n_valid),
        np.nan,
    )


def rank_independence(
    study: Study,
    metrics: list[str],
    models: list[int],
    weights: np.ndarray,
    margin: float,
    n_splits: int,
    rng: np.random.Generator,
    alpha: float = 0.05,
) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Tables of pairwise rank correlations and per-metric reliabilities, and a summary.

    Two intervals per pair: resampling conversations only (the uncertainty of these models'
    rankings), and resampling models too (what the claim about models in general needs). The
    verdict uses the second: 'independent' when its 90% interval lies inside (-margin, margin),
    'related' when its 95% interval excludes 0, else 'inconclusive'; with fewer models than the
    exact Kendall test needs to reject at ``alpha`` (``testability.min_kendall_models``: 5 at
    0.05), 'not testable' for every pair: resampling three models gives intervals that cannot
    vary (tau of 1 in every resample of a pair ranked alike), not evidence.
    """
    point = tau_b_matrix(oriented_means(study, metrics, models))
    boot_means = oriented_means(study, metrics, models, weights)  # [B, n_models, n_metrics]
    boot = tau_b_matrix(boot_means)
    picks = rng.integers(0, len(models), size=(len(weights), len(models)))
    joint = tau_b_matrix(np.take_along_axis(boot_means, picks[:, :, None], axis=1))
    lo95, hi95 = percentile_interval(boot, 0.95)
    jlo95, jhi95 = percentile_interval(joint, 0.95)
    jlo90, jhi90 = percentile_interval(joint, 0.90)
    reliability = split_half_reliability(study, metrics, models, n_splits, rng)
    means = oriented_means(study, metrics, models)
    rows = []
    p_equivalence = equivalence_p(joint, margin)
    for a, b in combinations(range(len(metrics)), 2):
        p = stats.kendalltau(means[:, a], means[:, b]).pvalue
        ra, rb = reliability[metrics[a]], reliability[metrics[b]]
        corrected = float(np.clip(point[a, b] / np.sqrt(ra * rb), -1, 1)) if ra > 0 and rb > 0 else float("nan")
        if len(models) < min_kendall_models(alpha):
            verdict = "not testable"
        elif -margin < jlo90[a, b] and jhi90[a, b] < margin:
            verdict = "independent"
        elif jlo95[a, b] > 0 or jhi95[a, b] < 0:
            verdict = "related"
        else:
            verdict = "inconclusive"
        rows.append(
            (
                metrics[a],
                metrics[b],
                float(point[a, b]),
                float(lo95[a, b]),
                float(hi95[a, b]),
                float(jlo95[a, b]),
                float(jhi95[a, b]),
                float(jlo90[a, b]),
                float(jhi90[a, b]),
                float(p),
                corrected,
                verdict,
                float(p_equivalence[a, b]),
                margin,
            )
        )
    pairs = pd.DataFrame(
        rows,
        columns=[
            "metric_a",
            "metric_b",
            "tau",
            "lo95_conversations",
            "hi95_conversations",
            "lo95",
            "hi95",
            "lo90",
            "hi90",
            "p_exact",
            "tau_corrected",
            "verdict",
            "p_equivalence",
            "margin",
        ],
    )
    rel = pd.DataFrame([(m, reliability[m]) for m in metrics], columns=["metric", "split_half_reliability"])
    n = len(models)
    summary = {
        "n_models": n,
        "kendall_w": kendall_w(means),
        "critical_tau": critical_tau(n, alpha),
        "margin": margin,
        "power_at_margin": power(n, margin, alpha, 4000, rng),
        "n_pairs": len(pairs),
        "n_independent": int((pairs["verdict"] == "independent").sum()),
        "n_related": int((pairs["verdict"] == "related").sum()),
        "n_inconclusive": int((pairs["verdict"] == "inconclusive").sum()),
        "median_abs_tau": float(pairs["tau"].abs().median()) if len(pairs) else float("nan"),
    }
    return pairs, rel, summary


def reliability_curve(
    study: Study, metric: str, models: list[int], sizes: list[int], n_splits: int, rng: np.random.Generator
) -> pd.DataFrame:
    """Split-half rank reliability of ``metric``'s model ranking as the conversations are
    subsampled: for each size n (capped at the cohort's conversations; sizes below 4 are
    dropped), ``n_splits`` random subsets of n conversations, each split into two random
    halves; Kendall tau-b between the two halves' model rankings, stepped up to n with
    Spearman-Brown (2 t / (1 + t)). One row per size: mean and 2.5/97.5 percentiles of the
    half-sample tau and the stepped-up reliability at the mean tau (in -1..1), and
    ``whole_cohort``: whether n is all the conversations and even (every subset is then the
    whole cohort and only the split into halves varies; an odd n leaves one conversation of each
    split out)."""
    n_all = study.n_conversations
    rows = []
    for n in sorted({min(int(s), n_all) for s in sizes if min(int(s), n_all) >= 4}):
        keys = rng.random((n_splits, n_all))
        order = np.argsort(keys, axis=1)  # a random permutation per split
        w1, w2 = np.zeros((n_splits, n_all)), np.zeros((n_splits, n_all))
        rows_idx = np.arange(n_splits)[:, None]
        w1[rows_idx, order[:, : n // 2]] = 1
        w2[rows_idx, order[:, n // 2 : 2 * (n // 2)]] = 1
        a = oriented_means(study, [metric], models, w1)[..., 0]
        b = oriented_means(study, [metric], models, w2)[..., 0]
        taus = tau_b_matrix(np.stack([a, b], axis=-1))[:, 0, 1]
        t = float(np.nanmean(taus))
        lo, hi = np.nanquantile(taus, [0.025, 0.975])
        stepped_up = 2 * t / (1 + t) if t > -1 else float("nan")
        # Every subset is the cohort itself only when it splits into halves with none left out.
        rows.append((metric, n, n // 2, t, float(lo), float(hi), stepped_up, n_splits, n == n_all and n % 2 == 0))
    return pd.DataFrame(
        rows,
        columns=[
            "metric",
            "n_conversations",
            "half",
            "tau_half",
            "tau_half_lo",
            "tau_half_hi",
            "reliability",
            "n_splits",
            "whole_cohort",
        ],
    )

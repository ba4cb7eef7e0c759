"""Turn drift: does a capability change from the early to the late turns of a conversation?

Relative position r = (turn index) / (turns - 1) in [0, 1]. Per model and pooled over the
evaluated models: the least-squares slope of the turn-level metric on r (the change from the
first to the last turn) with a cluster-bootstrap interval (conversations resampled, their turns
kept together); late - early contrasts over three ordered bins (early r <= 1/3, middle, late
r > 2/3); and Page's trend test across the ordered bins with the models as blocks.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import page_trend_test

from .bootstrap import bootstrap_p, percentile_interval
from .study import Study

BINS = ("early", "middle", "late")
#: The ``em_model`` of the pooled row of ``turn_drift``'s table.
POOLED = "all compared models"
#: The columns of ``turn_drift``'s table (one row per model and the pooled row) and of its Page
#: record (one per metric): what rule stats_drift writes, empty when no metric has a value.
DRIFT_COLUMNS = (
    "metric",
    "em_model",
    "slope",
    "slope_lo",
    "slope_hi",
    "p_slope",
    "mean_early",
    "mean_middle",
    "mean_late",
    "late_minus_early",
    "late_early_lo",
    "late_early_hi",
    "n_turns",
)
PAGE_COLUMNS = (
    "metric",
    "L",
    "p_decreasing",
    "p_increasing",
    "n_blocks",
    "slope",
    "slope_lo",
    "slope_hi",
    "late_minus_early",
    "late_early_lo",
    "late_early_hi",
    "n_turns",
)


def _bin(rel: np.ndarray) -> np.ndarray:
    return np.where(rel <= 1 / 3, 0, np.where(rel <= 2 / 3, 1, 2))


def _weighted_slope(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Least-squares slopes of y on x for each row of weights ``w`` [B, n]."""
    return _slope_from_sums(w.sum(axis=1), w @ x, w @ y, w @ (x * y), w @ (x * x))


def _slope_from_sums(
    sw: np.ndarray, swx: np.ndarray, swy: np.ndarray, swxy: np.ndarray, swxx: np.ndarray
) -> np.ndarray:
    """The least-squares slopes from the weighted sums; NaN where there is no weight (no turn,
    or a resample that draws none of them) or no spread in x, computed without dividing by 0."""
    nan = np.full(len(sw), np.nan)
    some = sw > 0
    mx = np.divide(swx, sw, out=nan.copy(), where=some)
    my = np.divide(swy, sw, out=nan.copy(), where=some)
    sxy = swxy - sw * mx * my
    sxx = swxx - sw * mx * mx
    return np.divide(sxy, sxx, out=nan, where=some & (sxx > 0))


def _per_conversation(c: np.ndarray, values: np.ndarray | None, n: int) -> np.ndarray:
    """Sum of ``values`` (or the count of turns) per conversation code 0..n-1."""
    return np.bincount(c, weights=values, minlength=n).astype(float)


def _bootstrap_slopes(x: np.ndarray, y: np.ndarray, c: np.ndarray, conv_weights: np.ndarray) -> np.ndarray:
    """The slopes of y on x in each resample, every turn weighted by its conversation's weight
    (row of ``conv_weights`` [B, n_conversations]; ``c``: the conversation of each turn).

    The weighted sums over turns are the conversation weights times per-conversation sums, so
    no [B, n_turns] matrix is built (at 10,000 conversations it would not fit in memory)."""
    n = conv_weights.shape[1]
    return _slope_from_sums(*(conv_weights @ _per_conversation(c, v, n) for v in (None, x, y, x * y, x * x)))


def _drift_of(x: np.ndarray, y: np.ndarray, c: np.ndarray, conv_weights: np.ndarray) -> tuple:
    """The drift numbers of one set of turns (positions ``x``, values ``y``, conversation codes
    ``c``), in DRIFT_COLUMNS' order after the metric and the model: slope, its interval and
    bootstrap p, the three bin means, late - early and its interval, and the number of turns.
    Without a turn (a metric with no value here) every number is NaN and none is computed: an
    empty mean or an all-NaN set of resamples would only warn."""
    if len(y) == 0:
        nan = float("nan")
        return (nan,) * 10 + (0,)
    slope = _weighted_slope(x, y, np.ones((1, len(x))))[0]
    boot = _bootstrap_slopes(x, y, c, conv_weights)  # each turn weighted by its conversation's draws
    lo, hi = percentile_interval(boot)
    b = _bin(x)
    means = [float(y[b == k].mean()) if (b == k).any() else np.nan for k in range(3)]
    late_early = _bin_contrast(y, b, c, conv_weights)
    llo, lhi = percentile_interval(late_early)
    return (
        float(slope),
        float(lo),
        float(hi),
        float(bootstrap_p(boot)),
        *means,
        means[2] - means[0],
        float(llo),
        float(lhi),
        len(y),
    )


def turn_drift(study: Study, metric: str, models: list[int], conv_weights: np.ndarray) -> tuple[pd.DataFrame, dict]:
    """Per-model and pooled slopes, bin means and late - early contrasts, and Page's test."""
    turns = study.turns
    if turns is None:
        raise ValueError("turn drift needs the turn-level scores: load the study with its turn_scores")
    names = [study.models[i] for i in models]
    conv_index = {c: i for i, c in enumerate(study.conversations)}
    rows, bin_means = [], []
    pooled_x, pooled_y, pooled_c = [], [], []
    for name in names:
        t = turns[(turns["em_model"] == name)]
        t = t[t[metric].notna()]
        x = t["rel_position"].to_numpy(float)
        y = t[metric].to_numpy(float)
        c = t["conversation_id"].map(conv_index).to_numpy(int)
        row = _drift_of(x, y, c, conv_weights)
        bin_means.append(list(row[4:7]))
        rows.append((metric, name, *row))
        pooled_x.append(x)
        pooled_y.append(y)
        pooled_c.append(c)
    x, y, c = (np.concatenate(v) if v else np.array([]) for v in (pooled_x, pooled_y, pooled_c))
    pooled = _drift_of(x, y, c.astype(int), conv_weights)
    rows.append((metric, POOLED, *pooled))
    table = pd.DataFrame(rows, columns=list(DRIFT_COLUMNS))
    data = np.array(bin_means, dtype=float).reshape(len(bin_means), 3)
    ok = ~np.isnan(data).any(axis=1)
    page = {"metric": metric, "L": np.nan, "p_decreasing": np.nan, "p_increasing": np.nan, "n_blocks": int(ok.sum())}
    if ok.sum() >= 2:
        down = page_trend_test(data[ok], ranked=False, predicted_ranks=[3, 2, 1])  # early highest ... late lowest
        up = page_trend_test(data[ok], ranked=False, predicted_ranks=[1, 2, 3])
        page.update(L=float(down.statistic), p_decreasing=float(down.pvalue), p_increasing=float(up.pvalue))
    slope, lo, hi, _, _, _, _, late_early, llo, lhi, n_turns = pooled
    page.update(
        slope=slope,
        slope_lo=lo,
        slope_hi=hi,
        late_minus_early=late_early,
        late_early_lo=llo,
        late_early_hi=lhi,
        n_turns=n_turns,
    )
    return table, page


def _bin_contrast(y: np.ndarray, b: np.ndarray, c: np.ndarray, conv_weights: np.ndarray) -> np.ndarray:
    """Late - early means in each resample, every turn weighted by its conversation's weight
    (per-conversation sums, as in ``_bootstrap_slopes``)."""
    n = conv_weights.shape[1]
    out = []
    for k in (2, 0):
        sel = b == k
        den = conv_weights @ _per_conversation(c[sel], None, n)
        num = conv_weights @ _per_conversation(c[sel], y[sel], n)
        out.append(np.divide(num, den, out=np.full(len(den), np.nan), where=den > 0))
    return out[0] - out[1]

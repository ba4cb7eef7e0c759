"""Multiplicity adjustment of p-values: Holm for families that must control the
family-wise error rate, Benjamini-Hochberg / Benjamini-Yekutieli for exploratory families.

statsmodels' ``multipletests`` gives the same numbers (the tests check it), but its Holm
branch calls ``gc.collect()`` on every call, which costs about 0.1 s in a process holding
many objects; the simulation calls it thousands of times.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from scipy import stats

METHODS = ("holm", "fdr_bh", "fdr_by")


def adjust(pvalues: Sequence[float], method: str = "holm") -> np.ndarray:
    """Adjusted p-values in the input order, each in [0, 1].

    ``method``: ``holm`` (step-down Bonferroni), ``fdr_bh`` (Benjamini-Hochberg) or
    ``fdr_by`` (Benjamini-Yekutieli, valid under any dependence). An empty input gives an
    empty array; NaN p-values are not allowed (drop them first).
    """
    if method not in METHODS:
        raise ValueError(f"unknown multiplicity method {method!r}; use one of {', '.join(METHODS)}")
    p = np.asarray(pvalues, dtype=float)
    if p.size == 0:
        return p
    if np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        raise ValueError(f"p-values must lie in [0, 1] with no NaN, got {p.tolist()}")
    if method == "holm":
        order = np.argsort(p, kind="stable")
        stepped = np.maximum.accumulate(p[order] * np.arange(p.size, 0, -1))
        out = np.empty_like(p)
        out[order] = np.minimum(stepped, 1.0)
        return out
    if method in ("fdr_bh", "fdr_by"):
        return stats.false_discovery_control(p, method=method[-2:])
    raise ValueError(f"unknown multiplicity method {method!r}; use one of {', '.join(METHODS)}")


def adjust_present(pvalues: Sequence[float], method: str = "holm") -> np.ndarray:
    """As :func:`adjust` over the p-values that exist; a NaN (a comparison that could not be
    made, e.g. a model without values) stays NaN and does not count in the family."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    out[ok] = adjust(p[ok], method)
    return out


def adjust_floored(pvalues: Sequence[float], floors: Any, method: str = "holm") -> np.ndarray:
    """As :func:`adjust_present` with every p of 0 raised to its floor (``floors``: one per
    p-value, or one for all; a bootstrap p of 0 only says p < ``bootstrap.smallest_p``). Holm and
    BH are monotone in each p, so each result bounds its adjusted p whatever the true values
    below the floors: the bound the paper prints ("< bound", "<= bound")."""
    p = np.asarray(pvalues, dtype=float)
    return adjust_present(
        np.where(p == 0, np.broadcast_to(np.asarray(floors, dtype=float), p.shape), p).tolist(), method
    )


def reject_resolved(
    pvalues: Sequence[float], floors: Any, alpha: float, method: str = "holm"
) -> tuple[np.ndarray, np.ndarray]:
    """Which hypotheses are rejected at ``alpha`` also with every p of 0 at its floor
    (:func:`adjust_floored`), and which would be rejected only with the zeros taken as exactly
    0: (rejected, unresolved). A NaN p-value is neither."""
    rejected = reject(pvalues, alpha, method)
    resolved = rejected & (adjust_floored(pvalues, floors, method) <= alpha)
    return resolved, rejected & ~resolved


def reject(pvalues: Sequence[float], alpha: float, method: str = "holm") -> np.ndarray:
    """Which hypotheses are rejected at family level ``alpha`` (adjusted p <= alpha, the
    convention of statsmodels); a NaN p-value is not tested and not rejected."""
    return adjust_present(pvalues, method) <= alpha

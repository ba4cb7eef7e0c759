"""Linear mixed models with a random intercept per participant (statsmodels MixedLM), fitted
so that a degenerate design gives a recorded reason instead of a crash.

Small or unbalanced cohorts can make a fixed effect inestimable: no conversation in a topic,
every participant with the same diagnosis status, one participant only. ``fit`` returns the
coefficient of interest with its Wald 95% interval and p-value, or NaNs and the reason.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import statsmodels.formula.api as smf


@dataclass(frozen=True)
class Coefficient:
    estimate: float
    se: float
    lo: float
    hi: float
    p_value: float
    reason: str = ""  # why the coefficient is NaN; empty when it was estimated

    @classmethod
    def missing(cls, reason: str) -> "Coefficient":
        nan = float("nan")
        return cls(nan, nan, nan, nan, nan, reason)


def fit(formula: str, frame: pd.DataFrame, term: str, group: str = "participant", level: float = 0.95):
    """Fit ``formula`` by REML with a random intercept per ``group``; return (the fitted
    result or None, the :class:`Coefficient` of ``term``)."""
    if frame[group].nunique() < 2:
        return None, Coefficient.missing(f"fewer than two {group}s")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence chatter of small random-effect variances
        try:
            result = smf.mixedlm(formula, frame, groups=frame[group]).fit(reml=True)
        except (np.linalg.LinAlgError, ValueError) as err:
            return None, Coefficient.missing(f"mixed model not estimable ({type(err).__name__}: {err})")
    if term not in result.params.index or not np.isfinite(result.bse.get(term, np.nan)):
        return result, Coefficient.missing(f"term {term!r} not estimable in this design")
    lo, hi = (float(x) for x in result.conf_int(alpha=1 - level).loc[term])
    return result, Coefficient(float(result.params[term]), float(result.bse[term]), lo, hi,
                               float(result.pvalues[term]))

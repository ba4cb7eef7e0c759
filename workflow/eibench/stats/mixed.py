"""Linear mixed models with a random intercept per participant (statsmodels MixedLM), fitted
so that a degenerate design or a failed fit gives a recorded reason instead of a crash or an
estimate.

``fit`` returns the coefficient of interest with its Wald 95% interval and p-value, or NaNs and
the reason. There are two kinds of reason:

- the design cannot estimate the term (no conversation in a topic, every participant with the
  same diagnosis status, one participant only, no row at all): ``not estimable ...`` /
  ``fewer than two ...`` / ``no observation to fit`` (a caller whose metric has no value at all
  says so instead, :data:`NO_VALUES`);
- the fit itself is not trustworthy, so none of its coefficients is reported (the reason starts
  with one of :data:`FIT_FAILURES`):

  * ``did not converge``: the converged flag of the last optimiser statsmodels tried is false,
    or it warned that the optimisation failed (a ``ConvergenceWarning`` other than the notices
    of a failed attempt followed by a retry, and the boundary notice below);
  * ``singular fit``: statsmodels warned that the random-effects covariance or the Hessian is
    singular (``SingularMatrixWarning``, ``HessianInversionWarning``) or that the Hessian is not
    positive definite, or a fixed effect's standard error is not finite, or the fit stopped on a
    singular matrix (numpy's ``LinAlgError``; the reason says whether the fixed effects' columns
    are collinear);
  * ``boundary fit``: the random-intercept variance is at its lower bound, zero, within a
    relative tolerance (:data:`BOUNDARY_RATIO` of the residual variance). statsmodels' own
    boundary notice ("the MLE may be on the boundary") compares the variance with 0.01 in the
    outcome's units, which flags every fit of a metric in [0, 1], so it is replaced by this
    scale-free test.

Other warnings (numpy's, pandas') are passed on, not silenced.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import statsmodels.formula.api as smf
from scipy import stats
from statsmodels.tools.sm_exceptions import ConvergenceWarning, HessianInversionWarning, SingularMatrixWarning

#: The prefixes of a reason that says the fit failed (as opposed to a design without the term).
FIT_FAILURES = ("did not converge", "singular fit", "boundary fit")

#: The reason of a model of a metric the cohort has no value of (its kind of annotation is
#: absent): no fit is tried.
NO_VALUES = "no values of this metric"

#: A random-intercept variance below this fraction of the residual variance counts as zero.
BOUNDARY_RATIO = 1e-6

# statsmodels notices that are not failures by themselves: an optimiser attempt that failed and
# the retry with the next optimiser (MixedLM tries bfgs, lbfgs, cg; whether the last attempt
# converged is its converged flag), and its scale-dependent boundary notice.
_NOT_FAILURES = (
    "Maximum Likelihood optimization failed to converge",
    "Retrying MixedLM optimization",
    "The MLE may be on the boundary",
)


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


def is_fit_failure(reason: str) -> bool:
    """Whether a recorded reason says that the fit failed (did not converge, singular or
    boundary fit), rather than that the design cannot estimate the term. Empty: False."""
    return isinstance(reason, str) and reason.startswith(FIT_FAILURES)


def fit_failure_kind(reason: str) -> str | None:
    """The kind of failed fit a recorded reason names (one of :data:`FIT_FAILURES`), or None
    when it names none (a design without the term, an empty reason)."""
    return next((k for k in FIT_FAILURES if reason.startswith(k)), None) if isinstance(reason, str) else None


def fit_failure(result, caught: list[warnings.WarningMessage]) -> str:
    """Why a fitted MixedLM result must not be reported ("" when it may): the converged flag,
    the warnings statsmodels gave while fitting, the random-intercept variance and the fixed
    effects' standard errors, checked in that order."""
    for w in caught:
        text = str(w.message)
        if issubclass(w.category, (SingularMatrixWarning, HessianInversionWarning)) or "not positive definite" in text:
            return f"singular fit ({text.strip()})"
        if issubclass(w.category, ConvergenceWarning) and not text.startswith(_NOT_FAILURES):
            return f"did not converge ({text.strip()})"
    if not getattr(result, "converged", False):
        return "did not converge (the optimiser's converged flag is false)"
    variance, scale = float(np.asarray(result.cov_re).reshape(-1)[0]), float(result.scale)
    if not np.isfinite(variance) or not np.isfinite(scale) or scale <= 0:
        return f"singular fit (random-intercept variance {variance:.3g}, residual variance {scale:.3g})"
    if variance <= BOUNDARY_RATIO * scale:
        return (
            f"boundary fit (random-intercept variance {variance:.3g} is zero relative to the residual "
            f"variance {scale:.3g})"
        )
    bse = np.asarray(result.bse_fe, dtype=float)
    if not np.all(np.isfinite(bse)):
        bad = [name for name, se in zip(result.fe_params.index, bse) if not np.isfinite(se)]
        return f"singular fit (standard error not finite for {', '.join(bad)})"
    return ""


def _singular_why(model) -> str:
    """What made a fit of ``model`` (a statsmodels MixedLM, None when building it failed) stop on a
    singular matrix: its fixed-effects columns when they are collinear (their rank below their
    number), else the optimisation."""
    if model is None:
        return "a singular matrix in the model's set-up"
    exog = np.asarray(model.exog, dtype=float)
    rank = int(np.linalg.matrix_rank(exog))
    if rank < exog.shape[1]:
        return f"the fixed effects' design matrix has rank {rank} for {exog.shape[1]} columns"
    return "a singular matrix in the optimisation"


def fit(formula: str, frame: pd.DataFrame, term: str, group: str = "participant", level: float = 0.95):
    """Fit ``formula`` by REML with a random intercept per ``group``; return (the fitted
    result, or None when there is none to report, and the :class:`Coefficient` of ``term``).

    The result is None when the frame is empty or the design has fewer than two groups, when statsmodels cannot fit
    it, and when the fit failed (:func:`fit_failure`): a caller never reads a coefficient of a
    failed fit. The interval is the Wald interval at ``level`` and the p-value its two-sided
    test, both with Student's t on the between-within degrees of freedom of the term
    (reml.between_within_df): the number of participants minus the participant-level columns for
    a participant-level term such as the diagnosis, where the normal reference (statsmodels'
    ``conf_int``) is liberal with about ten participants (it covers about 92% at 95% in the
    published design)."""
    if frame.empty:  # not "fewer than two participants": there is nothing to fit at all
        return None, Coefficient.missing("no observation to fit")
    if frame[group].nunique() < 2:
        return None, Coefficient.missing(f"fewer than two {group}s")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = None
        try:
            model = smf.mixedlm(formula, frame, groups=frame[group])
            result = model.fit(reml=True)
        except np.linalg.LinAlgError as err:  # a ValueError too: caught first
            # The fit was tried and stopped on a singular matrix: a singular fit, not a design
            # without the term (fixed effects that are collinear, e.g. the length when every
            # conversation has as many turns, would have had no finite standard error).
            return None, Coefficient.missing(f"singular fit ({_singular_why(model)}; {type(err).__name__}: {err})")
        except ValueError as err:
            return None, Coefficient.missing(f"mixed model not estimable ({type(err).__name__}: {err})")
    statsmodels_notices = (ConvergenceWarning, SingularMatrixWarning, HessianInversionWarning)
    for w in caught:
        if not issubclass(w.category, statsmodels_notices):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    failure = fit_failure(result, caught)
    if failure:
        return None, Coefficient.missing(failure)
    if term not in result.params.index or not np.isfinite(result.bse.get(term, np.nan)):
        return result, Coefficient.missing(f"term {term!r} not estimable in this design")
    from .reml import between_within_df  # reml imports this module

    est, se = float(result.params[term]), float(result.bse[term])
    df = between_within_df(result.model.exog, result.model.groups, list(result.model.exog_names).index(term))
    q = float(stats.t.ppf(0.5 + level / 2, df))
    p = float(2 * stats.t.sf(abs(est / se), df))
    return result, Coefficient(est, se, est - q * se, est + q * se, p)

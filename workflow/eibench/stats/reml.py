"""Random-intercept linear mixed models fitted by REML for many outcomes at once.

``fit_many(X, groups, Y)`` fits y = X beta + u[group] + e, u ~ N(0, gamma sigma^2),
e ~ N(0, sigma^2), to every row of ``Y`` [S, N] with one shared design ``X`` [N, p] and one
shared grouping: the model statsmodels' ``MixedLM(...).fit(reml=True)`` fits (mixed.py), for S
simulated studies of one design in one pass. The variance ratio gamma is profiled out in closed
form per group (the inverse of I + gamma Z Z' is I - Z diag(gamma / (1 + gamma n_g)) Z'), so an
evaluation of the REML criterion costs O(G p^2 + p^3) per outcome whatever N, and the maximum
over log gamma is found by a grid search over [1e-8, 1e4] refined by golden-section search to
about 1e-9 in log gamma.

The standard errors are sigma^2 (X' V^-1 X)^-1 at the REML estimate (the fixed-effect block
of the inverse information; statsmodels inverts the observed Hessian of all parameters, so its
standard errors differ in the fourth or fifth significant digit, see tests/stats/test_reml.py).
The interval and p-value use Student's t with the between-within degrees of freedom
(``between_within_df``, as mixed.fit): for a term constant within every group (the diagnosis,
a property of the participant) the number of groups minus the between-group columns, 9 with 11
participants, where the normal reference covers about 92% instead of 95%.
A fit whose gamma is at most ``mixed.BOUNDARY_RATIO`` is a boundary fit, reported as NaN, as
mixed.fit does; statsmodels' own non-convergences do not occur (there is no iterative optimiser
to fail), so a simulated study can have an estimate where statsmodels reported none.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from .mixed import BOUNDARY_RATIO

_GRID = np.linspace(np.log(1e-8), np.log(1e4), 31)
_GOLDEN = (np.sqrt(5) - 1) / 2


def _criterion(theta: np.ndarray, n_g: np.ndarray, xtx, sx, xty, sy, yty, dof):
    """-2 x the profiled REML log-likelihood (up to a constant) at log gamma ``theta`` [S], with
    the GLS coefficients and the quadratic form; rows with a singular X'V^-1X give +inf."""
    gamma = np.exp(theta)
    d = gamma[:, None] / (1 + gamma[:, None] * n_g[None, :])  # [S, G]
    a = xtx[None] - np.einsum("sg,gi,gj->sij", d, sx, sx)
    b = xty - np.einsum("sg,gi,sg->si", d, sx, sy)
    c = yty - np.einsum("sg,sg->s", d, sy * sy)
    sign, logdet = np.linalg.slogdet(a)
    ok = sign > 0
    a_safe = np.where(ok[:, None, None], a, np.eye(a.shape[1])[None])
    beta = np.linalg.solve(a_safe, b[..., None])[..., 0]
    q = c - np.einsum("si,si->s", b, beta)
    ok &= q > 0
    value = dof * np.log(np.where(ok, q, 1.0)) + np.log1p(gamma[:, None] * n_g[None, :]).sum(axis=1) + logdet
    return np.where(ok, value, np.inf), beta, q, a_safe


def between_within_df(X: np.ndarray, groups: np.ndarray, term: int) -> int:
    """The between-within degrees of freedom (Schluchter and Elashoff 1990; SAS DDFM=BW) of
    column ``term`` of the fixed-effects design ``X`` [N, p] of a random-intercept model with a
    code per row in ``groups``: for a column constant within every group (a property of the
    group, e.g. a participant's diagnosis), the number of groups minus the rank of the
    between-group columns (those constant within every group, the intercept among them); for a
    column that varies within a group, N minus the number of groups minus the rank of the
    within-group columns. At least 1."""
    X = np.asarray(X, float)
    _, code = np.unique(groups, return_inverse=True)
    G = int(code.max()) + 1 if len(code) else 0
    n_g = np.bincount(code, minlength=G)
    means = np.stack(
        [np.bincount(code, weights=X[:, j], minlength=G) / np.maximum(n_g, 1) for j in range(X.shape[1])], 1
    )
    between = np.all(np.isclose(X, means[code], rtol=1e-12, atol=1e-12), axis=0)
    if between[term]:
        df = G - np.linalg.matrix_rank(X[:, between]) if between.any() else G
    else:
        df = len(X) - G - (np.linalg.matrix_rank(X[:, ~between]) if (~between).any() else 0)
    return int(max(1, df))


def fit_many(X: np.ndarray, groups: np.ndarray, Y: np.ndarray, term: int, level: float = 0.95) -> dict[str, np.ndarray]:
    """REML fits of every row of ``Y`` [S, N]: the coefficient of column ``term`` of ``X``
    [N, p] with its standard error, Wald interval at ``level`` and two-sided p-value (Student's t
    with ``between_within_df`` degrees of freedom), and gamma (random-intercept variance /
    residual variance). ``groups``: a code per row of X (any integers). NaN coefficients where
    the fit is on the boundary (gamma at most BOUNDARY_RATIO), where X has fewer than two groups
    or is rank-deficient."""
    X = np.asarray(X, float)
    Y = np.atleast_2d(np.asarray(Y, float))
    S, (N, p) = Y.shape[0], X.shape
    nan = np.full(S, np.nan)
    _, code = np.unique(groups, return_inverse=True)
    G = int(code.max()) + 1 if N else 0
    if G < 2 or N - p <= 0 or np.linalg.matrix_rank(X) < p:
        return {
            "estimate": nan,
            "se": nan.copy(),
            "lo": nan.copy(),
            "hi": nan.copy(),
            "p_value": nan.copy(),
            "gamma": nan.copy(),
        }
    onehot = np.zeros((N, G))
    onehot[np.arange(N), code] = 1.0
    n_g = onehot.sum(axis=0)
    xtx, sx = X.T @ X, onehot.T @ X
    xty, sy, yty = Y @ X, Y @ onehot, np.einsum("sn,sn->s", Y, Y)
    args = (n_g, xtx, sx, xty, sy, yty, N - p)
    values = np.stack([_criterion(np.full(S, t), *args)[0] for t in _GRID], axis=1)  # [S, grid]
    best = np.argmin(values, axis=1)
    lo = _GRID[np.maximum(best - 1, 0)]
    hi = _GRID[np.minimum(best + 1, len(_GRID) - 1)]
    x1, x2 = hi - _GOLDEN * (hi - lo), lo + _GOLDEN * (hi - lo)
    f1, f2 = _criterion(x1, *args)[0], _criterion(x2, *args)[0]
    while np.max(hi - lo) > 1e-9:
        left = f1 < f2  # the minimum is in [lo, x2]
        hi = np.where(left, x2, hi)
        lo = np.where(left, lo, x1)
        x2n = np.where(left, x1, lo + _GOLDEN * (hi - lo))
        x1n = np.where(left, hi - _GOLDEN * (hi - lo), x2)
        x1, x2 = x1n, x2n
        f_new = _criterion(np.where(left, x1, x2), *args)[0]
        f1, f2 = np.where(left, f_new, f2), np.where(left, f1, f_new)
    theta = (lo + hi) / 2
    value, beta, q, a = _criterion(theta, *args)
    gamma = np.exp(theta)
    scale = q / (N - p)
    cov = scale[:, None, None] * np.linalg.inv(a)
    se = np.sqrt(cov[:, term, term])
    est = beta[:, term]
    bad = ~np.isfinite(value) | (gamma <= BOUNDARY_RATIO) | ~np.isfinite(se)
    df = between_within_df(X, groups, term)
    q = stats.t.ppf(0.5 + level / 2, df)
    out = {
        "estimate": est,
        "se": se,
        "lo": est - q * se,
        "hi": est + q * se,
        "p_value": 2 * stats.t.sf(np.abs(est / se), df),
        "gamma": gamma,
    }
    return {k: (v if k == "gamma" else np.where(bad, np.nan, v)) for k, v in out.items()}

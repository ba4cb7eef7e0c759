"""Multiplicity adjustment against statsmodels' multipletests and hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest
from eibench.stats.multiplicity import METHODS, adjust, adjust_floored, reject, reject_resolved


def _pvalues(seed: int, m: int) -> np.ndarray:
    """Random p-values with ties, a mass of small values, and the ends 0 and 1."""
    rng = np.random.default_rng(seed)
    p = np.concatenate([rng.uniform(size=m // 2), rng.uniform(0, 0.02, size=m - m // 2)])
    p[rng.choice(m, size=m // 4, replace=False)] = p[0]  # a block of ties
    p[1], p[2] = 0.0, 1.0
    rng.shuffle(p)
    return p


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("seed,m", [(1, 4), (2, 9), (3, 30), (4, 101)])
def test_adjust_matches_statsmodels(multipletests, method, seed, m):
    p = _pvalues(seed, m)
    np.testing.assert_allclose(adjust(p, method), multipletests(p, method=method)[1], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1])
def test_reject_matches_statsmodels(multipletests, method, alpha):
    for seed in range(5, 15):
        p = _pvalues(seed, 25)
        np.testing.assert_array_equal(reject(p, alpha, method), multipletests(p, alpha=alpha, method=method)[0])


def test_holm_hand_computed():
    # Sorted: 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 -> running max 0.06.
    np.testing.assert_allclose(adjust([0.01, 0.04, 0.03, 0.005], "holm"), [0.03, 0.06, 0.06, 0.02])
    # Ties share the adjusted value of the larger multiplier; the cap is 1.
    np.testing.assert_allclose(adjust([0.01, 0.01, 0.6], "holm"), [0.03, 0.03, 0.6])
    np.testing.assert_allclose(adjust([0.4, 0.5], "holm"), [0.8, 0.8])
    np.testing.assert_allclose(adjust([0.7, 0.9], "holm"), [1.0, 1.0])


def test_bh_and_by_hand_computed():
    p = [0.01, 0.02, 0.03, 0.04]
    np.testing.assert_allclose(adjust(p, "fdr_bh"), [0.04] * 4)
    harmonic = 1 + 1 / 2 + 1 / 3 + 1 / 4
    np.testing.assert_allclose(adjust(p, "fdr_by"), [0.04 * harmonic] * 4)
    # BH's step-up: 0.03 x 3/2 = 0.045 is lowered to the next value, 0.031 x 3/3 = 0.031.
    np.testing.assert_allclose(adjust([0.001, 0.03, 0.031], "fdr_bh"), [0.003, 0.031, 0.031])


@pytest.mark.parametrize("method", METHODS)
def test_adjusted_values_are_bounded_monotone_and_in_input_order(method):
    p = _pvalues(21, 40)
    q = adjust(p, method)
    assert np.all((q >= p - 1e-15) & (q <= 1))
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(q[order]) >= -1e-15)
    perm = np.random.default_rng(0).permutation(len(p))
    np.testing.assert_allclose(adjust(p[perm], method), q[perm])


@pytest.mark.parametrize("method", METHODS)
def test_a_single_p_value_is_unchanged(method):
    np.testing.assert_allclose(adjust([0.03], method), [0.03])


@pytest.mark.parametrize("method", METHODS)
def test_empty_input_gives_empty_output(method):
    assert adjust([], method).shape == (0,)
    assert reject([], 0.05, method).shape == (0,)


@pytest.mark.parametrize("bad", [[0.1, np.nan], [-0.01, 0.5], [0.5, 1.01]])
def test_invalid_p_values_raise(bad):
    with pytest.raises(ValueError, match="must lie in"):
        adjust(bad, "holm")


def test_unknown_method_raises_naming_the_choices():
    with pytest.raises(ValueError, match=r"unknown multiplicity method 'bonferroni'.*holm, fdr_bh, fdr_by"):
        adjust([0.1, 0.2], "bonferroni")


def test_reject_uses_adjusted_p_at_most_alpha():
    # Holm-adjusted: [0.05, 0.05]; the convention is <=, as in statsmodels.
    np.testing.assert_array_equal(reject([0.025, 0.05], 0.05, "holm"), [True, True])
    np.testing.assert_array_equal(reject([0.025, 0.05], 0.049, "holm"), [False, False])


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("seed,m", [(1, 4), (2, 9), (3, 30), (4, 101)])
def test_adjust_matches_pingouin(method, seed, m):
    """Kept in-house for speed (the simulation adjusts thousands of families); pingouin's
    multicomp gives the same adjusted p-values."""
    import pingouin

    p = _pvalues(seed, m)
    np.testing.assert_allclose(adjust(p, method), pingouin.multicomp(p, method=method)[1], rtol=0, atol=1e-9)


def test_zeros_at_their_floors_bound_the_adjusted_p_and_decide_resolved_rejections():
    """Two p-values of 0 over 20 resamples (each below 0.1) and 0.03: Holm with the zeros as 0
    rejects all three at 0.05; with the zeros at 0.1 Holm orders 0.03 first (x 3: 0.09) and the
    zeros after it (x 2: 0.2), so none is resolved at 0.05; a NaN is neither."""
    p = [0.0, 0.0, 0.03, float("nan")]
    bounds = adjust_floored(p, 0.1)
    assert np.allclose(bounds[:3], [0.2, 0.2, 0.09]) and np.isnan(bounds[3])
    assert np.allclose(adjust_floored(p, [0.0, 0.001, 1.0, 1.0])[:3], adjust([0.0, 0.001, 0.03]))
    resolved, unresolved = reject_resolved(p, 0.1, 0.05)
    assert not resolved.any() and list(unresolved) == [True, True, True, False]
    resolved, unresolved = reject_resolved(p, 0.001, 0.05)
    assert list(resolved) == [True, True, True, False] and not unresolved.any()

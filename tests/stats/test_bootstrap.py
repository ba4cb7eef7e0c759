"""Cluster bootstrap: weights, weighted means, percentile intervals, p-values and ranks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from eibench.stats.bootstrap import bootstrap_p, cluster_weights, percentile_interval, ranks_desc, resampled_means

from .conftest import reference_bootstrap_p

# ----------------------------------------------------------------- cluster_weights


def test_conversation_clusters_draw_n_conversations_per_resample():
    w = cluster_weights(np.arange(25), 300, np.random.default_rng(1))
    assert w.shape == (300, 25)
    assert np.all(w >= 0) and np.all(w == np.round(w))
    np.testing.assert_array_equal(w.sum(axis=1), np.full(300, 25.0))
    # Not the identity resample: conversations are really drawn with replacement.
    assert (w != 1).any(axis=1).mean() > 0.99


def test_participant_clusters_share_one_weight_and_sum_to_the_drawn_conversations():
    cluster = np.array([0, 0, 1, 2, 2, 2, 1, 3, 0, -1, -1, 3])
    w = cluster_weights(cluster, 400, np.random.default_rng(2))
    # Every conversation of one participant has the same weight in every resample.
    for code in range(4):
        members = np.flatnonzero(cluster == code)
        assert len(members) >= 2
        for j in members[1:]:
            np.testing.assert_array_equal(w[:, j], w[:, members[0]])
    # Six clusters: four participants and the two unknown conversations, each alone.
    representatives = [int(np.flatnonzero(cluster == code)[0]) for code in range(4)] + [9, 10]
    sizes = np.array([3, 2, 3, 2, 1, 1])
    counts = w[:, representatives]
    np.testing.assert_array_equal(counts.sum(axis=1), np.full(400, 6.0))
    # The weights sum to the number of conversations of the clusters drawn (not to 12).
    np.testing.assert_array_equal(w.sum(axis=1), counts @ sizes)
    assert len(np.unique(w.sum(axis=1))) > 1


def test_code_minus_one_forms_a_cluster_of_its_own():
    cluster = np.array([0, 0, -1, -1, 1])
    w = cluster_weights(cluster, 500, np.random.default_rng(3))
    # The two unknown conversations are not one cluster: their weights differ in some resamples,
    # and neither moves with participant 0.
    assert np.any(w[:, 2] != w[:, 3])
    assert np.any(w[:, 2] != w[:, 0]) and np.any(w[:, 3] != w[:, 0])
    # Four clusters in all (0, 1 and two singletons): each resample draws four.
    np.testing.assert_array_equal(w[:, [0, 2, 3, 4]].sum(axis=1), np.full(500, 4.0))


def test_all_unknown_participants_behave_like_conversation_clusters():
    w = cluster_weights(np.full(7, -1), 50, np.random.default_rng(4))
    np.testing.assert_array_equal(w.sum(axis=1), np.full(50, 7.0))
    assert np.any(w[:, 0] != w[:, 1])


def test_each_cluster_is_drawn_once_per_resample_on_average():
    cluster = np.repeat(np.arange(5), [1, 2, 3, 4, 5])
    w = cluster_weights(cluster, 20000, np.random.default_rng(5))
    counts = w[:, [0, 1, 3, 6, 10]]
    # Multinomial(k=5, 1/5): mean 1, variance 1 - 1/k = 0.8 per cluster.
    np.testing.assert_allclose(counts.mean(axis=0), 1.0, atol=0.03)
    np.testing.assert_allclose(counts.var(axis=0), 0.8, atol=0.05)


def test_cluster_weights_are_deterministic_for_a_seeded_rng():
    cluster = np.array([0, 1, 1, 2, -1, 0])
    a = cluster_weights(cluster, 30, np.random.default_rng(99))
    b = cluster_weights(cluster, 30, np.random.default_rng(99))
    c = cluster_weights(cluster, 30, np.random.default_rng(100))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_cluster_weights_do_not_modify_the_input():
    cluster = np.array([0, -1, 1, -1])
    cluster_weights(cluster, 3, np.random.default_rng(0))
    np.testing.assert_array_equal(cluster, [0, -1, 1, -1])


# ----------------------------------------------------------------- resampled_means


def _loop_means(values, weights):
    out = np.full((weights.shape[0], values.shape[0]), np.nan)
    for b in range(weights.shape[0]):
        for m in range(values.shape[0]):
            num = den = 0.0
            for j in range(values.shape[1]):
                if not np.isnan(values[m, j]):
                    num += weights[b, j] * values[m, j]
                    den += weights[b, j]
            if den > 0:
                out[b, m] = num / den
    return out


def test_resampled_means_match_a_plain_loop_with_nans():
    rng = np.random.default_rng(6)
    values = rng.normal(size=(4, 12))
    values[rng.random(values.shape) < 0.3] = np.nan
    values[3] = np.nan  # a model with no value at all
    values[2, :] = np.nan
    values[2, [0, 1]] = [0.5, 1.5]  # a model with values only on two conversations
    weights = rng.integers(0, 3, size=(40, 12)).astype(float)
    weights[0, [0, 1]] = 0  # a resample missing both of model 2's conversations
    got = resampled_means(values, weights)
    expected = _loop_means(values, weights)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, equal_nan=True)
    assert np.isnan(got[0, 2]) and np.isnan(got[:, 3]).all()


def test_unit_weights_give_the_nan_mean():
    rng = np.random.default_rng(7)
    values = rng.normal(size=(3, 9))
    values[0, 4] = np.nan
    got = resampled_means(values, np.ones((1, 9)))[0]
    np.testing.assert_allclose(got, np.nanmean(values, axis=1))


# ----------------------------------------------------------------- percentile_interval


def test_percentile_interval_on_known_quantiles():
    samples = np.arange(101, dtype=float)
    lo, hi = percentile_interval(samples)
    assert (float(lo), float(hi)) == pytest.approx((2.5, 97.5))
    lo, hi = percentile_interval(samples, 0.90)
    assert (float(lo), float(hi)) == pytest.approx((5.0, 95.0))


def test_percentile_interval_ignores_nans_and_follows_the_axis():
    samples = np.column_stack([np.arange(101.0), np.arange(101.0) * 2])
    samples = np.vstack([samples, [np.nan, np.nan]])
    lo, hi = percentile_interval(samples, 0.5)
    np.testing.assert_allclose(lo, [25.0, 50.0])
    np.testing.assert_allclose(hi, [75.0, 150.0])
    lo, hi = percentile_interval(samples[:-1].T, 0.5, axis=1)
    np.testing.assert_allclose(lo, [25.0, 50.0])


@pytest.mark.parametrize("shape, axis", [((200,), 0), ((2000, 17), 0), ((3, 201, 5), 1), ((4, 6, 199), -1)])
@pytest.mark.parametrize("nans", ["none", "some", "a whole slice"])
def test_percentile_interval_gives_the_numbers_of_one_quantile_call_per_end(shape, axis, nans):
    """Both ends come from one np.quantile call (one partition): bit for bit the numbers of
    a call per end, with and without NaN (np.nanquantile), and an all-NaN slice stays NaN."""
    rng = np.random.default_rng(len(shape) + axis)
    samples = np.round(rng.normal(size=shape), 2)  # ties among the order statistics
    if nans != "none":
        samples[rng.random(shape) < 0.1] = np.nan
    if nans == "a whole slice":
        whole = [0] * len(shape)
        whole[axis] = slice(None)
        samples[tuple(whole)] = np.nan
    q = np.nanquantile if nans != "none" else np.quantile
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # nanquantile of an all-NaN slice
        for level in (0.95, 0.9, 0.5):
            lo, hi = percentile_interval(samples, level, axis=axis)
            alpha = (1 - level) / 2
            np.testing.assert_array_equal(lo, q(samples, alpha, axis=axis))
            np.testing.assert_array_equal(hi, q(samples, 1 - alpha, axis=axis))
    if nans == "a whole slice":
        assert np.isnan(lo).any() and np.isnan(hi).any()


# ----------------------------------------------------------------- bootstrap_p


def test_bootstrap_p_hand_values():
    # One of four resamples at or below 0: 2 x 1/4.
    assert float(bootstrap_p(np.array([-1.0, 1.0, 2.0, 3.0]))) == pytest.approx(0.5)
    assert float(bootstrap_p(np.array([-2.0, -1.0, 1.0, 2.0]))) == pytest.approx(1.0)
    # Zeros count on both sides.
    assert float(bootstrap_p(np.array([0.0, 0.0, 1.0, 1.0]))) == pytest.approx(1.0)
    assert float(bootstrap_p(np.array([0.0, 1.0, 1.0, 1.0, 1.0]))) == pytest.approx(0.4)
    # NaN resamples are not counted.
    assert float(bootstrap_p(np.array([np.nan, -1.0, 1.0, 2.0, 3.0]))) == pytest.approx(0.5)
    assert float(bootstrap_p(np.r_[np.full(10, -1.0), np.full(990, 1.0)])) == pytest.approx(0.02)


def test_bootstrap_p_without_any_resampled_value_is_nan():
    assert np.isnan(bootstrap_p(np.full(5, np.nan)))
    p = bootstrap_p(np.column_stack([np.full(4, np.nan), [1.0, 2.0, 3.0, -1.0]]))
    assert np.isnan(p[0]) and p[1] == pytest.approx(0.5)


def test_bootstrap_p_of_one_sided_samples_is_zero():
    assert float(bootstrap_p(np.array([0.1, 0.2, 3.0]))) == 0.0
    assert float(bootstrap_p(-np.array([0.1, 0.2, 3.0]))) == 0.0


def test_bootstrap_p_is_symmetric_and_in_range():
    rng = np.random.default_rng(8)
    d = rng.normal(loc=rng.normal(size=(1, 30)), size=(200, 30))
    d[rng.random(d.shape) < 0.05] = np.nan
    p = bootstrap_p(d)
    assert p.shape == (30,)
    assert np.all((p >= 0) & (p <= 1))
    np.testing.assert_array_equal(p, bootstrap_p(-d))
    np.testing.assert_array_equal(bootstrap_p(d.T, axis=1), p)
    np.testing.assert_allclose(p, [reference_bootstrap_p(d[:, k]) for k in range(30)])


# ----------------------------------------------------------------- ranks_desc


def _brute_ranks(x, higher_is_better):
    out = []
    for i, xi in enumerate(x):
        if np.isnan(xi):
            out.append(np.nan)
            continue
        others = [xj for j, xj in enumerate(x) if j != i and not np.isnan(xj)]
        better = sum(xj > xi if higher_is_better else xj < xi for xj in others)
        tied = sum(xj == xi for xj in others)
        out.append(1 + better + tied / 2)
    return np.array(out)


def test_ranks_desc_with_ties():
    x = np.array([0.5, 0.9, 0.9, 0.1])
    np.testing.assert_array_equal(ranks_desc(x), [3, 1.5, 1.5, 4])
    np.testing.assert_array_equal(ranks_desc(x, higher_is_better=False), [2, 3.5, 3.5, 1])


def test_ranks_desc_along_the_last_axis_with_nans_matches_brute_force():
    rng = np.random.default_rng(9)
    means = rng.integers(0, 4, size=(20, 6)).astype(float)
    means[3, 2] = np.nan
    for higher in (True, False):
        got = ranks_desc(means, higher)
        assert got.shape == means.shape
        for b in range(means.shape[0]):
            np.testing.assert_array_equal(got[b], _brute_ranks(means[b], higher))

"""Rank independence: Kendall tau-b, the exact critical |tau|, power, Kendall's W, split-half
reliability and the rank-independence table."""

from __future__ import annotations

from functools import lru_cache
from math import comb, factorial

import numpy as np
import pandas as pd
import pingouin
import pytest
from eibench.stats import ranks
from eibench.stats.bootstrap import cluster_weights
from scipy import stats

from .conftest import make_study

# ----------------------------------------------------------------- tau-b


def test_tau_b_matrix_matches_scipy_with_ties():
    rng = np.random.default_rng(1)
    means = rng.integers(0, 4, size=(6, 9, 4)).astype(float)  # [resamples, models, metrics], many ties
    got = ranks.tau_b_matrix(means)
    assert got.shape == (6, 4, 4)
    for b in range(6):
        for i in range(4):
            for j in range(4):
                expected = stats.kendalltau(means[b, :, i], means[b, :, j], variant="b").statistic
                assert got[b, i, j] == pytest.approx(expected, abs=1e-12)


def test_tau_b_matrix_without_ties_and_perfect_orders():
    x = np.arange(7.0)
    m = ranks.tau_b_matrix(np.column_stack([x, 2 * x + 1, -x, x**3]))
    np.testing.assert_allclose(m[0], [1, 1, -1, 1])
    np.testing.assert_allclose(np.diag(m), 1)
    np.testing.assert_allclose(m, m.T)


def test_tau_b_of_a_constant_metric_is_nan():
    m = ranks.tau_b_matrix(np.column_stack([np.arange(5.0), np.ones(5)]))
    assert np.isnan(m[0, 1]) and np.isnan(m[1, 1]) and m[0, 0] == 1


# ----------------------------------------------------------------- exact critical |tau|


def _inversions(p) -> int:
    return sum(1 for i in range(len(p)) for j in range(i + 1, len(p)) if p[i] > p[j])


@lru_cache(maxsize=None)
def _mahonian(n: int) -> tuple[int, ...]:
    """Number of permutations of n items with d inversions, d = 0..C(n, 2)."""
    counts = [1]
    for k in range(2, n + 1):
        new = [0] * (len(counts) + k - 1)
        for d, c in enumerate(counts):
            for extra in range(k):
                new[d + extra] += c
        counts = new
    return tuple(counts)


def _exact_p(n: int, d: int) -> float:
    """Two-sided exact p-value of Kendall's tau with d discordant pairs (no ties): P(|S| >= |s|)."""
    counts, pairs = _mahonian(n), comb(n, 2)
    s = abs(pairs - 2 * d)
    return sum(c for e, c in enumerate(counts) if abs(pairs - 2 * e) >= s) / factorial(n)


def _critical_by_enumeration(n: int, alpha: float) -> float:
    pairs = comb(n, 2)
    taus = [abs(1 - 2 * d / pairs) for d in range(pairs + 1) if _exact_p(n, d) <= alpha]
    return min(taus) if taus else float("nan")


def _bubble_chain(n: int):
    """Permutations with 0, 1, ..., C(n, 2) inversions: each step swaps one ascending adjacent pair."""
    p = list(range(n))
    yield list(p)
    while True:
        i = next((i for i in range(n - 1) if p[i] < p[i + 1]), None)
        if i is None:
            return
        p[i], p[i + 1] = p[i + 1], p[i]
        yield list(p)


def test_mahonian_reference_is_right():
    # Sanity of the test's own reference: the DP equals enumeration for n = 5.
    from itertools import permutations

    brute = np.bincount([_inversions(p) for p in permutations(range(5))])
    assert tuple(brute) == _mahonian(5)


def test_critical_tau_at_n11_is_about_049_and_matches_scipy_exact_p_values():
    pairs = comb(11, 2)
    # Brute-force search over every number of discordant pairs with scipy's exact p-values.
    significant = []
    for perm in _bubble_chain(11):
        d = _inversions(perm)
        p = stats.kendalltau(np.arange(11), perm, method="exact").pvalue
        assert p == pytest.approx(_exact_p(11, d), rel=1e-9)
        if p <= 0.05:
            significant.append(abs(1 - 2 * d / pairs))
    scipy_critical = min(significant)
    got = ranks.critical_tau(11)
    assert got == pytest.approx(scipy_critical, abs=1e-12)
    assert got == pytest.approx(27 / 55, abs=1e-12)  # S = 27 of 55 pairs
    assert got == pytest.approx(0.49, abs=0.005)


@pytest.mark.parametrize("n", range(4, 13))
@pytest.mark.parametrize("alpha", [0.05, 0.01])
def test_critical_tau_matches_the_enumerated_null_distribution(n, alpha):
    expected = _critical_by_enumeration(n, alpha)
    got = ranks.critical_tau(n, alpha)
    if np.isnan(expected):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(expected, abs=1e-12)


def test_no_tau_is_significant_for_four_models():
    # The most extreme of 24 orders has two-sided p = 2/24 > 0.05.
    assert np.isnan(ranks.critical_tau(4))
    assert ranks.critical_tau(5) == 1.0


@pytest.mark.parametrize("n", [1, 2, 5, 7])
def test_permutation_with_discordances_has_exactly_d_inversions(n):
    for d in range(comb(n, 2) + 1):
        perm = ranks._permutation_with_discordances(n, d)
        assert sorted(perm.tolist()) == list(range(n))
        assert _inversions(perm.tolist()) == d


# ----------------------------------------------------------------- power


def test_power_under_the_null_is_the_exact_size_of_the_test():
    n, alpha = 11, 0.05
    crit = ranks.critical_tau(n, alpha)
    pairs = comb(n, 2)
    counts = _mahonian(n)
    size = sum(c for d, c in enumerate(counts) if abs(1 - 2 * d / pairs) >= crit - 1e-12) / factorial(n)
    assert 0.02 < size <= alpha
    got = ranks.power(n, 0.0, alpha, 8000, np.random.default_rng(3))
    assert got == pytest.approx(size, abs=4 * np.sqrt(size * (1 - size) / 8000))


def test_power_grows_with_tau_and_reaches_one():
    values = [ranks.power(11, t, 0.05, 3000, np.random.default_rng(4)) for t in (0.2, 0.5, 0.8)]
    assert values[0] < values[1] < values[2]
    assert ranks.power(11, 1.0, 0.05, 200, np.random.default_rng(4)) == 1.0


def test_power_is_that_of_the_exact_test_on_a_normal_population_with_that_kendall_tau():
    # An independent simulation: bivariate normal with Pearson rho = sin(pi tau / 2) (whose
    # population Kendall tau is tau), sample tau from scipy, the critical value by enumeration.
    # (Taking rho = tau instead would give about 0.28 here, not 0.6.)
    n, tau, sims = 40, 0.25, 3000
    rho = np.sin(np.pi * tau / 2)
    xy = np.random.default_rng(50).multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=(sims, n))
    crit = _critical_by_enumeration(n, 0.05)
    x, y = xy[..., 0], xy[..., 1]
    concordance = np.sign(x[:, :, None] - x[:, None, :]) * np.sign(y[:, :, None] - y[:, None, :])
    sample_tau = concordance.sum(axis=(1, 2)) / (n * (n - 1))
    reference = np.mean(np.abs(sample_tau) >= crit - 1e-12)
    got = ranks.power(n, tau, 0.05, sims, np.random.default_rng(5))
    assert 0.45 < reference < 0.75
    assert got == pytest.approx(reference, abs=5 * np.sqrt(2 * reference * (1 - reference) / sims))


# ----------------------------------------------------------------- Kendall's W


def _textbook_w(means: np.ndarray) -> float:
    """W = 12 S / (m^2 (n^3 - n) - m sum(t^3 - t)), n objects (rows) ranked by m judges (columns)."""
    n, m = means.shape
    r = np.column_stack([stats.rankdata(means[:, k]) for k in range(m)])
    s = np.sum((r.sum(axis=1) - r.sum() / n) ** 2)
    t = 0
    for k in range(m):
        _, counts = np.unique(means[:, k], return_counts=True)
        t += np.sum(counts**3 - counts)
    return 12 * s / (m**2 * (n**3 - n) - m * t)


@pytest.mark.parametrize("seed", range(5))
def test_kendall_w_matches_textbook_pingouin_and_friedman(seed):
    rng = np.random.default_rng(seed)
    n, m = 8, 4
    means = np.round(rng.normal(size=(n, m)), 1)  # some ties
    w = ranks.kendall_w(means)
    assert w == pytest.approx(_textbook_w(means), abs=1e-12)
    frame = pd.DataFrame([(i, k, means[i, k]) for i in range(n) for k in range(m)], columns=["model", "metric", "v"])
    assert w == pytest.approx(
        float(pingouin.friedman(frame, dv="v", within="model", subject="metric")["W"].iloc[0]), abs=1e-10
    )
    chi2 = stats.friedmanchisquare(*means).statistic  # models as treatments, metrics as blocks
    assert w == pytest.approx(chi2 / (m * (n - 1)), abs=1e-10)


def test_kendall_w_extremes():
    x = np.arange(6.0)
    assert ranks.kendall_w(np.column_stack([x, 2 * x, x**2])) == pytest.approx(1.0)
    assert ranks.kendall_w(np.column_stack([x, -x])) == pytest.approx(0.0)
    assert np.isnan(ranks.kendall_w(np.ones((5, 3))))


# ----------------------------------------------------------------- oriented means, split halves


def test_oriented_means_flip_lower_is_better_metrics():
    values = np.array([[0.1, 0.3, np.nan], [0.5, 0.7, 0.9]])
    study = make_study({"emotion_f1": values, "four_branch_mae": values * 10})
    got = ranks.oriented_means(study, ["emotion_f1", "four_branch_mae"], [0, 1])
    np.testing.assert_allclose(got, [[0.2, -2.0], [0.7, -7.0]])
    w = np.array([[2.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
    got = ranks.oriented_means(study, ["emotion_f1", "four_branch_mae"], [1, 0], w)
    assert got.shape == (2, 2, 2)
    np.testing.assert_allclose(got[0, :, 0], [(1.0 + 0.9) / 3, 0.1])
    np.testing.assert_allclose(got[1, :, 1], [-7.0, -2.0])


def test_split_half_reliability_of_perfectly_reliable_and_of_pure_noise_rankings():
    rng = np.random.default_rng(6)
    n_models, n = 12, 60
    reliable = np.linspace(0, 1, n_models)[:, None] + rng.normal(0, 0.01, size=(n_models, n))
    constant = np.repeat(np.linspace(0, 1, n_models)[:, None], n, axis=1)
    noise = rng.normal(0, 1, size=(n_models, n))
    study = make_study({"emotion_f1": reliable, "emotion_va": constant, "binary_om_acc": noise})
    rel = ranks.split_half_reliability(
        study, ["emotion_f1", "emotion_va", "binary_om_acc"], list(range(n_models)), 30, np.random.default_rng(7)
    )
    assert rel["emotion_va"] == pytest.approx(1.0)
    assert rel["emotion_f1"] > 0.95
    assert abs(rel["binary_om_acc"]) < 0.5
    # Spearman-Brown of the mean half-split tau, checked by recomputing the halves.
    rng_a, rng_b = np.random.default_rng(8), np.random.default_rng(8)
    got = ranks.split_half_reliability(study, ["binary_om_acc"], list(range(n_models)), 5, rng_a)["binary_om_acc"]
    taus = []
    for _ in range(5):
        perm = rng_b.permutation(n)
        a, b = noise[:, perm[: n // 2]].mean(axis=1), noise[:, perm[n // 2 :]].mean(axis=1)
        taus.append(stats.kendalltau(a, b).statistic)
    t = np.mean(taus)
    assert got == pytest.approx(2 * t / (1 + t), abs=1e-12)


# ----------------------------------------------------------------- the table


@pytest.fixture(scope="module")
def independence():
    rng = np.random.default_rng(11)
    n_models, n = 40, 50
    a = np.linspace(0, 1, n_models)
    unrelated = a[rng.permutation(n_models)]
    while abs(stats.kendalltau(a, unrelated).statistic) > 0.05:  # an unrelated order, |tau| <= 0.05
        unrelated = a[rng.permutation(n_models)]
    noise = lambda: rng.normal(0, 0.01, size=(n_models, n))  # noqa: E731
    values = {
        "emotion_f1": a[:, None] + noise(),
        "emotion_va": a[:, None] + noise(),  # the same ranking
        "binary_om_acc": unrelated[:, None] + noise(),  # an unrelated ranking
        "pairwise_acc": -a[:, None] + noise(),  # the reverse ranking
        "four_branch_mae": -a[:, None] + noise(),  # lower is better: the same ranking once oriented
    }
    study = make_study(values)
    metrics = list(values)
    weights = cluster_weights(np.arange(n), 200, np.random.default_rng(12))
    pairs, rel, summary = ranks.rank_independence(
        study, metrics, list(range(n_models)), weights, 0.3, 10, np.random.default_rng(13)
    )
    return study, metrics, pairs, rel, summary


def test_rank_independence_table_matches_scipy(independence):
    study, metrics, pairs, rel, _ = independence
    assert len(pairs) == comb(len(metrics), 2)
    assert list(rel["metric"]) == metrics
    means = {m: np.nanmean(study.values[m], axis=1) * (1 if m != "four_branch_mae" else -1) for m in metrics}
    for row in pairs.itertuples():
        ref = stats.kendalltau(means[row.metric_a], means[row.metric_b])
        assert row.tau == pytest.approx(ref.statistic, abs=1e-12)
        assert row.p_exact == pytest.approx(ref.pvalue, rel=1e-9)
        assert row.lo95 <= row.lo90 <= row.hi90 <= row.hi95
        ra = rel.set_index("metric").loc[row.metric_a, "split_half_reliability"]
        rb = rel.set_index("metric").loc[row.metric_b, "split_half_reliability"]
        assert row.tau_corrected == pytest.approx(np.clip(row.tau / np.sqrt(ra * rb), -1, 1), abs=1e-12)


def test_rank_independence_verdicts(independence):
    _, _, pairs, _, summary = independence
    verdict = {(r.metric_a, r.metric_b): r.verdict for r in pairs.itertuples()}
    tau = {(r.metric_a, r.metric_b): r.tau for r in pairs.itertuples()}
    assert tau[("emotion_f1", "emotion_va")] > 0.9 and verdict[("emotion_f1", "emotion_va")] == "related"
    assert tau[("emotion_f1", "four_branch_mae")] > 0.9 and verdict[("emotion_f1", "four_branch_mae")] == "related"
    assert tau[("emotion_f1", "pairwise_acc")] < -0.9 and verdict[("emotion_f1", "pairwise_acc")] == "related"
    assert abs(tau[("emotion_f1", "binary_om_acc")]) < 0.06
    assert verdict[("emotion_f1", "binary_om_acc")] == "independent"
    for r in pairs.itertuples():  # the stated rule, row by row
        if -0.3 < r.lo90 and r.hi90 < 0.3:
            assert r.verdict == "independent"
        elif r.lo95 > 0 or r.hi95 < 0:
            assert r.verdict == "related"
        else:
            assert r.verdict == "inconclusive"
    assert summary["n_independent"] + summary["n_related"] + summary["n_inconclusive"] == summary["n_pairs"] == 10
    assert summary["n_independent"] == (pairs["verdict"] == "independent").sum()
    assert summary["median_abs_tau"] == pytest.approx(pairs["tau"].abs().median())


def test_rank_independence_summary(independence):
    study, metrics, _, _, summary = independence
    means = ranks.oriented_means(study, metrics, list(range(40)))
    assert summary["n_models"] == 40
    assert summary["kendall_w"] == pytest.approx(_textbook_w(means), abs=1e-12)
    assert summary["critical_tau"] == pytest.approx(_critical_by_enumeration(40, 0.05), abs=1e-12)
    assert 0.5 < summary["power_at_margin"] <= 1


def test_tau_b_matrix_in_blocks_gives_the_same_numbers(monkeypatch):
    """A stack of resamples too large for one block is taken in blocks: every number is the
    one-block number, bit for bit, whatever the block size and leading shape."""
    rng = np.random.default_rng(4)
    means = rng.normal(size=(2, 7, 12, 5))
    means[..., 3] = np.round(means[..., 3])  # ties
    whole = ranks.tau_b_matrix(means)
    per_matrix = 3 * 8 * 5 * (12 * 11 // 2)
    for matrices_per_block in (1, 3, 13):
        monkeypatch.setattr(ranks, "_BLOCK_BYTES", matrices_per_block * per_matrix)
        got = ranks.tau_b_matrix(means)
        assert got.shape == (2, 7, 5, 5)
        np.testing.assert_array_equal(got, whole)


@pytest.mark.parametrize("n_models", [2, 3, 5, 12, 31, 32, 45])
def test_tau_b_matrix_by_first_model_gives_the_all_pairs_numbers(monkeypatch, n_models):
    """The two ways of ``_tau_b`` (every pair at once; one first model at a time, taken from
    ``LOOP_FROM_MODELS`` models on) give the same numbers bit for bit: with ties, a metric
    that is constant in some resamples (NaN) and a NaN model mean."""
    rng = np.random.default_rng(n_models)
    means = rng.normal(size=(3, 9, n_models, 4))
    means[..., 1] = np.round(means[..., 1])  # ties
    means[0, :4, :, 2] = 1.5  # a constant metric: tau NaN against it
    means[2, 5, n_models // 2, 3] = np.nan
    results = []
    for loop_from in (n_models + 1, n_models, 0):  # all pairs, then by first model twice
        monkeypatch.setattr(ranks, "LOOP_FROM_MODELS", loop_from)
        results.append(ranks.tau_b_matrix(means))
    assert np.isnan(results[0][0, 0, 2, 0]) and np.isfinite(results[0][1, 0, 2, 0])
    assert np.isnan(results[0][2, 5]).any()
    for got in results[1:]:
        np.testing.assert_array_equal(got, results[0])


def test_tau_b_matrix_by_first_model_matches_scipy():
    """Above ``LOOP_FROM_MODELS`` models, each matrix is still scipy's tau-b (with ties)."""
    rng = np.random.default_rng(7)
    n = ranks.LOOP_FROM_MODELS + 8
    means = np.round(rng.normal(size=(5, n, 3)) * 3)  # many ties
    got = ranks.tau_b_matrix(means)
    for r in range(5):
        for a in range(3):
            for b in range(3):
                expected = stats.kendalltau(means[r, :, a], means[r, :, b], variant="b").statistic
                assert got[r, a, b] == pytest.approx(expected, abs=1e-12)


def test_too_few_models_for_the_exact_test_get_no_verdict():
    """With 3 or 4 models no tau is significant at 5% (testability.min_kendall_models): resampling
    them gives intervals that cannot vary, so no pair is called related or independent."""
    rng = np.random.default_rng(3)
    for n_models, expected in ((3, {"not testable"}), (5, None)):
        a = np.linspace(0, 1, n_models)
        values = {
            "emotion_f1": a[:, None] + rng.normal(0, 0.01, (n_models, 30)),
            "emotion_va": a[:, None] + rng.normal(0, 0.01, (n_models, 30)),
        }
        weights = cluster_weights(np.arange(30), 100, np.random.default_rng(4))
        pairs, _, summary = ranks.rank_independence(
            make_study(values), list(values), list(range(n_models)), weights, 0.3, 5, np.random.default_rng(5)
        )
        if expected is None:
            assert set(pairs["verdict"]) <= {"related", "independent", "inconclusive"}
        else:
            assert set(pairs["verdict"]) == expected and pairs["tau"].iloc[0] == pytest.approx(1.0)
            assert summary["n_related"] == summary["n_independent"] == summary["n_inconclusive"] == 0

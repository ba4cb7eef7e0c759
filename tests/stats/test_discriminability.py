"""Discriminability: weighted standard errors, reliability of model means, SNR, separated pairs,
and the log F-ratio comparison of two metrics."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from eibench.stats import discriminability as disc
from eibench.stats.bootstrap import cluster_weights

from .conftest import make_study, reference_bootstrap_p


def test_weighted_se2_is_the_se_of_the_expanded_resample():
    rng = np.random.default_rng(1)
    values = rng.normal(size=(3, 15))
    values[0, [2, 5]] = np.nan
    weights = rng.integers(0, 3, size=(25, 15)).astype(float)
    got = disc._weighted_se2(values, weights)
    for b in range(25):
        for m in range(3):
            ok = ~np.isnan(values[m])
            sample = np.repeat(values[m, ok], weights[b, ok].astype(int))
            expected = np.var(sample, ddof=1) / len(sample) if len(sample) > 1 else np.nan
            assert got[b, m] == pytest.approx(expected, rel=1e-9, abs=1e-14, nan_ok=True)


def test_weighted_se2_with_unit_weights():
    values = np.array([[1.0, 2.0, 3.0, 4.0], [1.0, np.nan, np.nan, np.nan]])
    got = disc._weighted_se2(values, np.ones((1, 4)))[0]
    assert got[0] == pytest.approx(np.var([1, 2, 3, 4], ddof=1) / 4)
    assert np.isnan(got[1])  # one value: no variance


def test_reliability_and_snr_hand_values():
    means = np.array([0.1, 0.2, 0.3])  # var (ddof 1) = 0.01
    rel, snr = disc._reliability_snr(means, np.full(3, 0.004))
    assert float(rel) == pytest.approx(0.6)  # (0.01 - 0.004) / 0.01
    assert float(snr) == pytest.approx(np.sqrt(0.006 / 0.004))
    assert float(disc.log_f(means, np.full(3, 0.004))) == pytest.approx(np.log(0.01 / 0.004))
    # More noise than spread: no true-score variance left.
    rel, snr = disc._reliability_snr(means, np.full(3, 0.02))
    assert float(rel) == 0.0 and float(snr) == 0.0
    # Vectorised over leading axes.
    rel, snr = disc._reliability_snr(np.stack([means, 2 * means]), np.full((2, 3), 0.004))
    np.testing.assert_allclose(rel, [0.6, (0.04 - 0.004) / 0.04])


@pytest.fixture(scope="module")
def separated():
    rng = np.random.default_rng(2)
    n = 80
    far = np.array([0.0, 1.0, 2.0, 3.0])[:, None] + rng.normal(0, 0.2, size=(4, n))
    same = np.repeat(rng.normal(0, 0.2, size=(1, n)), 4, axis=0)  # four identical models
    study = make_study({"emotion_f1": far, "pairwise_acc": same})
    weights = cluster_weights(np.arange(n), 300, np.random.default_rng(3))
    return study, weights


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # identical models: log(0) and all-NaN reliabilities
def test_discriminability_table(separated):
    study, weights = separated
    table, snr_boot = disc.discriminability(study, ["emotion_f1", "pairwise_acc"], [0, 1, 2, 3], weights)
    row = table.set_index("metric").loc["emotion_f1"]
    values = study.values["emotion_f1"]
    means = values.mean(axis=1)
    se2 = values.var(axis=1, ddof=1) / values.shape[1]
    expected_rel = (means.var(ddof=1) - se2.mean()) / means.var(ddof=1)
    assert row["reliability"] == pytest.approx(expected_rel, rel=1e-9)
    assert row["snr"] == pytest.approx(np.sqrt(means.var(ddof=1) - se2.mean()) / np.sqrt(se2.mean()), rel=1e-9)
    assert row["reliability_lo"] <= row["reliability"] <= row["reliability_hi"] <= 1
    assert row["pairs"] == comb(4, 2) and row["pairs_separated"] == 6 and row["share_pairs_separated"] == 1.0
    same = table.set_index("metric").loc["pairwise_acc"]
    assert same["pairs_separated"] == 0 and same["share_pairs_separated"] == 0.0
    assert snr_boot["emotion_f1"].shape == (len(weights),)
    # The per-resample log F of the far-apart models lies far above that of identical models.
    assert np.all(snr_boot["emotion_f1"] > 3)


def test_pairs_false_skips_the_pairwise_tests(separated):
    study, weights = separated
    table, _ = disc.discriminability(study, ["emotion_f1"], [0, 1, 2, 3], weights, pairs=False)
    assert table["pairs"].iloc[0] == 0 and np.isnan(table["share_pairs_separated"].iloc[0])


def test_a_pair_is_separated_only_when_its_holm_adjusted_bootstrap_p_is_small():
    rng = np.random.default_rng(4)
    n = 60
    base = rng.normal(0, 1, size=n)
    # Model 1 = model 0 + 1 (always separated); model 2 = model 0 +- 0.001, mean difference 0 (never).
    values = np.vstack([base, base + 1.0, base + 1e-3 * (-1.0) ** np.arange(n)])
    study = make_study({"emotion_f1": values})
    weights = cluster_weights(np.arange(n), 200, np.random.default_rng(5))
    table, _ = disc.discriminability(study, ["emotion_f1"], [0, 1, 2], weights)
    assert table["pairs_separated"].iloc[0] == 2  # (0, 1) and (1, 2); not (0, 2)


def test_compare_is_the_median_log_f_difference():
    rng = np.random.default_rng(6)
    a, b = rng.normal(1.0, 0.3, size=500), rng.normal(0.0, 0.3, size=500)
    out = disc.compare({"x": a, "y": b}, "x", "y")
    d = a - b
    assert out["difference"] == pytest.approx(np.median(d))
    assert out["f_ratio"] == pytest.approx(np.exp(np.median(d)))
    assert (out["lo"], out["hi"]) == pytest.approx(tuple(np.quantile(d, [0.025, 0.975])))
    assert out["p_boot"] == pytest.approx(reference_bootstrap_p(d))
    back = disc.compare({"x": a, "y": b}, "y", "x")
    assert back["difference"] == pytest.approx(-out["difference"])
    assert back["p_boot"] == out["p_boot"]
    assert (back["lo"], back["hi"]) == pytest.approx((-out["hi"], -out["lo"]))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_a_model_without_values_of_the_metric_does_not_break_the_table():
    rng = np.random.default_rng(7)
    values = np.vstack([rng.normal(0, 1, 30), rng.normal(3, 1, 30), np.full(30, np.nan)])
    study = make_study({"draft_judge": values})
    weights = cluster_weights(np.arange(30), 100, np.random.default_rng(8))
    table, _ = disc.discriminability(study, ["draft_judge"], [0, 1, 2], weights)
    assert table["pairs_separated"].iloc[0] == 1  # the one testable pair, far apart


@pytest.mark.parametrize("seed", range(4))
def test_reliability_is_pingouins_icc_1k_on_complete_data(seed):
    """With every model scored on every conversation, the reliability of the model means is the
    one-way ICC(1,k) with models as targets and conversations as raters (kept vectorised here
    because it is recomputed in every resample)."""
    import pandas as pd
    import pingouin

    rng = np.random.default_rng(seed)
    n_models, n = 7, 40
    values = rng.normal(size=(n_models, 1)) * 0.6 + rng.normal(size=(n_models, n))
    study = make_study({"composite": values})
    weights = cluster_weights(np.arange(n), 20, np.random.default_rng(seed))
    table, _ = disc.discriminability(study, ["composite"], list(range(n_models)), weights, pairs=False)
    long = pd.DataFrame(
        {
            "model": np.repeat(np.arange(n_models), n),
            "conversation": np.tile(np.arange(n), n_models),
            "v": values.ravel(),
        }
    )
    icc = pingouin.intraclass_corr(long, targets="model", raters="conversation", ratings="v").set_index("Type")
    expected = float(icc.loc["ICC(1,k)", "ICC"])
    assert expected > 0  # the reliability is truncated at 0, the ICC is not
    assert float(table["reliability"].iloc[0]) == pytest.approx(expected, abs=1e-9)


def test_pairwise_resamples_resolve_holm_over_the_pairs():
    """11 models: 55 pairs, so a p of 0 (below 2 / B) needs B >= 2,200 for Holm's first step to
    reach 0.05, and the rule takes twice that; 3 models need no more than n_bootstrap."""
    assert disc.pairwise_resamples(11, 0.05, 2000) == 4400
    assert disc.pairwise_resamples(3, 0.05, 2000) == 2000
    assert disc.pairwise_resamples(11, 0.05, 10_000) == 10_000


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_a_separation_the_resamples_cannot_resolve_is_not_counted(separated):
    """Four models far apart: every pair's bootstrap p is 0. With 20 resamples a p of 0 only says
    p < 0.1, and Holm over the 6 pairs bounds the first at 0.6: none is counted separated, all 6
    are unresolved; on the pairwise test's own 4 x 6 / 0.05 = 480 resamples all 6 are separated."""
    study, weights = separated
    few = cluster_weights(np.arange(weights.shape[1]), 20, np.random.default_rng(3))
    table, _ = disc.discriminability(study, ["emotion_f1"], [0, 1, 2, 3], weights, pair_weights=few)
    row = table.iloc[0]
    assert row["pairs_separated"] == 0 and row["pairs_unresolved"] == 6 and row["pair_resamples"] == 20
    enough = cluster_weights(
        np.arange(weights.shape[1]), disc.pairwise_resamples(4, 0.05, 20), np.random.default_rng(3)
    )
    table, _ = disc.discriminability(study, ["emotion_f1"], [0, 1, 2, 3], weights, pair_weights=enough)
    assert table.iloc[0]["pairs_separated"] == 6 and table.iloc[0]["pairs_unresolved"] == 0

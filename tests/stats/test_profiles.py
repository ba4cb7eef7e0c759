"""Turn-level against whole-conversation profiles."""

from __future__ import annotations

import numpy as np
import pytest
from eibench.stats import profiles
from eibench.stats.bootstrap import cluster_weights
from scipy import stats

from .conftest import make_study, reference_bootstrap_p


def _study(turn_means, holistic_means, n=50, noise=0.01, seed=0):
    rng = np.random.default_rng(seed)
    turn = np.asarray(turn_means, float)[:, None] + rng.normal(0, noise, size=(len(turn_means), n))
    return make_study(
        {
            "tracking": turn + rng.normal(0, noise, size=turn.shape),
            "evaluation": turn,
            "holistic": np.asarray(holistic_means, float)[:, None] + rng.normal(0, noise, size=(len(turn_means), n)),
        },
        models=[f"m{i}" for i in range(len(turn_means))],
    )


def test_turn_level_weights_tracking_and_evaluation():
    study = make_study(
        {"tracking": np.array([[1.0, 0.0]]), "evaluation": np.array([[0.0, 1.0]]), "holistic": np.zeros((1, 2))}
    )
    np.testing.assert_allclose(profiles.turn_level(study), [[0.24 / 0.73, 0.49 / 0.73]])


def test_reversed_profiles_flip_every_pair_clearly():
    study = _study([0.9, 0.6, 0.3], [0.2, 0.5, 0.8])
    weights = cluster_weights(np.arange(50), 200, np.random.default_rng(1))
    flips, summary = profiles.profiles(study, [0, 1, 2], weights)
    assert summary["tau"] == pytest.approx(-1.0)
    assert summary["hi"] == pytest.approx(-1.0)
    assert summary["n_flips"] == 3 and summary["n_clear_flips"] == 3
    first = flips.iloc[0]
    assert (first["better_per_turn"], first["better_on_conversation"]) == ("m0", "m1")
    assert first["turn_gap"] == pytest.approx(0.3, abs=0.02) and first["conversation_gap"] == pytest.approx(
        0.3, abs=0.02
    )


def test_concordant_profiles_have_no_flip():
    study = _study([0.9, 0.6, 0.3, 0.1], [0.8, 0.5, 0.2, 0.1])
    weights = cluster_weights(np.arange(50), 100, np.random.default_rng(2))
    flips, summary = profiles.profiles(study, [0, 1, 2, 3], weights)
    assert summary["tau"] == pytest.approx(1.0) and summary["lo"] == pytest.approx(1.0)
    assert summary["n_flips"] == 0 and summary["n_clear_flips"] == 0 and len(flips) == 0


def test_a_flip_within_the_noise_is_not_clear():
    # Models 0 and 1 swap by 0.001 on a noise of 0.2: a flip, not a clear one.
    study = _study([0.5, 0.499, 0.1], [0.499, 0.5, 0.05], noise=0.2, seed=3)
    weights = cluster_weights(np.arange(50), 200, np.random.default_rng(4))
    flips, summary = profiles.profiles(study, [0, 1, 2], weights)
    turn = profiles.turn_level(study)
    mt, mc = turn.mean(axis=1), study.values["holistic"].mean(axis=1)
    expected = sum((mt[a] - mt[b]) * (mc[a] - mc[b]) < 0 for a, b in ((0, 1), (0, 2), (1, 2)))
    assert summary["n_flips"] == expected == len(flips) == 1
    assert summary["n_clear_flips"] == 0
    assert summary["tau"] == pytest.approx(stats.kendalltau(mt, mc).statistic)
    # The flip's p-value: the larger of the two paired bootstrap p-values (intersection-union),
    # then Holm over all three pairs of models (the two pairs that did not flip count as p = 1).
    conv = study.values["holistic"]
    bt = (weights @ turn.T) / weights.sum(axis=1, keepdims=True)
    bc = (weights @ conv.T) / weights.sum(axis=1, keepdims=True)
    expected_p = max(reference_bootstrap_p(bt[:, 0] - bt[:, 1]), reference_bootstrap_p(bc[:, 0] - bc[:, 1]))
    assert flips["p_flip"].iloc[0] == pytest.approx(expected_p)
    assert flips["p_holm"].iloc[0] == pytest.approx(min(1.0, 3 * expected_p))
    assert summary["lo"] <= summary["tau"] <= summary["hi"]


def test_a_missing_pillar_gives_no_flip_and_no_count():
    """NaN conversation-level means (a cohort without the holistic annotations) flip nothing:
    NaN signs are no change of order, and the counts are missing, not 0 or 3."""
    study = _study([0.9, 0.6, 0.3], [0.2, 0.5, 0.8])
    study.values["holistic"][:] = np.nan
    weights = cluster_weights(np.arange(50), 50, np.random.default_rng(1))
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        flips, summary = profiles.profiles(study, [0, 1, 2], weights)
    assert len(flips) == 0
    assert summary["n_flips"] is None and summary["n_clear_flips"] is None and np.isnan(summary["tau"])
    assert summary["n_models"] == 0  # no model has both pillars


def test_a_flip_that_only_a_p_of_0_read_as_0_makes_significant_is_not_clear():
    """The default build printed 20 clear flips of 55 pairs on 2,000 resamples, 18 of them with
    a bootstrap p of 0: Holm's first factor is the number of pairs, and 55 x 2 / 2,000 = 0.055
    is above alpha, so no flip was resolvable. A flip is clear only when Holm with every p of 0
    raised to 2 / resamples is at most alpha; the pairwise tests take their own resamples."""
    study = _study([0.9, 0.7, 0.5, 0.3, 0.1], [0.1, 0.3, 0.5, 0.7, 0.9])  # 10 pairs, all flipped
    few = cluster_weights(np.arange(50), 100, np.random.default_rng(5))  # bound 10 x 0.02 = 0.2
    flips, summary = profiles.profiles(study, list(range(5)), few)
    assert (flips["p_flip"] == 0).all() and (flips["p_holm"] == 0).all()
    assert summary["n_flips"] == 10 and summary["n_clear_flips"] == 0 and summary["n_unresolved_flips"] == 10
    assert summary["n_models"] == 5
    np.testing.assert_allclose(flips["p_holm_bound"], 10 * 2 / 100)
    assert summary["flip_resamples"] == 100
    many = cluster_weights(np.arange(50), 1000, np.random.default_rng(6))  # bound 10 x 0.002 = 0.02
    flips, summary = profiles.profiles(study, list(range(5)), few, pair_weights=many)
    assert summary["n_clear_flips"] == 10 and summary["n_unresolved_flips"] == 0
    assert summary["flip_resamples"] == 1000
    # tau and its interval stay on the analysis's resamples
    _, alone = profiles.profiles(study, list(range(5)), few)
    assert (summary["tau"], summary["lo"], summary["hi"]) == (alone["tau"], alone["lo"], alone["hi"])

"""reml.fit_many against statsmodels' MixedLM (REML, random intercept), and its edge cases."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from eibench.stats import mixed, reml


def _data(seed: int, S: int = 6, N: int = 150, G: int = 11):
    rng = np.random.default_rng(seed)
    group = rng.integers(0, G, N)
    diag = (group < G // 2).astype(float)
    turns = rng.integers(3, 16, N).astype(float)
    category = rng.integers(0, 3, N)
    X = np.column_stack([np.ones(N), diag, category == 1, category == 2, turns]).astype(float)
    Y = 0.5 + 0.05 * diag + rng.normal(0, 0.04, (S, G))[:, group] + rng.normal(0, 0.05, (S, N))
    frame = pd.DataFrame({"participant": group, "diagnosed": diag, "category": category, "n_turns": turns})
    return X, group, Y, frame


@pytest.mark.parametrize("seed", [0, 1])
def test_fit_many_agrees_with_statsmodels(seed):
    X, group, Y, frame = _data(seed)
    fit = reml.fit_many(X, group, Y, term=1)
    for s in range(len(Y)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result, c = mixed.fit("y ~ diagnosed + C(category) + n_turns", frame.assign(y=Y[s]), "diagnosed")
        if result is None:  # statsmodels failed; fit_many has no optimiser to fail
            continue
        # The same REML optimum (statsmodels stops its optimiser at about 1e-7) ...
        assert fit["estimate"][s] == pytest.approx(c.estimate, abs=1e-6)
        gamma = float(np.asarray(result.cov_re).ravel()[0] / result.scale)
        assert fit["gamma"][s] == pytest.approx(gamma, rel=1e-3)
        # ... and standard errors from the expected instead of the observed information.
        assert fit["se"][s] == pytest.approx(c.se, rel=1e-3)
        assert fit["p_value"][s] == pytest.approx(c.p_value, rel=2e-2, abs=1e-6)
        assert fit["lo"][s] < fit["estimate"][s] < fit["hi"][s]


def test_fit_many_reports_a_boundary_fit_as_nan():
    rng = np.random.default_rng(3)
    N = 120
    group = np.arange(N) % 10
    X = np.column_stack([np.ones(N), (group < 5).astype(float)])
    Y = rng.normal(0, 1, (1, N)) - rng.normal(0, 1, (1, N)).mean()  # no group effect at all ...
    Y[0] -= np.bincount(group, Y[0])[group] / 12  # ... and every group mean removed: gamma is 0
    fit = reml.fit_many(X, group, Y, term=1)
    assert fit["gamma"][0] <= mixed.BOUNDARY_RATIO
    assert np.isnan(fit["estimate"][0]) and np.isnan(fit["p_value"][0])


def test_fit_many_without_two_groups_or_with_a_rank_deficient_design_is_nan():
    X, group, Y, _ = _data(4, S=2)
    assert np.isnan(reml.fit_many(X, np.zeros_like(group), Y, term=1)["estimate"]).all()
    deficient = np.column_stack([X, X[:, 1]])
    assert np.isnan(reml.fit_many(deficient, group, Y, term=1)["estimate"]).all()


def test_fit_many_row_by_row_equals_all_at_once():
    X, group, Y, _ = _data(5)
    together = reml.fit_many(X, group, Y, term=1)
    for s in range(len(Y)):
        alone = reml.fit_many(X, group, Y[s : s + 1], term=1)
        # The last bits of a batched sum depend on the batch size; the optimum moves by less
        # than the criterion's flatness allows to resolve (about 1e-9 in log gamma).
        assert alone["estimate"][0] == pytest.approx(together["estimate"][s], abs=1e-7)


def test_between_within_df_of_a_participant_level_and_a_within_participant_term():
    X, group, _, _ = _data(0)
    # The diagnosis is constant within a participant: 11 participants - intercept - diagnosis.
    assert reml.between_within_df(X, group, term=1) == 9
    # The number of turns varies within: N - participants - (categories, turns).
    assert reml.between_within_df(X, group, term=4) == len(X) - 11 - 3


def test_the_diagnosis_interval_covers_its_planted_value_at_the_nominal_level():
    """With 11 participants (6 diagnosed) the diagnosis effect has 9 between-participant degrees
    of freedom; a normal-reference Wald interval covers the planted effect in about 92% of
    simulated studies, the t interval in 95% (the validation by simulation and the operating
    characteristics both read this interval)."""
    from eibench.stats.simulation import Generator
    from eibench.stats.simulation_batch import _design, _diagnosis, draw

    g = Generator(diagnosis=(("emotion", -0.08),))
    design = _design(g, np.random.default_rng(1))
    covered, n = 0, 0
    for start in range(0, 3000, 100):
        rngs = [np.random.default_rng([7, k]) for k in range(start, start + 100)]
        batch = draw(g, rngs, design=design)
        fit = _diagnosis(batch, batch.values["emotion_f1"][:, : g.n_models].mean(axis=1), rngs)
        ok = np.isfinite(fit["lo_diagnosis"])
        covered += int(((fit["lo_diagnosis"] <= -0.08) & (-0.08 <= fit["hi_diagnosis"]))[ok].sum())
        n += int(ok.sum())
    # 3000 studies: the coverage's standard error is about 0.004.
    assert 0.94 <= covered / n <= 0.96

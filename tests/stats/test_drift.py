"""Turn drift: weighted slopes, position bins, late - early contrasts and Page's trend test."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from eibench.stats import drift
from eibench.stats import simulation as sim
from eibench.stats.bootstrap import cluster_weights
from scipy import stats

from .conftest import make_study


def test_weighted_slope_equals_least_squares_on_the_expanded_sample():
    rng = np.random.default_rng(1)
    x, y = rng.uniform(size=30), rng.normal(size=30)
    w = rng.integers(0, 3, size=(20, 30)).astype(float)
    got = drift._weighted_slope(x, y, w)
    for b in range(20):
        reps = w[b].astype(int)
        assert got[b] == pytest.approx(stats.linregress(np.repeat(x, reps), np.repeat(y, reps)).slope, rel=1e-9)
    assert drift._weighted_slope(x, 2 * x + 1, np.ones((1, 30)))[0] == pytest.approx(2.0)
    assert np.isnan(drift._weighted_slope(np.ones(5), np.arange(5.0), np.ones((1, 5)))[0])  # no spread in x


def test_bins_are_thirds_of_the_relative_position():
    rel = np.array([0.0, 0.2, 1 / 3, 0.34, 0.5, 2 / 3, 0.67, 1.0])
    np.testing.assert_array_equal(drift._bin(rel), [0, 0, 0, 1, 1, 1, 2, 2])
    # Four turns: positions 0, 1/3, 2/3, 1 -> early, early, middle, late.
    np.testing.assert_array_equal(drift._bin(np.arange(4) / 3), [0, 0, 1, 2])


def test_bin_contrast_is_late_minus_early_weighted_means():
    y = np.array([1.0, 3.0, 10.0, 20.0, 40.0])
    b = np.array([0, 0, 1, 2, 2])
    w = np.array([[1.0, 1.0, 1.0, 1.0, 1.0], [3.0, 1.0, 0.0, 0.0, 2.0], [0.0, 0.0, 1.0, 1.0, 1.0]])
    got = drift._bin_contrast(y, b, np.arange(5), w)  # each turn its own conversation
    np.testing.assert_allclose(got[:2], [30.0 - 2.0, 40.0 - 1.5])
    assert np.isnan(got[2])  # no early turn drawn
    # Turns of one conversation share its weight: conversations (0, 1), (2), (3, 4).
    conv_w = np.array([[1.0, 1.0, 1.0], [2.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    got = drift._bin_contrast(y, b, np.array([0, 0, 1, 2, 2]), conv_w)
    np.testing.assert_allclose(got[:2], [30.0 - 2.0, 30.0 - 2.0])
    assert np.isnan(got[2])


def test_bootstrap_slopes_equal_the_slopes_of_turn_weights():
    """Per-conversation sums give the slopes of the [B, n_turns] weights they replace."""
    rng = np.random.default_rng(3)
    turns = rng.integers(3, 16, 60)
    c = np.repeat(np.arange(60), turns)
    x = np.concatenate([np.arange(t) / (t - 1) for t in turns])
    y = rng.random(len(x))
    w = rng.multinomial(60, np.full(60, 1 / 60), size=200).astype(float)
    np.testing.assert_allclose(
        drift._bootstrap_slopes(x, y, c, w), drift._weighted_slope(x, y, w[:, c]), rtol=1e-12, atol=1e-14
    )
    np.testing.assert_allclose(
        drift._bin_contrast(y, drift._bin(x), c, w),
        drift._bin_contrast(y, drift._bin(x), np.arange(len(x)), w[:, c]),
        rtol=1e-12,
    )


def _bin_means_by_pandas(turns: pd.DataFrame, metric: str, names: list[str]) -> np.ndarray:
    t = turns[turns["em_model"].isin(names) & turns[metric].notna()]
    bins = pd.cut(t["rel_position"], [-np.inf, 1 / 3, 2 / 3, np.inf], labels=["early", "middle", "late"])
    table = t.groupby([t["em_model"], bins], observed=False)[metric].mean().unstack()
    return table.loc[names, ["early", "middle", "late"]].to_numpy()


def _page_l(data: np.ndarray, predicted: list[int]) -> float:
    ranks = np.apply_along_axis(stats.rankdata, 1, data)
    return float(np.sum(ranks * np.array(predicted)))


@pytest.fixture(scope="module")
def drifting():
    planted = -0.3
    g = sim.Generator(n_conversations=60, n_models=6, n_humans=0, drift=(("behaviour", planted),))
    study, _ = sim.simulate(g, np.random.default_rng(5))
    models = study.with_role("model")
    weights = cluster_weights(np.arange(study.n_conversations), 300, np.random.default_rng(6))
    table, page = drift.turn_drift(study, "binary_om_acc", models, weights)
    return planted, study, models, weights, table, page


def test_drift_slope_recovers_the_planted_decline(drifting):
    planted, study, models, _, table, page = drifting
    assert len(table) == len(models) + 1 and table["em_model"].iloc[-1] == "all compared models"
    pooled = table.iloc[-1]
    assert pooled["slope_lo"] <= planted <= pooled["slope_hi"] < 0
    assert pooled["p_slope"] < 0.01
    assert (table["slope"] < 0).all()
    assert page["slope"] == pooled["slope"]
    # The pooled slope is the least-squares slope over every turn of the evaluated models.
    t = study.turns[study.turns["em_model"].isin([study.models[m] for m in models])]
    assert pooled["slope"] == pytest.approx(stats.linregress(t["rel_position"], t["binary_om_acc"]).slope, rel=1e-9)
    assert pooled["n_turns"] == len(t)
    assert tuple(table.columns) == drift.DRIFT_COLUMNS and tuple(page) == drift.PAGE_COLUMNS
    for row in table.iloc[:-1].itertuples():
        own = t[t["em_model"] == row.em_model]
        assert row.slope == pytest.approx(stats.linregress(own["rel_position"], own["binary_om_acc"]).slope, rel=1e-9)


def test_bin_means_and_late_minus_early(drifting):
    _, study, models, _, table, page = drifting
    names = [study.models[m] for m in models]
    expected = _bin_means_by_pandas(study.turns, "binary_om_acc", names)
    np.testing.assert_allclose(table.iloc[:-1][["mean_early", "mean_middle", "mean_late"]].to_numpy(), expected)
    np.testing.assert_allclose(table["late_minus_early"], table["mean_late"] - table["mean_early"])
    assert (table["late_early_lo"] <= table["late_minus_early"]).all()
    assert (table["late_minus_early"] <= table["late_early_hi"]).all()
    # Planted -0.3 over r in [0, 1]: late (r > 2/3) minus early (r <= 1/3) is about -0.2.
    assert page["late_early_lo"] <= -0.2 <= page["late_early_hi"] < 0


def test_page_test_matches_scipy_on_independently_computed_bin_means(drifting):
    _, study, models, _, _, page = drifting
    data = _bin_means_by_pandas(study.turns, "binary_om_acc", [study.models[m] for m in models])
    down = stats.page_trend_test(data, predicted_ranks=[3, 2, 1])
    up = stats.page_trend_test(data, predicted_ranks=[1, 2, 3])
    assert page["n_blocks"] == len(models)
    assert page["L"] == pytest.approx(down.statistic) == pytest.approx(_page_l(data, [3, 2, 1]))
    assert page["p_decreasing"] == pytest.approx(down.pvalue, rel=1e-12)
    assert page["p_increasing"] == pytest.approx(up.pvalue, rel=1e-12)
    assert page["p_decreasing"] < 0.01 < 0.9 < page["p_increasing"]


def test_page_test_hand_case_of_a_perfect_decline():
    # Three models, each with turn values 3, 2, 1 at early/middle/late positions.
    rows = []
    for name in ("a", "b", "c"):
        for cid, shift in (("c000", 0.0), ("c001", 0.1)):
            for rel, value in ((0.0, 3.0), (0.5, 2.0), (1.0, 1.0)):
                rows.append((name, cid, rel, value + shift))
    turns = pd.DataFrame(rows, columns=["em_model", "conversation_id", "rel_position", "emotion_f1"])
    study = make_study({"emotion_f1": np.zeros((3, 2))}, models=["a", "b", "c"], turns=turns)
    table, page = drift.turn_drift(study, "emotion_f1", [0, 1, 2], np.ones((5, 2)))
    # L = sum over blocks of sum_j predicted_j x rank_j = 3 x (3 x 3 + 2 x 2 + 1 x 1) = 42, the maximum.
    assert page["L"] == 42.0
    assert page["p_decreasing"] == pytest.approx(
        stats.page_trend_test([[3, 2, 1]] * 3, predicted_ranks=[3, 2, 1]).pvalue
    )
    assert page["p_decreasing"] == pytest.approx(1 / 6**3)  # the one most extreme of 6^3 equally likely rankings
    assert page["slope"] == pytest.approx(-2.0)
    assert page["late_minus_early"] == pytest.approx(-2.0)


def test_page_test_needs_two_models_with_all_three_bins():
    turns = pd.DataFrame(
        {
            "em_model": ["a"] * 3,
            "conversation_id": ["c000"] * 3,
            "rel_position": [0.0, 0.5, 1.0],
            "emotion_f1": [0.1, 0.2, 0.3],
        }
    )
    study = make_study({"emotion_f1": np.zeros((1, 1))}, models=["a"], turns=turns)
    _, page = drift.turn_drift(study, "emotion_f1", [0], np.ones((3, 1)))
    assert page["n_blocks"] == 1 and np.isnan(page["L"]) and np.isnan(page["p_decreasing"])
    assert page["slope"] == pytest.approx(0.2)


def test_a_metric_without_turn_values_has_no_drift_to_draw(drifting):
    """A metric whose annotation kind the cohort lacks is NaN at every turn, and so in every
    conversation: rule stats_drift asks ``Study.defined`` and leaves it out (unless a claim
    names it) rather than drawing an empty panel."""
    _, study, models, _, _, _ = drifting
    assert study.defined("binary_om_acc", models)
    study.values["pairwise_acc_absent"] = np.full_like(study.values["binary_om_acc"], np.nan)
    try:
        assert not study.defined("pairwise_acc_absent", models)
        assert not study.defined("no_such_metric", models)
        assert not study.defined("binary_om_acc", [])
    finally:
        del study.values["pairwise_acc_absent"]


def test_a_metric_without_turn_values_computes_nothing_and_warns_nothing():
    """A claim names emotion F1 (C4b), so rule stats_drift analyses it even in a cohort without
    emotion annotations (ESConv's chats): every number is NaN, its turns are counted 0 in both
    records (the paper counts the metrics with values by them), and no empty mean or all-NaN
    resample set is computed (numpy's "invalid value in divide" and "All-NaN slice" warnings)."""
    turns = pd.DataFrame(
        {
            "em_model": ["a", "a", "b", "b"],
            "conversation_id": ["c000", "c001"] * 2,
            "rel_position": [0.0, 1.0] * 2,
            "emotion_f1": [np.nan] * 4,
        }
    )
    study = make_study({"emotion_f1": np.full((2, 2), np.nan)}, models=["a", "b"], turns=turns)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table, page = drift.turn_drift(study, "emotion_f1", [0, 1], np.ones((5, 2)))
    assert table["n_turns"].tolist() == [0, 0, 0] and page["n_turns"] == 0 and page["n_blocks"] == 0
    numbers = [c for c in drift.DRIFT_COLUMNS if c not in ("metric", "em_model", "n_turns")]
    assert table[numbers].isna().all().all()
    assert all(np.isnan(page[k]) for k in drift.PAGE_COLUMNS if k not in ("metric", "n_blocks", "n_turns"))
    assert tuple(page) == drift.PAGE_COLUMNS


def test_the_page_record_counts_the_pooled_turns(drifting):
    _, _, models, _, table, page = drifting
    assert page["n_turns"] == table["n_turns"].iloc[-1] == table["n_turns"].iloc[:-1].sum() > 0


def test_a_resample_without_any_turn_has_no_slope_and_no_warning():
    x, y = np.array([0.0, 0.5, 1.0]), np.array([1.0, 2.0, 3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = drift._weighted_slope(x, y, np.array([[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]))
    assert got[0] == pytest.approx(2.0) and np.isnan(got[1])

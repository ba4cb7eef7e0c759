"""Intervals of model means, paired differences and rank intervals."""

from __future__ import annotations

import numpy as np
import pytest
from eibench.stats import uncertainty
from eibench.stats.bootstrap import cluster_weights

from .conftest import make_study, reference_bootstrap_p


@pytest.fixture(scope="module")
def setting():
    rng = np.random.default_rng(1)
    n = 30
    values = np.array([0.2, 0.5, 0.5, 0.8])[:, None] + rng.normal(0, 0.1, size=(4, n))
    values[1, :5] = np.nan
    study = make_study(
        {"emotion_f1": values, "four_branch_mae": 6 * (1 - values)},
        models=["a", "b", "c", "h"],
        roles={"a": "model", "b": "model", "c": "model", "h": "human"},
    )
    weights = cluster_weights(np.arange(n), 300, np.random.default_rng(2))
    return study, values, weights


def _loop_boot_means(x, weights):
    ok = ~np.isnan(x)
    return np.array([np.sum(w[ok] * x[ok]) / np.sum(w[ok]) for w in weights])


def test_model_intervals(setting):
    study, values, weights = setting
    table = uncertainty.model_intervals(study, ["emotion_f1"], weights, 0.9)
    assert list(table["em_model"]) == ["a", "b", "c", "h"] and list(table["role"]) == ["model"] * 3 + ["human"]
    for i, row in enumerate(table.itertuples()):
        x = values[i]
        boot = _loop_boot_means(x, weights)
        assert row.estimate == pytest.approx(np.nanmean(x))
        assert row.n_conversations == np.isfinite(x).sum()
        assert row.se == pytest.approx(np.std(boot, ddof=1))
        assert (row.lo, row.hi) == pytest.approx(tuple(np.quantile(boot, [0.05, 0.95])))
        assert row.lo < row.estimate < row.hi


def test_paired_differences_use_conversations_both_models_answered(setting):
    study, values, weights = setting
    table = uncertainty.paired_differences(study, ["emotion_f1"], weights, [0, 1, 2])
    assert [(r.model_a, r.model_b) for r in table.itertuples()] == [("a", "b"), ("a", "c"), ("b", "c")]
    ab = table.iloc[0]
    assert ab["n_conversations"] == 25
    assert ab["difference"] == pytest.approx(np.mean(values[0, 5:] - values[1, 5:]))
    boot = _loop_boot_means(values[0] - values[1], weights)
    assert (ab["lo"], ab["hi"]) == pytest.approx(tuple(np.quantile(boot, [0.025, 0.975])))
    assert ab["p_boot"] == pytest.approx(reference_bootstrap_p(boot))
    assert ab["hi"] < 0 and ab["p_boot"] == 0.0  # 0.2 against 0.5: every resample below 0
    # Swapping the order negates the difference and mirrors the interval; p is unchanged.
    back = uncertainty.paired_differences(study, ["emotion_f1"], weights, [1, 0]).iloc[0]
    assert back["difference"] == pytest.approx(-ab["difference"])
    assert (back["lo"], back["hi"]) == pytest.approx((-ab["hi"], -ab["lo"]))
    assert back["p_boot"] == ab["p_boot"]
    bc = table.iloc[2]
    assert bc["lo"] < 0 < bc["hi"] and bc["p_boot"] > 0.05  # equal true means


def test_rank_intervals_with_a_lower_is_better_metric(setting):
    study, _, weights = setting
    table = uncertainty.rank_intervals(study, ["emotion_f1", "four_branch_mae"], weights, [0, 1, 2, 3])
    for metric in ("emotion_f1", "four_branch_mae"):
        t = table[table["metric"] == metric].set_index("em_model")
        # Same ranking either way: h best, a worst; b and c between.
        assert t.loc["h", "rank"] == 1 and t.loc["a", "rank"] == 4
        assert set(t.loc[["b", "c"], "rank"]) == {2.0, 3.0}
        assert t.loc["h", "rank_lo"] == 1 and t.loc["h", "rank_hi"] == 1
        assert t.loc["b", "rank_lo"] == 2 and t.loc["b", "rank_hi"] == 3
        assert ((t["rank_lo"] <= t["rank"]) & (t["rank"] <= t["rank_hi"])).all()
        assert ((t["rank_lo"] >= 1) & (t["rank_hi"] <= 4)).all()


def test_rank_of_tied_models_is_the_average():
    values = np.array([[0.5] * 4, [0.5] * 4, [0.9] * 4])
    study = make_study({"emotion_f1": values})
    table = uncertainty.rank_intervals(study, ["emotion_f1"], np.ones((3, 4)), [0, 1, 2])
    assert list(table["rank"]) == [2.5, 2.5, 1.0]


def test_intervals_are_of_the_cohorts_principal_metrics():
    """intervals.csv (rule stats_uncertainty) holds the configured principal metrics, which the
    capability profiles draw, not the registry's; the registry's only without a configured list."""
    from eibench.metrics.registry import PRINCIPAL
    from eibench.stats.load import principal_metrics

    esconv = {"principal_metrics": ["binary_om_acc", "panas_items_adjusted", "post_chat_ratings"]}
    assert principal_metrics(esconv) == esconv["principal_metrics"]
    assert principal_metrics({}) == principal_metrics(None) == list(PRINCIPAL)
    metrics = uncertainty.interval_metrics(principal_metrics(esconv))
    assert metrics == [
        "composite",
        "composite_equal",
        "tracking",
        "evaluation",
        "holistic",
        "binary_om_acc",
        "panas_items_adjusted",
        "post_chat_ratings",
        "binary_om_acc_pw",
        "binary_hp_acc_pw",
        "perspective_gap",
    ]
    assert "emotion_f1" not in metrics
    assert uncertainty.interval_metrics(["composite", "emotion_f1"]).count("composite") == 1

"""Two-stage resampling, the scheme table, adjacent pairs, weight sensitivity, the reliability
curve and the breakdowns (rule stats_resampling)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from eibench.metrics.composite import PILLAR_WEIGHTS
from eibench.stats.bootstrap import SCHEMES, cluster_weights, two_stage_weights
from eibench.stats.breakdowns import breakdown
from eibench.stats.ranks import reliability_curve
from eibench.stats.uncertainty import adjacent_pairs, scheme_table, sd_interval_factors
from eibench.stats.weights import composites, rank_stability

from .conftest import make_study


def _rng(seed=0):
    return np.random.default_rng(seed)


def test_two_stage_draws_whole_participants_then_their_conversations():
    cluster = np.array([0, 0, 0, 1, 1, 2])
    w = two_stage_weights(cluster, 3000, _rng())
    # Each participant is drawn once per resample on average, each copy bringing as many
    # conversations as the participant has: expected weight 1 per conversation.
    assert np.allclose(w.mean(axis=0), 1.0, atol=0.06)
    # A participant's conversations total copies x n_p: a multiple of its size.
    assert np.all(w[:, :3].sum(axis=1) % 3 == 0) and np.all(w[:, 3:5].sum(axis=1) % 2 == 0)
    # The second stage varies the weights inside a participant (one-stage clusters never do).
    assert np.any(w[:, 0] != w[:, 1])
    assert np.all(cluster_weights(cluster, 50, _rng())[:, 0] == cluster_weights(cluster, 50, _rng())[:, 1])


def test_two_stage_gives_code_minus_one_a_participant_of_its_own_and_is_seeded():
    cluster = np.array([-1, -1, 0, 0])
    a, b = two_stage_weights(cluster, 200, _rng(3)), two_stage_weights(cluster, 200, _rng(3))
    assert np.array_equal(a, b)
    assert set(np.unique(a[:, 0])) <= set(range(5))
    assert np.all(a[:, 2:].sum(axis=1) % 2 == 0)
    assert two_stage_weights(np.array([], dtype=int), 4, _rng()).shape == (4, 0)


def test_two_stage_widens_the_interval_when_participants_differ():
    rng = _rng(1)
    participant = np.repeat(np.arange(10), 20)
    values = (rng.normal(0, 1, 10)[participant] + rng.normal(0, 0.3, 200))[None, :]
    study = make_study({"composite": values}, participant=participant)
    weights = {s: SCHEMES[s](participant, 2000, _rng(2)) for s in ("conversation", "two_stage")}
    t = scheme_table(study, "composite", [0], weights).set_index("scheme")
    assert t.loc["two_stage", "width"] > 2 * t.loc["conversation", "width"]
    assert t.loc["two_stage", "estimate"] == pytest.approx(values.mean())


def test_scheme_table_ranks_models_only_and_keeps_human_n():
    values = np.array([[3.0] * 6, [2.0] * 6, [9.0, 9.0, np.nan, np.nan, np.nan, np.nan]])
    values = values + np.array([[0, 0.1, 0, 0.1, 0, 0.1]])
    study = make_study(
        {"composite": values},
        models=["a", "b", "h"],
        roles={"a": "model", "b": "model", "h": "human"},
        participant=np.arange(6),
    )
    t = scheme_table(study, "composite", [0, 1], {"conversation": cluster_weights(np.arange(6), 100, _rng())})
    t = t.set_index("em_model")
    assert t.loc["a", "rank"] == 1 and t.loc["b", "rank"] == 2
    assert np.isnan(t.loc["h", "rank"]) and t.loc["h", "n_conversations"] == 2 and t.loc["a", "n_conversations"] == 6


def test_adjacent_pairs_order_by_estimate_and_holm_adjust(multipletests):
    rng = _rng(4)
    base = rng.normal(0, 1, 120)
    values = np.stack([base + 1.0, base + 0.95, base - 2.0]) + rng.normal(0, 0.2, (3, 120))
    study = make_study({"composite": values}, participant=np.arange(120))
    weights = {"conversation": cluster_weights(np.arange(120), 1000, _rng(5))}
    a = adjacent_pairs(study, "composite", [2, 1, 0], weights, alpha=0.05)
    assert list(a["model"]) == ["m0", "m1"] and list(a["next_model"]) == ["m1", "m2"]
    assert (a["difference"] > 0).all()
    expected = multipletests(a["p_boot"], method="holm")[1]
    assert np.allclose(a["p_holm"], expected)
    assert list(a["separated"]) == [bool(q <= 0.05) for q in expected]
    assert a["separated"].iloc[1] and a["hi"].iloc[1] > a["lo"].iloc[1]


def test_adjacent_pairs_orient_a_lower_is_better_metric():
    from eibench.metrics.registry import BY_NAME

    lower = next(m for m, spec in BY_NAME.items() if not spec.higher_is_better)
    values = np.array([[0.3] * 10, [0.1] * 10]) + np.linspace(0, 0.01, 10)
    study = make_study({lower: values}, participant=np.arange(10))
    a = adjacent_pairs(study, lower, [0, 1], {"conversation": cluster_weights(np.arange(10), 50, _rng())})
    assert a["model"].iloc[0] == "m1" and a["difference"].iloc[0] == pytest.approx(0.2)


def _pillar_study(rng, n_models=4, n=30):
    tracking, evaluation, holistic = (rng.uniform(0.3, 0.9, (n_models, n)) for _ in range(3))
    tracking[0, :3] = np.nan  # a missing pillar: its weight is renormalised away
    return make_study({"tracking": tracking, "evaluation": evaluation, "holistic": holistic}, participant=np.arange(n))


def test_composites_at_the_published_weights_match_the_composite_formula():
    rng = _rng(6)
    study = _pillar_study(rng)
    pillars = np.stack([study.values[p] for p in ("tracking", "evaluation", "holistic")], axis=-1)
    w = np.array([PILLAR_WEIGHTS[p] for p in ("tracking", "evaluation", "holistic")])
    got = composites(pillars, w[None, :])[0]
    present = ~np.isnan(pillars)
    per_conv = np.nansum(pillars * w, axis=-1) / (present * w).sum(axis=-1)
    assert np.allclose(got, 100 * per_conv.mean(axis=1))


def test_rank_stability_a_dominant_model_is_always_first_and_equal_weights_can_flip():
    n = 20
    ones = np.ones((2, n))
    # m0 is best on evaluation (weight 0.49), m1 on tracking and holistic: the published weights
    # favour m0, equal weights favour m1.
    study = make_study(
        {"tracking": ones * [[0.5], [0.8]], "evaluation": ones * [[0.9], [0.5]], "holistic": ones * [[0.5], [0.75]]},
        participant=np.arange(n),
    )
    table, summary = rank_stability(study, [0, 1], 30, 2000, _rng(7))
    assert summary["leader"] == "m0" and summary["equal_weights_leader"] == "m1"
    assert summary["leader_changes_under_equal_weights"]
    assert 0 < summary["p_leader_first_flat"] < summary["p_leader_first_around"] < 1
    assert np.allclose(table["p_first_around"].sum(), 1) and np.allclose(table["p_first_flat"].sum(), 1)
    dominant = make_study(
        {k: ones * [[0.9], [0.2]] for k in ("tracking", "evaluation", "holistic")}, participant=np.arange(n)
    )
    _, s = rank_stability(dominant, [0, 1], 30, 500, _rng(8))
    assert s["p_leader_first_around"] == 1 and s["p_leader_first_flat"] == 1 and s["n_models_ever_first_flat"] == 1
    alone, s1 = rank_stability(dominant, [0], 30, 500, _rng(8))
    assert s1["p_leader_first_flat"] == 1 and not s1["leader_changes_under_equal_weights"]


def test_rank_stability_is_seeded():
    study = _pillar_study(_rng(9))
    a = rank_stability(study, [0, 1, 2, 3], 30, 300, _rng(10))
    b = rank_stability(study, [0, 1, 2, 3], 30, 300, _rng(10))
    pd.testing.assert_frame_equal(a[0], b[0])
    assert a[1] == b[1]


def test_reliability_curve_rises_with_conversations_and_caps_sizes():
    rng = _rng(11)
    true = np.linspace(0, 1, 8)[:, None]
    values = true + rng.normal(0, 1.5, (8, 120))
    study = make_study({"composite": values}, participant=np.arange(120))
    c = reliability_curve(study, "composite", list(range(8)), [2, 10, 40, 120, 500], 200, _rng(12))
    assert list(c["n_conversations"]) == [10, 40, 120]  # 2 dropped, 500 capped at 120 (and deduplicated)
    assert list(c["whole_cohort"]) == [False, False, True]  # at 120 every subset is the whole cohort
    odd = make_study({"composite": true + rng.normal(0, 1.5, (8, 121))}, participant=np.arange(121))
    c_odd = reliability_curve(odd, "composite", list(range(8)), [10, 121], 50, _rng(12))
    assert list(c_odd["whole_cohort"]) == [False, False]  # 121 splits into two halves of 60: one left out
    assert c["reliability"].is_monotonic_increasing
    assert (c["tau_half_lo"] <= c["tau_half"]).all() and (c["tau_half"] <= c["tau_half_hi"]).all()
    again = reliability_curve(study, "composite", list(range(8)), [2, 10, 40, 120, 500], 200, _rng(12))
    pd.testing.assert_frame_equal(c, again)


def test_breakdown_means_per_level_and_leaves_unknown_labels_out():
    values = np.array([[1.0, 2.0, 3.0, 4.0, np.nan]])
    study = make_study({"composite": values}, participant=np.arange(5))
    labels = np.array(["a", "a", "b", "b", None], dtype=object)
    b = breakdown(study, "composite", [0], labels, cluster_weights(np.arange(5), 100, _rng()), "topic")
    b = b.set_index("level")
    assert list(b.index) == ["a", "b"]
    assert b.loc["a", "estimate"] == 1.5 and b.loc["b", "estimate"] == 3.5 and b.loc["b", "n_conversations"] == 2
    assert (b["lo"] >= 1).all() and (b["hi"] <= 4).all()


def test_a_cell_of_one_conversation_has_no_interval():
    """One conversation resamples to itself: its mean is printed, its interval is not."""
    study = make_study({"composite": np.array([[1.0, 2.0, 3.0]])}, participant=np.arange(3))
    labels = np.array(["a", "a", "b"], dtype=object)
    b = breakdown(study, "composite", [0], labels, cluster_weights(np.arange(3), 100, _rng()), "topic")
    b = b.set_index("level")
    assert b.loc["b", "estimate"] == 3.0 and b.loc["b", "n_conversations"] == 1
    assert np.isnan(b.loc["b", "lo"]) and np.isnan(b.loc["b", "hi"])
    assert b.loc["a", "lo"] <= 1.5 <= b.loc["a", "hi"] and b.loc["a", "hi"] > b.loc["a", "lo"]


def test_the_weights_spread_is_that_of_the_pillars_the_cohort_has():
    """Without the tracking pillar the composite renormalises the other two weights: their
    spread is that of the draws renormalised (a Dirichlet of the remaining parameters), not
    that of the three-pillar draws; tracking has none."""
    n = 20
    ones = np.ones((2, n))
    pillars = {"tracking": ones * np.nan, "evaluation": ones * [[0.9], [0.5]], "holistic": ones * [[0.5], [0.75]]}
    _, summary = rank_stability(make_study(pillars, participant=np.arange(n)), [0, 1], 30, 10, _rng(1))
    draws = _rng(2).dirichlet(30 * np.array([0.24, 0.49, 0.27]), size=200_000)
    kept = draws[:, 1:] / draws[:, 1:].sum(axis=1, keepdims=True)
    assert set(summary["weights_sd"]) == {"evaluation", "holistic"}
    assert summary["weights_sd"]["evaluation"] == pytest.approx(kept[:, 0].std(), rel=0.01)
    assert summary["weights_sd"]["holistic"] == pytest.approx(kept[:, 1].std(), rel=0.01)
    _, whole = rank_stability(_pillar_study(_rng(9)), [0, 1, 2, 3], 30, 10, _rng(1))
    assert whole["weights_sd"]["tracking"] == pytest.approx(draws[:, 0].std(), rel=0.01)


def test_a_pair_the_resamples_cannot_resolve_is_not_separated():
    """Three models far apart: every bootstrap p is 0 and Holm gives 0 whatever the resamples.
    With 20 resamples a p of 0 only says p < 0.1, and Holm over the 2 pairs bounds the first
    pair's adjusted p by 0.2: not shown separated at 0.05; with 1,000 resamples (bound 0.004)
    both pairs are."""
    values = np.stack([np.full(40, 3.0), np.full(40, 2.0), np.full(40, 1.0)]) + np.linspace(0, 0.1, 40)
    study = make_study({"composite": values}, participant=np.arange(40))
    few = adjacent_pairs(study, "composite", [0, 1, 2], {"conversation": cluster_weights(np.arange(40), 20, _rng())})
    assert (few["p_holm"] == 0).all() and not few["separated"].any()
    many = adjacent_pairs(study, "composite", [0, 1, 2], {"conversation": cluster_weights(np.arange(40), 1000, _rng())})
    assert many["separated"].all()


def test_the_sd_interval_factors_match_the_chi_square_tables_and_cover_at_their_level():
    # Chi-square quantiles with 3 degrees of freedom (any table): 0.2158 at 2.5%, 9.348 at 97.5%.
    lo, hi = sd_interval_factors(3)
    assert lo == pytest.approx(np.sqrt(3 / 9.348), rel=1e-3) and hi == pytest.approx(np.sqrt(3 / 0.2158), rel=1e-3)
    # Coverage: standard deviations of 4 normal draws, 20,000 times; the interval covers sigma 95%.
    sigma = 2.5
    s = _rng(1).normal(10.0, sigma, size=(20_000, 4)).std(axis=1, ddof=1)
    covered = np.mean((lo * s <= sigma) & (sigma <= hi * s))
    assert abs(covered - 0.95) < 0.01
    # More draws, a narrower interval, always around 1; none from one draw.
    narrower = sd_interval_factors(30)
    assert lo < narrower[0] < 1 < narrower[1] < hi
    assert all(np.isnan(sd_interval_factors(0)))

"""The simulation study: the generator's determinism, design and planted effects, the composite
effect, and the summaries of null and planted runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from eibench.stats import simulation as sim
from scipy import stats

SMALL = sim.Generator(n_conversations=60, n_models=5, n_humans=2, human_conversations=20)


def _same_study(a, b):
    assert a.models == b.models and a.roles == b.roles and a.conversations == b.conversations
    for name in ("participant", "diagnosed", "category", "n_turns"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert a.values.keys() == b.values.keys()
    for metric in a.values:
        np.testing.assert_array_equal(a.values[metric], b.values[metric])
    pd.testing.assert_frame_equal(a.turns, b.turns)


def test_simulate_is_deterministic_for_a_seeded_rng():
    a, ta = sim.simulate(SMALL, np.random.default_rng(7))
    b, tb = sim.simulate(SMALL, np.random.default_rng(7))
    _same_study(a, b)
    np.testing.assert_array_equal(ta["ability"], tb["ability"])
    c, _ = sim.simulate(SMALL, np.random.default_rng(8))
    assert not np.array_equal(a.values["emotion_f1"], c.values["emotion_f1"], equal_nan=True)


def test_simulated_design():
    g = SMALL
    study, truth = sim.simulate(g, np.random.default_rng(9))
    n, M = g.n_conversations, g.n_models + g.n_humans
    assert study.n_conversations == n and len(study.models) == M
    assert study.with_role("model") == list(range(g.n_models))
    assert study.with_role("human") == list(range(g.n_models, M))
    assert set(study.values) == set(sim.simulated_metrics(g)) | {
        "tracking",
        "panas_part",
        "evaluation",
        "holistic",
        "composite",
    }
    for metric, v in study.values.items():
        assert v.shape == (M, n)
        assert np.isfinite(v[: g.n_models]).all(), metric  # models answer everything
        rated = np.isfinite(v[g.n_models :])
        assert (rated.sum(axis=1) == g.human_conversations).all(), metric  # humans answer a subset ...
        assert (rated == rated[0]).all(), metric  # ... the same one
    assert set(study.category) <= set(sim.CATEGORIES)
    assert ((study.n_turns >= g.turns[0]) & (study.n_turns <= g.turns[1])).all()
    # The diagnosis is a participant's: constant within a participant, n_diagnosed of them in all.
    for p in np.unique(study.participant):
        assert len(set(study.diagnosed[study.participant == p])) == 1
    assert len(np.unique(study.participant[study.diagnosed])) <= g.n_diagnosed
    assert truth["ability"].shape == (M, 4)
    assert truth["diag_share"] == pytest.approx(study.diagnosed.mean())


def test_turn_table_averages_to_the_conversation_values():
    study, _ = sim.simulate(SMALL, np.random.default_rng(10))
    turns = study.turns
    index = {c: j for j, c in enumerate(study.conversations)}
    rows = {m: i for i, m in enumerate(study.models)}
    for metric in ("binary_om_acc", "emotion_f1"):
        grouped = turns.groupby(["em_model", "conversation_id"])[metric].agg(["mean", "size"])
        for (model, cid), row in grouped.iterrows():
            assert row["mean"] == pytest.approx(study.values[metric][rows[model], index[cid]], abs=1e-12)
            assert row["size"] == study.n_turns[index[cid]]
        assert len(grouped) == np.isfinite(study.values[metric]).sum()
    # Relative positions 0, 1/(t-1), ..., 1 within each conversation.
    for (_model, cid), g in turns.groupby(["em_model", "conversation_id"]):
        t = int(study.n_turns[index[cid]])
        np.testing.assert_allclose(g["rel_position"], np.arange(t) / (t - 1))


def test_derived_pillars_follow_the_composite_formula():
    values = {
        "emotion_f1": np.array([0.6]),
        "emotion_va": np.array([0.8]),
        "binary_om_acc": np.array([0.7]),
        "binary_hp_acc": np.array([0.5]),
        "pairwise_acc": np.array([0.9]),
        "panas_adjusted": np.array([0.2]),
        "conversation_wide": np.array([0.4]),
        "four_branch": np.array([0.8]),
    }
    sim._derived(values)
    assert values["tracking"][0] == pytest.approx(0.7)
    assert values["evaluation"][0] == pytest.approx(0.5 * 0.6 + 0.5 * 0.9)
    assert values["holistic"][0] == pytest.approx(0.4 * 0.6 + 0.3 * 0.4 + 0.3 * 0.8)
    assert values["composite"][0] == pytest.approx(100 * (0.24 * 0.7 + 0.49 * 0.75 + 0.27 * 0.6))


def _composite_shift(shifts: dict[str, float]) -> float:
    rng = np.random.default_rng(0)
    base = {m: rng.uniform(0.2, 0.8, size=5) for m in sim.METRICS}
    moved = {m: v + shifts.get(sim.METRICS[m][0], 0.0) for m, v in base.items()}
    sim._derived(base)
    sim._derived(moved)
    d = moved["composite"] - base["composite"]
    assert np.allclose(d, d[0])  # linear: the same shift everywhere
    return float(d[0])


@pytest.mark.parametrize("capability", sim.CAPABILITIES)
def test_composite_effect_is_the_finite_difference_of_the_composite(capability):
    g = sim.Generator(romantic=((capability, 0.07),))
    assert sim.composite_effect(g, "romantic") == pytest.approx(_composite_shift({capability: 0.07}), abs=1e-9)
    assert sim.composite_effect(g, "diagnosis") == 0.0


def test_composite_effect_of_several_capabilities_at_once():
    shifts = {"emotion": -0.04, "behaviour": 0.1, "preference": 0.02, "holistic": -0.3}
    g = sim.Generator(drift=tuple(shifts.items()))
    assert sim.composite_effect(g, "drift") == pytest.approx(_composite_shift(shifts), abs=1e-9)


# ----------------------------------------------------------------- planted effects


@pytest.fixture(scope="module")
def planted():
    g = sim.Generator(
        n_conversations=150,
        n_models=6,
        n_humans=2,
        human_conversations=60,
        diagnosis=(("emotion", -0.2), ("behaviour", 0.2)),
        romantic=(("preference", -0.2),),
        drift=(("behaviour", -0.4),),
        human_shift=(("preference", 0.3),),
    )
    return sim.simulate(g, np.random.default_rng(11))[0]


def test_planted_diagnosis_effects_have_their_sign_and_size(planted):
    models = planted.with_role("model")
    for metric, effect in (("emotion_f1", -0.2), ("binary_om_acc", 0.2), ("pairwise_acc", 0.0)):
        conv = planted.values[metric][models].mean(axis=0)
        d = conv[planted.diagnosed].mean() - conv[~planted.diagnosed].mean()
        assert d == pytest.approx(effect, abs=0.07), metric


def test_planted_romantic_effect(planted):
    models = planted.with_role("model")
    romantic = planted.category == sim.ROMANTIC
    for metric, effect in (("pairwise_acc", -0.2), ("binary_hp_acc", -0.2), ("emotion_f1", 0.0)):
        conv = planted.values[metric][models].mean(axis=0)
        assert conv[romantic].mean() - conv[~romantic].mean() == pytest.approx(effect, abs=0.07), metric


def test_planted_drift_is_the_turn_level_slope(planted):
    t = planted.turns
    assert stats.linregress(t["rel_position"], t["binary_om_acc"]).slope == pytest.approx(-0.4, abs=0.05)
    assert stats.linregress(t["rel_position"], t["emotion_f1"]).slope == pytest.approx(0.0, abs=0.05)


def test_planted_human_shift(planted):
    humans, models = planted.with_role("human"), planted.with_role("model")
    v = planted.values["binary_hp_acc"]
    rated = np.isfinite(v[humans[0]])
    d = v[humans][:, rated].mean() - v[models][:, rated].mean()
    assert d == pytest.approx(0.3, abs=0.1)


def test_null_generator_plants_nothing():
    g = sim.null_generator()
    for name in ("diagnosis", "romantic", "drift", "human_shift"):
        for capability in sim.CAPABILITIES:
            assert g.effect(name, capability) == 0.0


def test_planted_generator_reads_the_config(default_config):
    planted = default_config["statistics"]["simulation"]["planted"]
    g = sim.planted_generator(planted)
    for name, key in (
        ("diagnosis", "diagnosis"),
        ("romantic", "romantic"),
        ("drift", "turn_drift"),
        ("human_shift", "human_shift"),
    ):
        for capability, value in planted[key].items():
            assert g.effect(name, capability) == value


# ----------------------------------------------------------------- running and summarising


def test_run_tests_and_human_tests_report_every_tests_p_value():
    study, _ = sim.simulate(SMALL, np.random.default_rng(12))
    out = sim.run_tests(study, 30, np.random.default_rng(13), 0.05)
    out.update(sim.human_tests(study, SMALL, 30, np.random.default_rng(14), 0.05))
    for column in sim.TESTS.values():
        assert 0 <= out[column] <= 1, column
    for key in ("diagnosis", "romantic", "drift"):
        assert out[f"lo_{key}"] <= out[f"est_{key}"] <= out[f"hi_{key}"]


def test_simulate_and_test_is_deterministic():
    a = sim.simulate_and_test(SMALL, 20, np.random.default_rng(14), 0.05)
    b = sim.simulate_and_test(SMALL, 20, np.random.default_rng(14), 0.05)
    assert a.keys() == b.keys() and set(sim.TESTS.values()) <= set(a)
    for key in a:
        assert a[key] == pytest.approx(b[key], nan_ok=True), key


def _null_results(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            column: rng.uniform(size=n) if column.startswith("p_") else rng.uniform(0, 0.1, size=n)
            for column in sim.TESTS.values()
        }
    )


def test_summarise_null_band_is_the_binomial_band():
    n, alpha = 40, 0.05
    results = _null_results(n)
    table = sim.summarise_null(results, alpha)
    assert list(table["test"]) == list(sim.TESTS)
    assert (table["band_lo"] == stats.binom.ppf(0.025, n, alpha) / n).all()
    assert (table["band_hi"] == stats.binom.ppf(0.975, n, alpha) / n).all()
    tail = 0.025 / len(sim.TESTS)
    assert (table["joint_band_lo"] == stats.binom.ppf(tail, n, alpha) / n).all()
    assert (table["joint_band_hi"] == stats.binom.ppf(1 - tail, n, alpha) / n).all()
    assert table["band_hi"].iloc[0] == pytest.approx(5 / 40)  # by hand: binom(40, 0.05) 97.5% quantile is 5
    for row in table.itertuples():
        x = results[sim.TESTS[row.test]]
        expected = (x < alpha).mean() if sim.TESTS[row.test].startswith("p_") else x.mean()
        assert row.false_positive_rate == pytest.approx(expected)
        assert row.within_band == (row.band_lo <= row.false_positive_rate <= row.band_hi)
        assert row.n_simulations == n


def test_the_joint_band_is_bonferroni_over_the_tests_that_ran():
    """The release audit: 2 of the 9 tests ran, and the joint band was drawn for all nine
    ([0.015, 0.095] over 200 studies, where two tests give [0.020, 0.085])."""
    n, alpha = 200, 0.05
    ran = ["turn drift: slope, cluster bootstrap", "turn drift: Page's trend test"]
    left = {t: "not in this design" for t in sim.TESTS if t not in ran}
    table = sim.summarise_null(_null_results(n), alpha, left).set_index("test")
    tail = 0.025 / len(ran)
    for test in ran:
        assert table.loc[test, "joint_band_lo"] == stats.binom.ppf(tail, n, alpha) / n
        assert table.loc[test, "joint_band_hi"] == stats.binom.ppf(1 - tail, n, alpha) / n
    assert table.loc[ran, "joint_band_hi"].iloc[0] < stats.binom.ppf(1 - 0.025 / len(sim.TESTS), n, alpha) / n
    assert table.loc[list(left), "joint_band_lo"].isna().all()


def test_summarise_null_flags_a_miscalibrated_test():
    results = _null_results(100)
    column = sim.TESTS["diagnosis: mixed model (Wald)"]
    results[column] = np.r_[np.full(30, 0.001), np.full(70, 0.5)]  # rejects 30%
    table = sim.summarise_null(results, 0.05).set_index("test")
    assert table.loc["diagnosis: mixed model (Wald)", "false_positive_rate"] == pytest.approx(0.3)
    assert not table.loc["diagnosis: mixed model (Wald)", "within_band"]
    assert not table.loc["diagnosis: mixed model (Wald)", "within_joint_band"]


def test_summarise_null_leaves_failed_fits_out_of_the_rate_and_the_band():
    results = _null_results(40)
    column = sim.TESTS["diagnosis: mixed model (Wald)"]
    results[column] = np.r_[np.full(2, 0.01), np.full(18, 0.5), np.full(20, np.nan)]  # 2 of 20 fits reject
    row = sim.summarise_null(results, 0.05).set_index("test").loc["diagnosis: mixed model (Wald)"]
    assert row["false_positive_rate"] == pytest.approx(0.1)
    assert row["n_simulations"] == 20
    assert row["band_hi"] == stats.binom.ppf(0.975, 20, 0.05) / 20


def test_summarise_planted_sign_recovery_and_coverage():
    g = sim.Generator(diagnosis=(("emotion", -0.1),), romantic=(("holistic", -0.05),), drift=(("behaviour", -0.1),))
    results = pd.DataFrame(
        {
            "est_diagnosis": [-0.12, -0.08, 0.01, -0.1],
            "lo_diagnosis": [-0.2, -0.09, -0.05, -0.15],
            "hi_diagnosis": [-0.05, -0.07, 0.07, -0.05],
            "est_romantic": [-4.0, -2.0, -5.0, -3.0],
            "lo_romantic": [-6.0, -3.0, -7.0, -9.0],
            "hi_romantic": [-2.0, -1.0, -4.5, 3.0],
            "est_drift": [-0.1, -0.1, -0.1, 0.02],
            "lo_drift": [-0.2, -0.2, -0.05, -0.1],
            "hi_drift": [0.0, 0.0, 0.0, 0.1],
            "humans_better_share": [0.0] * 4,
            "est_human": [0.0] * 4,
            "sign_human": [0.0] * 4,
            "cover_human": [1.0] * 4,
        }
    )
    table = sim.summarise_planted(results, g).set_index("effect")
    diag = table.loc["diagnosis effect on emotion F1 (mixed model)"]
    assert diag["planted"] == -0.1
    assert diag["mean_estimate"] == pytest.approx(np.mean([-0.12, -0.08, 0.01, -0.1]))
    assert diag["sign_recovery"] == pytest.approx(0.75)
    assert diag["coverage"] == pytest.approx(0.5)  # the second interval misses -0.1, the third too
    rom = table.loc["romantic effect on the composite (mixed model)"]
    assert rom["planted"] == pytest.approx(100 * 0.27 * 0.8 * -0.05)  # -1.08: only the holistic pillar moves
    assert rom["sign_recovery"] == 1.0
    assert rom["coverage"] == pytest.approx(0.5)  # [-3, -1] and [-9, 3] hold -1.08
    drift = table.loc["turn drift of binary OM accuracy (slope)"]
    assert drift["planted"] == -0.1 and drift["sign_recovery"] == pytest.approx(0.75)
    assert drift["coverage"] == pytest.approx(0.75)  # [-0.05, 0] misses -0.1
    assert (table["n_simulations"] == 4).all()


# ----------------------------------------------------------------- the design of the cohort, copied


def _mood_only_like():
    """A cohort's study like tests/data/cohorts/mood_only: no participants, one topic, three models."""
    g = sim.Generator(
        n_conversations=16,
        n_models=3,
        n_humans=0,
        human_conversations=0,
        conversation_participant=(-1,) * 16,
        conversation_category=("Daily life",) * 16,
        participant_diagnosed=(),
        turns_each=tuple(6 + (j % 5) for j in range(16)),
    )
    return sim.simulate(g, np.random.default_rng(3))[0]


@pytest.mark.parametrize(
    "make", [lambda: sim.simulate(SMALL, np.random.default_rng(11))[0], _mood_only_like], ids=["drawn", "mood_only"]
)
def test_simulated_studies_copy_the_cohorts_design(make):
    from eibench.stats.design import cohort_design

    cohort = make()
    design = cohort_design(cohort)
    g = sim.null_generator(sim.generator_design(design, 0.05))
    for seed in (1, 2):
        copy, _ = sim.simulate(g, np.random.default_rng(seed))
        assert sim.simulated_design(copy) == sim.simulated_design(cohort)


def test_a_cohort_without_participants_or_romantic_chats_plants_neither_and_leaves_their_tests_out():
    from eibench.stats.design import cohort_design

    design = cohort_design(_mood_only_like())
    design["metrics_models"] = ["composite", "emotion_f1", "emotion_va", "tracking"]  # mood tags only
    left = sim.left_out(design, 0.05)
    assert set(left) == set(sim.TESTS)  # nothing this cohort holds supports any of the nine tests
    assert "each group needs at least" in left["diagnosis: participant permutation test"]
    assert "in 'Romantic relationships': 0" in left["romantic contrast: cluster bootstrap"]
    assert "no human raters" in left["human vs model: paired cluster bootstrap"]
    config = {"diagnosis": {"emotion": -0.5}, "romantic": {"emotion": -0.5}, "turn_drift": {}, "human_shift": {}}
    g = sim.planted_generator(config, sim.generator_design(design, 0.05))
    study, truth = sim.simulate(g, np.random.default_rng(0))
    assert truth["diag_share"] == 0 and truth["romantic_share"] == 0 and not study.diagnosed.any()
    out = sim.simulate_and_test(g, 20, np.random.default_rng(0), 0.05)
    assert all(np.isnan(out[c]) for c in sim.TESTS.values())
    null = sim.summarise_null(pd.DataFrame([out]), 0.05, left)
    assert (null["n_simulations"] == 0).all() and (null["left_out"] != "").all()
    assert null["false_positive_rate"].isna().all()


def test_a_simulated_test_follows_the_cohorts_own_claim_of_its_kind():
    """A cohort with behaviour judgements and mood tags but no pairwise or HP values. The
    synthetic study's discriminability claim (pairwise against HP accuracy) cannot be tested
    there, but a claim of the cohort's own (binary OM against emotion F1, both simulated) can:
    the simulated discriminability test runs and gives a p-value. A claim whose metric is not
    simulated (ESConv's E4, emotion-intensity change) leaves the test out with its reason, as
    the operating characteristics leave the claim unsimulated; a kind no claim uses keeps the
    synthetic needs."""
    from eibench.stats.design import cohort_design

    design = cohort_design(_mood_only_like())
    design["metrics_models"] = ["composite", "binary_om_acc", "emotion_f1", "panas_items_adjusted"]
    test = "discriminability difference: bootstrap"
    assert "pairwise_acc has no value" in sim.left_out(design, 0.05)[test]
    own = {
        "id": "X1",
        "test": "discriminability_difference",
        "params": {"better": "binary_om_acc", "worse": "emotion_f1"},
    }
    left = sim.left_out(design, 0.05, [own])
    assert test not in left and left.keys() == sim.left_out(design, 0.05).keys() - {test}
    g = sim.null_generator(sim.generator_design(design, 0.05, [own]))
    assert test not in g.skip
    assert np.isfinite(sim.simulate_and_test(g, 20, np.random.default_rng(0), 0.05)["p_discriminability"])
    e4 = {**own, "id": "E4", "params": {"better": "binary_om_acc", "worse": "panas_items_adjusted"}}
    assert sim.left_out(design, 0.05, [e4])[test] == "claim E4: metric panas_items_adjusted is not simulated"
    untestable = {**own, "id": "X2", "params": {"better": "binary_om_acc", "worse": "pairwise_acc"}}
    assert sim.left_out(design, 0.05, [untestable])[test].startswith("claim X2: pairwise_acc has no value")
    # Several claims of one kind: the test runs when one of them can be simulated and tested.
    assert test not in sim.left_out(design, 0.05, [e4, untestable, own])
    assert sim.left_out(design, 0.05, [e4, untestable])[test].startswith("claim E4: ")
    # A claim with several reasons names itself once.
    rank = {
        "id": "X3",
        "test": "rank_independence",
        "params": {"metrics": ["binary_om_acc", "emotion_f1"], "margin": 0.3},
    }
    reason = sim.left_out(design, 0.05, [rank])["rank independence: exact Kendall test"]
    assert reason.startswith("claim X3: 3 ") and reason.count("claim X3") == 1 and "margin 0.3" in reason


def test_the_full_design_leaves_no_test_out():
    from eibench.stats.design import cohort_design

    design = cohort_design(sim.simulate(sim.Generator(n_models=6), np.random.default_rng(12))[0])
    assert sim.left_out(design, 0.05) == {}


def test_coverage_test_is_scipys_one_sided_exact_binomial_tests():
    row = sim.coverage_test(182, 200)  # 0.91, as the review found for C3
    assert row["coverage_p"] == pytest.approx(stats.binomtest(182, 200, 0.95, alternative="less").pvalue)
    assert row["coverage_p_above"] == pytest.approx(stats.binomtest(182, 200, 0.95, alternative="greater").pvalue)
    assert row["coverage_p"] < 0.05 and row["coverage_vs_nominal"] == "below nominal"
    ci = stats.binomtest(182, 200, 0.95).proportion_ci(method="exact")  # two-sided, whatever the tests
    assert (row["coverage_lo"], row["coverage_hi"]) == pytest.approx((ci.low, ci.high))
    assert row["coverage_lo"] < 0.91 < row["coverage_hi"] < 0.95
    assert sim.coverage_test(190, 200)["coverage_vs_nominal"] == "consistent with nominal"
    assert sim.coverage_test(200, 200)["coverage_vs_nominal"] == "above nominal"  # p = 0.95^200


def test_summarise_planted_tests_coverage_at_the_configured_level():
    """statistics.alpha reaches the coverage verdicts: 90 of 100 (one-sided p 0.028) is below
    nominal at 0.05 and consistent with it at 0.01, as the paper's sentence at that level says."""
    g = sim.Generator(drift=(("behaviour", -0.1),))
    results = pd.DataFrame(
        {
            f"{p}_{k}": np.full(100, v)
            for k in ("diagnosis", "romantic")
            for p, v in (("est", 0.0), ("lo", -1.0), ("hi", 1.0))
        }
    )
    results["est_drift"], results["hi_drift"] = -0.1, 0.0
    results["lo_drift"] = np.r_[np.full(90, -0.2), np.full(10, -0.05)]
    for column in ("humans_better_share", "est_human", "sign_human", "cover_human"):
        results[column] = 0.0
    drift = "turn drift of binary OM accuracy (slope)"
    at = {a: sim.summarise_planted(results, g, alpha=a).set_index("effect").loc[drift] for a in (0.05, 0.01)}
    assert at[0.05]["coverage_p"] == pytest.approx(0.0282, abs=1e-4)
    assert at[0.05]["coverage_vs_nominal"] == "below nominal"
    assert at[0.01]["coverage_vs_nominal"] == "consistent with nominal"


def test_coverage_below_nominal_is_found_where_a_two_sided_test_misses_it():
    """184 of 200 (0.92): the question is whether the interval is too narrow. The one-sided p is
    0.044; a two-sided test (0.071) would call it consistent with 0.95."""
    row = sim.coverage_test(184, 200)
    assert stats.binomtest(184, 200, 0.95).pvalue > 0.05
    assert row["coverage_p"] == pytest.approx(0.0444, abs=1e-4) and row["coverage_vs_nominal"] == "below nominal"
    assert row["coverage_p_above"] > 0.95
    assert sim.coverage_test(0, 0)["coverage_vs_nominal"] == "" and np.isnan(sim.coverage_test(0, 0)["coverage_p"])


def test_summarise_planted_reports_the_binomial_coverage_test():
    g = sim.Generator(drift=(("behaviour", -0.1),))
    n = 100
    results = pd.DataFrame(
        {
            f"{p}_{k}": np.full(n, v)
            for k in ("diagnosis", "romantic")
            for p, v in (("est", 0.0), ("lo", -1.0), ("hi", 1.0))
        }
    )
    results["est_drift"] = -0.1
    results["lo_drift"] = np.r_[np.full(85, -0.2), np.full(15, -0.05)]  # 85 of 100 cover -0.1
    results["hi_drift"] = 0.0
    for column in ("humans_better_share", "est_human", "sign_human", "cover_human"):
        results[column] = 0.0
    table = sim.summarise_planted(results, g).set_index("effect")
    drift = table.loc["turn drift of binary OM accuracy (slope)"]
    assert drift["coverage"] == pytest.approx(0.85)
    assert drift["coverage_p"] == pytest.approx(stats.binomtest(85, 100, 0.95, alternative="less").pvalue)
    assert drift["coverage_vs_nominal"] == "below nominal"
    assert list(table.columns[:4]) == ["planted", "mean_estimate", "sign_recovery", "coverage"]
    assert np.isnan(table.iloc[-1]["coverage_p"])  # the power row has no coverage


# ----------------------------------------------------------------- the cohort's composite

#: An ESConv-like design: of the composite only binary OM accuracy and the post-chat ratings,
#: the ratings missing in some conversations.
ESCONV_PARTS = ("binary_om_acc", "post_chat_ratings")


def _esconv_like(n_conversations: int = 40, **effects) -> sim.Generator:
    from eibench.stats.design import cohort_design

    design = cohort_design(sim.simulate(sim.Generator(n_conversations=n_conversations), np.random.default_rng(3))[0])
    g = sim.Generator(**sim.generator_design(design, 0.05), **effects)
    category = list(g.conversation_category)
    category[:10] = [sim.ROMANTIC] * 10  # romantic conversations with and without ratings
    without = (0, 1, 2, 11, 12)
    return sim.replace(
        g,
        conversation_category=tuple(category),
        composite_parts=ESCONV_PARTS,
        parts_missing=(("post_chat_ratings", without),),
    )


def test_the_simulated_composite_is_renormalised_over_the_parts_the_design_has():
    g = _esconv_like()
    study, _ = sim.simulate(g, np.random.default_rng(5))
    om, ratings = study.values["binary_om_acc"], study.values["post_chat_ratings"]
    expected = 100 * (0.49 * om + 0.27 * ratings) / 0.76
    without = [0, 1, 2, 11, 12]
    expected[:, without] = 100 * om[:, without]
    answered = np.isfinite(om)
    np.testing.assert_allclose(study.values["composite"][answered], expected[answered], rtol=1e-12)
    assert np.isnan(study.values["tracking"]).all()  # no mood tags: no tracking pillar


def test_the_batch_composite_is_the_same_renormalised_composite():
    from eibench.stats.simulation_batch import draw

    g = _esconv_like()
    batch = draw(g, [np.random.default_rng(6)])
    om, ratings = batch.values["binary_om_acc"][0], batch.values["post_chat_ratings"][0]
    expected = 100 * (0.49 * om + 0.27 * ratings) / 0.76
    expected[:, [0, 1, 2, 11, 12]] = 100 * om[:, [0, 1, 2, 11, 12]]
    answered = np.isfinite(om)
    np.testing.assert_allclose(batch.values["composite"][0][answered], expected[answered], rtol=1e-12)


def test_a_design_without_the_extension_part_draws_as_before():
    # The post-chat ratings are drawn only for a design that has them, after every other metric.
    assert sim.simulated_metrics(SMALL) == [m for m in sim.METRICS if m != "post_chat_ratings"]
    assert "post_chat_ratings" in sim.simulated_metrics(_esconv_like())


def test_the_planted_composite_effect_is_that_of_the_cohorts_composite():
    shifts = (("emotion", -0.08), ("behaviour", -0.04), ("preference", -0.04), ("holistic", -0.04))
    g = _esconv_like(romantic=shifts)
    # Not the published formula's 100 x (0.24 x -0.08 + 0.49 x -0.04 + 0.27 x 0.8 x -0.04) = -4.744:
    # the emotion shift moves no part this design has.
    assert sim.composite_effect(g, "romantic") == pytest.approx(-4.0, abs=1e-9)
    only_om = sim.replace(g, composite_parts=("binary_om_acc",), parts_missing=())
    assert sim.composite_effect(only_om, "romantic") == pytest.approx(100 * -0.04, abs=1e-9)


def test_a_composite_effect_that_differs_between_conversations_has_no_planted_value():
    # On the ratings only: 100 x 0.27 x -0.1 / 0.76 where a romantic conversation has them, 0 where not.
    g = _esconv_like(romantic=(("holistic", -0.1),))
    effects = sim.composite_effects(g, "romantic")
    assert sorted(set(np.round(effects, 9))) == pytest.approx([100 * 0.27 * -0.1 / 0.76, 0.0])
    assert np.isnan(sim.composite_effect(g, "romantic"))
    # Every romantic conversation with ratings: one value again.
    every = sim.replace(g, parts_missing=(("post_chat_ratings", (11, 12)),))
    assert sim.composite_effect(every, "romantic") == pytest.approx(100 * 0.27 * -0.1 / 0.76, abs=1e-9)


def _planted_results(n: int) -> pd.DataFrame:
    results = pd.DataFrame(
        {
            f"{p}_{k}": np.full(n, v)
            for k in ("diagnosis", "romantic", "drift")
            for p, v in (("est", -1.0), ("lo", -9.0), ("hi", 1.0))
        }
    )
    for column in ("humans_better_share", "est_human", "sign_human", "cover_human"):
        results[column] = 0.5
    return results


def test_an_effect_simulated_in_no_study_has_no_planted_value_and_no_rates():
    g = sim.Generator(diagnosis=(("emotion", -0.08),), human_shift=(("preference", 0.1),), drift=(("behaviour", -0.1),))
    results = _planted_results(20)
    for column in ("est_diagnosis", "lo_diagnosis", "hi_diagnosis", "est_human", "sign_human", "cover_human"):
        results[column] = np.nan  # left out of every study
    left = {
        "diagnosis: mixed model (Wald)": "no diagnosis recorded",
        "human vs model: paired cluster bootstrap": "no raters",
    }
    table = sim.summarise_planted(results, g, left).set_index("effect")
    for effect in (
        "diagnosis effect on emotion F1 (mixed model)",
        "human minus model, binary HP accuracy (paired bootstrap, per model)",
    ):
        row = table.loc[effect]
        assert row["n_simulations"] == 0 and row["left_out"]
        assert row[["planted", "mean_estimate", "sign_recovery", "coverage"]].isna().all(), effect
    assert table.loc["turn drift of binary OM accuracy (slope)", "planted"] == -0.1


def test_an_undefined_composite_effect_gives_no_number_and_says_why():
    g = _esconv_like(romantic=(("holistic", -0.1),))
    table = sim.summarise_planted(_planted_results(20), g).set_index("effect")
    row = table.loc["romantic effect on the composite (mixed model)"]
    assert row[["planted", "mean_estimate", "sign_recovery", "coverage", "coverage_p"]].isna().all()
    assert row["left_out"] == sim.COMPOSITE_EFFECT_UNDEFINED and row["n_simulations"] == 20


def test_generator_design_copies_the_composite_parts_of_the_cohort():
    design = {**_a_copied_design_for_parts(), "metrics_models": ["binary_om_acc", "composite", "post_chat_ratings"]}
    design["composite_parts_missing"] = {"post_chat_ratings": [1, 3]}
    g = sim.generator_design(design, 0.05)
    assert g["composite_parts"] == ESCONV_PARTS
    assert g["parts_missing"] == (("post_chat_ratings", (1, 3)),)


def _a_copied_design_for_parts():
    from eibench.stats.design import cohort_design

    return cohort_design(sim.simulate(sim.Generator(n_conversations=10), np.random.default_rng(2))[0])


def test_cohort_design_lists_the_conversations_without_a_part_of_the_composite():
    from eibench.stats.design import cohort_design

    study, _ = sim.simulate(_esconv_like(), np.random.default_rng(7))
    study.values["post_chat_ratings"][:, [0, 1, 2, 11, 12]] = np.nan  # as the cohort's scores have them
    design = cohort_design(study)
    assert design["composite_parts_missing"] == {"post_chat_ratings": [0, 1, 2, 11, 12]}
    full = cohort_design(sim.simulate(SMALL, np.random.default_rng(7))[0])
    assert full["composite_parts_missing"] == {}
    assert sim.generator_design(full, 0.05)["composite_parts"] == sim.PUBLISHED_PARTS

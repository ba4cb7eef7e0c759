"""Operating characteristics of the claims' verdict rules: the claims' own rules on simulated
studies, determinism, the vectorised drift page against drift.turn_drift, and the table."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import yaml
from eibench.stats import operating as op
from eibench.stats import simulation as sim
from eibench.stats import simulation_batch as sb
from eibench.stats.bootstrap import cluster_weights
from eibench.stats.claims import verdicts
from eibench.stats.drift import turn_drift
from scipy import stats

CLAIMS = yaml.safe_load(open("config/config.yaml"))["statistics"]["claims"]
PLANTED = sim.Generator(
    n_conversations=60,
    n_participants=8,
    n_diagnosed=4,
    n_models=6,
    n_humans=2,
    human_conversations=20,
    diagnosis=(("emotion", -0.08), ("behaviour", 0.04)),
    romantic=(("emotion", -0.04), ("behaviour", -0.04), ("preference", -0.04), ("holistic", -0.04)),
    drift=(("behaviour", -0.1),),
    human_shift=(("preference", 0.1), ("holistic", -0.1)),
)
B = 60


def _run(g, seeds, claims, chunk=2):
    design = sb._design(g, np.random.default_rng(3))
    weights = cluster_weights(np.arange(g.n_conversations), B, np.random.default_rng(4))
    return op.simulate_verdicts(
        g,
        claims,
        [np.random.default_rng(s) for s in seeds],
        [np.random.default_rng(100 + s) for s in seeds],
        weights,
        0.05,
        design,
        chunk=chunk,
    )


def test_claims_the_studies_cannot_apply_are_named_with_their_reason():
    keep, skipped = op.simulated_claims(CLAIMS)
    assert set(skipped) == {"C4b", "C6"}
    assert "binary OM accuracy only" in skipped["C4b"]
    assert {c["id"] for c in keep} == {"C1", "C2", "C3", "C3b", "C4", "C5", "C7", "C7b"}
    assert op.dropped_metrics(next(c for c in CLAIMS if c["id"] == "C1")) == ["draft_judge"]


def test_a_claim_the_cohort_cannot_test_says_so_before_the_simulators_limit():
    """On 30 of ESConv's chats C4b (emotion F1 absent) and C6 (tracking absent) were noted only
    for the simulator's limits, as if the cohort could test them."""
    unmet = {"C4b": ["emotion_f1 has no value in this cohort"], "C3": ["no diagnosis is recorded"]}
    keep, skipped = op.untestable_set_aside(CLAIMS, *op.simulated_claims(CLAIMS), lambda c: unmet.get(c["id"], []))
    assert skipped["C4b"].startswith("not testable in this design: emotion_f1 has no value in this cohort; besides, ")
    assert skipped["C4b"].endswith("binary OM accuracy only, not of the claim's metric")
    assert skipped["C3"] == "not testable in this design: no diagnosis is recorded"
    assert "C6" in skipped and not skipped["C6"].startswith(
        "not testable"
    )  # testable here: the simulator's limit alone
    assert {c["id"] for c in keep} == {"C1", "C2", "C3b", "C4", "C5", "C7", "C7b"}


def test_same_seed_gives_the_identical_frame_and_another_seed_another():
    keep, _ = op.simulated_claims(CLAIMS)
    a, b = _run(PLANTED, range(3), keep), _run(PLANTED, range(3), keep)
    pd.testing.assert_frame_equal(a, b)
    assert set(a["id"]) == {c["id"] for c in keep} and len(a) == 3 * len(keep)
    assert set(a["verdict"]) <= {"supported", "not supported", "inconclusive"}
    c = _run(PLANTED, range(3, 6), keep)
    assert not a["estimate"].equals(c["estimate"])


def test_one_table_of_all_studies_is_the_per_study_verdict_tables_concatenated():
    # simulate_verdicts collects every study's verdict rows into one table; it must be the
    # frame that claims.verdicts per study, with the study number put first, concatenated gives.
    keep, _ = op.simulated_claims(CLAIMS)
    design = sb._design(PLANTED, np.random.default_rng(3))
    weights = cluster_weights(np.arange(PLANTED.n_conversations), B, np.random.default_rng(4))
    seeds = range(5)
    rngs = [np.random.default_rng(s) for s in seeds]
    ranks = [np.random.default_rng(100 + s) for s in seeds]
    batch = sb.draw(PLANTED, rngs, design=design)  # the studies then go on with the generators draw used
    per_study = []
    for k, results in enumerate(op.study_results(batch, keep, weights, 0.05, rngs, ranks)):
        table = verdicts(keep, results, 0.05)
        table.insert(0, "study", k)
        per_study.append(table[["study", "id", "estimate", "lo", "hi", "p_adjusted", "verdict"]])
    expected = pd.concat(per_study, ignore_index=True)
    # One batch of all the studies, as above: a batch's diagnosis fits differ in the last bits with its studies.
    got = _run(PLANTED, seeds, keep, chunk=len(seeds))
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert got["p_adjusted"].notna().any() and got["lo"].notna().any()  # numbers compared, not only NaN


def test_a_study_is_judged_by_the_claims_own_rule_and_family():
    # Chunking does not change a study's verdicts (each study draws from its own generator).
    keep, _ = op.simulated_claims(CLAIMS)
    design = sb._design(PLANTED, np.random.default_rng(3))
    weights = cluster_weights(np.arange(PLANTED.n_conversations), B, np.random.default_rng(4))
    rngs = lambda: [np.random.default_rng(s) for s in range(4)]  # noqa: E731
    ranks = lambda: [np.random.default_rng(100 + s) for s in range(4)]  # noqa: E731
    one = op.simulate_verdicts(PLANTED, keep, rngs(), ranks(), weights, 0.05, design, chunk=1)
    four = op.simulate_verdicts(PLANTED, keep, rngs(), ranks(), weights, 0.05, design, chunk=4)
    # Equal but for the REML fits: reml.fit_many's golden-section search stops when every study
    # of a chunk is within 1e-9 in log gamma, so an interval moves by about 1e-8 with the chunk
    # (relative to a bound near 0, more than assert_frame_equal's default rtol).
    pd.testing.assert_frame_equal(one, four, atol=1e-6)
    # Holm over the headline claims with a p-value: the adjusted p is at least the raw one.
    assert (one["p_adjusted"].dropna() >= 0).all()


def test_vectorised_drift_page_equals_turn_drift():
    design = sb._design(PLANTED, np.random.default_rng(3))
    batch = sb.draw(PLANTED, [np.random.default_rng(9)], design=design)
    weights = cluster_weights(np.arange(PLANTED.n_conversations), B, np.random.default_rng(4))
    ref = turn_drift(sb.to_study(batch, 0), "binary_om_acc", list(range(PLANTED.n_models)), weights)[1]
    mine = op._drift_page(batch.om_turns[0], batch.rel, batch.turn_conversation, weights)
    for key, value in mine.items():
        assert value == pytest.approx(ref[key], rel=1e-12, abs=1e-12), key


def test_estimands_are_the_planted_effects_on_the_claims_scales():
    keep, _ = op.simulated_claims(CLAIMS)
    design = sb._design(PLANTED, np.random.default_rng(3))
    truth = op.estimands(PLANTED, keep, design)
    assert truth["C3"] == pytest.approx(-0.08, abs=1e-12) and truth["C3b"] == pytest.approx(0.04, abs=1e-12)
    assert -0.1 < truth["C4"] < 0  # drift x (late - early mean position)
    assert truth["C5"] < 0 and "C2" not in truth
    assert op.planted_makes_true(next(c for c in keep if c["id"] == "C7b"), PLANTED, truth) == 1
    assert op.planted_makes_true(next(c for c in keep if c["id"] == "C2"), PLANTED, truth) == 0
    assert op.planted_makes_true(next(c for c in keep if c["id"] == "C3"), sim.Generator(), {"C3": 0.0}) == 0


def test_margin_correlation_gives_the_kendall_tau_and_the_batch_draws_it():
    r = op.margin_correlation(0.3)
    x = np.random.default_rng(0).multivariate_normal([0, 0], [[1, r], [r, 1]], size=20000)
    assert stats.kendalltau(x[:, 0], x[:, 1]).statistic == pytest.approx(0.3, abs=0.02)
    g = replace(
        sim.Generator(
            n_conversations=30,
            n_models=300,
            n_humans=0,
            noise_sd=0.0,
            turn_noise_sd=0.0,
            participant_sd=0.0,
            conversation_sd=0.0,
        ),
        ability_correlation=r,
    )
    batch = sb.draw(g, [np.random.default_rng(1)], np.random.default_rng(2))
    e, p = batch.values["emotion_f1"][0].mean(axis=1), batch.values["pairwise_acc"][0].mean(axis=1)
    assert stats.kendalltau(e, p).statistic == pytest.approx(0.3, abs=0.08)


def test_table_rates_intervals_and_not_simulated_rows():
    claims = [c for c in CLAIMS if c["id"] in ("C1", "C3", "C6")]
    frame = lambda cid, verdicts, est=None: pd.DataFrame(  # noqa: E731
        {
            "study": range(len(verdicts)),
            "id": cid,
            "verdict": verdicts,
            "estimate": est if est is not None else np.nan,
            "lo": -0.1 if est is not None else np.nan,
            "hi": 0.0 if est is not None else np.nan,
            "p_adjusted": np.nan,
        }
    )
    planted = pd.concat(
        [
            frame("C3", ["supported"] * 8 + ["inconclusive"] * 2, est=[-0.05] * 9 + [0.01]),
            frame("C1", ["inconclusive"] * 10),
        ]
    )
    null = pd.concat(
        [frame("C3", ["supported"] + ["inconclusive"] * 9, est=[0.0] * 10), frame("C1", ["supported"] * 10)]
    )
    margin = frame("C1", ["supported"] * 3 + ["inconclusive"] * 7)
    table = op.operating_table(
        claims, null, planted, margin, {"C3": -0.2}, {"C3": 1, "C1": 1}, {"C6": "no profiles"}
    ).set_index("id")
    assert table.loc["C3", "power"] == 0.8 and table.loc["C3", "fpr"] == 0.1
    assert table.loc["C3", "power_lo"] < 0.8 < table.loc["C3", "power_hi"]
    assert table.loc["C3", "coverage"] == 0.0 and table.loc["C3", "coverage_vs_nominal"] == "below nominal"
    assert table.loc["C3", "sign_recovery"] == 0.9
    assert table.loc["C1", "power"] == 0.5 and table.loc["C1", "fpr"] == 0.3  # true in null and planted
    assert table.loc["C6", "note"] == "not simulated: no profiles" and pd.isna(table.loc["C6", "power"])


def test_a_discriminability_claim_without_power_says_the_spreads_are_equal():
    """The generator draws every capability's abilities with one spread: the discriminability
    claim's note says it plants no difference of spreads, not that it plants no effect (another
    section's generator may plant different spreads)."""
    claims = [c for c in CLAIMS if c["id"] == "C2"]
    rows = pd.DataFrame({"study": range(4), "id": "C2", "verdict": ["supported"] + ["inconclusive"] * 3})
    rows = rows.assign(estimate=np.nan, lo=np.nan, hi=np.nan, p_adjusted=np.nan)
    table = op.operating_table(claims, rows, rows, None, {}, {"C2": 0}, {}).set_index("id")
    assert table.loc["C2", "note"] == "power not simulated: " + op.NO_POWER["discriminability_difference"]
    assert "same spread" in table.loc["C2", "note"] and "plants no effect" not in table.loc["C2", "note"]
    assert table.loc["C2", "fpr"] == 0.25 and pd.isna(table.loc["C2", "power"])


def test_curves_and_first_reaching():
    c1 = [c for c in CLAIMS if c["id"] == "C1"]
    g = replace(PLANTED, n_models=8)
    weights = cluster_weights(np.arange(g.n_conversations), B, np.random.default_rng(4))
    seeds = lambda v: (  # noqa: E731
        [np.random.default_rng(s) for s in range(3)],
        [np.random.default_rng(9 + s) for s in range(3)],
        np.random.default_rng(1),
    )
    curve = op.verdict_curve(c1, "C1", [(8, g), (12, replace(g, n_models=12))], seeds, lambda v, gg: weights, 0.05)
    assert list(curve["value"]) == [8, 12] and (curve["n_studies"] == 3).all()
    assert op.first_reaching(pd.DataFrame({"value": [1, 2, 3], "x": [0.1, 0.85, 0.9]}), "x") == 2
    assert op.first_reaching(pd.DataFrame({"value": [1, 2], "x": [0.1, 0.2]}), "x") is None
    rel = op.reliability_curve(
        PLANTED,
        ["emotion_f1"],
        [20, 80],
        lambda n: [np.random.default_rng(s) for s in range(3)],
        lambda n: np.random.default_rng(n),
    )
    assert list(rel["n_conversations"]) == [20, 80]
    assert ((rel["reliability"] >= 0) & (rel["reliability"] <= 1)).all()


def test_a_design_curve_simulates_its_claim_with_the_whole_holm_family():
    """The curves simulated C1 alone and C3 without the claims about most of a set, while the
    pipeline adjusts each within its whole family: Holm never lowers a p-value as the family
    grows, so the curves' power was too high (C1 at 40 models: 0.48 alone, 0.04 with it)."""
    headline_with_p = [
        c["id"] for c in CLAIMS if c["family"] == "headline" and c["test"] not in ("turn_flat", "profile_flips")
    ]
    by_id = {c["id"]: c for c in CLAIMS}
    for target in ("C1", "C3"):
        family = op.holm_family(by_id[target], CLAIMS)
        assert [c["id"] for c in family] == headline_with_p, target
    # an exploratory claim's family is the exploratory one; a claim without a p-value stays in
    c6 = op.holm_family(by_id["C6"], CLAIMS)
    assert c6[0]["id"] == "C6" and all(c["family"] == "exploratory" for c in c6)
    assert "C4b" not in {c["id"] for c in c6}  # a flatness claim has no p-value to adjust


def test_a_simulated_family_names_the_testable_claims_it_lacks():
    """The pipeline adjusts a claim with every claim of its family that has a p-value; the
    simulation draws only some of them. Those it lacks but the cohort can test are named (the
    curve and the table then can overstate power); untestable ones, claims without a p-value,
    other families and the claim itself are not."""
    claims = [
        {"id": "A", "family": "exploratory", "test": "discriminability_difference", "params": {}},
        {"id": "B", "family": "exploratory", "test": "rank_independence", "params": {}},  # not drawn, testable
        {"id": "U", "family": "exploratory", "test": "topic_hardest", "params": {}},  # not drawn, untestable
        {"id": "F", "family": "exploratory", "test": "profile_flips", "params": {}},  # no p-value
        {"id": "H", "family": "headline", "test": "turn_drift", "params": {}},  # another family
    ]
    kept = [claims[0], claims[4]]
    unmet = lambda c: ["too few topics"] if c["id"] == "U" else []  # noqa: E731
    assert op.family_left_out(claims[0], claims, kept, unmet) == ["B"]
    assert op.family_left_out(claims[4], claims, kept, unmet) == []
    # every member drawn: the simulated family is the pipeline's
    assert op.family_left_out(claims[0], claims, [claims[0], claims[1]], unmet) == []
    # a claim without a p-value is adjusted with nothing, whatever its family lacks
    assert op.family_left_out(claims[3], claims, [claims[3]], unmet) == []


def test_one_planted_effect_gives_the_hand_computed_estimands():
    """Only a diagnosis effect on emotion: C3 is that effect; C5's romantic - rest contrast of the
    composite is the diagnosis effect on the composite (100 x 0.24 x effect: emotion enters the
    tracking pillar only) times the romantic and other conversations' difference in diagnosed
    share; no drift and no human shift."""
    g = sim.Generator(n_conversations=80, n_participants=8, n_diagnosed=4, n_models=5, diagnosis=(("emotion", -0.05),))
    keep, _ = op.simulated_claims(CLAIMS)
    design = sb._design(g, np.random.default_rng(5))
    truth = op.estimands(g, keep, design)
    batch = sb.draw(op.noise_free(g), [np.random.default_rng(0)], design=design)
    romantic = np.array([c == sim.ROMANTIC for c in batch.category])
    share = batch.diagnosed[romantic].mean() - batch.diagnosed[~romantic].mean()
    assert truth["C3"] == pytest.approx(-0.05, abs=1e-12) and truth["C3b"] == pytest.approx(0.0, abs=1e-12)
    assert truth["C4"] == pytest.approx(0.0, abs=1e-12)
    assert truth["C5"] == pytest.approx(100 * 0.24 * -0.05 * share, abs=1e-9) and share != 0
    # estimands keeps to the claims with a signed estimate and an interval
    assert set(truth) <= {c["id"] for c in keep if c["test"] in op.INTERVAL_TESTS}


def _tiny_study(hp: list[float], human: float) -> "op.Study":
    from eibench.stats.study import Study

    n = 6
    models = [f"m{i}" for i in range(len(hp))] + ["human_1"]
    roles = {m: ("human" if m.startswith("human") else "model") for m in models}
    diag = np.array([True, True, True, False, False, False])
    values = {
        # emotion F1 = 0.6 + 0.1 x diagnosed + 0.02 x model index, whatever the topic and length
        "emotion_f1": np.array([[0.6 + 0.1 * d + 0.02 * i for d in diag] for i in range(len(models))]),
        "binary_hp_acc": np.array([[v] * n for v in [*hp, human]]),
        "pairwise_acc": np.array([[v] * n for v in [*hp[::-1], human]]),
    }
    rel = np.array([0.0, 0.5, 1.0])
    turns = pd.DataFrame(
        {
            "em_model": np.repeat(models[:-1], 3 * n),
            "conversation_id": np.tile(np.repeat([f"c{j}" for j in range(n)], 3), len(hp)),
            "rel_position": np.tile(rel, n * len(hp)),
            "emotion_f1": np.tile(0.7 - 0.2 * rel, n * len(hp)),  # late - early = -0.2
        }
    )
    return Study(
        models,
        roles,
        [f"c{j}" for j in range(n)],
        np.array([0, 0, 1, 2, 2, 3]),
        ["P0", "P1", "P2", "P3"],
        diag,
        np.array(["A", "B", "A", "B", "A", "B"], dtype=object),
        np.array([3.0, 4.0, 3.0, 5.0, 4.0, 3.0]),
        values,
        turns,
    )


def test_study_estimands_of_a_hand_built_noise_free_study():
    study = _tiny_study([0.5, 0.6, 0.7, 0.8], human=0.65)
    claims = [
        {"id": "D", "test": "diagnosis_effect", "params": {"metric": "emotion_f1", "direction": "negative"}},
        {"id": "F", "test": "turn_flat", "params": {"metric": "emotion_f1", "margin": 0.05}},
        {"id": "H", "test": "humans_vs_models", "params": {"metric": "binary_hp_acc", "direction": "humans_better"}},
        {"id": "M", "test": "humans_vs_models", "params": {"metric": "binary_hp_acc", "direction": "models_better"}},
        {
            "id": "R",
            "test": "rank_independence",
            "params": {"metrics": ["binary_hp_acc", "pairwise_acc", "draft_judge"]},
        },
        {"id": "X", "test": "diagnosis_effect", "params": {"metric": "draft_judge", "direction": "negative"}},
        {"id": "S", "test": "discriminability_difference", "params": {"better": "pairwise_acc", "worse": "emotion_f1"}},
    ]
    out = op.study_estimands(study, claims)
    assert out["D"] == pytest.approx(0.1)  # the planted 0.1, adjusted for topic and length
    assert out["F"] == pytest.approx(-0.2)
    assert out["H"] == pytest.approx(0.5) and out["M"] == pytest.approx(0.5)  # 0.65 beats 0.5 and 0.6 of four
    assert out["R"] == pytest.approx(1.0)  # reversed orders: |tau| 1 on the one simulated pair
    assert "X" not in out and "S" not in out  # no values; no target


def test_study_estimands_leave_out_tied_models():
    study = _tiny_study([0.6, 0.6, 0.6], human=0.5)
    claim = {"id": "R", "test": "rank_independence", "params": {"metrics": ["binary_hp_acc", "pairwise_acc"]}}
    assert op.study_estimands(study, [claim]) == {}


def test_study_estimands_profile_flips_is_the_tau_of_the_expected_pillars():
    from dataclasses import replace

    study = _tiny_study([0.5, 0.6, 0.7, 0.8], human=0.65)
    k = len(study.models)
    # turn-level pillars rise with the model index; the holistic pillar swaps models 2 and 3
    flat = lambda per_model: np.array([[v] * 6 for v in per_model])  # noqa: E731
    values = {
        **study.values,
        "tracking": flat([0.1, 0.2, 0.3, 0.4, 0.5][:k]),
        "evaluation": flat([0.1, 0.2, 0.3, 0.4, 0.5][:k]),
        "holistic": flat([0.1, 0.2, 0.4, 0.3, 0.9][:k]),
    }
    claim = {"id": "C6", "test": "profile_flips", "params": {}}
    out = op.study_estimands(replace(study, values=values), [claim])
    assert out["C6"] == pytest.approx(4 / 6)  # one discordant pair of six among the four models
    same = {**values, "holistic": values["tracking"]}
    assert op.study_estimands(replace(study, values=same), [claim])["C6"] == pytest.approx(1.0)  # no flip
    assert op.study_estimands(study, [claim]) == {}  # no pillars: no target


def test_hardest_gaps_is_the_distance_from_the_worst_other_category():
    from dataclasses import replace

    study = _tiny_study([0.5, 0.6, 0.7, 0.8], human=0.65)
    # composite per conversation: category A (c0, c2, c4) 60, B 70; the same for every model
    comp = np.array([[60.0, 70.0, 60.0, 70.0, 60.0, 70.0]] * len(study.models))
    s = replace(study, values={**study.values, "composite": comp})
    claim = {"id": "C5", "test": "topic_hardest", "params": {"metric": "composite", "category": "A"}}
    assert op.hardest_gaps(s, [claim]) == {"C5": pytest.approx(-10.0)}  # A is the hardest by 10 points
    easy = {**claim, "params": {"metric": "composite", "category": "B"}}
    assert op.hardest_gaps(s, [easy]) == {"C5": pytest.approx(10.0)}
    assert op.hardest_gaps(s, [{**claim, "params": {"metric": "composite", "category": "Z"}}]) == {}
    assert op.hardest_gaps(study, [claim]) == {}  # the study lacks the metric

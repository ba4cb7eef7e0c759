"""Truth beside estimate: the planted truth of each claim read from the simulator's settings,
the outcome of each verdict, and the table and numbers of the truth section."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
from eibench.report.numbers import Numbers
from eibench.report.truth_numbers import (
    DETAIL_COLUMNS,
    MAIN_COLUMNS,
    UNDECIDED,
    add_truth,
    holds,
    mc_multiplier,
    outcome,
    planted_truth,
    true_when,
    within_mc_error,
)
from eibench.synthetic.null import null_simulation

from .rule_map import RULE_SCRIPTS


@pytest.fixture()
def sim(default_config):
    return default_config["simulation"]


@pytest.fixture()
def claims(default_config):
    return default_config["statistics"]["claims"]


def test_null_simulation_zeroes_every_planted_effect_and_keeps_the_rest(sim):
    before = copy.deepcopy(sim)
    null = null_simulation(sim)
    assert sim == before  # the input is not modified
    assert all(v == 0.0 for per in null["effects"].values() for v in per.values())
    assert all(v == 0.0 for v in null["human"]["ability_mean"].values())
    np.testing.assert_array_equal(null["ability_correlation"], np.eye(len(sim["ability_correlation"])))
    # no planted difference of spreads (C2's effect): every capability at the spreads' mean
    assert len(set(null["ability_sd"].values())) == 1
    assert null["ability_sd"]["emotion"] == pytest.approx(np.mean(list(sim["ability_sd"].values())))
    for key in set(sim) - {"effects", "human", "ability_correlation", "ability_sd"}:
        assert null[key] == sim[key], key
    assert null["human"]["rater_sd"] == sim["human"]["rater_sd"]
    assert set(null["effects"]) == set(sim["effects"])


def test_planted_truth_of_the_default_claims(sim, claims):
    null = null_simulation(sim)
    truth = {c["id"]: planted_truth(c, sim, null) for c in claims}
    # planted: diagnosis emotion -0.6 (C3 negative), behaviour +0.3 (C3b positive), drift behaviour -0.9,
    # no emotion drift (C4b flat), romantic -0.4 everywhere, humans +1.2 on preference, -0.9 holistic.
    assert {k: t["holds"] for k, t in truth.items()} == {
        "C1": True,
        "C2": True,  # preference abilities spread wider (0.6) than emotion ones (0.45)
        "C3": True,
        "C3b": True,
        "C4": True,
        "C4b": True,
        "C5": True,
        "C6": None,
        "C7": True,
        "C7b": True,
    }
    # null: only the claims of no effect (independence, flatness) hold
    assert {k: t["holds_null"] for k, t in truth.items()} == {
        "C1": True,
        "C2": False,  # the null cohort gives every capability the same spread: no difference planted
        "C3": False,
        "C3b": False,
        "C4": False,
        "C4b": True,
        "C5": False,
        "C6": None,
        "C7": False,
        "C7b": False,
    }
    assert truth["C3"]["planted"] == "diagnosis emotion -0.60"
    assert truth["C2"]["planted"] == "ability sd preference 0.60 vs emotion 0.45"
    assert truth["C6"]["planted"] == "none: from the models' expected pillars"


def test_a_planted_effect_against_the_claim_does_not_hold(sim):
    flipped = copy.deepcopy(sim)
    flipped["effects"]["diagnosis"]["emotion"] = 0.5
    claim = {"id": "C3", "test": "diagnosis_effect", "params": {"metric": "emotion_f1", "direction": "negative"}}
    assert planted_truth(claim, flipped, null_simulation(flipped))["holds"] is False


def test_a_metric_without_a_capability_is_an_error_naming_the_claim(sim):
    claim = {"id": "C9", "test": "diagnosis_effect", "params": {"metric": "mystery", "direction": "negative"}}
    with pytest.raises(ValueError, match=r"claim C9: metric 'mystery'"):
        planted_truth(claim, sim, null_simulation(sim))


@pytest.mark.parametrize(
    "verdict,holds,expected",
    [
        ("supported", True, "recovered"),
        ("inconclusive", True, "missed"),
        ("not supported", True, "wrong sign"),
        ("supported", False, "false positive"),
        ("inconclusive", False, "no false positive"),
        ("not supported", False, "no false positive"),
        ("supported", None, "–"),
        ("not testable", True, "–"),
    ],
)
def test_outcome(verdict, holds, expected):
    assert outcome(verdict, holds) == expected


def _table(verdicts_: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame(
        [{"id": k, "verdict": v, "estimate": -0.1, "lo": -0.2, "hi": -0.05} for k, v in verdicts_.items()]
    )


#: Estimands on the claims' scales: planted (every claim's prediction true of its estimand) and
#: null (only the claims of no effect hold; C3's metric differs between the groups with nothing
#: planted, in the direction the claim predicts).
ESTIMANDS = pd.DataFrame(
    [
        ("planted", "C1", 0.1, 0.0),
        ("planted", "C2", 0.4, 0.03),
        ("planted", "C6", 0.6, 0.0),
        ("planted", "C3", -0.08, 0.002),
        ("planted", "C3b", 0.03, 0.0),
        ("planted", "C4", -0.15, 0.0),
        ("planted", "C4b", 0.01, 0.001),
        ("planted", "C5", -2.5, 0.05),
        ("planted", "C7", 0.9, 0.0),
        ("planted", "C7b", 0.8, 0.0),
        ("null", "C1", 0.05, 0.0),
        ("null", "C2", -0.1, 0.03),
        ("null", "C6", 1.0, 0.0),
        ("null", "C3", -0.03, 0.002),
        ("null", "C3b", -2e-16, 0.0),
        ("null", "C4", 0.0, 0.0),
        ("null", "C4b", 0.0, 0.001),
        ("null", "C5", 0.4, 0.05),
        ("null", "C7", 0.4, 0.0),
        ("null", "C7b", 0.5, 0.0),
    ],
    columns=["cohort", "id", "estimand", "mc_se"],
)
# given this cohort's difficulties: shifted by the participants' drawn difficulty
ESTIMANDS["estimand_cohort"] = ESTIMANDS["estimand"] - 0.06
ESTIMANDS["mc_se_cohort"] = ESTIMANDS["mc_se"]
# the topic claim's distance from the hardest other category (composite: negative is hardest)
ESTIMANDS["hardest_gap"] = np.where(
    ESTIMANDS["id"] == "C5", np.where(ESTIMANDS["cohort"] == "planted", -1.5, 0.3), np.nan
)
ESTIMANDS["hardest_gap_cohort"] = ESTIMANDS["hardest_gap"]
# the gap's Monte-Carlo error: larger than the estimand's (a difference of two category means)
ESTIMANDS["hardest_gap_mc_se"] = np.where(ESTIMANDS["id"] == "C5", 0.07, np.nan)
ESTIMANDS["hardest_gap_mc_se_cohort"] = ESTIMANDS["hardest_gap_mc_se"]
# draws of the Monte-Carlo expectations: enough that every truth above is decided within its error
ESTIMANDS["draws"] = 10


def test_holds_is_judged_on_the_estimand(claims):
    by_id = {c["id"]: c for c in claims}
    assert holds(by_id["C3"], -0.01) is True and holds(by_id["C3"], 0.01) is False
    assert holds(by_id["C3b"], 0.0) is False  # no effect: the positive claim does not hold
    assert holds(by_id["C5"], -1.0, -0.1) is True  # composite: higher is better, so the hardest topic is lower
    assert holds(by_id["C4b"], 0.04) is True and holds(by_id["C4b"], 0.06) is False  # margin 0.05
    assert holds(by_id["C7"], 0.6) is True and holds(by_id["C7"], 0.5) is False  # more than half
    assert holds(by_id["C1"], 0.29) is True and holds(by_id["C1"], 0.31) is False  # margin 0.3
    assert holds(by_id["C3"], None) is None and holds(by_id["C3"], float("nan")) is None
    assert holds(by_id["C2"], 0.1) is True and holds(by_id["C2"], -0.1) is False  # pairwise separates more
    assert holds(by_id["C6"], 0.6) is True and holds(by_id["C6"], 1.0) is False  # tau-b 1: no pair flips


def test_the_hardest_topic_needs_its_contrast_and_its_category_the_hardest(claims):
    c5 = {c["id"]: c for c in claims}["C5"]
    assert holds(c5, -1.0, -0.2) is True
    # harder than the rest on average, but another category is harder still: not "the hardest"
    assert holds(c5, -1.0, 0.2) is False
    assert holds(c5, 1.0, -0.2) is False  # easier than the rest
    assert holds(c5, -1.0) is None and holds(c5, -1.0, float("nan")) is None  # no gap: no judgement
    assert true_when(c5) == "below 0, and the topic the hardest"
    assert true_when({"id": "C4b", "test": "turn_flat", "params": {"margin": 0.05}}) == "within ±0.05"


def test_a_truth_within_the_monte_carlo_error_of_its_estimand_is_undecided(claims):
    """The default run's null cohort: C3's estimand 0.007 ± 0.006 over 3 draws, "false positive"
    of a supported verdict, though its 95% Monte-Carlo interval (t over 2 degrees of freedom:
    ± 0.025) reaches across zero, the boundary the claim is judged at."""
    by_id = {c["id"]: c for c in claims}
    c3 = by_id["C3"]
    assert within_mc_error(c3, 0.007, 0.006, 3)
    assert outcome("supported", holds(c3, 0.007), within_mc_error(c3, 0.007, 0.006, 3)) == UNDECIDED
    assert not within_mc_error(c3, 0.007, 0.001, 3)  # ± 0.0043: decided, the claim false of it
    assert not within_mc_error(c3, 0.007, 0.0, 3)  # equal in every draw
    # an unknown error (NaN: a jackknife leave-out without a value) or one draw decides nothing
    assert within_mc_error(c3, 0.007, float("nan"), 3) and within_mc_error(c3, 0.007, 0.0, 1)
    # a claim that reads exact values only (binary OM accuracy) is decided whatever its error says
    assert not within_mc_error(by_id["C3b"], 0.0, float("nan"), 1)
    assert not within_mc_error(c3, None, 0.006, 3)  # no estimand: no outcome at all
    # a flat trend is judged at its margin (0.05), on either side
    c4b = by_id["C4b"]
    assert within_mc_error(c4b, 0.045, 0.002, 3) and within_mc_error(c4b, -0.055, 0.002, 3)
    assert not within_mc_error(c4b, 0.01, 0.005, 3)
    # the topic claim: decided against it when either part is, for it only when both are
    c5 = by_id["C5"]
    assert not within_mc_error(c5, -6.7, 0.35, 3, -5.7, 0.45)  # both decided: the hardest
    assert not within_mc_error(c5, 0.2, 0.45, 3, 1.2, 0.1)  # its gap decides against the claim
    assert within_mc_error(c5, 0.2, 0.45, 3, 1.2, 0.47)  # neither decided
    assert within_mc_error(c5, -6.7, 0.35, 3, -0.2, 0.45)  # harder, but the hardest within error
    assert not within_mc_error(c5, 6.7, 0.35, 3, -0.2, 0.45)  # easier, decided: the gap cannot save it
    assert mc_multiplier(3) == pytest.approx(4.303, abs=1e-3) and np.isnan(mc_multiplier(1))


def _null_only(sim, claims, supported: str, changes: dict[str, float] | None = None) -> tuple[dict, pd.DataFrame]:
    """The truth numbers (value by key) and table with every claim supported on the planted
    cohort and only ``supported`` on the null cohort, whose estimands of that claim take
    ``changes`` (column -> value) over ESTIMANDS."""
    ids = [c["id"] for c in claims]
    estimands = ESTIMANDS.copy()
    at = (estimands["cohort"] == "null") & (estimands["id"] == supported)
    for column, value in (changes or {}).items():
        estimands.loc[at, column] = value
    nums = Numbers(scripts=RULE_SCRIPTS)
    null = _table(dict.fromkeys(ids, "inconclusive") | {supported: "supported"})
    table, _ = add_truth(
        nums, _table(dict.fromkeys(ids, "supported")), null, claims, sim, null_simulation(sim), estimands
    )
    return {k: v["value"] for k, v in nums.entries.items()}, table


def test_add_truth_counts_undecided_truths_apart(sim, claims):
    e, table = _null_only(sim, claims, "C3", {"estimand": 0.007, "mc_se": 0.006, "draws": 3})
    assert table.set_index(["Claim", "Cohort"]).loc[("C3", "null"), "Outcome"] == UNDECIDED
    assert e["truth.C3.null_outcome"] == UNDECIDED
    assert e["truth.null.n_undecided"] == 1 and e["truth.null.undecided"] == "C3"
    assert e["truth.null.n_false_positive"] == 0 and e["truth.null.n_supported_undecided"] == 1
    assert e["truth.planted.n_undecided"] == 0 and e["truth.planted.undecided"] == "none"
    assert e["truth.mc_draws"] == 0  # C3's 3 draws against the others' 10: no one multiplier to print


def test_the_multiplier_the_outcomes_are_decided_on_is_printed_with_the_draws(sim, claims):
    e, _ = _null_only(sim, claims, "C1")
    assert e["truth.mc_draws"] == 10 and e["truth.mc_multiplier"] == pytest.approx(2.262, abs=1e-3)


def test_a_false_positive_true_of_this_cohort_only_within_its_error_is_not_counted_true_of_it(sim, claims):
    # false of the design (0.03 > 0); given the cohort -0.001 ± 0.002: the claimed side, within error
    e, _ = _null_only(sim, claims, "C3", {"estimand": 0.03, "estimand_cohort": -0.001, "mc_se_cohort": 0.002})
    assert e["truth.C3.null_outcome"] == "false positive"
    assert e["truth.null.n_false_positive_true_of_cohort"] == 0


def test_add_truth_counts_and_table(sim, claims):
    ids = [c["id"] for c in claims]
    planted = _table({i: "supported" for i in ids} | {"C3b": "inconclusive"})
    null = _table({i: "inconclusive" for i in ids} | {"C4": "supported", "C1": "supported", "C3": "supported"})
    nums = Numbers(scripts=RULE_SCRIPTS)
    table, detail = add_truth(nums, planted, null, claims, sim, null_simulation(sim), ESTIMANDS)
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert tuple(table.columns) == MAIN_COLUMNS and tuple(detail.columns) == DETAIL_COLUMNS
    assert len(table.columns) < 10  # the printed table fits the page; the rest is in the appendix
    assert list(table["Claim"]) == [i for i in ids for _ in range(2)] == list(detail["Claim"])
    assert list(table["Cohort"]) == ["planted", "null"] * len(ids)
    # every claim has an estimand and an outcome now, C2 (log F) and C6 (tau-b) included
    assert e["truth.planted.n_recovered"] == 9 and e["truth.planted.n_missed"] == 1
    assert e["truth.n_estimands"] == len(ids) and e["truth.n_no_estimand"] == 0
    # null: C4 supported with a zero estimand is a false positive; C3 supported with a negative
    # estimand (the metric differs with nothing planted) is recovered, not a false positive
    assert e["truth.null.n_false_positive"] == 1 and e["truth.null.n_recovered"] == 2  # C1 and C3
    # C4's estimand given the cohort's difficulties (0 - 0.06) lies on the claimed side: the
    # false positive holds of the participants this cohort drew
    assert e["truth.null.n_false_positive_true_of_cohort"] == 1
    assert e["truth.null.n_missed"] == 1  # C4b: flat by its estimand, inconclusive
    assert e["truth.null.n_no_false_positive"] == 6  # C2, C3b, C5, C6, C7, C7b
    assert e["truth.n_null_supported"] == 3
    assert e["truth.max_estimand_mc_se"] == pytest.approx(0.002)
    # C5, composite points: its gap to the hardest other category (0.07), printed beside its
    # estimand (0.05), is on the same scale
    assert e["truth.max_estimand_mc_se_points"] == pytest.approx(0.07)
    assert e["truth.max_estimand_mc_se_log_f"] == pytest.approx(0.03)  # C2, log F ratios
    rows, more = table.set_index(["Claim", "Cohort"]), detail.set_index(["Claim", "Cohort"])
    # precision set by the interval: half-width 0.075 gives 3 decimals
    assert rows.loc[("C3", "planted"), "Estimate [95%]"] == "-0.100 [-0.200, -0.050]"
    assert rows.loc[("C3", "planted"), "Estimand"] == "-0.080 ± 0.002 (MC)"
    assert rows.loc[("C3b", "planted"), "Estimand"] == "0.030 (exact)"
    # no interval: 3 decimals; C1 reads Monte-Carlo metrics (emotion F1), all draws giving one median
    assert rows.loc[("C1", "planted"), "Estimand"] == "0.100 (MC, equal in every draw)"
    assert rows.loc[("C7", "planted"), "Estimand"] == "0.900 (exact)"  # binary HP accuracy: exact values
    assert rows.loc[("C5", "planted"), "Estimand"] == "-2.500 ± 0.050 (MC); hardest yes (gap -1.500)"
    assert rows.loc[("C5", "null"), "Estimand"] == "0.400 ± 0.050 (MC); hardest no (gap 0.300)"
    assert rows.loc[("C5", "planted"), "Outcome"] == "recovered"
    assert rows.loc[("C2", "planted"), "Estimand"] == "0.400 ± 0.030 (MC)"
    assert rows.loc[("C2", "planted"), "Outcome"] == "recovered"
    assert rows.loc[("C6", "null"), "Outcome"] == "no false positive"  # tau-b 1: no flip to find
    assert rows.loc[("C4b", "planted"), "True when"] == "within ±0.05"
    covers = "Covers (estimand / this cohort)"
    assert more.loc[("C3", "planted"), covers] == "yes / yes" and more.loc[("C4b", "planted"), covers] == "no / no"
    assert more.loc[("C4", "planted"), covers] == "yes / no"  # -0.21 is outside [-0.2, -0.05]
    assert more.loc[("C3", "planted"), "Estimand, this cohort"] == "-0.140 ± 0.002 (MC)"
    assert e["truth.planted.n_covered_cohort"] == 1  # C3 (-0.14)
    assert more.loc[("C3", "null"), "Planted (generator units)"] == "diagnosis emotion +0.00"
    assert e["truth.planted.n_intervals"] == 10 and e["truth.planted.n_covered"] == 2  # C3 and C4 in [-0.2, -0.05]
    assert "Emotion F1" in rows.loc[("C3", "planted"), "Unit"]
    assert rows.loc[("C3b", "null"), "Estimand"] == "0.000 (exact)"  # a rounding residue is printed as 0


def test_a_claim_without_an_estimand_has_no_outcome(sim, claims):
    ids = [c["id"] for c in claims]
    nums = Numbers(scripts=RULE_SCRIPTS)
    table, _ = add_truth(
        nums,
        _table(dict.fromkeys(ids, "supported")),
        _table(dict.fromkeys(ids, "supported")),
        claims,
        sim,
        null_simulation(sim),
        ESTIMANDS[ESTIMANDS["id"] != "C2"],
    )
    rows = table.set_index(["Claim", "Cohort"])
    assert rows.loc[("C2", "planted"), "Estimand"] == "–" and rows.loc[("C2", "planted"), "Outcome"] == "–"
    assert nums.entries["truth.n_no_estimand"]["value"] == 1


def test_a_wide_interval_prints_fewer_decimals(sim, claims):
    ids = [c["id"] for c in claims]
    wide = _table(dict.fromkeys(ids, "supported")).assign(estimate=-2.34, lo=-4.1, hi=-0.6)
    table, _ = add_truth(Numbers(scripts=RULE_SCRIPTS), wide, wide, claims, sim, null_simulation(sim), ESTIMANDS)
    rows = table.set_index(["Claim", "Cohort"])
    assert rows.loc[("C5", "planted"), "Estimate [95%]"] == "-2.3 [-4.1, -0.6]"  # half-width 1.75
    assert rows.loc[("C5", "planted"), "Estimand"] == "-2.5 ± 0.1 (MC); hardest yes (gap -1.5)"
    assert rows.loc[("C3", "planted"), "Estimand"] == "-0.1 ± <0.1 (MC)"  # an error below the last decimal


def test_add_truth_refuses_an_unknown_cohort_of_estimands(sim, claims):
    ids = [c["id"] for c in claims]
    bad = ESTIMANDS.assign(cohort="other")
    with pytest.raises(ValueError, match=r"estimands.csv: field cohort.*truth_models"):
        add_truth(
            Numbers(scripts=RULE_SCRIPTS),
            _table(dict.fromkeys(ids, "supported")),
            _table(dict.fromkeys(ids, "supported")),
            claims,
            sim,
            null_simulation(sim),
            bad,
        )


def test_add_truth_refuses_a_claim_missing_from_a_table(sim, claims):
    null = _table({c["id"]: "inconclusive" for c in claims[1:]})
    with pytest.raises(ValueError, match=r"\['C1'\].*null_stats_claims"):
        add_truth(
            Numbers(scripts=RULE_SCRIPTS),
            _table({c["id"]: "supported" for c in claims}),
            null,
            claims,
            sim,
            null_simulation(sim),
            ESTIMANDS,
        )


def test_add_truth_models_counts_coverage_errors_and_monte_carlo():
    from eibench.report.truth_numbers import add_truth_models

    expected = pd.DataFrame(
        {
            "em_model": ["a", "a", "a", "b", "b", "b"],
            "metric": ["binary_om_acc", "emotion_f1", "composite"] * 2,
            "ability_logit": [0.1, -0.2, np.nan, 0.3, 0.0, np.nan],
            "expected": [0.70, 0.60, 70.0, 0.75, 0.65, 72.0],
            "mc_se": [0.0, 0.004, 0.1, 0.0, 0.002, 0.3],
            "expected_cohort": [0.71, 0.58, 70.5, 0.76, 0.66, 71.0],
            "mc_se_cohort": [0.0, 0.003, 0.1, 0.0, 0.005, 0.2],
            "exact": [True, False, False, True, False, False],
            "estimate": [0.72, 0.50, 71.0, 0.74, np.nan, 71.5],
            "lo": [0.68, 0.45, 69.0, 0.70, np.nan, 70.0],
            "hi": [0.76, 0.55, 73.0, 0.78, np.nan, 73.0],
            "covered": [True, False, True, True, False, True],
            "covered_cohort": [True, False, True, True, False, False],
        }
    )
    nums = Numbers(scripts=RULE_SCRIPTS)
    per_metric, per_model = add_truth_models(nums, expected)
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert e["truth.models.n_models"] == 2 and e["truth.models.n_intervals"] == 5
    assert e["truth.models.n_covered"] == 4 and e["truth.models.n_covered_cohort"] == 3
    assert e["truth.models.n_mc_metrics"] == 2 and e["truth.models.max_mc_se_proportion"] == pytest.approx(0.005)
    assert e["truth.models.emotion_f1.max_abs_error"] == pytest.approx(0.08)  # from the cohort's expectation
    assert e["truth.models.composite.max_abs_error"] == pytest.approx(0.5)
    m = per_metric.set_index("Metric")
    assert list(m["Expected value"]) == ["exact", "Monte Carlo", "Monte Carlo"]
    assert list(m["Covering, difficulties zero"]) == ["2 of 2", "0 of 1", "2 of 2"]
    assert list(m["Covering, this cohort"]) == ["2 of 2", "0 of 1", "1 of 2"]
    assert list(per_model["Expected, difficulties zero"])[:3] == ["0.700 (exact)", "0.600 ± 0.004", "70.00 ± 0.10"]
    assert list(per_model["Expected, this cohort"])[:2] == ["0.710 (exact)", "0.580 ± 0.003"]
    assert list(per_model["Covers (cohort / zero)"]) == [
        "yes / yes",
        "no / no",
        "yes / yes",
        "yes / yes",
        "no / no",
        "no / yes",
    ]
    assert per_model.loc[4, "Estimate [95%]"] == "–"
    assert per_model.loc[2, "Estimate [95%]"] == "71.00 [69.00, 73.00]"
    # a metric no interval is computed for says so
    alone = expected[expected["metric"] == "emotion_f1"].assign(
        metric="cw_q1_f1", estimate=np.nan, lo=np.nan, hi=np.nan
    )
    per_metric, _ = add_truth_models(Numbers(scripts=RULE_SCRIPTS), alone)
    assert list(per_metric["Covering, this cohort"]) == ["no interval"]


def test_add_truth_models_names_a_missing_column():
    from eibench.report.truth_numbers import add_truth_models

    with pytest.raises(ValueError, match=r"expected_metrics.csv: no column .*'mc_se'.*truth_models"):
        add_truth_models(Numbers(scripts=RULE_SCRIPTS), pd.DataFrame(columns=["em_model", "metric"]))


def test_the_largest_monte_carlo_error_of_a_proportion_leaves_out_other_scales():
    """PANAS baseline-adjusted is a skill score, Kendall tau a correlation: the small run printed
    the skill score's 0.0452 as "the Monte-Carlo error of a simulated expected proportion"."""
    from eibench.report.truth_numbers import add_truth_models

    expected = pd.DataFrame(
        {
            "em_model": ["a"] * 4,
            "metric": ["emotion_f1", "panas_adjusted", "kendall_tau", "composite"],
            "ability_logit": [0.1, 0.1, 0.1, np.nan],
            "expected": [0.6, 0.1, 0.2, 70.0],
            "mc_se": [0.004, 0.045, 0.016, 0.4],
            "expected_cohort": [0.6, 0.1, 0.2, 70.0],
            "mc_se_cohort": [0.003, 0.026, 0.011, 0.4],
            "exact": [False] * 4,
            "estimate": [0.6, 0.1, 0.2, 70.0],
            "lo": [0.5, 0.0, 0.1, 69.0],
            "hi": [0.7, 0.2, 0.3, 71.0],
            "covered": [True] * 4,
            "covered_cohort": [True] * 4,
        }
    )
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_truth_models(nums, expected)
    assert nums.entries["truth.models.max_mc_se_proportion"]["value"] == pytest.approx(0.004)


def test_a_false_positive_false_of_this_cohort_too_is_not_counted_true_of_it(sim, claims):
    e, _ = _null_only(sim, claims, "C4", {"estimand_cohort": 0.02})  # a rise given the draw: false of it too
    assert e["truth.null.n_false_positive"] == 1 and e["truth.null.n_false_positive_true_of_cohort"] == 0

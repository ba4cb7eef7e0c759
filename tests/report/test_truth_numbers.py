"""Truth beside estimate: the planted truth of each claim read from the simulator's settings,
the outcome of each verdict, and the table and numbers of the truth section."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
from eibench.report.numbers import Numbers
from eibench.report.truth_numbers import add_truth, outcome, planted_truth
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
    for key in set(sim) - {"effects", "human", "ability_correlation"}:
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
        "C2": None,
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
        "C2": None,
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
    assert truth["C6"]["planted"] == "not planted"


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


def test_add_truth_counts_and_table(sim, claims):
    ids = [c["id"] for c in claims]
    planted = _table({i: "supported" for i in ids} | {"C3b": "inconclusive"})
    null = _table({i: "inconclusive" for i in ids} | {"C4": "supported", "C1": "supported"})
    nums = Numbers(scripts=RULE_SCRIPTS)
    table = add_truth(nums, planted, null, claims, sim, null_simulation(sim))
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert list(table["Claim"]) == ids
    assert e["truth.planted.n_recovered"] == 7 and e["truth.planted.n_missed"] == 1  # C2, C6 not planted
    assert e["truth.null.n_false_positive"] == 1  # C4; C1 holds in the null cohort
    assert e["truth.null.n_no_false_positive"] == 5  # C3, C3b, C5, C7, C7b
    assert e["truth.n_null_supported"] == 2
    assert table.set_index("Claim").loc["C3", "Planted: estimate [95%]"] == "-0.100 [-0.200, -0.050]"


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
        )


def test_add_truth_models_counts_coverage_and_errors():
    from eibench.report.truth_numbers import add_truth_models

    expected = pd.DataFrame(
        {
            "em_model": ["a", "a", "b", "b"],
            "metric": ["binary_om_acc", "binary_hp_acc"] * 2,
            "ability_logit": [0.1, -0.2, 0.3, 0.0],
            "expected": [0.70, 0.60, 0.75, 0.65],
            "estimate": [0.72, 0.50, 0.74, np.nan],
            "lo": [0.68, 0.45, 0.70, np.nan],
            "hi": [0.76, 0.55, 0.78, np.nan],
            "covered": [True, False, True, False],
        }
    )
    nums = Numbers(scripts=RULE_SCRIPTS)
    table = add_truth_models(nums, expected)
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert e["truth.models.n_models"] == 2 and e["truth.models.n_intervals"] == 3 and e["truth.models.n_covered"] == 2
    assert e["truth.models.max_abs_error"] == pytest.approx(0.10)
    assert list(table["Covered"]) == ["yes", "no", "yes", "no"] and table.loc[3, "Estimate [95%]"] == "–"

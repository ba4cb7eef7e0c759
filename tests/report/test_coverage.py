"""Coverage below nominal, by a binomial test (eibench.report.coverage)."""

from __future__ import annotations

import pandas as pd
import pytest
from eibench.report.coverage import add_coverage
from eibench.report.numbers import Numbers
from eibench.stats.simulation import coverage_test
from scipy.stats import binomtest


def test_coverage_of_0_91_over_200_studies_is_significantly_below_0_95():
    t = coverage_test(182, 200)
    assert t["coverage_p"] == pytest.approx(binomtest(182, 200, 0.95).pvalue) and 0.01 < t["coverage_p"] < 0.02
    assert t["coverage_vs_nominal"] == "below nominal" and t["coverage_lo"] < 0.91 < t["coverage_hi"] < 0.95


def test_add_coverage_names_what_is_below_above_and_untested():
    planted = pd.DataFrame(
        {
            "effect": ["diagnosis", "drift", "romantic", "human", "power"],
            "coverage": [0.91, 0.95, 0.995, 0.9336363636, float("nan")],
        }
    )
    counts = {"diagnosis": 182, "drift": 190, "romantic": 199}
    planted["coverage_p"] = [
        coverage_test(counts[e], 200)["coverage_p"] if e in counts else float("nan") for e in planted["effect"]
    ]
    nums = Numbers(scripts={"stats_simulation_summary": "workflow/scripts/stats_simulation_summary.py"})
    printed = add_coverage(nums, planted)
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert printed == ["0.014", "1.000", "< 0.001", "–", "–"]
    assert e["sim.n_coverage_tested"] == 3 and e["sim.n_coverage_untested"] == 1
    assert e["sim.n_coverage_below"] == 1 and e["sim.coverage_below"].startswith("diagnosis (91.0 %, binomial p 0.014)")
    assert e["sim.n_coverage_above"] == 1 and e["sim.coverage_above"].startswith("romantic")
    assert e["sim.coverage_untested"] == "human"


def _recovery(planted: pd.DataFrame) -> dict:
    from eibench.report.coverage import add_recovery

    nums = Numbers(scripts={"stats_simulation_summary": "workflow/scripts/stats_simulation_summary.py"})
    add_recovery(nums, planted)
    return {k: v for k, v in nums.entries.items()}


POWER = "power: share of models the humans are declared better than (Holm)"


def test_the_recovery_sentence_rounds_as_the_table_and_counts_studies_per_effect():
    planted = pd.DataFrame(
        {
            "effect": ["diagnosis", "romantic", "drift", "human", POWER],
            "planted": [-0.08, -3.784, -0.1, 0.1, float("nan")],
            "sign_recovery": [1.0, 1.0, 0.99, 1.0, float("nan")],
            "coverage": [0.95, 0.94, 0.925, 0.93, float("nan")],
            "n_simulations": [145, 200, 200, 200, 200],
            "left_out": ["", "", "", "", ""],
        }
    )
    e = _recovery(planted)
    assert e["sim.min_coverage"]["display"] == "93"  # the table prints 0.925 as 0.93, not 92
    assert e["sim.max_coverage"]["display"] == "95"
    assert e["sim.min_sign_recovery"]["display"] == "99"
    assert (e["sim.min_planted_studies"]["value"], e["sim.max_planted_studies"]["value"]) == (145, 200)
    assert (e["sim.n_planted_effects"]["value"], e["sim.n_planted_effects_all"]["value"]) == (4, 4)
    assert e["sim.no_planted_value"]["value"] == "none"


def test_an_effect_simulated_in_no_study_enters_no_recovery_number():
    planted = pd.DataFrame(
        {
            "effect": ["diagnosis", "romantic", "drift", "human", POWER],
            "planted": [float("nan"), -4.0, -0.1, float("nan"), float("nan")],
            "sign_recovery": [float("nan"), 1.0, 1.0, float("nan"), float("nan")],
            # a coverage left on a row simulated in no study is no coverage of the design
            "coverage": [0.99, 0.96, 0.91, float("nan"), float("nan")],
            "n_simulations": [0, 200, 180, 0, 0],
            "left_out": ["no diagnosis recorded", "", "", "no raters", "no raters"],
        }
    )
    e = _recovery(planted)
    assert (e["sim.n_planted_effects"]["value"], e["sim.n_planted_effects_all"]["value"]) == (2, 4)
    assert (e["sim.min_planted_studies"]["value"], e["sim.max_planted_studies"]["value"]) == (180, 200)
    assert e["sim.n_no_planted_value"]["value"] == 2
    assert (
        e["sim.no_planted_value"]["value"]
        == "diagnosis (not simulated in this design); human (not simulated in this design)"
    )
    assert e["sim.min_coverage"]["display"] == "91"
    # The range is over the effects estimated, one filter for both ends: not the 0.99 of the
    # diagnosis row, which no study estimated.
    assert e["sim.max_coverage"]["display"] == "96"

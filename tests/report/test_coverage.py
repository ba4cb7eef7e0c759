"""Coverage below nominal, by a binomial test (eibench.report.coverage)."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from eibench.report.coverage import add_coverage, coverage_p, covered_count
from eibench.report.numbers import Numbers
from scipy.stats import binomtest


def test_coverage_of_0_91_over_200_studies_is_significantly_below_0_95():
    p = coverage_p(0.91, 200)
    assert p == pytest.approx(binomtest(182, 200, 0.95).pvalue) and 0.01 < p < 0.02


def test_a_coverage_that_is_not_a_count_has_no_binomial_test():
    assert covered_count(0.9336363636, 200) is None  # a mean over the models of each study
    assert math.isnan(coverage_p(0.9336363636, 200))
    assert covered_count(0.9528795812, 191) == 182
    assert math.isnan(coverage_p(float("nan"), 200)) and math.isnan(coverage_p(0.9, 0))


def test_add_coverage_names_what_is_below_above_and_untested():
    planted = pd.DataFrame({
        "effect": ["diagnosis", "drift", "romantic", "human", "power"],
        "coverage": [0.91, 0.95, 0.995, 0.9336363636, float("nan")],
        "n_simulations": [200, 200, 200, 200, 200],
    })
    nums = Numbers(scripts={"stats_simulation_summary": "workflow/scripts/stats_simulation_summary.py"})
    printed = add_coverage(nums, planted)
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert printed == ["0.014", "1.000", "< 0.001", "–", "–"]
    assert e["sim.n_coverage_tested"] == 3 and e["sim.n_coverage_untested"] == 1
    assert e["sim.n_coverage_below"] == 1 and e["sim.coverage_below"].startswith("diagnosis (91.0 %, binomial p 0.014)")
    assert e["sim.n_coverage_above"] == 1 and e["sim.coverage_above"].startswith("romantic")
    assert e["sim.coverage_untested"] == "human" and e["sim.max_coverage"] == pytest.approx(99.5)

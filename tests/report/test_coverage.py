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
    assert e["sim.coverage_untested"] == "human" and e["sim.max_coverage"] == pytest.approx(99.5)

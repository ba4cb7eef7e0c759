"""Coverage below nominal, by a binomial test (eibench.report.coverage)."""

from __future__ import annotations

import pandas as pd
import pytest
from eibench.report.coverage import add_coverage, too_few_studies
from eibench.report.numbers import Numbers, fmt_p
from eibench.report.stats_numbers import add_null_rates
from eibench.stats.simulation import coverage_test
from scipy.stats import binom, binomtest


def test_coverage_of_0_91_over_200_studies_is_significantly_below_0_95():
    t = coverage_test(182, 200)
    assert t["coverage_p"] == pytest.approx(binomtest(182, 200, 0.95, alternative="less").pvalue)
    assert 0.01 < t["coverage_p"] < 0.02
    assert t["coverage_vs_nominal"] == "below nominal" and t["coverage_lo"] < 0.91 < t["coverage_hi"] < 0.95


def test_add_coverage_names_what_is_below_above_and_untested():
    planted = pd.DataFrame(
        {
            "effect": ["diagnosis", "drift", "romantic", "human", "power"],
            "coverage": [0.91, 0.95, 0.995, 0.9336363636, float("nan")],
            "n_simulations": [200, 200, 200, 200, 200],
        }
    )
    counts = {"diagnosis": 182, "drift": 190, "romantic": 199}
    for column in ("coverage_p", "coverage_p_above", "coverage_vs_nominal"):
        planted[column] = [
            coverage_test(counts[e], 200)[column] if e in counts else float("nan") for e in planted["effect"]
        ]
    nums = Numbers(scripts={"stats_simulation_summary": "workflow/scripts/stats_simulation_summary.py"})
    printed = add_coverage(nums, planted)
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert printed == ["0.012", "0.545", "1.000", "–", "–"]  # one-sided, against under-coverage
    assert e["sim.n_coverage_tested"] == 3 and e["sim.n_coverage_untested"] == 1
    assert e["sim.n_coverage_below"] == 1 and e["sim.coverage_below"].startswith("diagnosis (91 %, binomial p 0.012)")
    # above nominal: printed with the p of its own one-sided test, not the under-coverage p
    assert e["sim.coverage_above"] == "romantic (99.5 %, binomial p < 0.001)"
    assert e["sim.coverage_untested"] == "human"
    assert e["sim.coverage_too_few"] is False  # 200 studies can check a coverage


def test_too_few_studies_when_the_band_reaches_beyond_twice_the_level():
    """Over 8 studies the binomial 95% band of 0.05 reaches 0.25 (five times the level), and a
    coverage test can flag only 5 of 8 or fewer: too few to check. Over 100 it reaches 0.10."""
    assert too_few_studies(8, 0.05) and too_few_studies(50, 0.05) and too_few_studies(0, 0.05)
    assert not too_few_studies(100, 0.05) and not too_few_studies(158, 0.05) and not too_few_studies(200, 0.05)


def test_add_coverage_says_when_too_few_studies_test_a_coverage():
    planted = pd.DataFrame(
        {
            "effect": ["drift", "human"],
            "coverage": [1.0, 0.79],
            "coverage_p": [coverage_test(8, 8)["coverage_p"], float("nan")],
            "coverage_p_above": [coverage_test(8, 8)["coverage_p_above"], float("nan")],
            "coverage_vs_nominal": [coverage_test(8, 8)["coverage_vs_nominal"], ""],
            "n_simulations": [8, 8],
        }
    )
    nums = Numbers(scripts={"stats_simulation_summary": "workflow/scripts/stats_simulation_summary.py"})
    printed = add_coverage(nums, planted)
    assert nums.entries["sim.coverage_too_few"]["value"] is True
    # the planted-effects table prints no p of a coverage that 8 studies cannot show at nominal (it printed 1.000)
    assert printed == ["–", "–"]


def test_a_coverage_significantly_below_nominal_counts_however_few_the_studies():
    """Over 40 studies the band of a non-coverage of 0.05 reaches 0.125: a coverage not
    significantly below nominal shows no calibrated interval (no p, no verdict), but 34 of 40
    covering (85 %, one-sided binomial p 0.014) is evidence of under-coverage all the same."""
    low, fine = coverage_test(34, 40), coverage_test(39, 40)
    assert low["coverage_vs_nominal"] == "below nominal" and fine["coverage_vs_nominal"] != "below nominal"
    planted = pd.DataFrame(
        {
            "effect": ["drift", "diagnosis"],
            "coverage": [34 / 40, 39 / 40],
            "coverage_p": [low["coverage_p"], fine["coverage_p"]],
            "coverage_p_above": [low["coverage_p_above"], fine["coverage_p_above"]],
            "coverage_vs_nominal": [low["coverage_vs_nominal"], fine["coverage_vs_nominal"]],
            "n_simulations": [40, 40],
        }
    )
    nums = Numbers(scripts={"stats_simulation_summary": "workflow/scripts/stats_simulation_summary.py"})
    printed = add_coverage(nums, planted)
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert e["sim.coverage_too_few"] is True
    assert e["sim.n_coverage_below"] == 1 and e["sim.coverage_below"].startswith("drift (85 %, binomial p 0.0")
    assert printed[0] == fmt_p(low["coverage_p"]) and printed[1] == "–"


def _null(rows: list[tuple[str, int, float]]) -> pd.DataFrame:
    """A null-rates table as rule stats_simulation_summary writes it (stats.simulation.summarise_null)."""
    records = []
    for test, n, rate in rows:
        lo, hi = (binom.ppf(0.025, n, 0.05) / n, binom.ppf(0.975, n, 0.05) / n) if n else (float("nan"),) * 2
        records.append(
            {
                "test": test,
                "n_simulations": n,
                "false_positive_rate": rate if n else float("nan"),
                "alpha": 0.05,
                "band_lo": lo,
                "band_hi": hi,
                "within_band": (lo <= rate <= hi) if n else "",
                "joint_band_lo": lo,
                "joint_band_hi": hi,
                "within_joint_band": (lo <= rate <= hi) if n else "",
                "left_out": "" if n else "not in this design",
            }
        )
    return pd.DataFrame(records)


def test_eight_simulated_studies_give_no_pass_of_a_false_positive_rate_but_a_fail_all_the_same():
    """Over 8 studies the band of 0.05 reaches 0.25: a rate inside it shows no calibration (–),
    but one above it (3 of 8) is evidence of a test that rejects too often however few the studies."""
    nums = Numbers(scripts={"stats_simulation_summary": "workflow/scripts/stats_simulation_summary.py"})
    table = add_null_rates(nums, _null([("a", 8, 0.0), ("b", 8, 0.25), ("c", 0, 0.0), ("d", 8, 0.375)]))
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert e["sim.null_too_few"] is True and e["sim.n_null"] == e["sim.min_null"] == 8
    assert list(table["Within band"]) == ["–", "–", "–", "no"]
    assert list(table["Within joint band"]) == ["–", "–", "–", "no"]
    assert e["sim.n_outside_band"] == 1 and e["sim.outside_band"] == "d"


def test_tests_over_different_counts_of_studies_give_the_range_of_counts():
    """The mixed model of the release cohort ran in 158 of 200 studies, with its own band."""
    nums = Numbers(scripts={"stats_simulation_summary": "workflow/scripts/stats_simulation_summary.py"})
    table = add_null_rates(nums, _null([("permutation", 200, 0.015), ("mixed", 158, 0.038)]))
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert e["sim.null_too_few"] is False
    assert (e["sim.min_null"], e["sim.n_null"]) == (158, 200) and e["sim.band"] == "[0.020, 0.080]"
    assert list(table["Within band"]) == ["no", "yes"]


def test_the_romantic_tests_left_out_are_named_for_the_composite_sentences():
    """A cohort with one romantic conversation leaves both romantic tests out of the simulation;
    the paper still said what the simulation reports of the romantic mixed model's fits."""
    boot, mixed = "romantic contrast: cluster bootstrap", "romantic contrast: mixed model (Wald)"
    nums = Numbers(scripts={"stats_simulation_summary": "workflow/scripts/stats_simulation_summary.py"})
    add_null_rates(nums, _null([(boot, 0, 0.0), (mixed, 0, 0.0), ("turn drift: Page's trend test", 200, 0.035)]))
    assert nums.entries["sim.romantic_left_out"]["value"] is True
    assert nums.entries["sim.romantic_mixed_left_out"]["value"] is True
    ran = Numbers(scripts={"stats_simulation_summary": "workflow/scripts/stats_simulation_summary.py"})
    add_null_rates(ran, _null([(boot, 200, 0.05), (mixed, 0, 0.0)]))
    assert ran.entries["sim.romantic_left_out"]["value"] is False
    assert ran.entries["sim.romantic_mixed_left_out"]["value"] is True


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


def test_a_sign_recovered_in_199_of_200_studies_is_not_every_study():
    """The sentence says "every one of its studies" when sim.min_sign_recovery is 100: 199 of
    200 (0.995) rounded to 1.00 and 100 % and printed that false sentence."""
    planted = pd.DataFrame(
        {
            "effect": ["diagnosis", "romantic", POWER],
            "planted": [-0.08, -3.784, float("nan")],
            "sign_recovery": [199 / 200, 1.0, float("nan")],
            "coverage": [0.95, 181 / 200, float("nan")],
            "n_simulations": [200, 200, 200],
            "left_out": ["", "", ""],
        }
    )
    e = _recovery(planted)
    assert e["sim.min_sign_recovery"]["value"] == 99.5 and e["sim.min_sign_recovery"]["display"] == "99.5"
    assert (e["sim.min_coverage"]["display"], e["sim.max_coverage"]["display"]) == ("91", "95")


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
    # The power row, which no study ran either, prints dashes too and is named with them.
    assert e["sim.n_no_planted_value"]["value"] == 3
    assert (
        e["sim.no_planted_value"]["value"]
        == "diagnosis (not simulated in this design); human (not simulated in this design); "
        f"{POWER} (not simulated in this design)"
    )
    assert e["sim.min_coverage"]["display"] == "91"
    # The range is over the effects estimated, one filter for both ends: not the 0.99 of the
    # diagnosis row, which no study estimated.
    assert e["sim.max_coverage"]["display"] == "96"


def test_a_coverage_of_191_in_200_studies_is_printed_above_the_nominal_level():
    """Release build on ESConv's chats: 191 of 200 intervals covered the planted romantic effect
    (0.955, stored as 0.95499999...), printed "0.95" in the planted-effects table and "91 to 95 %"
    in the sentence: onto the nominal level. Both round the share from its count: 0.96, 96 %."""
    from eibench.report.coverage import add_recovery
    from eibench.report.stats_numbers import planted_table

    nan = float("nan")
    planted = pd.DataFrame(
        {
            "effect": ["diagnosis", "romantic", "drift", "human", POWER],
            "planted": [nan, -4.0, -0.1, nan, nan],
            "mean_estimate": [nan, -4.01, -0.1, nan, nan],
            "sign_recovery": [nan, 1.0, 1.0, nan, nan],
            "coverage": [nan, 191 / 200, 182 / 200, nan, nan],
            "coverage_p": [nan, coverage_test(191, 200)["coverage_p"], coverage_test(182, 200)["coverage_p"], nan, nan],
            "coverage_p_above": [
                nan,
                coverage_test(191, 200)["coverage_p_above"],
                coverage_test(182, 200)["coverage_p_above"],
                nan,
                nan,
            ],
            "coverage_vs_nominal": [
                "",
                coverage_test(191, 200)["coverage_vs_nominal"],
                coverage_test(182, 200)["coverage_vs_nominal"],
                "",
                "",
            ],
            "n_simulations": [0, 200, 200, 0, 0],
            "left_out": ["not simulated", "", "", "no raters", "no raters"],
        }
    )
    assert planted_table(planted)["Coverage"].tolist() == ["–", "0.96", "0.91", "–", "–"]
    assert planted_table(planted)["Correct sign"].tolist() == ["–", "1.00", "1.00", "–", "–"]
    nums = Numbers(scripts={"stats_simulation_summary": "workflow/scripts/stats_simulation_summary.py"})
    add_recovery(nums, planted)
    add_coverage(nums, planted)
    e = nums.entries
    assert (e["sim.min_coverage"]["display"], e["sim.max_coverage"]["display"]) == ("91", "96")
    assert e["sim.min_sign_recovery"]["display"] == "100"
    assert e["sim.coverage_below"]["value"] == "drift (91 %, binomial p 0.012)"


def test_the_false_positive_rates_round_from_their_counts():
    """3 of 400 studies is 0.0075, stored as 0.00749999...: binary rounding printed 0.007; the
    table rounds the share from its count, 0.008 (numbers.fmt_share)."""
    nums = Numbers(scripts={"stats_simulation_summary": "workflow/scripts/stats_simulation_summary.py"})
    table = add_null_rates(nums, _null([("a", 400, 3 / 400), ("b", 200, 9 / 200), ("c", 0, 0.0)]))
    assert list(table["False-positive rate"]) == ["0.008", "0.045", "–"]
    assert list(table["95% band"])[1:] == ["[0.020, 0.080]", "[–, –]"]


def test_a_coverage_below_nominal_is_never_printed_at_nominal():
    """With 10,000 studies, 9,455 covering intervals (94.55 %) is significantly below 95 %, and
    the table's two decimals round it to 0.95: the below-nominal list printed "95 %", now 94.6."""
    from eibench.report.coverage import _percent_text

    assert _percent_text(9455 / 10000, 10000, "below") == "94.6"
    assert _percent_text(9545 / 10000, 10000, "above") == "95.5"
    assert _percent_text(182 / 200, 200, "below") == "91"  # the table's rounding where it is clear

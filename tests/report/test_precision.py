"""Precision set by the interval (eibench.report.numbers): two significant digits of the
half-width decide the decimals of the estimate and of both bounds."""

from __future__ import annotations

import math

import pytest
from eibench.report.numbers import Numbers, fmt_interval, fmt_outward, interval_digits


@pytest.mark.parametrize(
    "lo, hi, digits",
    [
        (-7.693, -3.884, 1),  # half-width 1.9: one decimal
        (0.70, 0.85, 3),  # 0.075: three
        (76.57, 78.28, 2),  # 0.855 -> 0.86: two
        (10.0, 50.0, 0),  # 20: no decimal (never negative)
        (0.0, 1980.0, 0),
        (0.0, 0.1992, 2),  # 0.0996 rounds to 0.10: two decimals, not three
        (0.0, 0.0002, 5),  # 0.0001: five
    ],
)
def test_two_significant_digits_of_the_half_width(lo, hi, digits):
    assert interval_digits(lo, hi) == digits


@pytest.mark.parametrize("lo, hi", [(float("nan"), 1.0), (0.0, float("inf")), (None, 1.0), (2.0, 2.0)])
def test_an_interval_without_width_or_bound_uses_the_fallback(lo, hi):
    assert interval_digits(lo, hi, fallback=3) == 3


def test_the_estimate_and_bounds_share_the_interval_precision():
    assert fmt_interval(-5.773, -7.693, -3.884) == ("-5.8", "[-7.7, -3.9]")
    assert fmt_interval(0.8, 0.7, 0.85) == ("0.800", "[0.700, 0.850]")
    assert fmt_interval(float("nan"), float("nan"), float("nan"), 2) == ("–", "[–, –]")


def test_numbers_with_an_interval_print_at_its_precision():
    nums = Numbers(scripts={"r": "s.py"})
    nums.add("a", -5.773, "r", "s.py", digits=3, ci=(-7.693, -3.884))
    nums.add("b", 0.5, "r", "s.py", digits=3, ci=(math.nan, math.nan))  # no usable interval: digits
    nums.add("c", 0.123456, "r", "s.py", digits=3)  # no interval: digits
    e = nums.entries
    assert (e["a"]["display"], e["a"]["ci_display"]) == ("-5.8", "[-7.7, -3.9]")
    assert (e["b"]["display"], e["b"]["ci_display"]) == ("0.500", "[–, –]")
    assert e["c"]["display"] == "0.123" and "ci_display" not in e["c"]
    assert e["a"]["value"] == -5.773  # the value keeps its full precision


@pytest.mark.parametrize(
    "p, shown",
    [
        (0.04999, "0.050"),
        (0.001, "0.001"),
        (0.000999, "< 0.001"),
        (0.0, "< 0.001"),
        (1.0, "1.000"),
        (float("nan"), "–"),
        (float("inf"), "–"),
        (None, "–"),
    ],
)
def test_one_way_to_print_a_p_value(p, shown):
    import numpy as np
    import pandas as pd
    from eibench.report.numbers import fmt_p

    assert fmt_p(p) == shown
    if p is not None:
        assert fmt_p(np.float64(p)) == shown
    assert fmt_p(pd.NA) == "–"


@pytest.mark.parametrize(
    "lo, hi, printed",
    [
        (0.049, 0.1762, "[0.04, 0.18]"),  # nearest rounding would print the lower bound on 0.05
        (0.29, 0.71, "[0.29, 0.71]"),  # exact at two decimals: unchanged (0.29 * 100 is 28.999...)
        (0.0, 0.01827, "[0.00, 0.02]"),
        (-0.004, 0.3, "[-0.01, 0.30]"),
        (float("nan"), 0.5, "[–, 0.50]"),
    ],
)
def test_outward_bounds_hold_the_computed_interval(lo, hi, printed):
    assert fmt_outward(lo, hi) == printed


@pytest.mark.parametrize(
    "lo, hi, printed",
    [
        # seed 7: C7's false-positive rate 11 of 100 lies above 0.05 ([0.0562, 0.1897]), but
        # rounded down its lower bound printed [0.05, 0.19]: on the level it lies above
        (0.0562, 0.1897, "[0.056, 0.190]"),
        (0.05, 0.1897, "[0.05, 0.19]"),  # a bound on the level prints on it
        (0.7951, 0.8, "[0.79, 0.80]"),  # the upper bound is the bar itself
        (0.7, 0.79999, "[0.70000, 0.79999]"),  # below the bar: decimals until it shows
        (0.0500004, 0.2, "[0.05000, 0.20000]"),  # at most three decimals more, then as it falls
        (0.049, 0.9501, "[0.04, 0.96]"),  # neither bound rounds onto a level
    ],
)
def test_outward_bounds_stay_off_the_levels_they_are_read_against(lo, hi, printed):
    assert fmt_outward(lo, hi, levels=(0.05, 0.8, 0.95)) == printed


@pytest.mark.parametrize(
    "share, n, digits, scale, shown",
    [
        (0.955, 200, 2, 1, "0.96"),  # 191 of 200: stored as 0.95499999..., binary rounding gives 0.95
        (191 / 200, 200, 0, 100, "96"),
        (0.955, 200, 1, 100, "95.5"),
        (0.91, 200, 1, 100, "91.0"),
        (0.045, 200, 3, 1, "0.045"),
        (0.0025, 400, 3, 1, "0.003"),  # 1 of 400: half away from zero, not to even
        (0.125, 8, 2, 1, "0.13"),
        (1.0, 200, 2, 1, "1.00"),
        (0.0, 200, 2, 1, "0.00"),
        # A share between 0 and 1 never prints as none or all of the studies: more decimals.
        (199 / 200, 200, 2, 1, "0.995"),
        (199 / 200, 200, 0, 100, "99.5"),
        (1 / 400, 400, 2, 1, "0.003"),
        (1 / 2000, 2000, 2, 1, "0.001"),
        (0.9999999999999999, None, 2, 1, "1.00"),  # a mean of ones with a float error is 1
        (1e-9, None, 2, 1, "0.000000"),  # up to 6 decimals, then as rounded
        (0.9336363636, 200, 2, 1, "0.93"),  # a mean over the models of each study: not a count
        (0.955, None, 2, 1, "0.96"),  # no count: its shortest decimal form, 0.955
        (-0.125, None, 2, 1, "-0.13"),
        (float("nan"), 200, 2, 1, "–"),
        (None, 200, 2, 1, "–"),
    ],
)
def test_a_share_of_simulated_studies_rounds_from_its_count(share, n, digits, scale, shown):
    from eibench.report.numbers import fmt_share

    assert fmt_share(share, n, digits, scale) == shown


def test_a_share_in_percent_rounds_as_the_table_prints_it():
    from eibench.report.numbers import table_percent

    assert table_percent(0.925) == 93.0  # printed 0.93 in the table
    assert table_percent(0.955, n=200) == 96.0  # 191 of 200, printed 0.96, not 95 % beside it
    assert math.isnan(table_percent(float("nan")))
    assert table_percent(199 / 200, n=200) == 99.5  # printed 0.995: not 100 %, which reads as every study

"""Is the coverage of the planted effects' intervals below nominal? A binomial test of each
coverage the paper prints against the nominal level, and the numbers the paper words it with.

The validation by simulation (rule stats_simulation_summary) reports, per planted effect, the
share of simulated studies whose 95% interval covers the planted value and its one-sided exact
binomial tests against the nominal level (eibench.stats.simulation.coverage_test: ``coverage_p``
against under-coverage, ``coverage_p_above`` against over-coverage). With a few hundred
studies, 0.91 is significantly below 0.95 (one-sided binomial p about 0.01): it must be
reported as under-coverage, not as a pass.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pandas as pd
from scipy import stats

from ..stats.simulation import POWER_ROW
from .numbers import Numbers, fmt_p, fmt_share_beside, table_percent

RULE = "stats_simulation_summary"


def too_few_studies(n: int, rate: float) -> bool:
    """Are ``n`` simulated studies too few to check an error rate whose nominal value is ``rate``
    (a test's false-positive rate against alpha, or an interval's non-coverage against one minus
    its nominal coverage)? The rule: too few when the upper limit of the binomial 95% band of
    ``rate`` over ``n`` studies (the 97.5% quantile of Binomial(n, rate) over n, as rule
    stats_simulation_summary draws the band) exceeds twice ``rate``: the run could not tell an
    error rate double the nominal one from the nominal one. Over 8 studies at 0.05 the band
    reaches 0.25; over 100 it reaches 0.10, which passes. No study at all is too few."""
    if n <= 0:
        return True
    return bool(stats.binom.ppf(0.975, n, rate) / n > 2 * rate)


def add_coverage(nums: Numbers, planted: pd.DataFrame, level: float = 0.95, alpha: float = 0.05) -> list[str]:
    """Add the coverage numbers of the planted effects to ``nums``; return the printed binomial
    p of each row of ``planted`` (the table of rule stats_simulation_summary: ``effect``,
    ``coverage``, ``coverage_p``, ``coverage_p_above``, ``coverage_vs_nominal``), in its order,
    for the planted-effects table. ``coverage_p`` is the one-sided exact binomial p against
    under-coverage the simulation summary computed from the count of covering intervals,
    ``coverage_p_above`` the one against over-coverage, and ``coverage_vs_nominal`` their verdict
    at ``statistics.alpha`` (eibench.stats.simulation.coverage_test, read here, not decided
    again); NaN where the coverage is a share over the models of each study, not a count of
    independent intervals (no test applies). ``alpha`` only words the entries' notes.

    Entries: ``sim.n_coverage_tested`` (coverages with a binomial
    test), ``sim.n_coverage_untested`` and ``sim.coverage_untested`` (shares that are not a
    count), ``sim.n_coverage_below`` / ``sim.coverage_below`` (verdict 'below nominal', each
    with its coverage and ``coverage_p``), ``sim.n_coverage_above`` / ``sim.coverage_above``
    (verdict 'above nominal': conservative intervals, each with ``coverage_p_above``) and
    ``sim.coverage_too_few`` (``too_few_studies`` for the non-coverage, 1 - ``level``, over the
    most studies a tested coverage ran in; False when no coverage is tested). Too few studies
    cannot show a coverage at nominal: a coverage not significantly below it then gets no verdict
    and its printed p is a dash. One significantly below it is evidence of under-coverage however
    few the studies: it keeps its verdict (it is counted in ``sim.n_coverage_below``) and its p."""
    ps = [
        float(p) if pd.notna(c) and pd.notna(p) else float("nan")
        for c, p in zip(planted["coverage"], planted["coverage_p"])
    ]
    tested = [
        (e, float(c), p, float(q), int(n), v)
        for e, c, p, q, n, v in zip(
            planted["effect"],
            planted["coverage"],
            ps,
            planted["coverage_p_above"],
            planted["n_simulations"],
            planted["coverage_vs_nominal"],
        )
        if pd.notna(c) and math.isfinite(p)
    ]
    untested = [
        e for e, c, p in zip(planted["effect"], planted["coverage"], ps) if pd.notna(c) and not math.isfinite(p)
    ]
    n_tested = [
        int(n) for n, c, p in zip(planted["n_simulations"], planted["coverage"], ps) if pd.notna(c) and math.isfinite(p)
    ]
    below = [(e, c, p, n) for e, c, p, _, n, v in tested if v == "below nominal"]
    above = [(e, c, q, n) for e, c, _, q, n, v in tested if v == "above nominal"]

    def listing(found: list[tuple[str, float, float, int]], side: str) -> str:
        return (
            "; ".join(f"{e} ({_percent_text(c, n, side, level)} %, binomial p {fmt_p(p)})" for e, c, p, n in found)
            or "none"
        )

    def add(key: str, value, **kw) -> None:
        nums.add(key, value, RULE, **kw)

    add("sim.coverage_level", level * 100, digits=0, note="nominal coverage the binomial tests compare with")
    add("sim.n_coverage_tested", len(tested))
    add("sim.n_coverage_untested", len(untested))
    add(
        "sim.coverage_untested",
        "; ".join(untested) or "none",
        note="coverages that are means over the models of each study, not counts of independent intervals",
    )
    too_few = bool(n_tested) and too_few_studies(max(n_tested), 1 - level)
    add(
        "sim.coverage_too_few",
        too_few,
        note="too few simulated studies to show a coverage at nominal: the binomial 95% band of the "
        "non-coverage over them reaches beyond twice its nominal value (a coverage significantly below "
        "nominal still counts)",
    )
    add("sim.n_coverage_below", len(below))
    add(
        "sim.coverage_below",
        listing(below, "below"),
        note=f"coverage below the nominal level, one-sided binomial p <= {alpha}",
    )
    add("sim.n_coverage_above", len(above))
    add(
        "sim.coverage_above",
        listing(above, "above"),
        note=f"coverage above the nominal level, one-sided binomial p <= {alpha}",
    )
    # Too few studies to show a coverage at nominal: a p is printed only for a coverage significantly below it.
    return [
        fmt_p(float("nan") if too_few and v != "below nominal" else p)
        for p, v in zip(ps, planted["coverage_vs_nominal"])
    ]


def add_recovery(nums: Numbers, planted: pd.DataFrame) -> None:
    """Add the numbers the recovery sentence of the validation by simulation is worded with, from
    the planted-effects table (rule stats_simulation_summary: ``effect``, ``planted``,
    ``sign_recovery``, ``coverage``, ``n_simulations``, ``left_out``): how many planted effects
    were estimated (``sim.n_planted_effects`` of ``sim.n_planted_effects_all``), over how many
    simulated studies each (``sim.min_planted_studies`` to ``sim.max_planted_studies``), the
    smallest sign recovery and the range of coverages over them (``sim.min_coverage`` to
    ``sim.max_coverage``) in % as the table rounds them, and the effects
    printed without numbers with their reason (``sim.no_planted_value``): an effect simulated in
    no study, or without a planted value in this design, gives none of these numbers."""
    # The planted effects the recovery sentence summarises: those with a planted value that some
    # simulated study estimated (the power row has no planted value; an effect left out, none).
    ran = planted[planted["planted"].notna() & (planted["n_simulations"] > 0)]
    nums.add(
        "sim.n_planted_effects",
        int(len(ran)),
        RULE,
        note="planted effects with a planted value, estimated in at least one simulated study",
    )
    nums.add(
        "sim.n_planted_effects_all",
        int(planted["effect"].ne(POWER_ROW).sum()),
        RULE,
        note="planted effects of the generator (the power row is not one)",
    )
    nums.add(
        "sim.min_planted_studies",
        int(ran["n_simulations"].min()) if len(ran) else 0,
        RULE,
        note="fewest simulated studies behind one planted effect's recovery",
    )
    nums.add("sim.max_planted_studies", int(ran["n_simulations"].max()) if len(ran) else 0, RULE)
    # The power row has no planted value by design and prints its power; it is named here only
    # when no study ran it, and it prints dashes like the others.
    no_value = planted[planted["planted"].isna() & (planted["effect"].ne(POWER_ROW) | (planted["n_simulations"] == 0))]
    nums.add(
        "sim.no_planted_value",
        "; ".join(
            f"{e} (not simulated in this design)" if n == 0 else f"{e} ({r})"
            for e, n, r in zip(no_value["effect"], no_value["n_simulations"], no_value["left_out"].fillna(""))
        )
        or "none",
        RULE,
        note="planted effects printed without numbers, each with its reason (the tests left out: sim.left_out)",
    )
    nums.add("sim.n_no_planted_value", int(len(no_value)), RULE)

    # Percentages of shares of the studies rounded as the table prints them (2 decimals, from
    # their counts), so that 0.925, printed 0.93, is 93 % and not 92 %, and 191 of 200, printed
    # 0.96, is 96 %.
    def percents(column: str) -> list[float]:
        return [table_percent(x, n=int(n)) for x, n in zip(ran[column], ran["n_simulations"]) if pd.notna(x)]

    cov, sign = percents("coverage"), percents("sign_recovery")
    for key, found, pick in (
        ("sim.min_coverage", cov, min),
        ("sim.max_coverage", cov, max),
        ("sim.min_sign_recovery", sign, min),
    ):
        value = pick(found) if found else float("nan")
        nums.add(key, value, RULE, digits=_percent_digits(value))


def _percent_text(share: float, n: int, side: str, level: float = 0.95) -> str:
    """A coverage of ``n`` studies in % as the planted-effects table rounds it (whole percents,
    the table's two decimals: so that a sentence never prints 90.5 % where the table and the
    range sentence print 0.91 and 91 %), with more decimals where that rounding would put a
    coverage found below (``side`` "below") or above ("above") the nominal ``level`` onto it:
    9,455 of 10,000 is 94.6 %, not 95 %."""
    return fmt_share_beside(share, level * 100, side, n, 0, scale=100)


def _percent_digits(percent: float) -> int:
    """Decimals a percentage from ``table_percent`` needs: 0, or more where the table's share
    took more than two (99.5 for 199 of 200 studies, which the table prints 0.995)."""
    if not math.isfinite(percent):
        return 0
    shown = Fraction(repr(percent))
    digits = 0
    while shown.denominator > 1 and digits < 4:
        shown, digits = shown * 10, digits + 1
    return digits

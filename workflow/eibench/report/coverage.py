"""Is the coverage of the planted effects' intervals below nominal? A binomial test of each
coverage the paper prints against the nominal level, and the numbers the paper words it with.

The validation by simulation (rule stats_simulation_summary) reports, per planted effect, the
share of simulated studies whose 95% interval covers the planted value and its exact binomial
test against the nominal level (eibench.stats.simulation.coverage_test). With a few hundred
studies, 0.91 is significantly below 0.95 (two-sided binomial p about 0.01): it must be reported
as under-coverage, not as a pass.
"""

from __future__ import annotations

import math

import pandas as pd

from .numbers import Numbers, fmt, fmt_p

RULE = "stats_simulation_summary"


def add_coverage(nums: Numbers, planted: pd.DataFrame, level: float = 0.95, alpha: float = 0.05) -> list[str]:
    """Add the coverage numbers of the planted effects to ``nums``; return the printed binomial
    p of each row of ``planted`` (the table of rule stats_simulation_summary: ``effect``,
    ``coverage``, ``coverage_p``), in its order, for the planted-effects table. ``coverage_p`` is
    the exact binomial p the simulation summary computed from the count of covering intervals
    (eibench.stats.simulation.coverage_test); NaN where the coverage is a share over the models
    of each study, not a count of independent intervals (no test applies).

    Entries: ``sim.max_coverage`` (in %), ``sim.n_coverage_tested`` (coverages with a binomial
    test), ``sim.n_coverage_untested`` and ``sim.coverage_untested`` (shares that are not a
    count), ``sim.n_coverage_below`` / ``sim.coverage_below`` (below ``level`` with p < ``alpha``,
    each with its coverage and p) and ``sim.n_coverage_above`` / ``sim.coverage_above`` (above
    it: conservative intervals)."""
    rows = planted[planted["coverage"].notna()]
    ps = [
        float(p) if pd.notna(c) and pd.notna(p) else float("nan")
        for c, p in zip(planted["coverage"], planted["coverage_p"])
    ]
    tested = [
        (e, float(c), p)
        for e, c, p in zip(planted["effect"], planted["coverage"], ps)
        if pd.notna(c) and math.isfinite(p)
    ]
    untested = [
        e for e, c, p in zip(planted["effect"], planted["coverage"], ps) if pd.notna(c) and not math.isfinite(p)
    ]
    below = [(e, c, p) for e, c, p in tested if c < level and p < alpha]
    above = [(e, c, p) for e, c, p in tested if c > level and p < alpha]

    def listing(found: list[tuple[str, float, float]]) -> str:
        return "; ".join(f"{e} ({fmt(100 * c, 1)} %, binomial p {fmt_p(p)})" for e, c, p in found) or "none"

    def add(key: str, value, **kw) -> None:
        nums.add(key, value, RULE, **kw)

    add("sim.max_coverage", float(rows["coverage"].max()) * 100 if len(rows) else float("nan"), digits=0)
    add("sim.coverage_level", level * 100, digits=0, note="nominal coverage the binomial tests compare with")
    add("sim.n_coverage_tested", len(tested))
    add("sim.n_coverage_untested", len(untested))
    add(
        "sim.coverage_untested",
        "; ".join(untested) or "none",
        note="coverages that are means over the models of each study, not counts of independent intervals",
    )
    add("sim.n_coverage_below", len(below))
    add("sim.coverage_below", listing(below), note=f"coverage below the nominal level, binomial p < {alpha}")
    add("sim.n_coverage_above", len(above))
    add("sim.coverage_above", listing(above), note=f"coverage above the nominal level, binomial p < {alpha}")
    return [fmt_p(p) for p in ps]

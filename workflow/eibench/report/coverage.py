"""Is the coverage of the planted effects' intervals below nominal? A binomial test of each
coverage the paper prints against the nominal level, and the numbers the paper words it with.

The validation by simulation (rule stats_simulation_summary) reports, per planted effect, the
share of simulated studies whose 95% interval covers the planted value. With a few hundred
studies, 0.91 is significantly below 0.95 (two-sided binomial p about 0.01): it must be reported
as under-coverage, not as a pass.
"""

from __future__ import annotations

import math

import pandas as pd
from scipy.stats import binomtest

from .numbers import Numbers, fmt

RULE = "stats_simulation_summary"


def covered_count(coverage: float, n: int, tol: float = 1e-6) -> int | None:
    """The number of covering intervals behind a coverage share of ``n`` studies, or None when
    ``coverage * n`` is not a whole number: the share is then not a count of independent
    intervals (e.g. a mean over the models of each study) and no binomial test applies. None
    also for a missing coverage or no study."""
    if coverage is None or n is None or not n > 0 or not math.isfinite(coverage):
        return None
    k = coverage * n
    return int(round(k)) if abs(k - round(k)) <= tol * max(1.0, n) else None


def coverage_p(coverage: float, n: int, level: float = 0.95) -> float:
    """Two-sided exact binomial p of ``coverage`` over ``n`` independent studies against the
    nominal ``level`` (scipy.stats.binomtest); NaN when the share is not a binomial count
    (:func:`covered_count`)."""
    k = covered_count(coverage, n)
    return float("nan") if k is None else float(binomtest(k, int(n), level).pvalue)


def _p(p: float) -> str:
    return "–" if not math.isfinite(p) else ("< 0.001" if p < 0.001 else f"{p:.3f}")


def add_coverage(nums: Numbers, planted: pd.DataFrame, level: float = 0.95, alpha: float = 0.05) -> list[str]:
    """Add the coverage numbers of the planted effects to ``nums``; return the printed binomial
    p of each row of ``planted`` (the table of rule stats_simulation_summary: ``effect``,
    ``coverage``, ``n_simulations``), in its order, for the planted-effects table.

    Entries: ``sim.max_coverage`` (in %), ``sim.n_coverage_tested`` (coverages with a binomial
    test), ``sim.n_coverage_untested`` and ``sim.coverage_untested`` (shares that are not a
    count), ``sim.n_coverage_below`` / ``sim.coverage_below`` (below ``level`` with p < ``alpha``,
    each with its coverage and p) and ``sim.n_coverage_above`` / ``sim.coverage_above`` (above
    it: conservative intervals)."""
    rows = planted[planted["coverage"].notna()]
    ps = [coverage_p(float(c), int(n), level) if pd.notna(c) else float("nan")
          for c, n in zip(planted["coverage"], planted["n_simulations"])]
    tested = [(e, float(c), p) for e, c, p in zip(planted["effect"], planted["coverage"], ps)
              if pd.notna(c) and math.isfinite(p)]
    untested = [e for e, c, p in zip(planted["effect"], planted["coverage"], ps) if pd.notna(c) and not math.isfinite(p)]
    below = [(e, c, p) for e, c, p in tested if c < level and p < alpha]
    above = [(e, c, p) for e, c, p in tested if c > level and p < alpha]

    def listing(found: list[tuple[str, float, float]]) -> str:
        return "; ".join(f"{e} ({fmt(100 * c, 1)} %, binomial p {_p(p)})" for e, c, p in found) or "none"

    def add(key: str, value, **kw) -> None:
        nums.add(key, value, RULE, **kw)

    add("sim.max_coverage", float(rows["coverage"].max()) * 100 if len(rows) else float("nan"), digits=0)
    add("sim.coverage_level", level * 100, digits=0, note="nominal coverage the binomial tests compare with")
    add("sim.n_coverage_tested", len(tested))
    add("sim.n_coverage_untested", len(untested))
    add("sim.coverage_untested", "; ".join(untested) or "none",
        note="coverages that are means over the models of each study, not counts of independent intervals")
    add("sim.n_coverage_below", len(below))
    add("sim.coverage_below", listing(below), note=f"coverage below the nominal level, binomial p < {alpha}")
    add("sim.n_coverage_above", len(above))
    add("sim.coverage_above", listing(above), note=f"coverage above the nominal level, binomial p < {alpha}")
    return [_p(p) for p in ps]

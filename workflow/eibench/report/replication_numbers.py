"""The numbers of the replications on public data (section "Replications on public data"):
each replication's summary.json (eibench.public.replications) as numbers.json entries
``<name>.<key>``, with the rule that made them (its script from the numbers' rule map)."""

from __future__ import annotations

import json
from pathlib import Path

from .numbers import Numbers

#: Digits printed per summary key (default 2); counts are printed as integers.
DIGITS = {
    "max_abs_difference": 3,
    "mean_unrounded_difference": 3,
    "projection_check_projected": 3,
    "items_for_target": 0,
    "w_scenarios": 2,
    "w_dimensions": 2,
    "family_p_permutation": 3,
    "developer_p_permutation": 3,
}
#: Summary keys printed to the nearest ten: an extrapolation whose last digit moves with the
#: random draws it starts from (the unrounded value stays in the replication's summary.json).
TENS = {"items_for_target"}
#: Summary keys with an interval, read from two other keys (cross_benchmark: the measurement
#: interval; its model interval stays two numbers of their own).
INTERVALS = {
    "tau_largest_half": ("tau_largest_half_lo", "tau_largest_half_hi"),
    "family_tau": ("family_tau_lo_items", "family_tau_hi_items"),
    "developer_tau": ("developer_tau_lo_items", "developer_tau_hi_items"),
}


def add_replication(nums: Numbers, name: str, summary_path: str | Path) -> None:
    """Add every number of one replication's summary; interval bounds become the ``ci`` of
    the number they bound rather than numbers of their own."""
    summary = json.loads(Path(summary_path).read_text(encoding="utf-8"))
    rule = f"{name}_replication"
    bounds = {b for pair in INTERVALS.values() for b in pair}
    for key, value in sorted(summary.items()):
        if key in bounds:
            continue
        ci = None
        if key in INTERVALS:
            lo, hi = INTERVALS[key]
            ci = (float(summary[lo]), float(summary[hi]))
        note = ""
        if isinstance(value, float) and key in TENS and value == value:
            value, note = round(value, -1), f"rounded to tens from {value:.1f} (the replication's summary.json)"
        if isinstance(value, float) and DIGITS.get(key) == 0 and value == value:  # NaN stays a float
            value = round(value)
        nums.add(f"{name}.{key}", value, rule, digits=DIGITS.get(key, 2), ci=ci, note=note)

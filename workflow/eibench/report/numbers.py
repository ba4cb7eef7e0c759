"""The numbers file: every number the manuscript prints, with its interval and its origin.

Each entry: ``value`` (a number or string), ``display`` (how the paper prints it), ``ci`` and
``ci_display`` when the number has an interval, and ``rule`` / ``script`` (what made it), so a
reviewer can walk from any number in the PDF back to its code. ``rule`` is the rule whose
output holds or yields the number; its ``script`` comes from one rule-to-script map
(eibench.workflow_paths.rule_scripts, read from the rule files), never typed beside the number.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any


def fmt(value: float, digits: int = 2) -> str:
    """Fixed-point display; an en dash for a missing value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}f}"


def int_display(value: int) -> str:
    """An integer as the numbers file prints it: digits grouped by spaces from 10 000 on."""
    return f"{value:,}".replace(",", " ") if abs(value) >= 10000 else str(value)


def plural(count: int, one: str, many: str) -> str:
    """The word that agrees with a printed ``count``: ``one`` for 1, ``many`` otherwise (0
    included), a noun or a verb, e.g. f"{k} {plural(k, 'conversation', 'conversations')}"."""
    return one if count == 1 else many


def fmt_share(share: Any, n: int | None = None, digits: int = 2, scale: int = 1) -> str:
    """A share of ``n`` simulated studies (k of them: a false-positive rate, a coverage, a share
    of correct signs), times ``scale`` (100 for a percentage), with ``digits`` decimals rounded
    half away from zero on its exact value: k / n when ``share`` x ``n`` is a whole number k, else
    the share's shortest decimal form (a mean over the models of each study, or no ``n``). Binary
    rounding would print 191 / 200 = 0.955, stored as 0.95499999..., as 0.95, onto the nominal
    level of a coverage; it is 0.96. A share strictly between 0 and 1 is never printed as 0 or
    1 (times ``scale``), which would read as none or all of the studies: it gets more decimals, up
    to 6, until it is not (199 of 200 is 0.995, not 1.00; 1 of 2,000 is 0.001, not 0.00). An en dash for a
    missing value (None, NaN, not finite)."""
    try:
        value = float(share)
    except (TypeError, ValueError):  # None, pd.NA
        return "–"
    if not math.isfinite(value):
        return "–"
    exact = Fraction(repr(value))  # the float's shortest decimal form: Fraction("0.955") is 191/200
    if n is not None and n > 0:
        k = round(value * n)
        if abs(value * n - k) <= 1e-9 * n:  # a count of studies: its share exactly
            exact = Fraction(k, int(n))
    whole_number = round(exact)
    if abs(exact - whole_number) < Fraction(1, 10**12):  # a mean's float error is not a share below 1
        exact = Fraction(whole_number)
    units = _units(exact, scale, digits)
    while 0 < exact < 1 and units in (0, scale * 10**digits) and digits < 6:
        digits += 1
        units = _units(exact, scale, digits)
    whole, part = divmod(units, 10**digits)
    sign = "-" if exact < 0 and units else ""
    return f"{sign}{whole}" + (f".{part:0{digits}d}" if digits else "")


def fmt_share_beside(share: Any, level: float, side: str, n: int | None = None, digits: int = 2, scale: int = 1) -> str:
    """``share`` as :func:`fmt_share` prints it, with as many more decimals than ``digits`` (up
    to 6) as it takes to print it on its ``side`` ("below" or "above") of ``level`` (in the
    printed unit, times ``scale``): a coverage of 189 of 200 studies found below 0.95 is 0.945,
    not the 0.95 that two decimals round it to; 9,455 of 10,000 in % is 94.6, not 95."""
    wrong = (lambda x: x >= level) if side == "below" else (lambda x: x <= level)
    shown = fmt_share(share, n, digits, scale)
    while shown != "–" and wrong(float(shown)) and digits < 6:
        digits += 1
        shown = fmt_share(share, n, digits, scale)
    return shown


def _units(exact: Fraction, scale: int, digits: int) -> int:
    """|exact| x ``scale`` in units of the last of ``digits`` decimals, rounded half away from zero."""
    return math.floor(abs(exact) * scale * 10**digits + Fraction(1, 2))


def table_percent(share: float, digits: int = 2, *, n: int | None = None) -> float:
    """A share in % as a table prints it with ``digits`` decimals (:func:`fmt_share`, over ``n``
    studies when it is a share of them), so that a sentence's percentage rounds as the table
    does: 0.925 is printed 0.93, so 93 %, where 100 x 0.925 = 92.5 would round to 92; 191 of 200
    studies, 0.955, is printed 0.96, so 96 %."""
    shown = fmt_share(share, n, digits)
    return float("nan") if shown == "–" else float(Fraction(shown) * 100)


def fmt_p(p: Any) -> str:
    """A p-value as printed: three decimals, "< 0.001" below 0.001, an en dash when there is
    none (None, NaN, pandas' NA, or not finite)."""
    try:
        value = float(p)
    except TypeError:  # None, pd.NA
        return "–"
    if not math.isfinite(value):
        return "–"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def fmt_p_bounded(p: Any, bound: Any) -> str:
    """A p-value as :func:`fmt_p` prints it, except one that rests on a bootstrap p of 0 with its
    ``bound`` (the adjusted p with every such 0 raised to the smallest p its resamples could
    give; claims.csv ``p_bound``), rounded up to three decimals: a p of 0 is "< bound" ("< 0.004"
    for 500 resamples), not "< 0.001"; a larger adjusted p computed with another p of its family
    taken as 0 lies between ``p`` and ``bound``, and is "<= bound" ("≤ 0.007") where the two
    differ once printed."""
    try:
        value, limit = float(p), float(bound)
    except TypeError:  # None, pd.NA
        return fmt_p(p)
    if not math.isfinite(limit) or limit <= 0.001:
        return fmt_p(p)
    ceiling = f"{math.ceil(round(limit * 1000, 9)) / 1000:.3f}"
    if value == 0:
        return f"< {ceiling}"
    if limit > value and fmt_p(limit) != fmt_p(value):
        return f"\u2264 {ceiling}"
    return fmt_p(p)


def interval_digits(lo: float, hi: float, fallback: int = 2, significant: int = 2) -> int:
    """Decimals that show the half-width ``(hi - lo) / 2`` of an interval with ``significant``
    significant digits (two by default): a half-width of 1.9 gives 1 decimal, 0.075 gives 3,
    19 or more gives 0 (never negative: fixed-point display keeps the integer digits).

    ``fallback`` when the interval says nothing about precision: a bound missing or not finite,
    or a half-width of zero (a degenerate interval)."""
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return fallback
    half = abs(hi - lo) / 2
    if half == 0:
        return fallback
    # The half-width rounded to its significant digits can gain a digit (0.0996 -> 0.10):
    # count the decimals of the rounded value, not of the raw one.
    exponent = math.floor(math.log10(half))
    rounded = round(half, significant - 1 - exponent)
    exponent = math.floor(math.log10(rounded))
    return max(0, significant - 1 - exponent)


#: Decimals :func:`fmt_outward` may add to keep a bound off a level it lies beside.
MAX_EXTRA_DIGITS = 3


def fmt_outward(lo: float, hi: float, digits: int = 2, levels: tuple[float, ...] = ()) -> str:
    """An interval printed with ``digits`` decimals, its lower bound rounded down and its upper
    bound up, so that the printed interval holds the computed one: a rate's interval whose lower
    bound is 0.049 prints [0.04, ...], not [0.05, ...], which would read as touching a level of
    0.05 it lies below. A missing bound prints its en dash.

    ``levels`` (say the nominal level, the power bar and 0.95) are the values the interval is
    read against: when a bound that differs from a level would print on it (0.0562 rounded
    down to 0.05), both bounds take one more decimal, up to ``MAX_EXTRA_DIGITS`` more
    ([0.056, 0.190]), so that a bound is printed on a level only when it is that level."""

    def bound(x: float, rounding: Any, places: int) -> str:
        if x is None or not math.isfinite(x):
            return fmt(x, places)
        scale = 10**places
        # round() first: 0.29 * 100 is 28.999999999999996, whose floor is not 28.
        return fmt(rounding(round(x * scale, 9)) / scale, places)

    def on_a_level(x: float, shown: str) -> bool:
        return x is not None and math.isfinite(x) and any(float(shown) == v and x != v for v in levels)

    for places in range(digits, digits + MAX_EXTRA_DIGITS + 1):
        low, high = bound(lo, math.floor, places), bound(hi, math.ceil, places)
        if not (on_a_level(lo, low) or on_a_level(hi, high)):
            break
    return f"[{low}, {high}]"


def fmt_interval(value: float, lo: float, hi: float, fallback: int = 2) -> tuple[str, str]:
    """The estimate and its interval as printed, at the precision the interval supports
    (:func:`interval_digits`): ``("-5.8", "[-7.7, -3.9]")`` for -5.773 in [-7.693, -3.884].
    A missing bound prints its en dash; without a usable interval, ``fallback`` decimals."""
    digits = interval_digits(lo, hi, fallback)
    return fmt(value, digits), f"[{fmt(lo, digits)}, {fmt(hi, digits)}]"


@dataclass
class Numbers:
    """The numbers file being built. ``scripts`` maps each rule to its script (repository-relative
    path); :meth:`add` names an entry's script from it."""

    scripts: dict[str, str] = field(default_factory=dict)
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    def script_of(self, rule: str) -> str:
        """The script of ``rule``; ValueError naming the rule when the map has none."""
        try:
            return self.scripts[rule]
        except KeyError:
            raise ValueError(
                f"rule {rule!r} has no script in the rule-to-script map "
                f"({len(self.scripts)} rules): name the rule whose output holds the number"
            ) from None

    def add(
        self,
        key: str,
        value: Any,
        rule: str,
        script: str | None = None,
        digits: int = 2,
        ci: tuple[float, float] | None = None,
        note: str = "",
        fixed: bool = False,
        outward: bool = False,
        share: bool = False,
        levels: tuple[float, ...] = (),
    ) -> None:
        """Add entry ``key``. ``script`` defaults to the rule's script from the map; a script given
        must agree with the map (a stale path is an error, not a wrong pointer in the PDF).
        ``fixed``: print the value and its interval with ``digits`` decimals, as a table beside
        the sentence prints them, not at the precision the interval supports; ``outward`` (with
        ``fixed``): its bounds rounded outward, as :func:`fmt_outward` prints them (kept off
        ``levels``); ``share``: a
        float value is a share of counted studies, printed as :func:`fmt_share` rounds it (on its
        exact value, half away from zero), not by binary rounding."""
        if key in self.entries:
            raise KeyError(f"number {key!r} is defined twice")
        mapped = self.script_of(rule)
        if script is not None and script != mapped:
            raise ValueError(f"number {key!r}: rule {rule!r} runs {mapped}, not {script}")
        script = mapped
        if isinstance(value, bool):
            display = "yes" if value else "no"
        elif isinstance(value, int):
            display = int_display(value)
        elif isinstance(value, float):
            display = fmt_share(value, None, digits) if share else fmt(value, digits)
        else:
            display = str(value)
        entry: dict[str, Any] = {"value": value, "display": display, "rule": rule, "script": script}
        if ci is not None:
            # The interval sets the precision of the estimate and of its bounds; ``digits`` is
            # the fallback when it cannot (a missing bound, zero width).
            entry["ci"] = [ci[0], ci[1]]
            if fixed:
                shown = fmt_share(value, None, digits) if share else fmt(value, digits)
                entry["ci_display"] = (
                    fmt_outward(ci[0], ci[1], digits, levels)
                    if outward
                    else f"[{fmt(ci[0], digits)}, {fmt(ci[1], digits)}]"
                )
            else:
                shown, entry["ci_display"] = fmt_interval(value, ci[0], ci[1], digits)
            if isinstance(value, float):
                entry["display"] = shown
        if note:
            entry["note"] = note
        self.entries[key] = entry

    def to_json(self) -> str:
        def clean(x: Any) -> Any:
            if isinstance(x, float) and math.isnan(x):
                return None
            if isinstance(x, dict):
                return {k: clean(v) for k, v in x.items()}
            if isinstance(x, list):
                return [clean(v) for v in x]
            return x

        return (
            json.dumps(
                clean({"meta": self.meta, "entries": self.entries}), indent=1, sort_keys=True, ensure_ascii=False
            )
            + "\n"
        )

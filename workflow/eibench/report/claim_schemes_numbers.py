"""The numbers and the display table of the claims under every resampling scheme (rule
stats_claim_schemes, results/stats/uncertainty/claim_schemes.csv).

``add_claim_schemes`` adds the ``unc.claims.*`` numbers the uncertainty section prints;
``claim_schemes_table`` is the table the paper prints: one row per claim, its estimate, and per
scheme its 95% interval and verdict, the primary scheme named in its headers. A claim's row
shows the decimals that give two significant digits of the half-width of its narrowest interval
over the schemes, so the schemes' intervals of one claim are printed alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..stats.claim_schemes import RESAMPLED
from .cohort_numbers import joined
from .numbers import Numbers, fmt, interval_digits
from .uncertainty_numbers import ratio_digits

RULE = "stats_claim_schemes"
NOT_TESTABLE = "not testable"
#: What a claim of a test whose estimate has no interval (an INTERVAL of "none: ...") is about,
#: as the paper names it; a test not listed is named by its own name.
#: The Interval cell of a mixed-model claim whose mixed model gave no estimate (a failed fit).
MIXED_FAILED = "mixed model, which gave none"
NO_INTERVAL_ABOUT = {"rank_independence": "rank independence", "humans_vs_models": "humans against models"}


def read_claim_schemes(path: str, schemes: list[str]) -> pd.DataFrame:
    """Rule stats_claim_schemes' table, checked against the config's ``uncertainty.schemes``:
    ValueError naming the file and the schemes when one is missing (a stale table)."""
    table = pd.read_csv(path, keep_default_na=False, na_values=[""])
    missing = [s for s in schemes if s not in set(table["scheme"])]
    if missing:
        raise ValueError(
            f"{path}: no rows for the schemes {missing} of uncertainty.schemes (field 'scheme' has "
            f"{sorted(set(table['scheme']))}); rerun rule stats_claim_schemes"
        )
    return table


def _tag(scheme: str, primary: str) -> str:
    return scheme.replace("_", "-") + (", primary" if scheme == primary else "")


def claim_schemes_table(table: pd.DataFrame, schemes: list[str], primary: str) -> pd.DataFrame:
    """The printed table (strings): ``ID``; ``Interval``, what the claim's interval is
    (eibench.stats.claim_schemes.INTERVAL; "–" for a claim not testable; :data:`MIXED_FAILED` for
    a mixed-model claim without an interval); ``Estimate`` (one
    value when the schemes agree on it, else each scheme's, in ``schemes`` order, separated by
    slashes: a share of the models counts each scheme's verdicts); then per scheme
    ``95% (<scheme>)`` (an en dash for a claim without an interval or not testable) and
    ``Verdict (<scheme>)``, the primary scheme's headers marked ", primary"."""
    by = {s: table[table["scheme"] == s].set_index("id") for s in schemes}
    ids = list(by[schemes[0]].index)
    rows = []
    for cid in ids:
        r = {s: by[s].loc[cid] for s in schemes}
        testable = r[schemes[0]]["verdict"] != NOT_TESTABLE
        lo = np.array([r[s]["lo"] for s in schemes], dtype=float)
        hi = np.array([r[s]["hi"] for s in schemes], dtype=float)
        ok = np.isfinite(lo) & np.isfinite(hi)
        narrow = int(np.argmin(np.where(ok, hi - lo, np.inf))) if ok.any() else None
        d = interval_digits(lo[narrow], hi[narrow]) if narrow is not None else 2
        estimates = [float(r[s]["estimate"]) for s in schemes]
        same = all(np.isclose(e, estimates[0], equal_nan=True) for e in estimates)
        row = {
            "ID": cid,
            "Interval": (
                "–"
                if not testable
                else MIXED_FAILED
                if "not resampled" in str(r[schemes[0]]["interval"]) and not ok.any()
                else str(r[schemes[0]]["interval"])
            ),
            "Estimate": fmt(estimates[0], d) if same else " / ".join(fmt(e, d) for e in estimates),
        }
        for k, s in enumerate(schemes):
            row[f"95% ({_tag(s, primary)})"] = f"[{fmt(lo[k], d)}, {fmt(hi[k], d)}]" if ok[k] else "–"
            row[f"Verdict ({_tag(s, primary)})"] = str(r[s]["verdict"])
        rows.append(row)
    return pd.DataFrame(rows)


def add_claim_schemes(nums: Numbers, path: str, uncertainty: dict[str, Any]) -> pd.DataFrame:
    """Add the ``unc.claims.*`` numbers from rule stats_claim_schemes' table at ``path``
    (``uncertainty``: the config section, its ``schemes`` and ``primary``); return the table.

    Entries: ``n_claims``; ``n_testable``; ``n_resampled`` (testable claims with a resampling
    interval); ``n_same_everywhere`` and ``same_everywhere`` (testable claims not resampled at
    all: the mixed-model ones whose fit gave an interval; their ids, or "none") and
    ``n_mixed_failed`` with ``mixed_failed`` (the ids of those whose fit gave none, or "none");
    ``n_no_interval`` (testable claims whose estimate has no interval, though their verdict reads
    resampled p-values) with ``no_interval_about`` (what they are about, one phrase per test in
    the table's order, or "none");
    ``n_verdict_changes`` and ``verdict_changes`` (claims whose verdict differs between schemes,
    each with its verdicts in scheme order, or "none"); per scheme ``<scheme>.n_supported``; and,
    with a conversation scheme and resampled claims, ``<scheme>.median_width_ratio`` (median
    over the resampled claims of the interval's width over the conversation scheme's; a claim
    whose conversation interval has no width gives no ratio) with ``<scheme>.n_width_ratios``,
    the claims it is the median of, and ``<scheme>.width_change`` (:func:`width_change` of the
    printed median: "wider", "narrower" or "as wide"), with ``<scheme>.n_opposite`` and
    ``<scheme>.opposite`` (the claims whose ratio lies on the other side of 1, each with its
    ratio, or "none"; for "as wide", those whose ratio does not print as 1).

    With ``uncertainty["claims_scheme"]`` (the scheme of the claims' own analyses,
    ``statistics.cluster``) among the schemes, per testable claim ``<id>.by_scheme`` (whether
    its verdict reads a scheme's resamples: every claim but the mixed-model ones),
    ``<id>.primary_verdict``, ``<id>.primary_differs`` (its verdict under the primary scheme is
    not the claims scheme's) and, with a finite interval, ``<id>.primary`` (the primary scheme's
    estimate and interval); and ``n_primary_differs`` with ``primary_differs`` (those claims'
    ids, or "none") and ``n_primary_same`` (the testable claims whose verdict the primary scheme
    keeps). Without it, or when it is the primary scheme, no verdict differs."""
    schemes, primary = list(uncertainty["schemes"]), uncertainty["primary"]
    table = read_claim_schemes(path, schemes)

    def add(key: str, value: Any, **kw: Any) -> None:
        nums.add(f"unc.claims.{key}", value, RULE, **kw)

    first = table[table["scheme"] == schemes[0]]
    testable = first[first["verdict"] != NOT_TESTABLE]
    add("n_claims", int(len(first)))
    add("n_testable", int(len(testable)))
    add("n_resampled", int((testable["interval"] == RESAMPLED).sum()))
    # The mixed-model claims: the same interval under every scheme, when their fit gave one.
    mixed = testable[testable["interval"].str.contains("not resampled")]
    fitted = np.isfinite(mixed["lo"].astype(float)) & np.isfinite(mixed["hi"].astype(float))
    add("n_same_everywhere", int(fitted.sum()))
    add(
        "same_everywhere",
        joined(list(mixed.loc[fitted, "id"])) or "none",
        note="testable claims whose interval is a mixed model's, the same under every scheme",
    )
    add("n_mixed_failed", int((~fitted).sum()))
    add(
        "mixed_failed",
        ", ".join(mixed.loc[~fitted, "id"]) or "none",
        note="testable mixed-model claims whose mixed model gave no estimate (claims.csv note says why)",
    )
    no_interval = testable[testable["interval"].str.startswith("none")]
    add("n_no_interval", int(len(no_interval)))
    about = dict.fromkeys(NO_INTERVAL_ABOUT.get(t, t.replace("_", " ")) for t in no_interval["test"])
    add("no_interval_about", ", ".join(about) or "none", note="what the testable claims without an interval are about")
    verdicts = table.pivot(index="id", columns="scheme", values="verdict").loc[first["id"], schemes]
    changed = verdicts[verdicts.nunique(axis=1) > 1]
    add("n_verdict_changes", int(len(changed)))
    add(
        "verdict_changes",
        "; ".join(f"{cid} ({' / '.join(v)})" for cid, v in zip(changed.index, changed.to_numpy().tolist())) or "none",
        note="claims whose verdict differs between the schemes, verdicts in uncertainty.schemes order",
    )
    claims_scheme = uncertainty.get("claims_scheme", primary)
    differs: list[str] = []
    if claims_scheme in schemes:
        own = table[table["scheme"] == claims_scheme].set_index("id")
        main = table[table["scheme"] == primary].set_index("id")
        for cid in testable["id"]:
            mine, prim = own.loc[cid], main.loc[cid]
            differ = claims_scheme != primary and str(prim["verdict"]) != str(mine["verdict"])
            differs += [cid] if differ else []
            add(f"{cid}.by_scheme", "not resampled" not in str(mine["interval"]))
            add(f"{cid}.primary_verdict", str(prim["verdict"]))
            add(f"{cid}.primary_differs", bool(differ))
            if np.isfinite(float(prim["lo"])) and np.isfinite(float(prim["hi"])):
                # Printed beside the claim's own interval: at its precision, so that the two
                # compare digit by digit ([-1.00, 0.33] beside [-1.00, 1.00], not [-1.0, 1.0]).
                digits = interval_digits(float(mine["lo"]), float(mine["hi"]), fallback=3)
                add(
                    f"{cid}.primary",
                    float(prim["estimate"]),
                    digits=digits,
                    ci=(float(prim["lo"]), float(prim["hi"])),
                    fixed=True,
                )
    add("n_primary_differs", len(differs))
    add(
        "primary_differs",
        ", ".join(differs) or "none",
        note="testable claims whose verdict under the primary scheme differs from the claims scheme's",
    )
    add("n_primary_same", int(len(testable)) - len(differs))
    scheme_verdicts = table[table["scheme"] == (claims_scheme if claims_scheme in schemes else schemes[0])]
    verdict_of = dict(zip(scheme_verdicts["id"], scheme_verdicts["verdict"]))
    add(
        "primary_same",
        joined([f"{cid} ({verdict_of[cid]})" for cid in testable["id"] if cid not in differs]) or "none",
        note="testable claims whose verdict the primary scheme keeps, each with its verdict under the claims' scheme",
    )
    add("scheme_order", " / ".join(s.replace("_", "-") for s in schemes))
    add("primary", primary.replace("_", "-"))
    for s in schemes:
        rows = table[table["scheme"] == s]
        add(f"{s}.n_supported", int((rows["verdict"] == "supported").sum()))
    if "conversation" in schemes:
        width = table.assign(width=table["hi"] - table["lo"]).pivot(index="id", columns="scheme", values="width")
        resampled = testable.loc[testable["interval"] == RESAMPLED, "id"]
        base = width.loc[resampled, "conversation"]
        ratios = {s: (width.loc[resampled, s] / base.where(base > 0)).dropna() for s in schemes if s != "conversation"}
        medians = [float(r.median()) for r in ratios.values() if len(r)]
        digits = ratio_digits(*medians)  # the schemes' medians are printed in one sentence: one precision
        for s, ratio in ratios.items():
            if len(ratio):
                add(f"{s}.median_width_ratio", float(ratio.median()), digits=digits)
                add(f"{s}.n_width_ratios", int(len(ratio)))
                shown = nums.entries[f"unc.claims.{s}.median_width_ratio"]["display"]
                change = width_change(shown)
                add(
                    f"{s}.width_change",
                    change,
                    note="what the scheme does to the claims' intervals against resampling conversations, "
                    "by the side of 1 its printed median ratio lies on",
                )
                # A median factor says nothing of the claims on the other side of 1, as printed
                # at the median's precision (a ratio printed 1.00 neither widens nor narrows); a
                # median printed 1.00 nothing of the claims the scheme widens or narrows.
                printed = {cid: fmt(float(r), digits) for cid, r in ratio.items()}
                if change == "as wide":
                    other = [f"{cid} ({text})" for cid, text in printed.items() if width_change(text) != "as wide"]
                else:
                    opposite = {"wider": "narrower", "narrower": "wider"}[change]
                    other = [f"{cid} ({text})" for cid, text in printed.items() if width_change(text) == opposite]
                add(f"{s}.n_opposite", len(other))
                add(
                    f"{s}.opposite",
                    joined(other) or "none",
                    note="claims whose interval the scheme changes against its median ratio, with their ratio",
                )
    return table


def width_change(shown: str) -> str:
    """What a ratio of interval widths, as printed (``shown``), says a scheme does to the
    intervals: "wider" above 1, "narrower" below, "as wide" where it prints as 1 (1.00): a
    factor of 0.99 is no widening, and one printed 1.00 neither widens nor narrows."""
    value = float(shown)
    return "as wide" if value == 1 else "wider" if value > 1 else "narrower"

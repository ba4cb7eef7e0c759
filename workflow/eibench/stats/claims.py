"""Pre-registered claims: each claim of the paper, its test, its family, and its verdict.

The claims are declared in the config (``statistics.claims``) before any result exists. Each
one names a test; ``evaluate`` turns that test's result into an estimate, an interval, a
p-value and a verdict:

- supported: the test shows the predicted effect (after the family's multiplicity correction
  for tests with a p-value: Holm within the headline family, Benjamini-Hochberg within the
  exploratory one). Every headline test has a p-value: the two claims about "most" of a set
  (rank independence: more than half of the metric pairs equivalent within the margin; humans
  against models: better than more than half of the models) take the partial-conjunction
  p-value of Benjamini and Heller (2008, Bonferroni combination) of "at least u = floor(n/2) + 1
  of the n hypotheses are false", (n - u + 1) x the u-th smallest p, from the pairs' equivalence
  (TOST) p-values or the models' paired bootstrap p-values;
- not supported: the test shows the opposite, or shows the effect to be absent (an
  equivalence bound);
- inconclusive: neither (only for a test that ran);
- not testable: the cohort lacks what the test needs (``testability.unmet_needs``: a
  participant group, the topic category or its complement, human raters, enough models, the
  metric's annotation kind, early and late turns, and middle ones for Page's trend test), or a
  test cannot run on the data (Page's trend test with fewer than two models that have a mean in
  each turn position); the reason is the claim's detail, it has no estimate or p-value, and it is
  left out of its multiplicity family.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..metrics.registry import BY_NAME
from .bootstrap import smallest_p
from .humans import claimed_side, share_on_claimed_side
from .mixed import fit_failure_kind
from .multiplicity import adjust, adjust_floored
from .testability import unmet_needs

NOT_TESTABLE = "not testable"
#: What the p-value of each kind of test is, before the family's adjustment, as the claims
#: table's caption says it. A test of no difference is two-sided even for a claim of one
#: direction, whose verdict also needs the estimate's sign as claimed (:func:`verdict_rows`); a
#: claim about most of a set has the partial-conjunction p that more than half of its parts
#: hold. The kinds without a p-value (their verdict reads an interval) are not listed.
P_VALUE_OF_TEST = {
    "discriminability_difference": "two-sided bootstrap test of no difference",
    "diagnosis_effect": "two-sided permutation test of no difference between participants",
    "turn_drift": "two-sided Page's trend test",
    "topic_hardest": "two-sided bootstrap test of no difference",
    "rank_independence": "partial conjunction over the metric pairs' equivalence tests (two one-sided tests each) "
    "that more than half of the pairs lie within the margin",
    "humans_vs_models": "partial conjunction over the models' two-sided paired bootstrap tests that more than half "
    "of the models differ on the claimed side",
}


def _probability_text(p: float, digits: int = 2) -> str:
    """A probability with ``digits`` decimals, more (up to 4, enough for a share of a few thousand
    resamples) where fewer would print one strictly between 0 and 1 as 0 or 1: 1,999 of 2,000
    resamples is 0.9995, not a certain 1.00."""
    shown = f"{p:.{digits}f}"
    while 0 < p < 1 and float(shown) in (0.0, 1.0) and digits < 4:
        digits += 1
        shown = f"{p:.{digits}f}"
    return shown


def _directional(estimate: float, lo: float, hi: float, p: float, direction: str) -> dict[str, Any]:
    sign = -1 if direction == "negative" else 1
    return {"estimate": estimate, "lo": lo, "hi": hi, "p_value": p, "predicted_sign": sign}


def _label(metric: str) -> str:
    """A metric's label (``metrics.registry``) as inside a sentence: its first letter lower-cased
    unless it opens an acronym ("PANAS ..."); the name itself when the registry has none."""
    m = BY_NAME.get(metric)
    if m is None:
        return metric
    return m.label if m.label[:2].isupper() else m.label[0].lower() + m.label[1:]


def _not_tested(out: dict[str, Any], why: str) -> dict[str, Any]:
    out.update(estimate=np.nan, lo=np.nan, hi=np.nan, p_value=np.nan, verdict=NOT_TESTABLE, detail=why)
    return out


def fit_note(reason: str) -> str:
    """A claim's ``note`` when its mixed model gave no estimate, from the fit's recorded reason
    (``mixed_model_note``): "mixed model did not converge", "singular fit of the mixed model",
    "boundary fit of the mixed model", else "no mixed-model estimate" with the reason."""
    kind = fit_failure_kind(reason)
    if kind == "did not converge":
        return "mixed model did not converge"
    if kind:
        return f"{kind} of the mixed model"
    return f"no mixed-model estimate: {reason}" if reason else "no mixed-model estimate"


def _floored(p: Any, results: dict[str, Any]) -> Any:
    """Bootstrap p-values with each 0 raised to the smallest non-zero value the resamples allow,
    2 / ``results["n_bootstrap"]`` (bootstrap.bootstrap_p): the p-value a claim's ``p_bound``
    is computed from. Unchanged without ``n_bootstrap``."""
    n = results.get("n_bootstrap")
    return p if not n else np.maximum(p, smallest_p(n))


def _min_or_nan(*values: float) -> float:
    """The smallest value, NaN when any is NaN (``min`` would let a NaN through or drop it by order)."""
    return float("nan") if any(np.isnan(v) for v in values) else float(min(values))


def partial_conjunction(pvalues: list[float] | np.ndarray, u: int) -> float:
    """Benjamini-Heller (2008) partial-conjunction p-value, Bonferroni combination: of "at least
    ``u`` of the n null hypotheses are false", ``(n - u + 1) * p_(u)`` (the u-th smallest), at
    most 1. NaN when fewer than ``u`` p-values exist (NaN p-values are dropped first)."""
    p = np.sort(np.asarray([x for x in pvalues if np.isfinite(x)], dtype=float))
    if u < 1 or len(p) < u:
        return float("nan")
    return float(min(1.0, (len(p) - u + 1) * p[u - 1]))


def _noun(n: int, one: str) -> str:
    """``one`` after a count of 1, its plural (``one`` + "s") after any other count."""
    return one if n == 1 else one + "s"


def _majority(n: int) -> int:
    """More than half of n."""
    return n // 2 + 1


def claim_result(
    claim: dict[str, Any], results: dict[str, Any], design: dict[str, Any] | None = None, alpha: float = 0.05
) -> dict[str, Any]:
    """The estimate, interval and p-value of one claim's test, from the analyses' results;
    with the cohort's ``design``, a claim the cohort cannot test is 'not testable' with its
    reasons and reads no result."""
    test, params = claim["test"], claim.get("params", {})
    out: dict[str, Any] = {"id": claim["id"], "family": claim["family"], "text": claim["text"], "test": test}
    reasons = unmet_needs(claim, design, alpha) if design is not None else []
    if reasons:
        return _not_tested(out, "not testable: " + "; ".join(reasons))
    if test == "rank_independence":
        pairs = results["rank_pairs"]
        sel = pairs[pairs["metric_a"].isin(params["metrics"]) & pairs["metric_b"].isin(params["metrics"])]
        n, margin = len(sel), params["margin"]
        # The claim's own equivalence margin on the 90% interval (two one-sided tests at 5%),
        # resampling models and conversations; 'related' when the 95% interval excludes 0.
        if n and not np.isclose(float(sel["margin"].iloc[0]), margin):
            raise ValueError(
                f"claim {claim['id']}: its margin {margin} differs from statistics.independence_margin "
                f"{sel['margin'].iloc[0]}, at which rule stats_ranks computed the pairs' equivalence "
                f"p-values; set the two equal in the config"
            )
        independent = (sel["lo90"] > -margin) & (sel["hi90"] < margin)
        related = (sel["lo95"] > 0) | (sel["hi95"] < 0)
        share_related = float(related.mean()) if n else np.nan
        # A metric of the claim without values in this cohort has no pairs: say which, and how
        # many of the claim's pairs are left, so that the verdict is not read as the whole claim's.
        ranked = set(sel["metric_a"]) | set(sel["metric_b"])
        absent = [m for m in params["metrics"] if m not in ranked]
        k = len(params["metrics"])
        scope = f"{n} of its {k * (k - 1) // 2} pairs tested" if absent and n else ""
        untested = f"; {scope}, {', '.join(absent)} without values in this cohort" if scope else ""
        # More than half of the pairs equivalent: the partial conjunction of the pairs' TOST p-values.
        p = partial_conjunction(sel["p_equivalence"].to_numpy(float), _majority(n)) if n else np.nan
        out.update(
            estimate=float(sel["tau"].abs().median()) if n else np.nan,
            lo=np.nan,
            hi=np.nan,
            p_value=p,
            predicted_sign=None,
            refuted=share_related > 0.5,
            scope=scope,
            detail=f"{int(independent.sum())} of {n} metric {_noun(n, 'pair')} shown independent "
            f"(|tau| < {margin} with 90% confidence), {int(related.sum())} related; "
            f"partial-conjunction p over the pairs' equivalence tests{untested}",
        )
        return out
    if test == "discriminability_difference":
        c = results["discriminability_comparisons"].get((params["better"], params["worse"]))
        if c is None:
            return _not_tested(out, "not testable: a compared metric has no values for the compared models")
        out.update(estimate=c["difference"], lo=c["lo"], hi=c["hi"], p_value=c["p_boot"], predicted_sign=1)
        out["p_floor"] = float(_floored(c["p_boot"], results))
        # The metrics by name: a claim's words ("preference alignment") need not be a metric's.
        out["detail"] = (
            f"log F ratio of {_label(params['better'])} ({params['better']}) minus that of "
            f"{_label(params['worse'])} ({params['worse']})"
        )
    elif test == "diagnosis_effect":
        row = results["diagnosis"].set_index("metric").loc[params["metric"]]
        # The estimate and interval are the mixed model's adjusted effect; the p-value is the
        # participant-level permutation test's (the participant is the unit of the claim).
        out.update(
            _directional(
                row["adjusted_effect"],
                row["adjusted_lo"],
                row["adjusted_hi"],
                row["p_permutation"],
                params["direction"],
            )
        )
        out["detail"] = (
            f"participant-level permutation test ({int(row['n_permutations'])} relabellings, "
            f"difference of participant means {row['difference']:.3f}); estimate and interval: "
            f"mixed model adjusted for topic and length"
        )
        if not np.isfinite(row["adjusted_effect"]):  # a failed fit: no estimate, and the table says why
            reason = row.get("mixed_model_note")
            reason = reason if isinstance(reason, str) else ""
            out["note"] = fit_note(reason)
            out["detail"] += f", which gave none ({reason or 'no reason recorded'})"
        if (
            np.isfinite(row["difference"])
            and np.isfinite(row["adjusted_effect"])
            and np.sign(row["difference"]) != np.sign(row["adjusted_effect"])
        ):
            out["verdict"] = "inconclusive"  # the two analyses disagree on the direction
            out["detail"] += "; the two analyses disagree in sign"
    elif test == "turn_drift":
        page = results["drift_pages"][params["metric"]]
        # Two-sided, like the other tests; NaN when the test did not run (no p of 1 from no data).
        p = _min_or_nan(1.0, 2 * _min_or_nan(page["p_decreasing"], page["p_increasing"]))
        if not np.isfinite(p):  # fewer than two models with a mean in each position: no test ran
            blocks = page.get("n_blocks", np.nan)
            have = (
                f"{int(blocks)} compared {_noun(int(blocks), 'model')} " if np.isfinite(blocks) else "too few models "
            )
            return _not_tested(
                out,
                f"not testable: Page's trend test did not run: {have}with a mean of {params['metric']} in each of "
                "the early, middle and late turns; it needs two",
            )
        out.update(
            _directional(page["late_minus_early"], page["late_early_lo"], page["late_early_hi"], p, params["direction"])
        )
        out["detail"] = f"Page's trend test over early/middle/late with the models as blocks; slope {page['slope']:.3f}"
    elif test == "turn_flat":
        page = results["drift_pages"][params["metric"]]
        lo, hi, margin = page["late_early_lo"], page["late_early_hi"], params["margin"]
        out.update(
            estimate=page["late_minus_early"],
            lo=lo,
            hi=hi,
            p_value=np.nan,
            detail=f"late - early within +/-{margin} for equivalence",
        )
        out["verdict"] = (
            "supported"
            if -margin < lo and hi < margin
            else "not supported"
            if lo > margin or hi < -margin
            else "inconclusive"
        )
        return out
    elif test == "topic_hardest":
        c = results["romantic"].get((params["metric"], params["category"]))
        if c is None:
            return _not_tested(out, f"not testable: no contrast for {params['category']!r}")
        # The hardest topic has the worst scores: lower when higher is better, else higher.
        worse = "negative" if BY_NAME[params["metric"]].higher_is_better else "positive"
        out.update(_directional(c["difference"], c["lo"], c["hi"], c["p_boot"], worse))
        out["p_floor"] = float(_floored(c["p_boot"], results))
        out["detail"] = (
            f"hardest category by point estimate: {c['hardest']}; bootstrap probability that "
            f"{c['romantic']} is hardest {_probability_text(c['p_romantic_hardest'])}"
        )
        out["requires_hardest"] = c["hardest"] == c["romantic"]
    elif test == "profile_flips":
        s = results["profiles"]
        out.update(
            estimate=s["tau"],
            lo=s["lo"],
            hi=s["hi"],
            p_value=np.nan,
            detail=f"{s['n_flips']} pairs of models change order, {s['n_clear_flips']} clearly"
            + (
                f"; {s['n_unresolved_flips']} more only with a bootstrap p of 0 read as exactly 0, which "
                f"{s['flip_resamples']} resamples cannot resolve"
                if s.get("n_unresolved_flips")
                else ""
            ),
        )
        out["verdict"] = (
            "supported" if s["n_clear_flips"] > 0 else "not supported" if s["n_flips"] == 0 else "inconclusive"
        )
        return out
    elif test == "humans_vs_models":
        if params["metric"] not in results["humans"]:
            return _not_tested(out, "not testable: the cohort has no human raters")
        t = results["humans"][params["metric"]]
        want = "humans better" if params["direction"] == "humans_better" else "model better"
        against = "model better" if want == "humans better" else "humans better"
        if not len(t):
            return _not_tested(out, "not testable: no model was compared with the human raters")
        opposite = float((t["verdict"] == against).mean())
        # Better than more than half of the models: the partial conjunction of the models' paired
        # bootstrap p-values, a model whose difference points the other way counting p = 1.
        difference = t["human_minus_model"].to_numpy(float)
        sign = claimed_side(params["metric"], params["direction"])
        per_model = np.where(np.sign(difference) == sign, t["p_boot"].to_numpy(float), 1.0)
        out.update(
            # The quantity whose noise-free value the claim is about (stats.operating.estimands),
            # not the share the Holm-adjusted tests separate, which the detail counts.
            estimate=share_on_claimed_side(difference, params["metric"], params["direction"]),
            lo=np.nan,
            hi=np.nan,
            p_value=partial_conjunction(per_model, _majority(len(t))),
            p_floor=partial_conjunction(_floored(per_model, results), _majority(len(t))),
            predicted_sign=None,
            refuted=opposite >= 0.5,
            detail=f"{want} for {int((t['verdict'] == want).sum())} of {len(t)} {_noun(len(t), 'model')} (Holm); "
            f"partial-conjunction p over the models",
        )
        return out
    else:
        raise ValueError(f"claim {claim['id']}: unknown test {test!r}")
    return out


#: The columns of :func:`verdicts`, in order: the keys of every row of :func:`verdict_rows`.
#: ``scope`` is "" for a claim tested whole, else the part tested (a claim about a set of
#: metrics some of which have no values: "3 of its 6 pairs tested"), so that its verdict is
#: not read as the whole claim's. ``note`` is "" unless a test that ran gave no estimate, and
#: says why (a diagnosis claim whose mixed model failed: "mixed model did not converge").
#: ``p_bound`` is NaN unless ``p_adjusted`` rests on a bootstrap p of 0 of its family: for the
#: claim whose p is 0, the adjusted p is below it (what ``n_bootstrap`` resamples can resolve; the
#: table prints "< p_bound"); for another claim of that family, whose adjusted p was computed with
#: the zeros taken as 0, the adjusted p lies between ``p_adjusted`` and ``p_bound`` (the table
#: prints "<= p_bound" where the two differ once printed).
VERDICT_COLUMNS = [
    "id",
    "family",
    "text",
    "test",
    "estimate",
    "lo",
    "hi",
    "p_value",
    "p_adjusted",
    "verdict",
    "detail",
    "scope",
    "note",
    "p_bound",
]
_TEXT_COLUMNS = ("detail", "scope", "note")


def verdicts(
    claims: list[dict[str, Any]], results: dict[str, Any], alpha: float, design: dict[str, Any] | None = None
) -> pd.DataFrame:
    """Every claim with its numbers and verdict; p-values adjusted within each family, over its
    testable claims only (a not-testable claim has no p-value): :func:`verdict_rows` as a
    table."""
    return pd.DataFrame(verdict_rows(claims, results, alpha, design))


def verdict_rows(
    claims: list[dict[str, Any]], results: dict[str, Any], alpha: float, design: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """:func:`verdicts` before it becomes a table: one dictionary per claim, in the order of
    ``claims``, with the keys of :data:`VERDICT_COLUMNS` (a number a claim has none of is NaN,
    its ``detail`` and ``scope`` ""). The operating characteristics judge thousands of simulated studies
    and make one table of all their rows (``operating.simulate_verdicts``).

    A verdict the resamples cannot resolve is "inconclusive", with a note that says so: the
    claim's adjusted p is known only up to ``p_bound`` (bootstrap p-values of 0 in its family)
    and ``alpha`` lies between ``p_adjusted`` and that bound, so the rule's "p at most alpha" is
    neither shown nor refuted (a run with few resamples: statistics.n_bootstrap). Without
    ``results["n_bootstrap"]`` there is no bound and no such case: the simulated studies of the
    operating characteristics carry none, their few resamples standing in for the analysis's."""
    rows = [claim_result(c, results, design, alpha) for c in claims]
    for family, method in (("headline", "holm"), ("exploratory", "fdr_bh")):
        members = [r for r in rows if r["family"] == family and np.isfinite(r.get("p_value", np.nan))]
        if members:
            adjusted = adjust([r["p_value"] for r in members], method)
            for r, q in zip(members, adjusted):
                r["p_adjusted"] = float(q)
    # A bootstrap p of 0 only says p < 2 / n_bootstrap: the adjusted p it gives is bounded by
    # the adjusted p of the family with every such p recomputed from floored bootstrap p-values
    # (Holm and BH are monotone in each p, so raising all of them bounds each claim's adjusted
    # p whatever the true values below the floors), which the claims table prints as "< bound".
    # The other claims of such a family were adjusted with those zeros taken as 0, which they are
    # not: a zero's true p can sit above another claim's p and move it up Holm's order (or BH's),
    # so their adjusted p is known only up to the same bound (printed "<= bound").
    for family, method in (("headline", "holm"), ("exploratory", "fdr_bh")):
        members = [r for r in rows if r["family"] == family and np.isfinite(r.get("p_value", np.nan))]
        zeros = [m["p_value"] == 0 and m.get("p_floor", 0) > 0 for m in members]  # no n_bootstrap: no bound
        # empty for an empty family; a floor of 0 (no n_bootstrap) leaves a 0 as it is
        bounds = adjust_floored([m["p_value"] for m in members], [m.get("p_floor", 0) for m in members], method)
        for r, zero, bound in zip(members, zeros, bounds):
            if zero or (any(zeros) and bound > r["p_adjusted"]):
                r["p_bound"] = float(bound)
    for r in rows:
        if "verdict" in r:
            continue
        q, sign, est = r.get("p_adjusted", np.nan), r["predicted_sign"], r["estimate"]
        if sign is None:  # a claim about most of a set: its partial-conjunction p decides (claim_result)
            r["verdict"] = (
                "supported" if np.isfinite(q) and q <= alpha else "not supported" if r["refuted"] else "inconclusive"
            )
        elif np.isfinite(q) and q <= alpha and np.sign(est) == sign and r.get("requires_hardest", True):
            r["verdict"] = "supported"
        elif np.isfinite(q) and q <= alpha and np.sign(est) == -sign:
            r["verdict"] = "not supported"
        elif (
            np.isfinite(r["lo"]) and np.isfinite(r["hi"]) and ((sign > 0 and r["hi"] < 0) or (sign < 0 and r["lo"] > 0))
        ):
            r["verdict"] = "not supported"
        else:
            r["verdict"] = "inconclusive"
    for r in rows:
        if r["verdict"] in ("supported", "not supported") and _unresolved(r, alpha):
            r["verdict"] = "inconclusive"
            r["note"] = "; ".join(
                x
                for x in (
                    r.get("note", ""),
                    f"{results['n_bootstrap']} resamples bound the adjusted p only below {r['p_bound']:.3f}, "
                    f"above alpha {alpha:g}: too few to decide (statistics.n_bootstrap)",
                )
                if x
            )
    return [{c: r.get(c, "" if c in _TEXT_COLUMNS else np.nan) for c in VERDICT_COLUMNS} for r in rows]


def _unresolved(row: dict[str, Any], alpha: float) -> bool:
    """Whether a claim's verdict rests on an adjusted p the resamples cannot place on one side of
    ``alpha``: at most alpha as computed, its bound (``p_bound``) above it."""
    q, bound = row.get("p_adjusted", np.nan), row.get("p_bound", np.nan)
    return bool(np.isfinite(q) and np.isfinite(bound) and q <= alpha < bound)

"""What each claim's test needs from the cohort, checked before any statistic is computed.

``unmet_needs(claim, design, alpha)`` returns the reasons (sentences) why the cohort described
by ``design`` (``design.cohort_design``) cannot test the claim; an empty list means it can. A
claim with reasons gets the verdict 'not testable' and leaves its multiplicity family; it is
never 'inconclusive' (that verdict is for a test that ran).

The needs, per test:

- every test: its metrics have a value for the evaluated models (the annotation kind exists);
- rank_independence: at least two of its metrics, and enough models that the exact Kendall test
  can reject at alpha (smallest two-sided p 2/n!) and that some |tau| is below the margin;
- discriminability_difference: at least two models;
- diagnosis_effect: both participant groups (with and without a diagnosis) with at least
  ``MIN_CONVERSATIONS`` conversations each, and enough participants that the participant-level
  permutation test can reject at alpha;
- turn_drift: early, middle and late turn positions (Page's test compares the three; conversations
  of at most 2 turns have no middle one), and enough models (the blocks of Page's test, smallest
  two-sided p 2/6^m for three ordered positions) to reject at alpha;
- turn_flat: early and late turn positions (its late - early contrast needs no middle);
- topic_hardest: at least ``MIN_CONVERSATIONS`` conversations in the category and as many in other
  categories;
- profile_flips: the turn-level (tracking, evaluation) and conversation-level (holistic) pillars,
  and at least two models;
- humans_vs_models: at least one human rater and one model, both with the metric.
"""

from __future__ import annotations

from math import comb, factorial
from typing import Any

#: Conversations a group (a diagnosis group, a topic category or its complement) needs.
MIN_CONVERSATIONS = 5


def enough_conversations(inside: Any, outside: Any, minimum: int = MIN_CONVERSATIONS) -> Any:
    """Whether a group and the rest of the cohort both have ``minimum`` conversations or more
    (a diagnosis group and the other; a topic category and the other categories). ``inside``
    and ``outside`` are counts, or arrays of counts (then an array of booleans)."""
    return (inside >= minimum) & (outside >= minimum)


def min_kendall_models(alpha: float) -> int:
    """Fewest models (no ties) for which the exact two-sided Kendall test reaches p <= alpha."""
    n = 2
    while 2 / factorial(n) > alpha:
        n += 1
    return n


def tau_within_margin(n: int, margin: float) -> bool:
    """Whether n models can have a Kendall tau with |tau| < margin (tau = 1 - 4 d / (n (n - 1))
    for d discordant pairs)."""
    pairs = n * (n - 1) // 2
    return n >= 2 and any(abs(1 - 2 * d / pairs) < margin for d in range(pairs + 1))


def min_page_models(alpha: float, k: int = 3) -> int:
    """Fewest blocks for which Page's two-sided test over k ordered positions reaches p <= alpha
    (the one-sided exact p of the perfect ordering is 1 / (k!)^m)."""
    m = 1
    while 2 / factorial(k) ** m > alpha:
        m += 1
    return m


def min_permutation_p(n_a: int, n_b: int) -> float:
    """Smallest two-sided p of the exact permutation test of a difference in means between
    groups of n_a and n_b units (the mirror labelling ties when the groups are equal in size);
    NaN without two non-empty groups."""
    if n_a < 1 or n_b < 1:
        return float("nan")
    return (2 if n_a == n_b else 1) / comb(n_a + n_b, n_a)


def _metric_reasons(metrics: list[str], design: dict[str, Any]) -> list[str]:
    missing = [m for m in metrics if m not in design["metrics_models"]]
    return [f"{m} has no value in this cohort (its annotation kind is absent)" for m in missing]


def _models_reason(design: dict[str, Any], need: int, why: str) -> list[str]:
    n = len(design["models"])
    return [] if n >= need else [f"{n} compared model{'s' if n != 1 else ''}; {why} needs at least {need}"]


def _few_metrics(metrics: list[str], design: dict[str, Any]) -> str:
    """The reason a rank claim has fewer than two of its ``metrics`` with values: how many of how
    many have values, the verb agreeing with the count, and the metrics named on their side
    ("1 of its 2 metrics has values in this cohort (binary_om_acc; panas_items_adjusted has
    none)")."""
    defined = [m for m in metrics if m in design["metrics_models"]]
    absent = [m for m in metrics if m not in defined]
    named = [", ".join(defined)] if defined else []
    if absent:
        named.append(f"{', '.join(absent)} {'has' if len(absent) == 1 else 'have'} none")
    k, n = len(defined), len(metrics)
    return (
        f"{k} of its {n} metric{'' if n == 1 else 's'} {'has' if k == 1 else 'have'} values in this cohort "
        f"({'; '.join(named)}); a rank comparison needs two"
    )


def _positions_reason(design: dict[str, Any], middle: bool = False) -> list[str]:
    """Why the design's turn positions cannot carry a drift test: early and late turns, and with
    ``middle`` (Page's test over three ordered positions) a middle one too."""
    have = design["turn_positions"]
    if "early" not in have or "late" not in have:
        return [f"turn positions present: {', '.join(have) or 'none'}; a drift test needs early and late turns"]
    if middle and "middle" not in have:
        turns = design.get("turns") or []
        longest = max(turns) if turns else 0
        why = (
            f"the conversations have at most {longest} turns"
            if 0 < longest <= 2
            else "no scored turn lies in the middle third of a conversation"
        )
        return [f"no middle turns, as {why}; Page's trend test compares early, middle and late turns"]
    return []


def unmet_needs(claim: dict[str, Any], design: dict[str, Any], alpha: float) -> list[str]:
    """The reasons the cohort cannot test ``claim`` (empty: testable)."""
    test, params = claim["test"], claim.get("params", {})
    if test == "rank_independence":
        out = (
            []
            if sum(m in design["metrics_models"] for m in params["metrics"]) >= 2
            else [_few_metrics(params["metrics"], design)]
        )
        out += _models_reason(design, min_kendall_models(alpha), f"the exact Kendall test at alpha {alpha}")
        n = len(design["models"])
        if n >= 2 and not tau_within_margin(n, params["margin"]):
            out.append(f"with {n} models no Kendall tau lies within the margin {params['margin']}")
        return out
    if test == "discriminability_difference":
        return _metric_reasons([params["better"], params["worse"]], design) + _models_reason(
            design, 2, "a comparison of models"
        )
    if test == "diagnosis_effect":
        out = _metric_reasons([params["metric"]], design)
        groups = design["participants"]
        d, nd = groups["diagnosed"], groups["not_diagnosed"]
        recorded = design.get("participant_diagnosis_recorded") or []
        if recorded and not any(recorded):
            out.append(f"no participant's diagnosis is recorded: the profiles of all {len(recorded)} give no traits")
        elif not enough_conversations(d["conversations"], nd["conversations"]):
            unrecorded = len(recorded) - sum(recorded)
            out.append(
                f"conversations of participants with a diagnosis: {d['conversations']}, without: "
                f"{nd['conversations']}; each group needs at least {MIN_CONVERSATIONS}"
                + (
                    f" ({unrecorded} participant{'s' if unrecorded > 1 else ''}, whose diagnosis is not recorded, "
                    "in neither)"
                    if unrecorded
                    else ""
                )
            )
        else:
            p = min_permutation_p(d["participants"], nd["participants"])
            if not p <= alpha:
                out.append(
                    f"{d['participants']} participants with a diagnosis and {nd['participants']} without: the "
                    f"smallest p of the permutation test is {p:.3f}, above alpha {alpha}"
                )
        return out
    if test == "turn_drift":
        return (
            _metric_reasons([params["metric"]], design)
            + _positions_reason(design, middle=True)
            + _models_reason(design, min_page_models(alpha), f"Page's trend test at alpha {alpha}")
        )
    if test == "turn_flat":
        return _metric_reasons([params["metric"]], design) + _positions_reason(design)
    if test == "topic_hardest":
        out = _metric_reasons([params["metric"]], design)
        inside = design["categories"].get(params["category"], 0)
        outside = sum(n for c, n in design["categories"].items() if c != params["category"])
        if not enough_conversations(inside, outside):
            out.append(
                f"conversations in {params['category']!r}: {inside}, in other categories: {outside}; "
                f"each side needs at least {MIN_CONVERSATIONS}"
            )
        return out
    if test == "profile_flips":
        return _metric_reasons(["tracking", "evaluation", "holistic"], design) + _models_reason(
            design, 2, "a change of order"
        )
    if test == "humans_vs_models":
        out = _metric_reasons([params["metric"]], design)
        if not design["humans"]:
            out.append("the cohort has no human raters")
        elif params["metric"] not in design["metrics_humans"]:
            out.append(f"the human raters have no value of {params['metric']}")
        return out + _models_reason(design, 1, "a comparison with the raters")
    raise ValueError(f"claim {claim['id']}: unknown test {test!r}")

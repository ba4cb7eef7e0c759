"""The unit of each claim's estimate, for the units column of the claims table.

The claims' estimates are on different scales: a median |Kendall tau-b|, a difference of log F
ratios, an effect on a metric's own scale (a proportion, composite points), a share of models.
:func:`claim_unit` names the scale of one claim from its declared test and parameters (the
claims of ``statistics.claims``), so a reader never compares numbers of different units.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from ..metrics.registry import BY_NAME


def _metric(name: str) -> str:
    """A metric and its scale, e.g. 'Emotion F1 (proportion, 0 to 1)'."""
    m = BY_NAME.get(name)
    if m is None:
        return name
    return f"{m.label} ({m.unit}, {m.low:g} to {m.high:g})"


def one_metric_pair(params: Mapping[str, Any] | None) -> bool:
    """Whether a rank-independence claim with ``params`` (its config entry's; None when not
    known: False) names two metrics, so that it has one pair and no median or majority of pairs."""
    return params is not None and len(params.get("metrics", ())) == 2


def _rank_unit(params: dict[str, Any]) -> str:
    """The estimate of a rank-independence claim: the median |tau-b| over the pairs of its
    metrics, or, for a claim naming two metrics, the one pair's |tau-b| (no median of one)."""
    if one_metric_pair(params):
        return "|Kendall tau-b| of its one metric pair (0 to 1)"
    return "median |Kendall tau-b| over metric pairs (0 to 1)"


#: What the estimate of each kind of test is, given the claim's parameters.
_UNITS = {
    "rank_independence": _rank_unit,
    "discriminability_difference": lambda p: "difference of log F ratios (between- over within-model variance)",
    "diagnosis_effect": lambda p: f"{_metric(p['metric'])}: diagnosed minus not diagnosed",
    "turn_drift": lambda p: f"{_metric(p['metric'])}: late minus early turns",
    "turn_flat": lambda p: f"{_metric(p['metric'])}: late minus early turns",
    "topic_hardest": lambda p: f"{_metric(p['metric'])}: topic minus the other topics",
    "profile_flips": lambda p: "Kendall tau-b between turn- and conversation-level ranks (-1 to 1)",
    "humans_vs_models": lambda p: (
        "share of the compared models the raters do "
        + ("better" if p.get("direction") == "humans_better" else "worse")
        + " than on the conversations they labelled (0 to 1)"
    ),
}


def claim_unit(claim: dict[str, Any]) -> str:
    """The unit of ``claim``'s estimate (a claim of ``statistics.claims``: ``test`` and
    ``params``). An unknown test raises ValueError naming the claim, as the claims' evaluation
    does (eibench.stats.claims), rather than printing a unit nobody checked."""
    test = claim.get("test")
    if test not in _UNITS:
        raise ValueError(
            f"claim {claim.get('id')!r}: no unit for test {test!r} "
            f"(known: {', '.join(sorted(_UNITS))}); add it to eibench/report/claim_units.py"
        )
    return _UNITS[test](claim.get("params", {}))


def claim_units(ids: Iterable[str], claims: list[dict[str, Any]]) -> list[str]:
    """The units of the claims ``ids`` (in that order) from the declared ``claims``; a claim id
    the declaration lacks raises KeyError naming it."""
    by_id = {c["id"]: c for c in claims}
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise KeyError(f"claims {missing} are in the results but not declared in statistics.claims")
    return [claim_unit(by_id[i]) for i in ids]

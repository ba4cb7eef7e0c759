"""Truth beside estimate: each claim's planted truth, its verdict on the planted cohort and its
verdict on the null cohort (every planted effect zero, workflow/rules/truth.smk).

The planted truth of a claim is read from the prediction simulator's settings (config
``simulation``, docs/synthetic-cohort.md), on the generator's scale (logits): the planted effect
the claim's test targets, and whether the claim holds by construction in each cohort. A claim
whose truth the generator does not set (C2's discriminability, which follows from ability
spreads and metric noise; C6's profile flips) is marked "not planted" and gets no outcome.

Outcomes: where the claim holds by construction, "recovered" (supported), "missed"
(inconclusive) or "wrong sign" (not supported); where it does not hold, "false positive"
(supported) or "no false positive" (any other verdict). A "not testable" verdict has no outcome.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .numbers import Numbers, fmt

RULE = "null_stats_claims"

# The capability of the simulator that drives each metric a claim can name (simulate.py).
CAPABILITY = {
    "emotion_f1": "emotion",
    "emotion_va": "emotion",
    "binary_om_acc": "behaviour",
    "binary_hp_acc": "preference",
    "pairwise_acc": "preference",
    "cw_q1_f1": "holistic",
    "conversation_wide": "holistic",
    "four_branch": "holistic",
    "panas_adjusted": "holistic",
}


def _cap(metric: str, claim_id: str) -> str:
    if metric not in CAPABILITY:
        raise ValueError(
            f"claim {claim_id}: metric {metric!r} has no simulator capability in "
            f"eibench.report.truth_numbers.CAPABILITY; add it there"
        )
    return CAPABILITY[metric]


def _max_off_diagonal(matrix: list[list[float]]) -> float:
    """The largest absolute off-diagonal entry of a correlation matrix (0 for one capability)."""
    a = np.asarray(matrix, dtype=float)
    return float(np.abs(a[~np.eye(len(a), dtype=bool)]).max()) if len(a) > 1 else 0.0


def planted_truth(claim: dict[str, Any], sim: dict[str, Any], null_sim: dict[str, Any]) -> dict[str, Any]:
    """What the generator planted for one claim: ``planted`` (a short text, logits),
    ``holds`` and ``holds_null`` (True/False by construction, None when not planted)."""
    test, params, cid = claim["test"], claim.get("params", {}), claim["id"]

    def effect(s: dict[str, Any], name: str, cap: str) -> float:
        return float(s["effects"][name][cap])

    if test in ("diagnosis_effect", "turn_drift"):
        name = "diagnosis" if test == "diagnosis_effect" else "turn_drift"
        cap = _cap(params["metric"], cid)
        sign = -1 if params["direction"] == "negative" else 1
        e, e0 = effect(sim, name, cap), effect(null_sim, name, cap)
        return {"planted": f"{name} {cap} {e:+.2f}", "holds": e * sign > 0, "holds_null": e0 * sign > 0}
    if test == "turn_flat":
        cap = _cap(params["metric"], cid)
        e, e0 = effect(sim, "turn_drift", cap), effect(null_sim, "turn_drift", cap)
        return {"planted": f"turn_drift {cap} {e:+.2f}", "holds": e == 0, "holds_null": e0 == 0}
    if test == "topic_hardest":
        rom = sim["effects"]["romantic"]
        rom0 = null_sim["effects"]["romantic"]

        # composite: every capability; the romantic category is the hardest when it is harder on
        # at least one capability and easier on none (the other categories carry no effect)
        def hardest(r: dict[str, float]) -> bool:
            return min(r.values()) < 0 and max(r.values()) <= 0

        return {
            "planted": "romantic " + " ".join(f"{v:+.2f}" for v in rom.values()) + " (all capabilities)",
            "holds": hardest(rom),
            "holds_null": hardest(rom0),
        }
    if test == "humans_vs_models":
        cap = _cap(params["metric"], cid)
        sign = 1 if params["direction"] == "humans_better" else -1
        m, m0 = float(sim["human"]["ability_mean"][cap]), float(null_sim["human"]["ability_mean"][cap])
        # the models' abilities are centred at 0: the raters beat most of them when their mean is above 0
        return {
            "planted": f"human {cap} {m:+.2f} vs models 0 (sd {sim['ability_sd'][cap]:.2f})",
            "holds": m * sign > 0,
            "holds_null": m0 * sign > 0,
        }
    if test == "rank_independence":
        off, off0 = _max_off_diagonal(sim["ability_correlation"]), _max_off_diagonal(null_sim["ability_correlation"])
        margin = params["margin"]
        return {
            "planted": f"ability correlation at most {off:.2f} (margin {margin})",
            "holds": bool(off < margin),
            "holds_null": bool(off0 < margin),
        }
    return {"planted": "not planted", "holds": None, "holds_null": None}


def outcome(verdict: str, holds: bool | None) -> str:
    """The outcome of a verdict given the truth by construction (module docstring)."""
    if holds is None or verdict == "not testable":
        return "–"
    if holds:
        return {"supported": "recovered", "not supported": "wrong sign"}.get(verdict, "missed")
    return "false positive" if verdict == "supported" else "no false positive"


def _estimate(row: pd.Series) -> str:
    if pd.isna(row["estimate"]):
        return "–"
    if pd.isna(row["lo"]) or pd.isna(row["hi"]):
        return fmt(float(row["estimate"]), 3)
    return f"{fmt(float(row['estimate']), 3)} [{fmt(float(row['lo']), 3)}, {fmt(float(row['hi']), 3)}]"


def add_truth(
    nums: Numbers,
    planted: pd.DataFrame,
    null: pd.DataFrame,
    claims: list[dict[str, Any]],
    sim: dict[str, Any],
    null_sim: dict[str, Any],
) -> pd.DataFrame:
    """Add the truth numbers (``truth.*``) and return the display table, one row per claim.

    ``planted`` and ``null``: the claims tables (results/stats/claims.csv and
    results/null/stats/claims.csv); ``claims``: the declared claims; ``sim`` and ``null_sim``:
    the simulator's settings of the two cohorts.
    """
    p, n = planted.set_index("id"), null.set_index("id")
    missing = [c["id"] for c in claims if c["id"] not in p.index or c["id"] not in n.index]
    if missing:
        raise ValueError(
            f"claims {missing} are declared (statistics.claims) but missing from the planted or null "
            f"claims table; rerun rules stats_claims and null_stats_claims"
        )
    rows: list[dict[str, Any]] = []
    counts: dict[tuple[str, str], int] = {}
    for c in claims:
        cid = c["id"]
        truth = planted_truth(c, sim, null_sim)
        out_p, out_n = (
            outcome(p.loc[cid, "verdict"], truth["holds"]),
            outcome(n.loc[cid, "verdict"], truth["holds_null"]),
        )
        for cohort, o in (("planted", out_p), ("null", out_n)):
            counts[(cohort, o)] = counts.get((cohort, o), 0) + 1
        nums.add(f"truth.{cid}.planted", truth["planted"], RULE)
        nums.add(f"truth.{cid}.null_verdict", str(n.loc[cid, "verdict"]), RULE)
        nums.add(f"truth.{cid}.planted_outcome", out_p, RULE)
        nums.add(f"truth.{cid}.null_outcome", out_n, RULE)
        rows.append(
            {
                "Claim": cid,
                "Planted (logits)": truth["planted"],
                "Planted: estimate [95%]": _estimate(p.loc[cid]),
                "Planted: verdict": p.loc[cid, "verdict"],
                "Planted: outcome": out_p,
                "Null: estimate [95%]": _estimate(n.loc[cid]),
                "Null: verdict": n.loc[cid, "verdict"],
                "Null: outcome": out_n,
            }
        )
    for cohort in ("planted", "null"):
        for o in ("recovered", "missed", "wrong sign", "false positive", "no false positive"):
            nums.add(f"truth.{cohort}.n_{o.replace(' ', '_')}", counts.get((cohort, o), 0), RULE)
    nums.add("truth.n_claims", len(claims), RULE)
    nums.add("truth.n_null_supported", int((n["verdict"] == "supported").sum()), RULE)
    return pd.DataFrame(rows)


def add_truth_models(nums: Numbers, expected: pd.DataFrame) -> pd.DataFrame:
    """Add the ``truth.models.*`` numbers and return the display table of each simulated model's
    exact expected binary accuracies beside its estimate and 95% interval.

    ``expected``: results/truth/expected_metrics.csv (rule truth_models), one row per model and
    metric with ``expected``, ``estimate``, ``lo``, ``hi`` (proportions in [0, 1]) and ``covered``.
    """
    rule = "truth_models"
    have = expected.dropna(subset=["estimate", "lo", "hi"])
    covered = have["covered"].astype(str).str.lower() == "true"
    nums.add("truth.models.n_models", int(expected["em_model"].nunique()), rule)
    nums.add("truth.models.n_intervals", int(len(have)), rule)
    nums.add("truth.models.n_covered", int(covered.sum()), rule)
    nums.add(
        "truth.models.max_abs_error",
        float((have["estimate"] - have["expected"]).abs().max()) if len(have) else float("nan"),
        rule,
        digits=3,
    )
    return pd.DataFrame(
        {
            "Model": expected["em_model"],
            "Metric": expected["metric"],
            "Ability (logits)": [fmt(float(x), 2) for x in expected["ability_logit"]],
            "Expected (exact)": [fmt(float(x), 3) for x in expected["expected"]],
            "Estimate [95%]": [
                f"{fmt(float(r.estimate), 3)} [{fmt(float(r.lo), 3)}, {fmt(float(r.hi), 3)}]"
                if pd.notna(r.estimate)
                else "–"
                for r in expected.itertuples()
            ],
            "Covered": ["yes" if str(c).lower() == "true" else "no" for c in expected["covered"]],
        }
    )

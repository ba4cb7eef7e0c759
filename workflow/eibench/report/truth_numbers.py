"""Truth beside estimate: each claim's planted truth, its estimand on the claim's own scale, its
estimate and verdict on the planted cohort and on the null cohort (every planted effect zero,
workflow/rules/truth.smk).

The planted truth of a claim is read from the prediction simulator's settings (config
``simulation``, docs/synthetic-cohort.md), in the generator's units (logits): the planted effect
the claim's test targets. The discriminability claim's is the spread of the two capabilities'
abilities (its estimand adds the metrics' noise, eibench.synthetic.estimands); the profile-flip
claim has no planted value: its truth is computed from the simulated models' expected pillars
(whether two models change order between the turn-level and the holistic pillar).

The estimand of a claim (results/truth/estimands.csv, eibench.synthetic.estimands) is the value
its estimate targets, in the estimate's unit (report.claim_units): the claim's statistic on the
noise-free study of the cohort, whose values are the simulated models' expected scores. Whether
the claim holds is judged on the estimand (``holds``): a signed effect on the claim's predicted
side (diagnosis, drift, discriminability: its sign), the hardest topic (the topic claim's
contrast on the worse side, the metric's lower values when higher is better, and its category
the worst of all in expectation, as its decision rule requires of the estimate: ``hardest_gap``),
a flat trend within the claim's margin, a share of models above one half (the humans against
"most" models), a median |tau| below the claim's margin (rank independence), a tau-b below 1
(profile flips: some pair of models changes order). Outcomes, from the verdict: where the
claim holds, "recovered" (supported), "missed" (inconclusive) or "wrong sign" (not supported:
the test points against the estimand); where it does not, "false positive" (supported) or "no
false positive" (any other verdict). A claim without an estimand or with a "not testable"
verdict has no outcome ("–"). A false positive can still hold of the estimand given this
cohort's drawn difficulties (``truth.<cohort>.n_false_positive_true_of_cohort``): the claim is
false of the design, true of the participants it drew. Where the estimand carries a
Monte-Carlo error and lies so close to the boundary the claim is judged at that its 95%
Monte-Carlo interval reaches across it (``within_mc_error``), whether the claim holds is not
decided, and neither is the outcome: "undecided (MC)". The printed table (MAIN_COLUMNS) gives
the estimand, when the claim holds of it, the estimate and the outcome, at the precision the
estimate's interval supports; its appendix (DETAIL_COLUMNS) the planted value in generator units, the estimand given
this cohort's drawn participant and conversation difficulties (the same statistic on the
expected scores with those difficulties) and whether the interval covers each: an estimate that
covers the second but not the first is off by the cohort's few participants, not by the
pipeline.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ..metrics.registry import BY_NAME, label_of
from .claim_units import claim_unit
from .numbers import Numbers, fmt, interval_digits

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
    if test == "discriminability_difference":
        better, worse = _cap(params["better"], cid), _cap(params["worse"], cid)
        sd, sd0 = sim["ability_sd"], null_sim["ability_sd"]
        return {
            "planted": f"ability sd {better} {float(sd[better]):.2f} vs {worse} {float(sd[worse]):.2f}",
            "holds": float(sd[better]) > float(sd[worse]),
            "holds_null": float(sd0[better]) > float(sd0[worse]),
        }
    if test == "profile_flips":
        return {"planted": "none: from the models' expected pillars", "holds": None, "holds_null": None}
    if test == "rank_independence":
        off, off0 = _max_off_diagonal(sim["ability_correlation"]), _max_off_diagonal(null_sim["ability_correlation"])
        margin = params["margin"]
        return {
            "planted": f"ability correlation at most {off:.2f} (margin {margin})",
            "holds": bool(off < margin),
            "holds_null": bool(off0 < margin),
        }
    return {"planted": "not planted", "holds": None, "holds_null": None}


def holds(claim: dict[str, Any], estimand: float | None, hardest_gap: float | None = None) -> bool | None:
    """Whether the claim is true of its estimand (module docstring); None without an estimand
    (or, for the topic claim, without its ``hardest_gap``)."""
    if estimand is None or not np.isfinite(estimand):
        return None
    test, params = claim["test"], claim.get("params", {})
    if test in ("diagnosis_effect", "turn_drift"):
        return bool(estimand * (-1 if params["direction"] == "negative" else 1) > 0)
    if test == "discriminability_difference":
        return bool(estimand > 0)
    if test == "profile_flips":
        return bool(estimand < 1)
    if test == "topic_hardest":
        if hardest_gap is None or not np.isfinite(hardest_gap):
            return None
        worse = -1 if BY_NAME[params["metric"]].higher_is_better else 1
        return bool(estimand * worse > 0 and hardest_gap * worse > 0)
    if test == "turn_flat":
        return bool(abs(estimand) < params["margin"])
    if test == "humans_vs_models":
        return bool(estimand > 0.5)
    if test == "rank_independence":
        return bool(estimand < params["margin"])
    return None


def _distance(claim: dict[str, Any], estimand: float) -> float | None:
    """How far ``estimand`` lies from the boundary at which ``holds`` changes (a distance >= 0);
    None for a test ``holds`` does not judge."""
    test, params = claim["test"], claim.get("params", {})
    if test in ("diagnosis_effect", "turn_drift", "discriminability_difference", "topic_hardest"):
        return abs(estimand)
    if test == "profile_flips":
        return abs(estimand - 1)
    if test == "turn_flat":
        return abs(abs(estimand) - params["margin"])
    if test == "humans_vs_models":
        return abs(estimand - 0.5)
    if test == "rank_independence":
        return abs(estimand - params["margin"])
    return None


def mc_multiplier(draws: int) -> float:
    """The half-width of a 95% Monte-Carlo interval in Monte-Carlo errors: Student's t at 0.975
    over ``draws`` - 1 degrees of freedom (the error is a spread over that few draws; 4.30 for
    3 draws); NaN for fewer than two draws."""
    return float(stats.t.ppf(0.975, draws - 1)) if draws >= 2 else float("nan")


def _decided(distance: float | None, se: float | None, draws: int, exact: bool) -> bool:
    """Whether a value ``distance`` from its boundary lies beyond the half-width of its 95%
    Monte-Carlo interval (``mc_multiplier``). An exact value (``exact``: it reads exact expected
    values only) is always decided, and so is a Monte-Carlo value equal in every draw (error 0
    over two draws or more); one whose error is unknown (NaN, or from fewer than two draws)
    is not."""
    if distance is None or exact:
        return True
    if draws < 2 or se is None or not np.isfinite(se):
        return False
    return se == 0 or bool(distance > mc_multiplier(draws) * se)


def within_mc_error(
    claim: dict[str, Any],
    estimand: float | None,
    se: float | None,
    draws: int,
    hardest_gap: float | None = None,
    gap_se: float | None = None,
) -> bool:
    """Whether ``holds`` of the claim is left undecided by the Monte-Carlo error of its estimand
    (``se``, from ``draws`` draws): True when some value within the 95% Monte-Carlo interval
    of the estimand (and, for the topic claim, of its ``hardest_gap`` with ``gap_se``) would
    judge the claim otherwise, or when that error is unknown (``_decided``); never for a claim
    that reads exact values only (``reads_exact``). The topic claim holds when both its contrast
    and its gap lie on the harder side: it is decided when either is decided against the claim,
    or both for it. False without an estimand (``holds`` is then None: no outcome at all)."""
    if estimand is None or holds(claim, estimand, hardest_gap) is None:
        return False
    exact = reads_exact(claim)
    contrast = _decided(_distance(claim, estimand), se, draws, exact)
    if claim["test"] != "topic_hardest":
        return not contrast
    assert hardest_gap is not None  # holds() is None without it
    worse = -1 if BY_NAME[claim["params"]["metric"]].higher_is_better else 1
    gap = _decided(abs(hardest_gap), gap_se, draws, exact)
    harder, hardest = estimand * worse > 0, hardest_gap * worse > 0
    decided = (not harder and contrast) or (not hardest and gap) or (harder and contrast and hardest and gap)
    return not decided


def true_when(claim: dict[str, Any]) -> str:
    """When the claim holds of its estimand (``holds``), in words, for the table."""
    test, params = claim["test"], claim.get("params", {})
    if test in ("diagnosis_effect", "turn_drift"):
        return "below 0" if params["direction"] == "negative" else "above 0"
    if test == "discriminability_difference":
        return "above 0"
    if test == "turn_flat":
        return f"within ±{params['margin']:g}"
    if test == "topic_hardest":
        side = "below" if BY_NAME[params["metric"]].higher_is_better else "above"
        return f"{side} 0, and the topic the hardest"
    if test == "humans_vs_models":
        return "above 0.5"
    if test == "rank_independence":
        return f"below {params['margin']:g}"
    if test == "profile_flips":
        return "below 1 (some pair flips)"
    return "–"


def _clean(value: float) -> float:
    """An estimand as a float, a rounding residue of zero (below 1e-12 in absolute value) as 0."""
    v = float(value)
    return 0.0 if abs(v) < 1e-12 else v


def _se(se: float, digits: int) -> str:
    """A Monte-Carlo error at ``digits`` decimals, or '<' the last decimal when it rounds to 0."""
    shown = fmt(se, digits)
    return shown if float(shown) > 0 else f"<{fmt(10.0**-digits, digits)}"


#: The metrics whose expected values are exact (synthetic/expected.py): no Monte-Carlo error.
EXACT_METRICS = frozenset(("binary_om_acc", "binary_hp_acc"))


def reads_exact(claim: dict[str, Any]) -> bool:
    """Whether the claim's estimand reads exact expected values only (EXACT_METRICS); the
    profile flips read the pillars, which have Monte-Carlo parts."""
    params = claim.get("params", {})
    if claim["test"] == "profile_flips":
        return False
    names = [*params.get("metrics", []), *(params[k] for k in ("metric", "better", "worse") if k in params)]
    return bool(names) and set(names) <= EXACT_METRICS


def _estimand(value: float | None, se: float | None, digits: int = 3, exact: bool = True) -> str:
    """The estimand with its Monte-Carlo error at ``digits`` decimals (those of the estimate's
    interval); 'exact' when it reads exact values only, 'MC, equal in every draw' when it reads
    Monte-Carlo values whose draws all give it (a rank or a share of models)."""
    if value is None or not np.isfinite(value):
        return "–"
    if se is None or not np.isfinite(se) or se == 0:
        return f"{fmt(float(value), digits)} ({'exact' if exact else 'MC, equal in every draw'})"
    return f"{fmt(float(value), digits)} ± {_se(float(se), digits)} (MC)"


def _gap(gap: float | None, claim: dict[str, Any], digits: int) -> str:
    """The topic claim's distance from the hardest other category (``hardest_gap``), in words."""
    if gap is None or not np.isfinite(gap):
        return ""
    worse = -1 if BY_NAME[claim["params"]["metric"]].higher_is_better else 1
    return f"; hardest {'yes' if gap * worse > 0 else 'no'} (gap {fmt(float(gap), digits)})"


def _digits(row: pd.Series) -> int:
    """The decimals of a claim's numbers: those its 95% interval supports, 3 without one."""
    lo, hi = row["lo"], row["hi"]
    return 3 if pd.isna(lo) or pd.isna(hi) else interval_digits(float(lo), float(hi), 3)


def _covers(row: pd.Series, value: float | None) -> str:
    if value is None or not np.isfinite(value) or pd.isna(row["lo"]) or pd.isna(row["hi"]):
        return "–"
    return "yes" if row["lo"] <= value <= row["hi"] else "no"


#: The outcome of a claim whose truth the Monte-Carlo error of its estimand leaves undecided.
UNDECIDED = "undecided (MC)"


def outcome(verdict: str, holds: bool | None, undecided: bool = False) -> str:
    """The outcome of a verdict given the truth by construction (module docstring);
    ``undecided``: the Monte-Carlo error of the estimand leaves ``holds`` undecided
    (``within_mc_error``)."""
    if holds is None or verdict == "not testable":
        return "–"
    if undecided:
        return UNDECIDED
    if holds:
        return {"supported": "recovered", "not supported": "wrong sign"}.get(verdict, "missed")
    return "false positive" if verdict == "supported" else "no false positive"


def _estimate(row: pd.Series) -> str:
    if pd.isna(row["estimate"]):
        return "–"
    d = _digits(row)
    if pd.isna(row["lo"]) or pd.isna(row["hi"]):
        return fmt(float(row["estimate"]), d)
    return f"{fmt(float(row['estimate']), d)} [{fmt(float(row['lo']), d)}, {fmt(float(row['hi']), d)}]"


#: The columns of the printed truth table (paper/sections/truth.typ) and of its appendix table.
MAIN_COLUMNS = ("Claim", "Cohort", "Unit", "True when", "Estimand", "Estimate [95%]", "Verdict", "Outcome")
DETAIL_COLUMNS = (
    "Claim",
    "Cohort",
    "Planted (generator units)",
    "Estimand, this cohort",
    "Covers (estimand / this cohort)",
)
ESTIMAND_COLUMNS = (
    "cohort",
    "id",
    "estimand",
    "mc_se",
    "draws",
    "estimand_cohort",
    "mc_se_cohort",
    "hardest_gap",
    "hardest_gap_mc_se",
    "hardest_gap_cohort",
    "hardest_gap_mc_se_cohort",
)


def add_truth(
    nums: Numbers,
    planted: pd.DataFrame,
    null: pd.DataFrame,
    claims: list[dict[str, Any]],
    sim: dict[str, Any],
    null_sim: dict[str, Any],
    estimands: pd.DataFrame,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Add the truth numbers (``truth.*``) and return the two display tables, one row per claim
    and cohort: the printed one (MAIN_COLUMNS: the estimand in the estimate's unit, when the
    claim holds of it, the estimate, the verdict and the outcome) and its appendix
    (DETAIL_COLUMNS: the planted value in generator units, the estimand given this cohort's
    drawn difficulties, and whether the interval covers each estimand).

    ``planted`` and ``null``: the claims tables (results/stats/claims.csv and
    results/null/stats/claims.csv); ``claims``: the declared claims; ``sim`` and ``null_sim``:
    the simulator's settings of the two cohorts; ``estimands``: results/truth/estimands.csv
    (ESTIMAND_COLUMNS), each claim's estimand in each cohort with the random difficulties zero
    (the outcome is judged on it) and given this cohort's drawn difficulties (what the estimate
    targets conditionally; none: no row), and the topic claim's distance from the hardest other
    category (``hardest_gap``, NaN for the other claims).
    """
    p, n = planted.set_index("id"), null.set_index("id")
    missing = [c["id"] for c in claims if c["id"] not in p.index or c["id"] not in n.index]
    if missing:
        raise ValueError(
            f"claims {missing} are declared (statistics.claims) but missing from the planted or null "
            f"claims table; rerun rules stats_claims and null_stats_claims"
        )
    unknown = sorted(set(estimands["cohort"]) - {"planted", "null"})
    if unknown:
        raise ValueError(
            f"results/truth/estimands.csv: field cohort has {unknown}; only 'planted' and 'null' are "
            f"written by rule truth_models; rerun it"
        )
    lacking = sorted(set(ESTIMAND_COLUMNS) - set(estimands))
    if lacking:
        raise ValueError(f"results/truth/estimands.csv: no column {lacking}; rerun rule truth_models")
    target = {(r.cohort, r.id): (_clean(r.estimand), float(r.mc_se)) for r in estimands.itertuples()}
    n_draws = {(r.cohort, r.id): int(r.draws) for r in estimands.itertuples()}
    given = {(r.cohort, r.id): (_clean(r.estimand_cohort), float(r.mc_se_cohort)) for r in estimands.itertuples()}
    gaps = {(r.cohort, r.id): (float(r.hardest_gap), float(r.hardest_gap_cohort)) for r in estimands.itertuples()}
    gap_ses = {
        (r.cohort, r.id): (float(r.hardest_gap_mc_se), float(r.hardest_gap_mc_se_cohort))
        for r in estimands.itertuples()
    }
    rows: list[dict[str, Any]] = []
    details: list[dict[str, Any]] = []
    counts: dict[tuple[str, str], int] = {}
    covered = {"planted": [0, 0, 0], "null": [0, 0, 0]}
    undecided_ids: dict[str, list[str]] = {"planted": [], "null": []}
    # false positives whose claim holds of the estimand given the cohort's drawn difficulties
    true_of_cohort: dict[str, list[str]] = {"planted": [], "null": []}
    for c in claims:
        cid = c["id"]
        truth = planted_truth(c, sim, null_sim)
        null_truth = planted_truth(c, null_sim, null_sim)
        for cohort, table, label, text in (
            ("planted", p, "planted", truth["planted"]),
            ("null", n, "null", null_truth["planted"]),
        ):
            value, se = target.get((cohort, cid), (None, None))
            gap, gap_c = gaps.get((cohort, cid), (None, None))
            gap_se, gap_se_c = gap_ses.get((cohort, cid), (None, None))
            draws = n_draws.get((cohort, cid), 0)
            verdict = str(table.loc[cid, "verdict"])
            out = outcome(verdict, holds(c, value, gap), within_mc_error(c, value, se, draws, gap, gap_se))
            counts[(cohort, out)] = counts.get((cohort, out), 0) + 1
            if out == UNDECIDED:
                undecided_ids[cohort].append(cid)
            value_c, se_c = given.get((cohort, cid), (None, None))
            if (
                out == "false positive"
                and holds(c, value_c, gap_c)
                and not within_mc_error(c, value_c, se_c, draws, gap_c, gap_se_c)
            ):
                true_of_cohort[cohort].append(cid)
            cover, cover_c = _covers(table.loc[cid], value), _covers(table.loc[cid], value_c)
            if cover != "–":
                covered[cohort][0] += cover == "yes"
                covered[cohort][1] += 1
                covered[cohort][2] += cover_c == "yes"
            nums.add(f"truth.{cid}.{cohort}_outcome", out, RULE)
            if value is not None:
                nums.add(f"truth.{cid}.{cohort}_estimand", value, "truth_models", digits=3)
                nums.add(f"truth.{cid}.{cohort}_estimand_cohort", value_c, "truth_models", digits=3)
            if gap is not None and np.isfinite(gap):
                nums.add(f"truth.{cid}.{cohort}_hardest_gap", gap, "truth_models", digits=3)
            d = _digits(table.loc[cid])
            rows.append(
                {
                    "Claim": cid,
                    "Cohort": label,
                    "Unit": claim_unit(c),
                    "True when": true_when(c),
                    "Estimand": _estimand(value, se, d, reads_exact(c)) + ("" if value is None else _gap(gap, c, d)),
                    "Estimate [95%]": _estimate(table.loc[cid]),
                    "Verdict": verdict,
                    "Outcome": out,
                }
            )
            details.append(
                {
                    "Claim": cid,
                    "Cohort": label,
                    "Planted (generator units)": text,
                    "Estimand, this cohort": _estimand(value_c, se_c, d, reads_exact(c))
                    + ("" if value_c is None else _gap(gap_c, c, d)),
                    "Covers (estimand / this cohort)": "–" if cover == "–" else f"{cover} / {cover_c}",
                }
            )
        nums.add(f"truth.{cid}.planted", truth["planted"], RULE)
        nums.add(f"truth.{cid}.null_verdict", str(n.loc[cid, "verdict"]), RULE)
    for cohort in ("planted", "null"):
        for o in ("recovered", "missed", "wrong sign", "false positive", "no false positive"):
            nums.add(f"truth.{cohort}.n_{o.replace(' ', '_')}", counts.get((cohort, o), 0), RULE)
        nums.add(
            f"truth.{cohort}.n_undecided",
            len(undecided_ids[cohort]),
            RULE,
            note="claims whose truth the Monte-Carlo error of their estimand leaves undecided",
        )
        nums.add(f"truth.{cohort}.undecided", ", ".join(undecided_ids[cohort]) or "none", RULE)
        nums.add(
            f"truth.{cohort}.n_false_positive_true_of_cohort",
            len(true_of_cohort[cohort]),
            RULE,
            note="false positives whose claim holds of the estimand given this cohort's drawn participant and "
            "conversation difficulties (decided within its Monte-Carlo error)",
        )
        nums.add(f"truth.{cohort}.n_covered", covered[cohort][0], RULE)
        nums.add(f"truth.{cohort}.n_intervals", covered[cohort][1], RULE)
        nums.add(f"truth.{cohort}.n_covered_cohort", covered[cohort][2], RULE)
    nums.add("truth.n_claims", len(claims), RULE)
    nums.add("truth.n_estimands", len({cid for (_, cid) in target}), "truth_models")
    nums.add("truth.n_no_estimand", len({c["id"] for c in claims} - {cid for (_, cid) in target}), "truth_models")
    nums.add("truth.n_null_supported", int((n["verdict"] == "supported").sum()), RULE)
    # the draws behind the Monte-Carlo errors, and the half-width of the 95% interval the outcomes
    # are decided on, in errors (printed only where every estimand has the same draws)
    all_draws = sorted(set(n_draws.values()))
    one = all_draws[0] if len(all_draws) == 1 else 0
    nums.add("truth.mc_draws", one, "truth_models", note="Monte-Carlo draws of every estimand (0: they differ)")
    nums.add(
        "truth.mc_multiplier",
        mc_multiplier(one) if one else float("nan"),
        RULE,
        digits=2,
        note="half-width of the 95% Monte-Carlo interval in Monte-Carlo errors (Student's t, draws - 1 df)",
    )
    nums.add(
        "truth.null.n_supported_undecided",
        sum(str(n.loc[cid, "verdict"]) == "supported" for cid in undecided_ids["null"]),
        RULE,
        note="claims supported on the null cohort whose truth the Monte-Carlo error of their estimand leaves undecided",
    )

    # the largest Monte-Carlo error of an estimand per scale: composite points, log F ratios,
    # and the rest (proportions, shares of models, Kendall taus: 0 to 1 in absolute value); the
    # topic claim's gap to the hardest other category, printed beside its estimand, is on its scale
    def scale(c: dict[str, Any]) -> str:
        if c["test"] == "discriminability_difference":
            return "log_f"
        return "points" if c.get("params", {}).get("metric") == "composite" else "unit"

    scales = {c["id"]: scale(c) for c in claims}
    for key, kind in (
        ("max_estimand_mc_se", "unit"),
        ("max_estimand_mc_se_points", "points"),
        ("max_estimand_mc_se_log_f", "log_f"),
    ):
        ses = [se for (_, cid), (_, se) in (*target.items(), *given.items()) if scales.get(cid) == kind]
        ses += [se for (_, cid), pair in gap_ses.items() if scales.get(cid) == kind for se in pair]
        ses = [se for se in ses if np.isfinite(se)]
        nums.add(f"truth.{key}", max(ses) if ses else float("nan"), "truth_models", digits=3)
    return pd.DataFrame(rows, columns=list(MAIN_COLUMNS)), pd.DataFrame(details, columns=list(DETAIL_COLUMNS))


#: The metrics of the per-model truth table in the paper (every metric is in the per-metric one).
DISPLAY_METRICS = ("emotion_f1", "binary_om_acc", "pairwise_acc", "composite")


def _expected(value: float, se: float, exact: bool, digits: int) -> str:
    if not np.isfinite(value):
        return "–"
    if exact or se == 0:
        return f"{fmt(value, digits)} (exact)"
    return f"{fmt(value, digits)} ± {fmt(se, digits)}"


def add_truth_models(nums: Numbers, expected: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Add the ``truth.models.*`` numbers and return two display tables: per metric (how its
    expectation is computed, the intervals covering the expected value, the largest distance of
    an estimate from it and the largest Monte-Carlo error) and per model and DISPLAY_METRICS metric
    (the two expected values with their Monte-Carlo errors, or 'exact', beside the estimate and
    its 95% interval).

    ``expected``: results/truth/expected_metrics.csv (rule truth_models), one row per model and
    metric with ``expected`` and ``mc_se`` (the random difficulties zero: what the model's
    abilities give on this design), ``expected_cohort`` and ``mc_se_cohort`` (this cohort's
    drawn participant and conversation difficulties: what a rerun on these conversations gives
    on average), ``exact`` (binary accuracies: Monte-Carlo error 0), ``estimate``, ``lo``, ``hi``
    (on the metric's scale) and ``covered`` / ``covered_cohort``. A table without a needed
    column is an error naming it.
    """
    rule = "truth_models"
    need = {
        "em_model",
        "metric",
        "ability_logit",
        "expected",
        "mc_se",
        "expected_cohort",
        "mc_se_cohort",
        "exact",
        "estimate",
        "lo",
        "hi",
        "covered",
        "covered_cohort",
    }
    lacking = sorted(need - set(expected.columns))
    if lacking:
        raise ValueError(f"results/truth/expected_metrics.csv: no column {lacking}; rerun rule truth_models")
    exact = expected["exact"].astype(str).str.lower() == "true"
    have = expected["estimate"].notna() & expected["lo"].notna() & expected["hi"].notna()
    covered = {
        kind: (expected[col].astype(str).str.lower() == "true") & have
        for kind, col in (("zero", "covered"), ("cohort", "covered_cohort"))
    }
    nums.add("truth.models.n_models", int(expected["em_model"].nunique()), rule)
    nums.add("truth.models.n_metrics", int(expected["metric"].nunique()), rule)
    nums.add("truth.models.n_mc_metrics", int(expected.loc[~exact, "metric"].nunique()), rule)
    nums.add("truth.models.n_intervals", int(have.sum()), rule)
    nums.add("truth.models.n_covered", int(covered["zero"].sum()), rule)
    nums.add("truth.models.n_covered_cohort", int(covered["cohort"].sum()), rule)
    # The sentence speaks of proportions: a skill score (PANAS baseline-adjusted), composite
    # points or a correlation is on another scale (the registry's unit).
    unit = expected["metric"].map(lambda m: BY_NAME[m].unit if m in BY_NAME else "")
    proportion = ~exact & (unit == "proportion")
    mc = pd.concat([expected.loc[proportion, "mc_se"], expected.loc[proportion, "mc_se_cohort"]])
    nums.add("truth.models.max_mc_se_proportion", float(mc.max()) if len(mc) else float("nan"), rule, digits=4)
    per_metric = []
    for metric, rows in expected.groupby("metric", sort=False):
        h = have[rows.index]
        err = (rows["estimate"] - rows["expected_cohort"]).abs()[h]
        digits = 2 if metric == "composite" else 3
        key = f"truth.models.{metric}"
        nums.add(f"{key}.n_covered", int(covered["zero"][rows.index].sum()), rule)
        nums.add(f"{key}.n_covered_cohort", int(covered["cohort"][rows.index].sum()), rule)
        nums.add(f"{key}.n_intervals", int(h.sum()), rule)
        nums.add(f"{key}.max_abs_error", float(err.max()) if len(err) else float("nan"), rule, digits=digits)
        all_exact = bool(exact[rows.index].all())
        largest_mc = float(np.nanmax(rows[["mc_se", "mc_se_cohort"]].to_numpy(float)))
        per_metric.append(
            {
                "Metric": label_of(metric),
                "Unit": BY_NAME[metric].unit if metric in BY_NAME else "",
                "Expected value": "exact" if all_exact else "Monte Carlo",
                "Covering, this cohort": f"{int(covered['cohort'][rows.index].sum())} of {int(h.sum())}"
                if h.any()
                else "no interval",
                "Covering, difficulties zero": f"{int(covered['zero'][rows.index].sum())} of {int(h.sum())}"
                if h.any()
                else "no interval",
                "Largest |estimate - expected|": fmt(float(err.max()), digits) if len(err) else "–",
                "Largest MC error": "0" if all_exact else fmt(largest_mc, digits + 1),
            }
        )
    shown = expected[expected["metric"].isin(DISPLAY_METRICS)]

    def digits_of(metric: str) -> int:
        return 2 if metric == "composite" else 3

    per_model = pd.DataFrame(
        {
            "Model": shown["em_model"],
            "Metric": [label_of(m) for m in shown["metric"]],
            "Ability (logits)": [fmt(float(x), 2) if pd.notna(x) else "–" for x in shown["ability_logit"]],
            "Expected, this cohort": [
                _expected(float(r.expected_cohort), float(r.mc_se_cohort), e, digits_of(r.metric))
                for r, e in zip(shown.itertuples(), exact[shown.index])
            ],
            "Expected, difficulties zero": [
                _expected(float(r.expected), float(r.mc_se), e, digits_of(r.metric))
                for r, e in zip(shown.itertuples(), exact[shown.index])
            ],
            "Estimate [95%]": [
                f"{fmt(float(r.estimate), digits_of(r.metric))} [{fmt(float(r.lo), digits_of(r.metric))}, "
                f"{fmt(float(r.hi), digits_of(r.metric))}]"
                if pd.notna(r.estimate)
                else "–"
                for r in shown.itertuples()
            ],
            "Covers (cohort / zero)": [
                f"{'yes' if a else 'no'} / {'yes' if b else 'no'}"
                for a, b in zip(covered["cohort"][shown.index], covered["zero"][shown.index])
            ],
        }
    )
    return pd.DataFrame(per_metric), per_model

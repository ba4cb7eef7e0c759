"""The numbers and display table of the operating characteristics (rules stats_operating and
stats_operating_curves) for the manuscript.

``add_operating(nums, paths)`` adds one entry per printed number, each naming its rule and
script, and returns the display table (strings, as printed): per claim its rule, power and
false-positive rate with Clopper-Pearson 95% intervals, coverage with its interval and exact
binomial p against 0.95, and sign recovery. A claim the simulated studies cannot apply is
'not simulated' with its reason and no number.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import pandas as pd

from ..metrics.registry import label_of
from ..stats.simulation import NOMINAL_COVERAGE
from .claim_units import one_metric_pair
from .cohort_numbers import joined
from .numbers import Numbers, fmt, fmt_outward, fmt_p, fmt_share, fmt_share_beside

RULE = "stats_operating"
CURVES = "stats_operating_curves"

#: The table's column of the coverage's one-sided binomial p against under-coverage
#: (stats.simulation.coverage_test's ``coverage_p``).
P_VS_NOMINAL = f"p below {NOMINAL_COVERAGE:g}"

#: The tests whose verdict rule has an equivalence margin (the claim's ``params.margin``).
MARGIN_TESTS = ("rank_independence", "turn_flat")

#: How the table names each verdict rule; "Holm / BH" is the claim's family adjustment, which
#: the table names for each claim (FAMILY_METHOD).
RULES = {
    "rank_independence": "partial-conjunction p (Holm / BH) that a majority of pairs has |tau| < margin "
    "(equivalence tests, models and conversations resampled)",
    "discriminability_difference": "log F difference > 0 (Holm / BH)",
    "diagnosis_effect": "permutation p (Holm / BH) and sign of the adjusted effect",
    "turn_drift": "Page's trend p (Holm / BH) and sign of late - early",
    "turn_flat": "late - early interval inside the margin",
    "topic_hardest": "bootstrap p (Holm / BH), sign, and hardest by point estimate",
    "profile_flips": "at least one clear flip",
    "humans_vs_models": "partial-conjunction p (Holm / BH) that more than half of the models differ on the "
    "claimed side",
}

#: The multiplicity adjustment of each claim family (stats.claims.verdict_rows: Holm for the
#: headline family, Benjamini-Hochberg for the exploratory one).
FAMILY_METHOD = {"headline": "Holm", "exploratory": "BH"}
#: The same adjustments as the prose names them.
FAMILY_METHOD_NAME = {family: {"BH": "Benjamini-Hochberg"}.get(m, m) for family, m in FAMILY_METHOD.items()}


#: The rank-independence rule of a claim naming two metrics: one pair, no majority.
ONE_PAIR_RULE = "equivalence p (Holm / BH) that the one pair has |tau| < margin (models and conversations resampled)"


def rule_text(test: str, family: Any, params: Mapping[str, Any] | None = None) -> str:
    """How the table names the verdict rule of a claim of ``test`` in ``family`` with the
    claim's ``params`` (its config entry's; None when not known): the family's adjustment where
    the rule reads a family-adjusted p (an exploratory claim's is BH, never Holm), both where the
    family is unknown; a rank-independence claim of two metrics has one pair, not a majority."""
    text = ONE_PAIR_RULE if test == "rank_independence" and one_metric_pair(params) else RULES.get(test, test)
    method = FAMILY_METHOD.get(family) if isinstance(family, str) else None
    return text.replace("Holm / BH", method) if method else text


def _interval(row: pd.Series, key: str, lo: str, hi: str, levels: tuple[float, ...]) -> str:
    """A simulated rate and its exact binomial interval as the table prints them: the rate, a
    share of counted studies, rounded on its exact value (``fmt_share``: 191 of 200 is 0.96, not
    the 0.95 of binary rounding), the bounds rounded outward (``fmt_outward``) and kept off
    ``levels`` (the nominal level, the power bar and 95% coverage, which they are read against)."""
    if pd.isna(row.get(key)):
        return "–"
    return f"{fmt_share(float(row[key]))} {fmt_outward(float(row[lo]), float(row[hi]), levels=levels)}"


def _smallest(curve: pd.DataFrame, column: str, level: float) -> tuple[Any, bool]:
    """The smallest grid value whose ``column`` reaches ``level``, and whether one does."""
    hit = curve[curve[column] >= level]
    return (hit["value"].min(), True) if len(hit) else (curve["value"].max(), False)


def _computed(nums: Numbers, key: str, curve: pd.DataFrame) -> bool:
    """Entries ``key.claim``, ``key.computed`` and, for a curve with no simulated number (one
    row whose note says why, stats.operating.not_computed_curve), ``key.note``; whether the
    curve has numbers."""
    claim = curve["claim"].iloc[0] if len(curve) else ""
    nums.add(f"{key}.claim", "" if pd.isna(claim) else str(claim), CURVES)
    computed = bool(len(curve)) and bool(curve["value"].notna().all())
    nums.add(f"{key}.computed", computed, CURVES)
    if not computed:
        notes = curve["note"].dropna().astype(str) if "note" in curve else pd.Series(dtype=str)
        nums.add(f"{key}.note", notes.iloc[0] if len(notes) else "no design point", CURVES)
    return computed


def _short_families(nums: Numbers, claims: pd.DataFrame, sim: pd.DataFrame) -> set[str]:
    """Entries ``operating.n_short_family`` and ``operating.short_family`` (the simulated claims
    whose simulated family lacks claims the pipeline adjusts them with: column
    ``family_left_out`` of stats.operating.operating_table), ``operating.<id>.family_left_out``
    for each of them, ``operating.short_family_detail`` (each with the claims it lacks: 'C1
    together with E3 and E4, and C3 together with E4'), ``operating.short_family_holm`` (whether
    all of them are headline claims, adjusted by Holm, which never lowers an adjusted p as the
    family grows, so that their simulated power can only be too high; Benjamini-Hochberg's can
    move either way). Returns the ids of the short-family claims."""
    left = sim["family_left_out"].fillna("").astype(str)
    short = sim[left != ""]
    lacks = {cid: cell.split("; ") for cid, cell in zip(short["id"], left[left != ""])}
    nums.add("operating.n_short_family", int(len(short)), RULE)
    for cid, ids in lacks.items():
        nums.add(f"operating.{cid}.family_left_out", joined(ids), RULE)
    parts = [f"{cid} together with {joined(ids)}" for cid, ids in lacks.items()]
    detail = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + ", and " + parts[-1] if parts else "none"
    nums.add("operating.short_family_detail", detail, RULE, note="each such claim with the claims it lacks")
    nums.add("operating.short_family", joined(list(short["id"])) or "none", RULE)
    nums.add("operating.short_family_holm", bool((short["family"] == "headline").all()), RULE)
    return set(short["id"])


def _curve_family(nums: Numbers, key: str, curve: pd.DataFrame, families: dict[str, str], short: set[str]) -> None:
    """Entries ``key.adjustment`` (how the pipeline adjusts the curve's claim: Holm for the
    headline family, Benjamini-Hochberg for the exploratory one) and ``key.short_family``
    (whether its simulated family lacks claims of the pipeline's, ``_short_families``)."""
    claim = str(curve["claim"].iloc[0])
    nums.add(f"{key}.adjustment", FAMILY_METHOD_NAME[families[claim]], CURVES)
    nums.add(f"{key}.short_family", claim in short, CURVES)


def _at_design(
    nums: Numbers, key: str, curve: pd.DataFrame, claims: pd.DataFrame, power_bar: float, levels: tuple[float, ...]
) -> None:
    """Entry ``key.at_design_split``: whether the curve, at this design's own size (its column
    ``design``; NaN where no point of the curve is this design), and the operating table give the
    curve's claim a simulated power on either side of ``power_bar`` as printed (``fmt_share``),
    two sets of simulated studies of one design read against one bar. When
    they do: ``key.design`` (the size), ``key.at_design`` (the curve's power there, with its
    interval) and ``key.at_design_overlap`` (whether the two intervals overlap). False when the
    grid lacks the design's size or the table has no power for the claim."""
    row = claims[claims["id"] == str(curve["claim"].iloc[0])]
    at = curve[curve["value"] == curve["design"]]  # a design NaN (not comparable) matches no value
    split = False
    if len(at) and len(row) and pd.notna(row["power"].iloc[0]):
        power, r = float(at["supported"].iloc[0]), row.iloc[0]
        # as printed: 0.795 prints 0.80, which a reader takes as reaching a bar of 0.8
        reaches = [float(fmt_share(v)) >= power_bar for v in (power, float(r["power"]))]
        split = reaches[0] != reaches[1]
        if split:
            lo, hi = float(at["supported_lo"].iloc[0]), float(at["supported_hi"].iloc[0])
            nums.add(f"{key}.design", int(at["value"].iloc[0]), CURVES)
            nums.add(
                f"{key}.at_design", power, CURVES, ci=(lo, hi), fixed=True, outward=True, share=True, levels=levels
            )
            overlap = lo <= float(r["power_hi"]) and float(r["power_lo"]) <= hi
            nums.add(f"{key}.at_design_overlap", bool(overlap), CURVES)
    nums.add(f"{key}.at_design_split", split, CURVES)


def _fpr_above(nums: Numbers, sim: pd.DataFrame, alpha: float, levels: tuple[float, ...]) -> None:
    """Entries ``operating.alpha``, ``operating.n_fpr_above``, ``operating.fpr_above`` (the ids)
    and ``operating.fpr_above_detail`` (each with its rate and interval as the table prints
    them): the simulated claims whose false-positive rate's Clopper-Pearson interval lies wholly
    above the nominal ``alpha``, so that their rule says 'supported' too often when the claim
    is false."""
    above = sim[sim["fpr_lo"].notna() & (sim["fpr_lo"] > alpha)]
    nums.add("operating.alpha", float(alpha), RULE, note="nominal level of the claims' tests")
    nums.add("operating.n_fpr_above", int(len(above)), RULE)
    nums.add("operating.fpr_above", ", ".join(above["id"]) if len(above) else "none", RULE)
    detail = [f"{r['id']} ({_interval(r, 'fpr', 'fpr_lo', 'fpr_hi', levels)})" for _, r in above.iterrows()]
    nums.add(
        "operating.fpr_above_detail",
        joined(detail) or "none",
        RULE,
        note="claims whose simulated false-positive rate's 95% interval lies above the nominal level",
    )


def _coverage_low(nums: Numbers, sim: pd.DataFrame) -> None:
    """Entries ``operating.n_coverage_tested`` (claims whose coverage has a binomial test) and
    ``operating.n_coverage_low`` / ``operating.coverage_low``: the claims whose simulated
    coverage is below the nominal ``NOMINAL_COVERAGE`` without being significantly so, each with its coverage
    and binomial p as the table prints them."""
    tested = sim[sim["coverage_p"].notna()]
    low = tested[(tested["coverage"] < NOMINAL_COVERAGE) & (tested["coverage_vs_nominal"] != "below nominal")]
    nums.add("operating.n_coverage_tested", int(len(tested)), RULE)
    nums.add("operating.n_coverage_low", int(len(low)), RULE)
    nums.add(
        "operating.coverage_low",
        joined(
            [
                f"{r['id']} ({fmt_share_beside(r['coverage'], NOMINAL_COVERAGE, 'below')}, p {fmt_p(r['coverage_p'])})"
                for _, r in low.iterrows()
            ]
        )
        or "none",
        RULE,
        note=f"claims whose simulated coverage is below {NOMINAL_COVERAGE:g}, not significantly",
    )


def add_operating(
    nums: Numbers,
    paths: dict[str, str],
    power_bar: float = 0.8,
    alpha: float = 0.05,
    config_claims: Sequence[Mapping[str, Any]] = (),
) -> pd.DataFrame:
    """Entries ``operating.*`` from the files ``paths`` (claims, models, margins, participants,
    conversations: results/stats/operating/*.csv), and the display table. The simulated rates
    (power, false-positive rate, coverage) are printed with two decimals, as the table prints
    them; ``alpha`` is the nominal level of the claims' tests; ``config_claims`` are the claims
    of the configuration (``statistics.claims``), whose parameters word each rule."""
    params = {c["id"]: c.get("params", {}) for c in config_claims}
    levels = (alpha, power_bar, NOMINAL_COVERAGE)  # what the simulated rates are read against
    claims = pd.read_csv(paths["claims"], keep_default_na=True)
    claims["note"] = claims["note"].fillna("")
    rows = []
    sim = claims[claims["simulated"].astype(bool)]
    n_studies = int(sim["n_false"].max()) if len(sim) else 0
    nums.add("operating.n_studies", n_studies, RULE, note="simulated studies per cohort")
    skipped = claims[~claims["simulated"].astype(bool)]
    nums.add("operating.not_simulated", ", ".join(skipped["id"]) if len(skipped) else "none", RULE)
    nums.add("operating.n_simulated", int(len(sim)), RULE)
    nums.add("operating.simulated", ", ".join(sim["id"]) if len(sim) else "none", RULE)
    short = _short_families(nums, claims, sim)
    fpr_only = sim[sim["power"].isna() & sim["fpr"].notna()]
    nums.add(
        "operating.fpr_only",
        ", ".join(fpr_only["id"]) if len(fpr_only) else "none",
        RULE,
        note="simulated claims with a false-positive rate but no power (the generator plants no effect of their kind)",
    )
    nums.add("operating.n_fpr_only", int(len(fpr_only)), RULE)
    # The rules with a margin, simulated or not; and whether a cohort at the independence
    # claim's margin was drawn (only for a simulated rank-independence claim: stats_operating).
    for name, table in (("simulated", sim), ("not_simulated", skipped)):
        margin = table[table["test"].isin(MARGIN_TESTS)]
        nums.add(f"operating.margin_{name}", ", ".join(margin["id"]) if len(margin) else "none", RULE)
    at_margin = sim[sim["test"] == "rank_independence"]
    nums.add(
        "operating.at_margin",
        bool(len(at_margin)),
        RULE,
        note="whether simulated abilities at the independence claim's margin were drawn",
    )
    below = sim[sim["coverage_vs_nominal"] == "below nominal"]
    nums.add("operating.coverage_below", ", ".join(below["id"]) if len(below) else "none", RULE)
    nums.add("operating.any_coverage_below", bool(len(below)), RULE)
    _coverage_low(nums, sim)
    _fpr_above(nums, sim, alpha, levels)
    # The discriminability claims simulated without power: their generator draws every
    # capability's abilities with one spread (stats.operating.NO_POWER), unlike the truth section's.
    equal = sim[(sim["test"] == "discriminability_difference") & sim["power"].isna()]
    nums.add("operating.n_equal_spreads", int(len(equal)), RULE)
    nums.add("operating.equal_spreads", ", ".join(equal["id"]) if len(equal) else "none", RULE)
    # The human-baseline claims: a simulated study draws the raters' abilities as it draws the
    # models' (stats.simulation), shifted only by the planted effect, so with nothing planted
    # the raters beat most of a study's models by chance in some studies.
    drawn = sim[sim["test"] == "humans_vs_models"]
    nums.add("operating.n_humans_drawn", int(len(drawn)), RULE)
    nums.add("operating.humans_drawn", ", ".join(drawn["id"]) if len(drawn) else "none", RULE)
    for _, r in claims.iterrows():
        key = f"operating.{r['id']}"
        nums.add(f"{key}.simulated", bool(r["simulated"]), RULE)
        if not r["simulated"]:
            nums.add(f"{key}.note", str(r["note"]), RULE)
            rows.append(
                {
                    "Claim": r["id"],
                    "Rule": rule_text(r["test"], r.get("family"), params.get(r["id"])),
                    "Power [95% CI]": "–",
                    "FPR [95% CI]": "–",
                    "Coverage [95% CI]": "–",
                    P_VS_NOMINAL: "–",
                    "Sign recovery": "–",
                    "Note": str(r["note"]),
                }
            )
            continue
        for name in ("power", "fpr", "coverage"):
            if pd.notna(r[name]):
                nums.add(
                    f"{key}.{name}",
                    float(r[name]),
                    RULE,
                    ci=(float(r[f"{name}_lo"]), float(r[f"{name}_hi"])),
                    fixed=True,
                    outward=True,
                    share=True,
                    levels=levels,
                )
        if pd.notna(r["coverage_p"]):
            nums.add(f"{key}.coverage_p", float(r["coverage_p"]), RULE, digits=3)
        if pd.notna(r["sign_recovery"]):
            nums.add(f"{key}.sign_recovery", float(r["sign_recovery"]), RULE, share=True)
        note = str(r["note"])
        if r["coverage_vs_nominal"] == "below nominal":
            note = "; ".join(x for x in (note, "coverage below nominal") if x)
        rows.append(
            {
                "Claim": r["id"],
                "Rule": rule_text(r["test"], r.get("family"), params.get(r["id"])),
                "Power [95% CI]": _interval(r, "power", "power_lo", "power_hi", levels),
                "FPR [95% CI]": _interval(r, "fpr", "fpr_lo", "fpr_hi", levels),
                "Coverage [95% CI]": _interval(r, "coverage", "coverage_lo", "coverage_hi", levels),
                P_VS_NOMINAL: fmt_p(r["coverage_p"]),
                "Sign recovery": fmt_share(r["sign_recovery"]),
                "Note": note,
            }
        )

    families = dict(zip(claims["id"], claims["family"]))
    models = pd.read_csv(paths["models"], keep_default_na=True)
    margins = pd.read_csv(paths["margins"], keep_default_na=True)
    nums.add("operating.power_bar", float(power_bar), CURVES, digits=1)
    if _computed(nums, "operating.models", models):
        value, reached = _smallest(models, "supported", power_bar)
        nums.add("operating.models.grid", ", ".join(str(int(v)) for v in models["value"]), CURVES)
        _curve_family(nums, "operating.models", models, families, short)
        _at_design(nums, "operating.models", models, claims, power_bar, levels)
        nums.add("operating.models.reached", reached, CURVES)
        nums.add(
            "operating.models.needed",
            int(value),
            CURVES,
            note="smallest number of models with simulated power >= the bar, else the largest tried",
        )
        nums.add(
            "operating.models.largest_power",
            float(models["supported"].iloc[-1]),
            CURVES,
            ci=(float(models["supported_lo"].iloc[-1]), float(models["supported_hi"].iloc[-1])),
            fixed=True,
            outward=True,
            levels=levels,
        )
        tau, detected = _smallest(margins, "not_supported", power_bar)
        nums.add("operating.margin.value", float(margins["margin"].iloc[0]), CURVES, digits=2)
        nums.add("operating.margin.n_models", int(margins["n_models"].iloc[0]), CURVES)
        nums.add("operating.margin.detected", detected, CURVES)
        nums.add(
            "operating.margin.smallest_tau",
            float(tau),
            CURVES,
            digits=2,
            note="smallest true Kendall tau the rule calls 'not supported' with the power bar, else the largest tried",
        )
        nums.add("operating.margin.power_at_margin", float(margins["not_supported"].iloc[0]), CURVES)
    part = pd.read_csv(paths["participants"], keep_default_na=True)
    if _computed(nums, "operating.participants", part):
        value, reached = _smallest(part, "supported", power_bar)
        nums.add("operating.participants.grid", ", ".join(str(int(v)) for v in part["value"]), CURVES)
        _curve_family(nums, "operating.participants", part, families, short)
        _at_design(nums, "operating.participants", part, claims, power_bar, levels)
        nums.add("operating.participants.reached", reached, CURVES)
        nums.add("operating.participants.needed", int(value), CURVES)
    conv = pd.read_csv(paths["conversations"])
    nums.add("operating.conversations.computed", bool(len(conv)), CURVES)
    if len(conv):
        grid = ", ".join(str(int(v)) for v in sorted(conv["n_conversations"].unique()))
        nums.add("operating.conversations.grid", grid, CURVES)
        largest = conv[conv["n_conversations"] == conv["n_conversations"].max()]
        # The least reliable metrics as printed (two decimals): one is singled out only when its
        # printed reliability is below every other's; when they all print the same, none is.
        printed = largest["reliability"].map(lambda v: fmt(float(v)))
        least = largest[printed == min(printed, key=float)].sort_values(["reliability", "metric"])
        nums.add("operating.conversations.n_metrics", int(len(largest)), CURVES)
        nums.add(
            "operating.conversations.metrics",
            joined([label_of(m) for m in sorted(largest["metric"])]),
            CURVES,
            note="the metrics of the reliability curve",
        )
        nums.add("operating.conversations.n_least", int(len(least)), CURVES)
        nums.add(
            "operating.conversations.all_alike",
            len(least) == len(largest),
            CURVES,
            note="every metric's simulated reliability at the largest size prints the same",
        )
        nums.add(
            "operating.conversations.least_reliable",
            joined([label_of(m) for m in least["metric"]]),
            CURVES,
            note="the metrics whose simulated reliability at the largest size prints lowest",
        )
        nums.add("operating.conversations.least_reliability", float(least["reliability"].iloc[0]), CURVES)
        nums.add(
            "operating.conversations.largest",
            int(conv["n_conversations"].max()),
            CURVES,
            note="the largest number of conversations of the curve",
        )
    return pd.DataFrame(
        rows,
        columns=[
            "Claim",
            "Rule",
            "Power [95% CI]",
            "FPR [95% CI]",
            "Coverage [95% CI]",
            P_VS_NOMINAL,
            "Sign recovery",
            "Note",
        ],
    )

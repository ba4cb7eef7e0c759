"""The statistics' numbers and display tables for the manuscript.

``add_statistics`` reads the tables of the statistics rules (results/stats/...) and adds one
entry per printed number to a :class:`Numbers`, each naming the rule and script that computed
it; it returns the display tables (strings, as printed). Claims' verdicts are entries too, so
the manuscript chooses its sentences from them and cannot contradict the numbers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..metrics.registry import label_of
from ..stats.claims import P_VALUE_OF_TEST
from ..stats.drift import POOLED
from ..stats.mixed import FIT_FAILURES, NO_VALUES, fit_failure_kind, is_fit_failure
from ..stats.simulation import SIMULATED_KINDS, TESTS, Generator
from ..stats.testability import MIN_CONVERSATIONS, enough_conversations
from .cohort_numbers import joined
from .coverage import add_recovery, too_few_studies
from .numbers import Numbers, fmt, fmt_interval, fmt_p, fmt_p_bounded, fmt_share, plural

SIM = "stats_simulation_summary"

#: How the paper names the kinds of claim the simulation has no test for.
KIND_WORDS = {"turn_flat": "flat drift", "profile_flips": "profile flips"}

#: The statistics tables :func:`add_statistics` reads (its ``paths`` keys; rule paper_numbers' inputs).
STATS_TABLES = (
    "claims",
    "rank_summary",
    "rank_pairs",
    "discriminability",
    "comparisons",
    "diagnosis",
    "romantic",
    "topics",
    "page",
    "drift",
    "humans_paired",
    "agreement",
    "alt_test",
    "profiles",
    "null_rates",
    "planted",
)


def claims_without_simulated_test(claims: pd.DataFrame) -> list[str]:
    """The claims (``id`` and ``test`` columns: claims.csv, or the config's claims) whose kind of
    test the simulation has none of (not in simulation.SIMULATED_KINDS), each as 'id (kind)'."""
    no_test = claims[~claims["test"].isin(SIMULATED_KINDS)]
    return [f"{c} ({KIND_WORDS.get(t, str(t).replace('_', ' '))})" for c, t in zip(no_test["id"], no_test["test"])]


def _count(x: Any) -> int | float:
    """A count as printed: an int, or NaN (printed '–') when the analysis had no input."""
    return int(x) if x is not None and pd.notna(x) else float("nan")


def _num(x: Any) -> float:
    """A number read from a summary JSON file: null (a missing value) is NaN."""
    return float("nan") if x is None else float(x)


def _estimate_cell(estimate: float, lo: float, hi: float) -> str:
    """A claim's estimate as the claims table prints it: with its interval at the precision the
    interval supports (numbers.fmt_interval), or alone with two decimals when it has none."""
    if pd.isna(lo) or pd.isna(hi):
        return fmt(estimate, 2)
    shown, interval = fmt_interval(float(estimate), float(lo), float(hi))
    return f"{shown} {interval}"


def _verdict_cell(verdict: str, scope: Any, note: Any = "") -> str:
    """A claim's verdict as the claims table prints it, with the part tested when the claim
    was tested in part (claims.csv ``scope``: "" or NaN for a claim tested whole), and why its
    test gave no estimate when it did not (``note``, e.g. "mixed model did not converge")."""
    said = ([f"only {scope}"] if isinstance(scope, str) and scope else []) + (
        [note] if isinstance(note, str) and note else []
    )
    return f"{verdict} ({'; '.join(said)})" if said else verdict


def _two_sided(p_decreasing: float, p_increasing: float) -> float:
    """Twice the smaller one-sided p, at most 1; NaN when the test did not run (``min(1.0, nan)``
    would be 1)."""
    p = 2 * min(p_decreasing, p_increasing)
    return float("nan") if pd.isna(p_decreasing) or pd.isna(p_increasing) else min(1.0, p)


def p_value_kinds(claims: pd.DataFrame) -> str:
    """What the claims table's p-values are, for the claims that print one (a finite
    ``p_adjusted``), grouped by kind (stats.claims.P_VALUE_OF_TEST), kinds in order of their
    first claim: "C2, C5: two-sided bootstrap test of no difference; C4: two-sided Page's
    trend test". "none" when no claim prints a p-value."""
    groups: dict[str, list[str]] = {}
    for cid, test, q in zip(claims["id"], claims["test"], claims["p_adjusted"]):
        if pd.notna(q):
            if test not in P_VALUE_OF_TEST:
                raise ValueError(
                    f"claim {cid}: its test {test!r} gives a p-value, but stats.claims.P_VALUE_OF_TEST does not "
                    "say what it is (sidedness, kind): add it there, as the claims table's caption prints it"
                )
            groups.setdefault(P_VALUE_OF_TEST[test], []).append(str(cid))
    return "; ".join(f"{', '.join(ids)}: {kind}" for kind, ids in groups.items()) or "none"


#: Up to this many models, Kendall's tau-b of untied ranks takes at most 11 values, in steps of
#: at least 0.2: the paper says its interval is coarse.
COARSE_TAU_MODELS = 5


def add_statistics(nums: Numbers, paths: dict[str, str]) -> dict[str, pd.DataFrame]:
    """Add the statistics' numbers to ``nums``; return the display tables by name.

    ``paths`` maps each of :data:`STATS_TABLES` to its file.
    """

    def add(key: str, value: Any, rule: str, **kw: Any) -> None:
        nums.add(key, value, rule, **kw)

    tables: dict[str, pd.DataFrame] = {}

    claims = pd.read_csv(paths["claims"], keep_default_na=False, na_values=[""])
    for _, c in claims.iterrows():
        add(f"claim.{c['id']}.verdict", str(c["verdict"]), "stats_claims")
        add(f"claim.{c['id']}.detail", str(c["detail"]) if pd.notna(c["detail"]) else "", "stats_claims")
        ci = (float(c["lo"]), float(c["hi"])) if pd.notna(c["lo"]) and pd.notna(c["hi"]) else None
        add(f"claim.{c['id']}.estimate", float(c["estimate"]), "stats_claims", digits=3, ci=ci)
    for verdict in ("supported", "not supported", "inconclusive", "not testable"):
        for family in ("headline", "exploratory"):
            n = int(((claims["verdict"] == verdict) & (claims["family"] == family)).sum())
            add(f"claims.{family}.{verdict.replace(' ', '_')}", n, "stats_claims")
    untestable = claims[claims["verdict"] == "not testable"]
    add("claims.n_not_testable", int(len(untestable)), "stats_claims")
    add(
        "claims.not_testable",
        "; ".join(f"{c['id']} ({str(c['detail']).removeprefix('not testable: ')})" for _, c in untestable.iterrows())
        or "none",
        "stats_claims",
        note="the claims this cohort cannot test, each with its reason",
    )
    add("claims.not_testable_ids", ", ".join(untestable["id"]) or "none", "stats_claims")
    # The claims whose kind of test the simulation does not have (simulation.SIMULATED_KINDS).
    no_test = claims_without_simulated_test(claims)
    add("sim.n_no_test", len(no_test), "stats_claims")
    add(
        "sim.no_test",
        joined(no_test) or "none",
        "stats_claims",
        note="the claims whose kind of test the simulation has none of",
    )
    add(
        "claims.p_kinds",
        p_value_kinds(claims),
        "stats_claims",
        note="what each printed p-value is before the family's adjustment, by kind of test",
    )
    add("claims.n_headline", int((claims["family"] == "headline").sum()), "stats_claims")
    add("claims.n_exploratory", int((claims["family"] == "exploratory").sum()), "stats_claims")
    tables["claims"] = pd.DataFrame(
        {
            "ID": claims["id"],
            "Family": claims["family"],
            "Claim": claims["text"],
            "Estimate [95% interval]": [
                _estimate_cell(e, lo, hi) for e, lo, hi in zip(claims["estimate"], claims["lo"], claims["hi"])
            ],
            "p (adjusted)": [
                fmt_p_bounded(q, b)
                for q, b in zip(claims["p_adjusted"], claims.get("p_bound", [float("nan")] * len(claims)))
            ],
            "Verdict": [
                _verdict_cell(v, s, n)
                for v, s, n in zip(claims["verdict"], claims["scope"], claims.get("note", [""] * len(claims)))
            ],
        }
    )

    rank = json.loads(Path(paths["rank_summary"]).read_text())
    add("ranks.n_models", _count(rank["n_models"]), "stats_ranks")
    add(
        "ranks.critical_tau",
        _num(rank["critical_tau"]),
        "stats_ranks",
        note="smallest |tau-b| significant at alpha by the exact test for this many models",
    )
    add("ranks.margin", _num(rank["margin"]), "stats_ranks")
    add(
        "ranks.power_at_margin",
        _num(rank["power_at_margin"]),
        "stats_ranks",
        note="power of the exact test when the true tau equals the margin",
    )
    add("ranks.kendall_w", _num(rank["kendall_w"]), "stats_ranks")
    add("ranks.median_abs_tau", _num(rank["median_abs_tau"]), "stats_ranks")
    for k in ("n_pairs", "n_independent", "n_related", "n_inconclusive"):
        add(f"ranks.{k}", _count(rank[k]), "stats_ranks")

    disc = pd.read_csv(paths["discriminability"])
    tables["discriminability"] = pd.DataFrame(
        {
            "Metric": [label_of(m) for m in disc["metric"]],
            "Reliability [95%]": [
                " ".join(fmt_interval(r, lo, hi, 3))
                for r, lo, hi in zip(disc["reliability"], disc["reliability_lo"], disc["reliability_hi"])
            ],
            "Signal-to-noise [95%]": [
                " ".join(fmt_interval(s, lo, hi, 2)) for s, lo, hi in zip(disc["snr"], disc["snr_lo"], disc["snr_hi"])
            ],
            "Pairs separated (Holm)": [
                f"{int(k)} of {int(n)}" if n > 0 else "–" for k, n in zip(disc["pairs_separated"], disc["pairs"])
            ],
        }
    )
    comparisons = _read_optional(paths["comparisons"])
    for _, c in comparisons.iterrows():
        key = f"disc.{c['metric_a']}_vs_{c['metric_b']}"
        add(
            key,
            float(c["difference"]),
            "stats_discriminability",
            ci=(float(c["lo"]), float(c["hi"])),
            note="difference of log F (between-model over within-model variance of the means)",
        )
        add(f"{key}.f_ratio", float(c["f_ratio"]), "stats_discriminability")
    tested = disc[disc["pairs"] > 0]
    add(
        "disc.pair_resamples",
        int(tested["pair_resamples"].max()) if len(tested) else 0,
        "stats_discriminability",
        note="resamples of the Holm-corrected pairwise tests (stats.discriminability.pairwise_resamples)",
    )
    add("disc.n_unresolved", int(tested["pairs_unresolved"].sum()), "stats_discriminability")
    for _, r in disc.iterrows():
        add(
            f"disc.{r['metric']}.share_separated",
            float(r["share_pairs_separated"]) * 100,
            "stats_discriminability",
            digits=0,
        )
        if r["pairs"] > 0:
            add(f"disc.{r['metric']}.pairs_separated", int(r["pairs_separated"]), "stats_discriminability")
            add(f"disc.{r['metric']}.pairs", int(r["pairs"]), "stats_discriminability")

    diag = pd.read_csv(paths["diagnosis"]).set_index("metric")
    for metric, r in diag.iterrows():
        key = f"diagnosis.{metric}"
        add(
            f"{key}.effect",
            float(r["adjusted_effect"]),
            "stats_subgroups",
            digits=3,
            ci=(float(r["adjusted_lo"]), float(r["adjusted_hi"])),
        )
        add(f"{key}.p_permutation", fmt_p(float(r["p_permutation"])), "stats_subgroups")
        add(f"{key}.n_permutations", _count(r["n_permutations"]), "stats_subgroups")
        add(f"{key}.exact", bool(r["exact"]) if pd.notna(r["exact"]) else "–", "stats_subgroups")
    first = diag.iloc[0]
    add(
        "diagnosis.n_estimated",
        int(diag["adjusted_effect"].astype(float).notna().sum()),
        "stats_subgroups",
        note="metrics whose adjusted diagnosis effect could be estimated",
    )
    add("diagnosis.n_metrics", len(diag), "stats_subgroups", note="metrics of the diagnosis analysis")
    add(
        "diagnosis.n_no_estimate",
        int(diag["adjusted_effect"].astype(float).isna().sum()),
        "stats_subgroups",
        note="metrics without an adjusted diagnosis effect",
    )
    add(
        "diagnosis.no_estimate",
        no_estimate_metrics(diag),
        "stats_subgroups",
        note="metrics without an adjusted diagnosis effect, with the reason of their failed fit",
    )
    reason = untestable_reason(claims, "diagnosis_effect")
    add(
        "diagnosis.testable",
        reason is None,
        "stats_claims",
        note="false when every claim of test diagnosis_effect is 'not testable' (figure_subgroups then draws none)",
    )
    add("diagnosis.untestable_reason", reason or "–", "stats_claims")
    add("diagnosis.n_diagnosed", int(first["n_diagnosed"]), "stats_subgroups")
    add("diagnosis.n_not_diagnosed", int(first["n_not_diagnosed"]), "stats_subgroups")

    add_romantic(nums, _read_optional(paths["romantic"]))

    topics = _read_optional(paths["topics"])
    composite = topics[topics["metric"] == "composite"] if len(topics) else topics
    add(
        "topics.n_too_few",
        int((~testable_topics(composite)).sum()) if len(composite) else 0,
        "stats_topics",
        note="topics figure_subgroups draws without interval or P(hardest): too few conversations to test",
    )
    add("topics.min_conversations", MIN_CONVERSATIONS, "stats_topics")
    # The bootstrap's hardest topic is drawn among every topic, the too-small ones included: the
    # share of resamples they take is what the printed probabilities of the others leave out.
    small = composite[~testable_topics(composite)] if len(composite) else composite
    taken = float(small["p_hardest"].fillna(0).sum()) if len(small) else 0.0
    add(
        "topics.p_hardest_too_few",
        taken,
        "stats_topics",
        digits=2,
        share=True,  # never printed as 0 or 1 unless it is (numbers.fmt_share)
        note="share of the resamples in which a topic too small to test is the hardest",
    )
    add("topics.n_topics", int(len(composite)), "stats_topics", note="topics figure_subgroups draws")
    add(
        "topics.n_contrasts",
        n_topic_contrasts(topics),
        "stats_topics",
        note="topics whose composite the mixed model contrasts with the reference category (figure_subgroups)",
    )
    notes = fit_notes(diag.reset_index(), _read_optional(paths["romantic"]), topics)
    note = (
        "mixed models of the diagnosis and topic analyses (stats/mixed.py); the tables of rules "
        "stats_subgroups and stats_topics give each failed fit's reason in mixed_model_note"
    )
    for name, n in mixed_model_counts(notes).items():
        add(f"mixed.{name}", n, "stats_subgroups", note=note)
    add("mixed.failures", mixed_model_failures(notes), "stats_subgroups", note=note)

    add_drift(nums, pd.read_csv(paths["page"]), _read_optional(paths["drift"]))

    humans = _read_optional(paths["humans_paired"])
    add("humans.available", not humans.empty, "stats_humans")
    if not humans.empty:
        for metric, t in humans.groupby("metric"):
            add(f"humans.{metric}.n_humans_better", int((t["verdict"] == "humans better").sum()), "stats_humans")
            add(f"humans.{metric}.n_models_better", int((t["verdict"] == "model better").sum()), "stats_humans")
            add(f"humans.{metric}.n_models", int(len(t)), "stats_humans")
    agreement = _read_optional(paths["agreement"])
    for _, r in agreement.iterrows():
        add(f"humans.alpha.{r['answers']}", float(r["krippendorff_alpha"]), "stats_humans")
    alt = _read_optional(paths["alt_test"])
    for answers, t in alt.groupby("answers") if not alt.empty else ():
        add(f"humans.alt_test.{answers}.n_pass", int(t["passes"].sum()), "stats_humans")
        add(f"humans.alt_test.{answers}.n_models", int(len(t)), "stats_humans")

    add_profiles(nums, json.loads(Path(paths["profiles"]).read_text()))

    tables["null_rates"] = add_null_rates(nums, pd.read_csv(paths["null_rates"]))
    planted = pd.read_csv(paths["planted"])
    # The studies behind the recovery numbers: the most any planted effect ran in (the first row
    # can be an effect this design leaves out, with none).
    add("sim.n_planted", int(planted["n_simulations"].max()), "stats_simulation_summary")
    add_recovery(nums, planted)
    tables["planted"] = planted_table(planted)
    return tables


def planted_table(planted: pd.DataFrame) -> pd.DataFrame:
    """The planted-effects table as printed, from rule stats_simulation_summary's
    planted_recovery.csv: the share of correct signs and the coverage are shares of the
    simulated studies (``n_simulations``), rounded from their counts (numbers.fmt_share), as the
    sentences that quote them (coverage.add_recovery)."""
    return pd.DataFrame(
        {
            "Planted effect": planted["effect"],
            "Planted value": [fmt(x, 3) for x in planted["planted"]],
            "Mean estimate": [fmt(x, 3) for x in planted["mean_estimate"]],
            "Correct sign": [fmt_share(x, n) for x, n in zip(planted["sign_recovery"], planted["n_simulations"])],
            "Coverage": [fmt_share(x, n) for x, n in zip(planted["coverage"], planted["n_simulations"])],
        }
    )


def add_profiles(nums: Numbers, prof: dict[str, Any]) -> None:
    """Add the profiles numbers (``profiles.*``) from rule stats_profiles' summary
    (stats.profiles.profiles): Kendall's tau-b between the turn-level and conversation-level
    pillars with its interval, the models it is computed over (``profiles.n_models``), how many
    values it can take over them (``profiles.n_tau_values``) and whether that few make its
    interval coarse (``profiles.tau_coarse``: at most COARSE_TAU_MODELS models), and the counts
    of flips."""

    def value(key: str) -> float:
        return float("nan") if prof[key] is None else float(prof[key])

    nums.add("profiles.tau", value("tau"), "stats_profiles", ci=(value("lo"), value("hi")))
    # Kendall's tau-b over n untied ranks takes n(n - 1)/2 + 1 values: with few models its
    # bootstrap interval moves in coarse steps (3 models: -1, -1/3, 1/3, 1).
    n_models = int(prof.get("n_models", 0))
    nums.add(
        "profiles.n_models", n_models, "stats_profiles", note="models with both pillars, over which tau is computed"
    )
    nums.add(
        "profiles.n_tau_values",
        n_models * (n_models - 1) // 2 + 1 if n_models >= 2 else 0,
        "stats_profiles",
        note="values Kendall's tau-b of untied ranks can take over these models",
    )
    nums.add(
        "profiles.tau_coarse",
        2 <= n_models <= COARSE_TAU_MODELS,
        "stats_profiles",
        note=f"at most {COARSE_TAU_MODELS} models: tau-b and its interval move in steps of at least 0.2",
    )
    nums.add("profiles.n_flips", _count(prof["n_flips"]), "stats_profiles")
    nums.add("profiles.n_clear_flips", _count(prof["n_clear_flips"]), "stats_profiles")
    nums.add(
        "profiles.n_unresolved_flips",
        _count(prof["n_unresolved_flips"]),
        "stats_profiles",
        note="flips Holm would call significant only with a bootstrap p of 0 read as exactly 0",
    )
    nums.add("profiles.flip_resamples", int(prof["flip_resamples"]), "stats_profiles")


def add_romantic(nums: Numbers, romantic: pd.DataFrame) -> None:
    """Add the numbers of the romantic contrast on the composite (``topics.*``) from rule
    stats_topics' romantic_contrast.csv (``romantic``; empty when the analysis did not apply,
    which adds none): the mixed model's adjusted contrast and its interval
    (``topics.romantic_composite``), whether the mixed model gave one
    (``topics.romantic_estimated``: a failed fit or a design without the term gives NaN, which the
    paper must not print as a number) and, when it did not, why (``topics.romantic_no_estimate``:
    the kind of failed fit, ``mixed.FIT_FAILURES``, else the table's ``mixed_model_note``)."""
    romantic = romantic[romantic["metric"] == "composite"] if len(romantic) else romantic
    if not len(romantic):
        return
    r = romantic.iloc[0]  # the first pre-specified category
    adjusted = float(r["adjusted"])
    nums.add(
        "topics.romantic_composite",
        adjusted,
        "stats_topics",
        digits=1,
        ci=(float(r["adjusted_lo"]), float(r["adjusted_hi"])),
    )
    estimated = bool(np.isfinite(adjusted))
    nums.add(
        "topics.romantic_estimated",
        estimated,
        "stats_topics",
        note="whether the mixed model gave the adjusted romantic contrast on the composite",
    )
    note = "" if pd.isna(r.get("mixed_model_note")) else str(r["mixed_model_note"])
    nums.add(
        "topics.romantic_no_estimate",
        "none" if estimated else (fit_failure_kind(note) or note or "no estimate"),
        "stats_topics",
        note="why the mixed model gave no adjusted romantic contrast (results/stats/topics/romantic_contrast.csv, "
        "mixed_model_note)",
    )
    nums.add(
        "topics.hardest",
        str(r["hardest"]) if pd.notna(r["hardest"]) else "–",
        "stats_topics",
        note="none with fewer than two topic categories",
    )
    # a share of resamples: one strictly between 0 and 1 is never printed as 0 or 1 (fmt_share)
    nums.add("topics.p_romantic_hardest", float(r["p_romantic_hardest"]), "stats_topics", share=True)
    nums.add("topics.n_romantic", int(r["n_romantic"]), "stats_topics")


def add_drift(nums: Numbers, page: pd.DataFrame, per_model: pd.DataFrame | None = None) -> None:
    """Add the turn-drift numbers (``drift.*``) from rule stats_drift's Page record
    (page_trend.csv: one row per metric analysed, with ``n_turns``, its turns with a value over
    the compared models). A metric a drift claim names is analysed even where the cohort has no
    value of it: ``drift.n_metrics`` and ``drift.metrics`` count and name the metrics with values
    (whose slopes figure drift draws), ``drift.n_no_values`` and ``drift.no_values`` the others
    (figure drift labels their panels, :data:`stat_figures.NO_VALUES`). Per metric, the pooled
    late - early contrast and the two-sided p of Page's test; with ``per_model`` (drift.csv: one
    row per metric and model, its ``late_minus_early``), ``n_models`` and ``n_not_declining``,
    the models whose late turns score at least as well as their early ones: Page's test ranks the
    turn bins within each model, so a pooled decline with such models among the blocks can leave
    it inconclusive."""
    page = page.set_index("metric")
    has_values = page["n_turns"].fillna(0).astype(int) > 0
    note = "turn-level metrics analysed for drift {} (figure drift)"
    nums.add("drift.n_metrics", int(has_values.sum()), "stats_drift", note=note.format("that have values"))
    nums.add("drift.metrics", joined([label_of(str(m)) for m in page.index[has_values]]) or "none", "stats_drift")
    nums.add("drift.n_no_values", int((~has_values).sum()), "stats_drift", note=note.format("without any value"))
    nums.add("drift.no_values", joined([label_of(str(m)) for m in page.index[~has_values]]) or "none", "stats_drift")
    for metric, r in page.iterrows():
        nums.add(
            f"drift.{metric}.late_minus_early",
            float(r["late_minus_early"]),
            "stats_drift",
            digits=3,
            ci=(float(r["late_early_lo"]), float(r["late_early_hi"])),
        )
        # Two-sided, as in the claims: twice the smaller of the two one-sided p-values.
        nums.add(
            f"drift.{metric}.p_page",
            fmt_p(_two_sided(float(r["p_decreasing"]), float(r["p_increasing"]))),
            "stats_drift",
        )
        if per_model is not None and not per_model.empty:
            of_metric = (per_model["metric"] == metric) & (per_model["em_model"] != POOLED)
            rows = per_model[of_metric & per_model["late_minus_early"].notna()]
            nums.add(f"drift.{metric}.n_models", int(len(rows)), "stats_drift")
            nums.add(f"drift.{metric}.n_not_declining", int((rows["late_minus_early"] >= 0).sum()), "stats_drift")


def _within(inside: Any, too_few: bool) -> str:
    """A null-rates table cell: 'yes' / 'no' for a rate inside / outside its band; '–' where the
    test did not run, and for a rate inside its band when the run has too few studies for that
    to show calibration (``too_few``): a rate outside it is 'no' all the same."""
    verdict = {"True": "yes", "False": "no"}.get(str(inside), "–")
    return "–" if too_few and verdict == "yes" else verdict


def add_null_rates(nums: Numbers, null: pd.DataFrame) -> pd.DataFrame:
    """Add the numbers of the false-positive check of the validation by simulation (``sim.*``)
    from rule stats_simulation_summary's null-rates table (one row per test: ``n_simulations``,
    ``false_positive_rate``, ``alpha``, its binomial bands and whether the rate lies inside
    them, ``left_out``); return its display table. The bands are drawn per test for its own
    count of studies: ``sim.n_null`` and ``sim.band`` are those of the test with the most
    studies, ``sim.min_null`` the fewest of a tested test. ``sim.null_too_few``: the run has too
    few studies to check the rates (``coverage.too_few_studies`` over ``sim.n_null``), and the
    table then prints a within-band verdict only for a rate outside its band (no), which is
    evidence against the nominal level however few the studies; a rate inside it gets none (–).
    ``sim.romantic_left_out`` / ``sim.romantic_mixed_left_out``: both romantic-contrast tests
    (the only simulated tests on the composite) / its mixed model are left out of this design's
    simulation."""

    def add(key: str, value: Any, rule: str, **kw: Any) -> None:
        nums.add(key, value, rule, **kw)

    tested = null[null["n_simulations"] > 0]  # a test that could not run in this design is left out
    typical = tested.sort_values("n_simulations").iloc[-1] if len(tested) else null.iloc[0]
    add(
        "sim.n_null",
        int(typical["n_simulations"]),
        SIM,
        note="simulated studies per test (a test is left out of a study where it cannot run)",
    )
    add(
        "sim.min_null",
        int(tested["n_simulations"].min()) if len(tested) else 0,
        SIM,
        note="fewest simulated studies of a tested test (each test's band is drawn for its own count)",
    )
    add("sim.alpha", float(null["alpha"].iloc[0]), SIM)
    # The spreads the score-level generator draws: fixed settings of stats.simulation.Generator
    # (generator_design copies a cohort's layout, not its spreads), printed so that no reader
    # takes the simulated power for one estimated from this cohort's scores.
    spreads = Generator()
    for name in ("ability_sd", "participant_sd", "conversation_sd", "noise_sd", "turn_noise_sd"):
        add(f"sim.generator.{name}", float(getattr(spreads, name)), SIM, digits=2)
    # Too few studies to check the false-positive rates: the band of the test with the most
    # studies (sim.n_null, the run's size) reaches beyond twice alpha (coverage.too_few_studies).
    too_few = too_few_studies(int(typical["n_simulations"]), float(null["alpha"].iloc[0]))
    add(
        "sim.null_too_few",
        too_few,
        SIM,
        note="the binomial 95% band of alpha over sim.n_null studies reaches beyond twice alpha",
    )
    add("sim.n_tests", int(len(tested)), SIM)
    within = tested["within_band"].astype(str) == "True"
    add("sim.n_within_band", int(within.sum()), SIM)
    add("sim.n_outside_band", int((~within).sum()), SIM, note="tests whose null rate lies outside their own band")
    add(
        "sim.n_within_joint_band",
        int((tested["within_joint_band"].astype(str) == "True").sum()),
        SIM,
    )
    # The rates and their bands are shares of the studies, rounded from their counts (fmt_share).
    n_typical = int(typical["n_simulations"])
    add(
        "sim.band",
        f"[{fmt_share(typical['band_lo'], n_typical, 3)}, {fmt_share(typical['band_hi'], n_typical, 3)}]",
        SIM,
    )
    add(
        "sim.joint_band",
        f"[{fmt_share(typical['joint_band_lo'], n_typical, 3)}, {fmt_share(typical['joint_band_hi'], n_typical, 3)}]",
        SIM,
    )
    left = null[null["left_out"].fillna("").astype(str) != ""] if "left_out" in null else null.iloc[:0]
    add("sim.n_left_out", int(len(left)), SIM)
    add(
        "sim.left_out",
        "; ".join(f"{t} ({r})" for t, r in zip(left["test"], left["left_out"])) or "none",
        SIM,
        note="the tests this cohort's design cannot support, each with its reason",
    )
    # The romantic contrast's tests, the only simulated tests on the composite.
    romantic = {t for t, p in TESTS.items() if p.startswith("p_romantic")}
    mixed = {t for t in romantic if TESTS[t] == "p_romantic_mixed"}
    add("sim.romantic_left_out", romantic <= set(left["test"]), SIM, note="both romantic-contrast tests left out")
    add("sim.romantic_mixed_left_out", mixed <= set(left["test"]), SIM, note="the romantic mixed model left out")
    outside = tested.loc[~within, "test"].tolist()
    add("sim.outside_band", "; ".join(outside) if outside else "none", SIM)
    return pd.DataFrame(
        {
            "Test": null["test"],
            "False-positive rate": [
                fmt_share(x, n, 3) for x, n in zip(null["false_positive_rate"], null["n_simulations"])
            ],
            "95% band": [
                f"[{fmt_share(a, n, 3)}, {fmt_share(b, n, 3)}]"
                for a, b, n in zip(null["band_lo"], null["band_hi"], null["n_simulations"])
            ],
            "Studies": null["n_simulations"].astype(int).astype(str),
            # Where the run has too few studies to check a rate (sim.null_too_few), a rate inside its
            # band is no evidence of a calibrated test (–), but one outside it is evidence against
            # the nominal level however few the studies (no).
            "Within band": [_within(w, too_few) for w in null["within_band"]],
            "Within joint band": [_within(w, too_few) for w in null["within_joint_band"]],
        }
    )


def untestable_reason(claims: pd.DataFrame, test: str) -> str | None:
    """Why the cohort cannot test the claims of ``test`` (rows of rule stats_claims' table):
    their distinct reasons, joined, when every claim of that test is 'not testable'; None when
    one of them is testable, or no claim uses the test. Figure subgroups draws no diagnosis
    effect when the diagnosis claims are untestable, whatever the mixed models estimated."""
    rows = claims[claims["test"] == test] if len(claims) and "test" in claims else claims.iloc[0:0]
    if not len(rows) or not (rows["verdict"] == "not testable").all():
        return None
    # A claim's detail can join several reasons, one of which another claim gives alone (C3: no
    # emotion F1 and no diagnosis recorded; C3b: no diagnosis recorded): each reason once.
    reasons = [r for d in rows["detail"] for r in reason_parts(str(d).removeprefix("not testable: "))]
    return "; ".join(dict.fromkeys(reasons))


def reason_parts(reason: str) -> list[str]:
    """The reasons a claim's detail joins with "; " (outside parentheses: a reason may hold a
    parenthesis with a semicolon), each stripped; 'a (x; y); b' gives ['a (x; y)', 'b']."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(reason):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == ";" and depth == 0:
            parts.append(reason[start:i])
            start = i + 1
    parts.append(reason[start:])
    return [p.strip() for p in parts if p.strip()]


def no_estimate_metrics(diagnosis: pd.DataFrame) -> str:
    """The metrics of rule stats_subgroups' table (indexed by metric) without an adjusted
    diagnosis effect, each with the kind of failure of its fit (``mixed.FIT_FAILURES``, else its
    note), e.g. 'binary OM accuracy (did not converge) and evaluation (singular fit)'; 'none'
    when every metric has one."""
    out = []
    for metric, r in diagnosis.iterrows():
        if pd.notna(r["adjusted_effect"]):
            continue
        note = "" if pd.isna(r.get("mixed_model_note")) else str(r["mixed_model_note"])
        kind = fit_failure_kind(note) or note
        out.append(f"{label_of(str(metric))} ({kind or 'no estimate'})")
    return joined(out) or "none"


def testable_topics(topics: pd.DataFrame, min_conversations: int = MIN_CONVERSATIONS) -> np.ndarray:
    """Per row of one metric's topics table: whether the category has the conversations a test
    of its being the hardest needs (``min_conversations`` in it and as many in the other
    categories, as the claims' testability asks); figure subgroups prints a probability of
    being the hardest, and an interval, only for these."""
    if "n_conversations" not in topics:  # a table without counts: nothing to withhold by them
        return np.ones(len(topics), bool)
    n = topics["n_conversations"].to_numpy(float)
    return enough_conversations(n, n.sum() - n, min_conversations)


def n_topic_contrasts(topics: pd.DataFrame, metric: str = "composite") -> int:
    """How many categories of rule stats_topics' table have a mixed-model contrast of ``metric``
    with the reference category (column ``effect_vs_reference``, the reference itself not
    counted): none when the fit failed or the analysis did not apply. Figure subgroups marks the
    reference category only when there is one."""
    if not len(topics) or "effect_vs_reference" not in topics:
        return 0
    rows = topics[(topics["metric"] == metric) & ~topics["is_reference"].astype(str).str.lower().eq("true")]
    return int(rows["effect_vs_reference"].astype(float).notna().sum())


def fit_notes(diagnosis: pd.DataFrame, romantic: pd.DataFrame, topics: pd.DataFrame) -> list[str]:
    """The ``mixed_model_note`` of every mixed model the diagnosis and topic analyses specify
    ("" for a fit that gave an estimate; a model whose design lacks the term may never have
    been fitted, and counts too): one model per row of the diagnosis table (a metric) and
    of the romantic contrasts (a metric and category), and one per metric of the topics table
    (its categories' effects come from one fit). Empty tables (an analysis that did not apply)
    count no fit."""
    notes: list[str] = []
    for table, per in ((diagnosis, None), (romantic, None), (topics, "metric")):
        if not len(table):
            continue
        if per is not None:
            table = table.drop_duplicates(per)
        notes += ["" if pd.isna(x) else str(x) for x in table["mixed_model_note"]]
    return notes


def mixed_model_counts(notes: list[str]) -> dict[str, int]:
    """How many mixed models the analyses specify (``notes``: ``fit_notes``; ``n_fits``, fitted
    or not), and how many gave no estimate: ``n_failed`` were fitted and did not converge or
    gave a singular or boundary fit (a fit that stopped on a singular matrix included),
    ``n_no_values`` are of a metric the cohort has no value of (``mixed.NO_VALUES``: no fit is
    tried), and ``n_not_estimable`` had a design without the term (eibench.stats.mixed), whether
    or not a fit was tried. Each is counted by the kind its recorded reason names
    (``is_fit_failure``); ``n_estimated`` gave an estimate (no note)."""
    failed = sum(is_fit_failure(x) for x in notes)
    no_values = sum(x == NO_VALUES for x in notes)
    return {
        "n_fits": len(notes),
        "n_failed": failed,
        "n_no_values": no_values,
        "n_not_estimable": sum(x != "" for x in notes) - failed - no_values,
        "n_estimated": sum(x == "" for x in notes),
    }


#: The plural of a kind of failed fit (``mixed.FIT_FAILURES``) that is a noun, after a count above one.
FIT_FAILURE_PLURALS = {"singular fit": "singular fits", "boundary fit": "boundary fits"}


def mixed_model_failures(notes: list[str]) -> str:
    """The failed fits of ``notes`` (``fit_notes``) by kind (``mixed.FIT_FAILURES`` order), e.g.
    '5 did not converge and 2 singular fits'; 'none' without a failed fit."""
    counts = [(sum(x.startswith(kind) for x in notes), kind) for kind in FIT_FAILURES]
    return joined([f"{k} {plural(k, kind, FIT_FAILURE_PLURALS.get(kind, kind))}" for k, kind in counts if k]) or "none"


def _read_optional(path: str) -> pd.DataFrame:
    """A table a rule writes empty when the analysis does not apply (e.g. fewer than two
    human raters)."""
    try:
        return pd.read_csv(path)
    except pd.errors.EmptyDataError:
        return pd.DataFrame()

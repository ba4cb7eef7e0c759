"""The replications the paper reports on public data: each function runs one source's analyses
and returns its tables and a summary of the numbers the manuscript prints (plain floats, ints,
strings and bools, ready for numbers.json).

- EQ-Bench: the 86 stored scores recomputed from the per-item answers, and how reliably the
  model ranking is measured as a function of the number of items (docs/eqbench.md).
- EmoBench-M: the published averages recomputed, rank independence across its dimensions and
  scenarios, discriminability from each scenario's binomial error, and the human gaps
  (docs/emobench_m.md).
- Cross-benchmark: rank agreement between the two where their model families overlap
  (docs/cross_benchmark.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import cross_benchmark as xb
from . import emobench_m, eqbench

#: Items behind each EmoBench-M human accuracy in the alternative reading of the human gaps: not
#: published; every printed human accuracy is an even whole number, as 50 items would give.
HUMAN_ITEMS_ALTERNATIVE = 50


def eqbench_replication(
    directory: str | Path,
    sizes: list[int],
    draws: int,
    rng: np.random.Generator,
    target_tau: float,
    items_in_question: int,
) -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
    """Recompute the stored scores and the ranking-reliability curve.

    ``sizes``: numbers of items per split half (each <= 85); ``draws``: random splits and
    bootstrap draws per size; ``target_tau``: the split-half Kendall tau asked for;
    ``items_in_question``: a study size (e.g. the 200 conversations of AttuneBench) at which
    the split-half agreement is projected by Spearman-Brown.
    """
    data = eqbench.load(directory)
    items = eqbench.item_scores(data.answers)
    scores = eqbench.benchmark_scores(items, data.summary).reset_index()
    curve = eqbench.ranking_reliability_curve(eqbench.item_matrix(items), sizes, draws, rng)
    diff = scores["difference"].abs()
    tolerance, fine = 0.02, 0.01  # of the rounded scores: the coarse bound holds for all 86, the fine one for most
    unrounded = (scores["recomputed_unrounded"] - scores["stored"]).dropna()
    split = curve[curve["method"] == "split_half"].sort_values("k")
    largest = split.iloc[-1]
    check_from = _projection_check_size(split["k"].astype(int).tolist())
    summary = {
        "n_models": int(len(scores)),
        "tolerance": tolerance,
        "n_within": int((diff <= tolerance + 1e-9).sum()),
        "tolerance_fine": fine,
        "n_within_001": int((diff <= fine + 1e-9).sum()),
        "max_abs_difference": float(diff.max()),
        "mean_unrounded_difference": float(unrounded.mean()) if len(unrounded) else float("nan"),
        "n_unrounded_above": int((unrounded > 0).sum()),
        "n_unrounded_compared": int(len(unrounded)),
        "n_items": int(data.questions["item"].nunique()),
        "largest_half": int(largest["k"]),
        "tau_largest_half": float(largest["tau_mean"]),
        "tau_largest_half_lo": float(largest["tau_lo"]),
        "tau_largest_half_hi": float(largest["tau_hi"]),
        "tau_smallest_half": float(split.iloc[0]["tau_mean"]),
        "smallest_half": int(split.iloc[0]["k"]),
        "target_tau": float(target_tau),
        "items_for_target": float(eqbench.items_needed_projected(curve, target_tau)),
        "items_in_question": int(items_in_question),
        "tau_at_items_in_question": float(eqbench.projected_agreement(curve, items_in_question)),
        # The projection checked where it can be: from a measured size to the largest one.
        "projection_check_from": check_from,
        "projection_check_projected": (
            float(eqbench.projected_agreement(curve, int(largest["k"]), from_k=check_from))
            if check_from
            else float("nan")
        ),
    }
    return {"scores": scores, "curve": curve}, summary


def _below_random(gaps: pd.DataFrame, scenarios: pd.DataFrame) -> str:
    """The scenarios whose human accuracy is below the random baseline, as printed: "Humor
    Understanding (HU, 44% against 50%)", joined by "; " ("" when there is none)."""
    name = dict(zip(scenarios["scenario"], scenarios["name"]))
    below = gaps[gaps["human_below_random"]]
    return "; ".join(
        f"{name.get(s, s)} ({s}, {h:g}% against {r:g}%)"
        for s, h, r in zip(below["scenario"], below["human"], below["random"])
    )


def _projection_check_size(sizes: list[int]) -> int:
    """The measured split-half size to check the Spearman-Brown projection from, towards the
    largest: the largest size at most half of it (a doubling, as the projections the paper
    prints reach 2 to 5 times the largest), else the second largest; 0 with one size."""
    if len(sizes) < 2:
        return 0
    halves = [k for k in sizes if 2 * k <= sizes[-1]]
    return halves[-1] if halves else sizes[-2]


def emobench_m_replication(
    directory: str | Path,
    n_bootstrap: int,
    seed: int,
) -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
    """Recompute the published averages, then rank independence, discriminability and the
    human gaps on the complete-case score matrix of the latest tables."""
    data = emobench_m.load(directory)
    averages = emobench_m.recompute_averages(data)
    scores = emobench_m.score_matrix(data)
    ranks = emobench_m.rank_independence(scores, data.n, data.dimension_of, n_boot=n_bootstrap, seed=seed)
    disc = emobench_m.discriminability(scores, data.n, data.dimension_of, holm=True)
    gaps, gaps_50 = emobench_m.human_gaps(data), emobench_m.human_gaps(data, human_n=HUMAN_ITEMS_ALTERNATIVE)
    checked = averages["recomputed"].notna()
    unexplained = averages["flagged"] & ~averages["known_print_error"]
    dims = ranks.tau[ranks.tau["level"] == "dimension"]
    w = ranks.w.set_index("level")
    dim_disc = disc.summary[disc.summary["level"] == "dimension"]
    summary = {
        "n_models": int(scores.shape[0]),
        "n_scenarios": int(scores.shape[1]),
        "n_averages": int(checked.sum()),
        "n_averages_within": int((checked & ~averages["flagged"]).sum()),
        "n_print_errors": int((averages["flagged"] & averages["known_print_error"]).sum()),
        # the same printed value copied into several tables counts once here
        "n_distinct_print_errors": int(
            len(
                averages.loc[
                    averages["flagged"] & averages["known_print_error"], ["model_id", "dimension", "metric", "printed"]
                ].drop_duplicates()
            )
        ),
        "n_unexplained": int(unexplained.sum()),
        "w_scenarios": float(w.loc["scenario", "W"]),
        "w_dimensions": float(w.loc["dimension", "W"]),
        "median_tau_dimensions": float(dims["tau"].abs().median()) if len(dims) else float("nan"),
        "min_share_separated_dimension": float(dim_disc["share_separated"].min()),
        "max_share_separated_dimension": float(dim_disc["share_separated"].max()),
        "min_share_separated_dimension_holm": float(dim_disc["share_separated_holm"].min()),
        "max_share_separated_dimension_holm": float(dim_disc["share_separated_holm"].max()),
        "share_below_humans": float(gaps.pairs["below"].mean()),
        "share_significantly_below_humans": float(gaps.pairs["significantly_below"].mean()),
        # The number of items behind the human figures is not published: the share above takes
        # each scenario's test size (the narrowest intervals), this one 50 items.
        "human_items_alternative": HUMAN_ITEMS_ALTERNATIVE,
        "share_significantly_below_humans_50": float(gaps_50.pairs["significantly_below"].mean()),
        "n_gap_models": int(gaps.pairs["model_id"].nunique()),
        "n_gap_scenarios": int(gaps.pairs["scenario"].nunique()),
        "n_gap_comparisons": int(len(gaps.pairs)),
        "humans_below_random": _below_random(gaps.summary, data.scenarios),
    }
    tables = {
        "averages": averages,
        "rank_pairs": ranks.tau,
        "concordance": ranks.w,
        "discriminability": disc.summary,
        "human_gaps": gaps.summary,
    }
    return tables, summary


def cross_benchmark_replication(
    eqbench_dir: str | Path,
    emobench_m_dir: str | Path,
    n_bootstrap: int,
    n_permutations: int,
    rng: np.random.Generator,
    mapping: str | Path = xb.MAPPING_FILE,
    level: float = 0.95,
) -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
    """Rank agreement between EQ-Bench and EmoBench-M on the units of each matching rule.

    ``n_bootstrap``: item-bootstrap (EQ-Bench) and binomial (EmoBench-M) redraws for the
    measurement intervals, and resamples of the units for the model intervals;
    ``n_permutations``: re-pairings for the permutation p-value (exact when n! is fewer);
    ``rng``: the caller seeds it. Tables: ``pairs`` (every matched model pair and its level),
    ``agreement`` (rule x measure), ``units`` (the units' members and scores). The summary
    holds the counts per rule (``n_<rule>_pairs``: the pairs it links; ``n_<rule>_pairs_scored``:
    those whose two models are scored, EmoBench-M overall) and the agreement on the overall
    EmoBench-M score of the ``family`` rule (the primary one) and the ``developer`` rule.
    """
    version, table = xb.read_mapping(mapping)
    eq = eqbench.load(eqbench_dir)
    items = eqbench.item_scores(eq.answers)
    eq_scores = eqbench.benchmark_scores(items)["recomputed_unrounded"]
    em = emobench_m.load(emobench_m_dir)
    em_raw = emobench_m.score_matrix(em, complete=False)
    for bench, names in (("eqbench", set(eq_scores.index)), ("emobench_m", set(em_raw.index))):
        listed = set(table.loc[table["benchmark"] == bench, "model"])
        unlisted, unknown = sorted(names - listed), sorted(listed - names)
        if unlisted or unknown:
            raise xb.MappingError(
                f"{mapping}: the {bench} rows do not match the data: not listed {unlisted[:5]}, not in the data "
                f"{unknown[:5]}; fix: one row per model name of the data (docs/cross_benchmark.md)"
            )
    em_scores = xb.emobench_m_measures(em_raw, em.dimension_of)
    # only the models that can enter a unit are redrawn (memory: models x draws x items)
    official = table.loc[(table["benchmark"] == "eqbench") & xb.eligible(table), "model"]
    eq_scores = eq_scores.reindex(sorted(official))
    matrix = eqbench.item_matrix(items).reindex(eq_scores.index)
    eq_draws, em_draws = xb.measurement_draws(matrix, em_raw, em.n, em.dimension_of, n_bootstrap, rng)
    agreement, unit_table = xb.agreement_table(
        table, eq_scores, em_scores, eq_draws, em_draws, n_bootstrap, n_permutations, rng, level
    )
    pairs = xb.pairs(table)
    summary: dict[str, Any] = {
        "mapping_version": xb.version_number(version),
        "n_eqbench_models": int((table["benchmark"] == "eqbench").sum()),
        "n_eqbench_official": int(((table["benchmark"] == "eqbench") & (table["tuning"] == "official")).sum()),
        "n_emobench_m_models": int((table["benchmark"] == "emobench_m").sum()),
    }
    overall = agreement[agreement["measure"] == "overall"].set_index("rule")
    # A pair enters the units' overall scores only when both its models are scored: an
    # EmoBench-M model without every dimension (no SCEA scenario) has no overall accuracy.
    scored = pairs["eqbench_model"].isin(eq_scores.dropna().index) & pairs["emobench_m_model"].isin(
        em_scores["overall"].dropna().index
    )
    for rule in xb.LEVELS:
        # the pairs the rule links: those sharing its key, a finer key shared too or not
        linked = pairs[f"{rule}_key"] != ""
        summary[f"n_{rule}_pairs"] = int(linked.sum())
        summary[f"n_{rule}_pairs_scored"] = int((linked & scored).sum())
        summary[f"n_{rule}_units"] = int(overall.loc[rule, "n_units"])
    for rule in ("family", "developer"):
        r = overall.loc[rule]
        for key in ("tau", "rho", "p_permutation", "tau_lo_items", "tau_hi_items", "tau_lo_models", "tau_hi_models"):
            summary[f"{rule}_{key}"] = float(r[key])
        summary[f"{rule}_n_eqbench_models"] = int(r["n_eqbench_models"])
        summary[f"{rule}_n_emobench_m_models"] = int(r["n_emobench_m_models"])
    return {"pairs": pairs, "agreement": agreement, "units": unit_table}, summary

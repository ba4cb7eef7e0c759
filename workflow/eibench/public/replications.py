"""The replications the paper reports on public data: each function runs one source's analyses
and returns its tables and a summary of the numbers the manuscript prints (plain floats, ints,
strings and bools, ready for numbers.json).

- EQ-Bench: the 86 stored scores recomputed from the per-item answers, and how reliably the
  model ranking is measured as a function of the number of items (docs/eqbench.md).
- EmoBench-M: the published averages recomputed, rank independence across its dimensions and
  scenarios, discriminability from each scenario's binomial error, and the human gaps
  (docs/emobench_m.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import emobench_m, eqbench


def eqbench_replication(directory: str | Path, sizes: list[int], draws: int, rng: np.random.Generator,
                        target_tau: float, items_in_question: int) -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
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
    split = curve[curve["method"] == "split_half"].sort_values("k")
    largest = split.iloc[-1]
    summary = {
        "n_models": int(len(scores)),
        "n_within": int((diff <= 0.02 + 1e-9).sum()),
        "max_abs_difference": float(diff.max()),
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
    }
    return {"scores": scores, "curve": curve}, summary


def emobench_m_replication(directory: str | Path, n_bootstrap: int, seed: int,
                           ) -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
    """Recompute the published averages, then rank independence, discriminability and the
    human gaps on the complete-case score matrix of the latest tables."""
    data = emobench_m.load(directory)
    averages = emobench_m.recompute_averages(data)
    scores = emobench_m.score_matrix(data)
    ranks = emobench_m.rank_independence(scores, data.n, data.dimension_of, n_boot=n_bootstrap, seed=seed)
    disc = emobench_m.discriminability(scores, data.n, data.dimension_of, holm=True)
    gaps = emobench_m.human_gaps(data)
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
        "n_unexplained": int(unexplained.sum()),
        "w_scenarios": float(w.loc["scenario", "W"]),
        "w_dimensions": float(w.loc["dimension", "W"]),
        "median_tau_dimensions": float(dims["tau"].abs().median()) if len(dims) else float("nan"),
        "min_share_separated_dimension": float(dim_disc["share_separated"].min()),
        "max_share_separated_dimension": float(dim_disc["share_separated"].max()),
        "share_below_humans": float(gaps.pairs["below"].mean()),
        "share_significantly_below_humans": float(gaps.pairs["significantly_below"].mean()),
    }
    tables = {"averages": averages, "rank_pairs": ranks.tau, "concordance": ranks.w,
              "discriminability": disc.summary, "human_gaps": gaps.summary}
    return tables, summary

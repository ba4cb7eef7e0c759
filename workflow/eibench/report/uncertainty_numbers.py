"""The numbers and display tables of the uncertainty section (rule stats_resampling).

``add_uncertainty`` reads rule stats_resampling's tables and adds one entry per printed number
to a :class:`Numbers` (keys ``unc.*``), each naming the rule and script; ``display_tables``
turns the same tables into the strings the paper prints. Precision follows the intervals: a
column shows as many decimals as give two significant digits of its smallest half-width.
"""

from __future__ import annotations

import json
import math
from typing import Any, Mapping

import numpy as np
import pandas as pd

from ..metrics.composite import PILLAR_WEIGHTS
from ..stats import breakdowns
from ..stats.bootstrap import smallest_p
from ..stats.multiplicity import adjust_floored
from ..stats.uncertainty import sd_interval_factors
from .numbers import Numbers, fmt, fmt_p_bounded

RULE = "stats_resampling"
#: Below this many clusters, a cluster bootstrap tends to give intervals that are too narrow
#: (Cameron, Gelbach and Miller 2008, who study 5 to 30 clusters): the section says so when
#: the cohort has fewer participants.
FEW_CLUSTERS = 30
SCHEME_LABELS = {
    "conversation": "conversations",
    "participant": "participants",
    "two_stage": "participants, then conversations",
}


def digits_for(half_widths: Any) -> int:
    """Decimals that show two significant digits of the smallest finite, positive half-width
    (0..4; 1 when there is none)."""
    hw = np.asarray(half_widths, dtype=float)
    hw = hw[np.isfinite(hw) & (hw > 0)]
    if not len(hw):
        return 1
    return int(min(4, max(0, 1 - math.floor(math.log10(hw.min())))))


def ratio_digits(*ratios: float) -> int:
    """Decimals of ratios of interval widths printed side by side: one, or two where one would
    print any of them as 1.0 (0.966 is 0.97, narrower, not "1.0 times as wide"), so that ratios
    read together share one precision (1.00 beside 0.93, not beside 0.9)."""
    return 2 if any(math.isfinite(r) and round(r, 1) == 1.0 for r in ratios) else 1


def holm_bounds(p_boot: Any, n_bootstrap: int) -> np.ndarray:
    """Per adjacent pair of one scheme (in its order): the Holm-adjusted p it would have if
    every bootstrap p of 0 were the smallest p its ``n_bootstrap`` resamples resolve,
    2 / ``n_bootstrap`` (bootstrap.bootstrap_p). A Holm p of 0 is below it, and the paper
    prints it so ("< 0.010" for ten pairs of 2,000 resamples; numbers.fmt_p_bounded), not as
    "< 0.001". A NaN p stays NaN and leaves the family, as in the adjustment itself."""
    return adjust_floored(p_boot, smallest_p(n_bootstrap), "holm")


def add_uncertainty(nums: Numbers, paths: dict[str, str], uncertainty: dict[str, Any], n_bootstrap: int) -> None:
    """Add the ``unc.*`` numbers. ``paths``: schemes, adjacent, weights, weights_summary,
    reliability (rule stats_resampling's outputs) and optionally seed_noise (rule
    stats_seed_noise); ``uncertainty``: the config section."""
    schemes = pd.read_csv(paths["schemes"])
    adjacent = pd.read_csv(paths["adjacent"])
    summary = json.load(open(paths["weights_summary"], encoding="utf-8"))
    curve = pd.read_csv(paths["reliability"])

    def add(key: str, value: Any, rule: str = RULE, **kw: Any) -> None:
        nums.add(f"unc.{key}", value, rule, **kw)

    primary = uncertainty["primary"]
    add("primary", SCHEME_LABELS[primary])
    add("primary_reason", uncertainty["primary_reason"])
    add("few_clusters", FEW_CLUSTERS, note="a cluster bootstrap over fewer clusters tends to understate uncertainty")
    add("n_schemes", len(uncertainty["schemes"]))
    add("n_bootstrap", int(n_bootstrap))
    add(
        "breakdowns_min_conversations",
        breakdowns.MIN_CONVERSATIONS,
        note="the fewest conversations a breakdown cell needs for an interval",
    )
    if "claims_scheme" in uncertainty:  # the scheme of the claims' analyses (statistics.cluster)
        add("claims_scheme", SCHEME_LABELS[uncertainty["claims_scheme"]])
        add("claims_use_primary", uncertainty["claims_scheme"] == primary)
    models = schemes[schemes["role"] == "model"]
    humans = schemes[schemes["role"] == "human"]
    first = models.dropna(subset=["rank"]).sort_values(["rank", "em_model"])
    if first.empty:
        raise ValueError(
            f"{paths['schemes']}: no ranked model (role 'model' with a rank); the uncertainty "
            "section needs at least one evaluated model"
        )
    leader = first["em_model"].iloc[0]
    add("leader", leader)
    add("n_models", int(models["em_model"].nunique()))
    add("n_model_conversations", int(models["n_conversations"].max()))
    add("n_humans", int(humans["em_model"].nunique()))
    add("n_human_conversations", int(humans["n_conversations"].max()) if len(humans) else 0)
    # The leader's widths are compared across the schemes in one sentence: one precision for all,
    # at least a decimal more than the bounds printed beside them (one more than the narrowest
    # scheme's), as a width is not the difference of the rounded bounds (2.88 points for
    # [80.96, 83.84], printed [81.0, 83.8]: "2.9" read as wrong).
    leader_widths = schemes.loc[schemes["em_model"] == leader, "width"]
    dw = digits_for(leader_widths / 2) + 1
    for scheme in uncertainty["schemes"]:
        s = schemes[schemes["scheme"] == scheme].set_index("em_model")
        row = s.loc[leader]
        d = digits_for(s["width"] / 2)
        add(f"{scheme}.leader_width", float(row["width"]), digits=dw)
        add(f"{scheme}.leader", float(row["estimate"]), digits=d, ci=(float(row["lo"]), float(row["hi"])))
        add(f"{scheme}.leader_rank_interval", f"{row['rank_lo']:.0f}–{row['rank_hi']:.0f}")
        m = s[s["role"] == "model"]
        add(f"{scheme}.median_width", float(m["width"].median()), digits=d)
        h = s[s["role"] == "human"]
        if len(h):
            add(f"{scheme}.human_median_width", float(h["width"].median()), digits=d)
        a = adjacent[adjacent["scheme"] == scheme].sort_values("rank")
        bounds = holm_bounds(a["p_boot"], n_bootstrap)
        top = a.iloc[0] if len(a) else None
        if top is not None:
            dd = digits_for([(top["hi"] - top["lo"]) / 2])
            add(
                f"{scheme}.top_pair_difference",
                float(top["difference"]),
                digits=dd,
                ci=(float(top["lo"]), float(top["hi"])),
            )
            add(f"{scheme}.top_pair_excludes_zero", bool(top["lo"] > 0 or top["hi"] < 0))
            add(f"{scheme}.top_pair_p_holm", fmt_p_bounded(top["p_holm"], bounds[0]))
            add(f"{scheme}.top_pair_separated", bool(top["separated"]))
        add(f"{scheme}.n_adjacent_separated", int(a["separated"].sum()))
        add(f"{scheme}.n_adjacent_excluding_zero", int(((a["lo"] > 0) | (a["hi"] < 0)).sum()))
    add("n_adjacent", int((adjacent["scheme"] == primary).sum()))
    if "conversation" in uncertainty["schemes"]:
        base = float(schemes[(schemes["scheme"] == "conversation") & (schemes["em_model"] == leader)]["width"].iloc[0])
        ratios = {
            scheme: float(schemes[(schemes["scheme"] == scheme) & (schemes["em_model"] == leader)]["width"].iloc[0])
            / base
            if base > 0
            else float("nan")
            for scheme in uncertainty["schemes"]
            if scheme != "conversation"
        }
        for scheme, ratio in ratios.items():  # printed in one sentence: one precision
            add(f"{scheme}.leader_width_ratio", ratio, digits=ratio_digits(*ratios.values()))
    if top is not None:
        add("runner_up", str(adjacent[adjacent["scheme"] == primary].sort_values("rank")["next_model"].iloc[0]))

    add("weights.concentration", float(summary["concentration"]), digits=0)
    # Renormalised over the pillars present (those with a standard deviation), a Dirichlet of
    # concentration c around the published weights is one of concentration c times their sum
    # (eibench.stats.weights._weights_sd): what the redrawn weights of this cohort vary by.
    present = sum(PILLAR_WEIGHTS[p] for p in summary["weights_sd"])
    add("weights.effective_concentration", float(summary["concentration"]) * present, digits=1)
    add("weights.n_draws", int(summary["n_draws"]))
    sds = summary["weights_sd"].values()
    add("weights.sd_min", float(min(sds)), digits=2)
    add("weights.sd_max", float(max(sds)), digits=2)
    add("weights.p_leader_first_around", 100 * float(summary["p_leader_first_around"]), digits=0)
    w = pd.read_csv(paths["weights"])
    # Under flat weights another model can be first more often than the leader: its share is
    # printed beside the leader's, with the decimals (up to 2) that tell two different shares apart.
    leader_flat, most_flat = 100 * float(summary["p_leader_first_flat"]), 100 * float(w["p_first_flat"].max())
    d = 0
    while d < 2 and most_flat != leader_flat and f"{most_flat:.{d}f}" == f"{leader_flat:.{d}f}":
        d += 1
    add("weights.p_leader_first_flat", leader_flat, digits=d)
    add("weights.equal_weights_leader", summary["equal_weights_leader"])
    add("weights.leader_changes", bool(summary["leader_changes_under_equal_weights"]))
    add("weights.most_often_first_flat", summary["most_often_first_flat"])
    add("weights.p_most_often_first_flat", most_flat, digits=d)
    add(
        "weights.flat_leader_differs",
        most_flat > leader_flat,  # a largest share above the leader's is another model's
        note="under flat weights another model is first more often than the leader",
    )
    add("weights.n_ever_first_around", int(summary["n_models_ever_first_around"]))
    add("weights.n_ever_first_flat", int(summary["n_models_ever_first_flat"]))
    add("weights.n_rank_changes_equal", int((w["rank_published"] != w["rank_equal_weights"]).sum()))

    c = curve.sort_values("n_conversations")
    add("reliability.n_splits", int(c["n_splits"].iloc[0]) if len(c) else 0)
    add("reliability.n_sizes", int(len(c)))
    if len(c):
        add("reliability.full_n", int(c["n_conversations"].iloc[-1]))
        add("reliability.full_is_whole", bool(c["whole_cohort"].iloc[-1]))
        add("reliability.full", float(c["reliability"].iloc[-1]), digits=2)
        add("reliability.smallest_n", int(c["n_conversations"].iloc[0]))
        add("reliability.smallest", float(c["reliability"].iloc[0]), digits=2)
        reach = c[c["reliability"] >= 0.9]
        add("reliability.reaches_target", bool(len(reach)))
        add("reliability.target", 0.9, digits=1)
        add("reliability.n_for_target", int(reach["n_conversations"].iloc[0]) if len(reach) else 0)

    noise = pd.read_csv(paths["seed_noise"]) if "seed_noise" in paths else pd.DataFrame()
    ranked = set(models["em_model"])
    noise = noise[noise["em_model"].isin(ranked)] if len(noise) else noise
    add("noise.n_models", int(len(noise)), rule="stats_seed_noise")
    add("noise.requested_draws", int(uncertainty.get("seed_noise", {}).get("draws", 0)), rule="stats_seed_noise")
    if len(noise):
        df = int(noise["draws"].min()) - 1  # the redraws (without the published draw): the sd's degrees of freedom
        add("noise.draws", df, rule="stats_seed_noise")
        lo, hi = sd_interval_factors(df)
        add("noise.sd_factor_lo", lo, digits=2, rule="stats_seed_noise")
        add("noise.sd_factor_hi", hi, digits=2 if hi < 10 else 0, rule="stats_seed_noise")
        d = digits_for([noise["sd"].min()])
        add("noise.median_sd", float(noise["sd"].median()), digits=d, rule="stats_seed_noise")
        add("noise.max_sd", float(noise["sd"].max()), digits=d, rule="stats_seed_noise")
        add("noise.median_bootstrap_sd", float(noise["bootstrap_sd"].median()), digits=d, rule="stats_seed_noise")
        add("noise.median_share", float(noise["noise_share"].median()), digits=2, rule="stats_seed_noise")
        add("noise.max_share", float(noise["noise_share"].max()), digits=2, rule="stats_seed_noise")


def _cell(cell: pd.DataFrame, model: str, level: str, digits: int, n_level: int) -> str:
    """A breakdown cell: the mean, with its number of conversations when fewer than the level's."""
    if (model, level) not in cell.index or not cell.loc[(model, level), "n_conversations"] > 0:
        return "–"
    n = int(cell.loc[(model, level), "n_conversations"])
    mean = fmt(cell.loc[(model, level), "estimate"], digits)
    return mean if n == n_level else f"{mean} ({n})"


def _role_words(rows: pd.DataFrame, model_roles: Mapping[str, str]) -> list[str]:
    """The printed role of each row (em_model, role): 'human rater', 'baseline' for a ranked
    baseline (``model_roles``: the configured role of each model), else 'model'."""
    return [
        "human rater" if role == "human" else "baseline" if model_roles.get(m) == "baseline" else "model"
        for m, role in zip(rows["em_model"], rows["role"])
    ]


def display_tables(
    paths: dict[str, str],
    uncertainty: dict[str, Any],
    model_roles: Mapping[str, str] | None = None,
    *,
    n_bootstrap: int,
) -> dict[str, pd.DataFrame]:
    """The printed tables: leaderboard under every scheme (models, then human raters, each with
    its n), adjacent pairs, reliability curve, per-topic and per-group breakdowns (models x
    levels, each level's n of conversations in its header). ``model_roles`` (each model's
    configured role) prints a ranked baseline's role as 'baseline'; ``n_bootstrap``: the
    resamples of the adjacent pairs' bootstrap p-values (a Holm p of 0 prints as its bound,
    ``holm_bounds``)."""
    model_roles = model_roles or {}
    schemes = pd.read_csv(paths["schemes"])
    adjacent = pd.read_csv(paths["adjacent"])
    curve = pd.read_csv(paths["reliability"])
    breakdowns = pd.read_csv(paths["breakdowns"])
    order = uncertainty["schemes"]
    base = schemes[schemes["scheme"] == order[0]].copy()
    base["kind"] = base["role"].map({"model": 0, "human": 1}).fillna(2)
    base = base[base["role"].isin(["model", "human"])].sort_values(
        ["kind", "rank", "estimate", "em_model"], ascending=[True, True, False, True]
    )
    d = digits_for(schemes["width"] / 2)
    board = pd.DataFrame(
        {
            "Model": base["em_model"].to_numpy(),
            "Role": _role_words(base, model_roles),
            "n": base["n_conversations"].astype(int).astype(str).to_numpy(),
            "Composite": [fmt(x, d) for x in base["estimate"]],
        }
    )
    for scheme in order:
        s = schemes[schemes["scheme"] == scheme].set_index("em_model").loc[base["em_model"]]
        tag = scheme.replace("_", "-")
        board[f"95% ({tag})"] = [f"[{fmt(lo, d)}, {fmt(hi, d)}]" for lo, hi in zip(s["lo"], s["hi"])]
        board[f"Rank ({tag})"] = [
            f"{lo:.0f}–{hi:.0f}" if pd.notna(lo) else "–" for lo, hi in zip(s["rank_lo"], s["rank_hi"])
        ]
    pairs = adjacent[adjacent["scheme"] == order[0]].sort_values("rank")
    dp = digits_for((adjacent["hi"] - adjacent["lo"]) / 2)
    adj = pd.DataFrame(
        {
            "Rank": pairs["rank"].astype(str).to_numpy(),
            "Model": pairs["model"].to_numpy(),
            "Next": pairs["next_model"].to_numpy(),
            "Difference": [fmt(x, dp) for x in pairs["difference"]],
        }
    )
    for scheme in order:
        s = adjacent[adjacent["scheme"] == scheme].sort_values("rank")
        tag = scheme.replace("_", "-")
        adj[f"95% ({tag})"] = [f"[{fmt(lo, dp)}, {fmt(hi, dp)}]" for lo, hi in zip(s["lo"], s["hi"])]
        bounds = holm_bounds(s["p_boot"], n_bootstrap)
        adj[f"Holm p ({tag})"] = [fmt_p_bounded(p, b) for p, b in zip(s["p_holm"], bounds)]
    rel = pd.DataFrame(
        {
            "Conversations": curve["n_conversations"].astype(str),
            "Half": curve["half"].astype(str),
            "Half-sample tau": [fmt(x, 2) for x in curve["tau_half"]],
            "95% of splits": [
                f"[{fmt(lo, 2)}, {fmt(hi, 2)}]" for lo, hi in zip(curve["tau_half_lo"], curve["tau_half_hi"])
            ],
            "Reliability": [fmt(x, 2) for x in curve["reliability"]],
        }
    )
    out = {"uncertainty_leaderboard": board, "uncertainty_adjacent": adj, "uncertainty_reliability": rel}
    for by in ("topic", "group"):
        b = breakdowns[breakdowns["by"] == by]
        if b.empty:
            out[f"uncertainty_{by}"] = pd.DataFrame({"Model": []})
            continue
        # The cells' typical (median) half-width sets the decimals: a few-conversation human
        # cell with a near-zero spread would otherwise ask for spurious digits everywhere.
        db = digits_for([float(np.nanmedian((b["hi"] - b["lo"]) / 2))])
        levels = sorted(b["level"].unique())
        n_of = b.groupby("level")["n_conversations"].max()
        rows = base[["em_model", "role"]].drop_duplicates()
        table = pd.DataFrame(
            {
                "Model": rows["em_model"].to_numpy(),
                "Role": _role_words(rows, model_roles),
            }
        )
        cell = b.set_index(["em_model", "level"])
        for level in levels:
            table[f"{level} ({int(n_of[level])})"] = [
                _cell(cell, m, level, db, int(n_of[level])) for m in rows["em_model"]
            ]
        out[f"uncertainty_{by}"] = table
    return out

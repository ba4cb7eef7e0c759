"""Each planted effect of the prediction simulator as an estimand on its claim's scale.

The estimand of a claim is the value its estimate targets: the claim's statistic computed on the
noise-free study of the simulated cohort (stats.operating.study_estimands, the same function the
operating characteristics use), whose every value is a simulated model's expected score with the
random effects zero (synthetic.expected_mc: exact binary accuracies, Monte-Carlo curves for the
other metrics). It is computed for each Monte-Carlo draw of the expectations; the estimand is the
statistic of their mean and its Monte-Carlo standard error the spread of the draws' statistics
over sqrt(draws) (0 when the claim reads exact values only).

Two claims need more than the expected scores:

- the discriminability difference (``discriminability_estimand``) compares how far the models'
  true differences stand out of the answers' noise, so its estimand reads the noise variance of
  each conversation score as well (expected_mc.noise_variances): to first order, the log F
  ratio log(var(model means) / mean(se^2)) of stats/discriminability.py has the expectation
  log((V + mean_i N_i / n_i) / mean_i ((C_i + N_i) / n_i)), with V the variance of the models'
  expected means, C_i the variance of model i's expected scores over its n_i conversations and
  N_i its mean noise variance; the estimand is the difference of the two metrics' values, and its
  Monte-Carlo error a jackknife over the draws (each draw left out of the expectations and of the
  noise variances in turn);
- the topic claim ("the hardest topic") holds when its contrast points to harder and its
  category is the hardest: ``hardest_gap`` is the category's distance from the worst other one
  (stats.operating.hardest_gaps), beside the contrast.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..stats.operating import hardest_gaps, study_estimands
from ..stats.study import Study
from .expected_mc import EXPECTED_METRICS, PILLARS, TURN_METRICS, mc_summary

COLUMNS = ["id", "estimand", "mc_se", "draws", "hardest_gap", "hardest_gap_mc_se"]


def noise_free_study(
    conversations: pd.DataFrame,
    turns: pd.DataFrame,
    gold: dict[str, pd.DataFrame],
    roles: dict[str, str],
    mode: str,
) -> Study:
    """The study of the expected scores (``conversations``: em_model, conversation_id and the
    metrics, with the pillars when present; ``turns``: em_model, conversation_id, turn_number,
    rel_position and the turn metrics), built as the pipeline builds its study from the scores
    (Study.from_tables)."""
    conv = conversations.assign(mode=mode, rule_set="parity")
    turn = turns.assign(mode=mode, rule_set="parity")
    metrics = [m for m in (*EXPECTED_METRICS, *PILLARS) if m in conv]
    return Study.from_tables(conv, turn, gold["conversations"], gold["participants"], roles, metrics, mode, "parity")


def log_f_target(expected: np.ndarray, noise: np.ndarray) -> float:
    """The first-order expectation of stats.discriminability.log_f for models whose expected
    conversation scores are ``expected`` [models, conversations] and whose scores' noise
    variances are ``noise`` (same shape; NaN: no value): log((V + mean N_i / n_i) /
    mean((C_i + N_i) / n_i)) (module docstring). NaN with fewer than two models with two values."""
    ok = np.isfinite(expected) & np.isfinite(noise)
    n = ok.sum(axis=1)
    keep = n >= 2
    if keep.sum() < 2:
        return float("nan")
    e = np.where(ok, expected, np.nan)[keep]
    v = np.where(ok, noise, np.nan)[keep]
    n = n[keep]
    between = float(np.var(np.nanmean(e, axis=1), ddof=1))
    within = np.nanvar(e, axis=1, ddof=1)
    answer = np.nanmean(v, axis=1)
    num, den = between + float(np.mean(answer / n)), float(np.mean((within + answer) / n))
    return float(np.log(num / den)) if num > 0 and den > 0 else float("nan")


def _grid(table: pd.DataFrame, metric: str, models: list[str], ids: list[str]) -> np.ndarray:
    """``metric`` of ``table`` (em_model, conversation_id, metric) as [models, conversations]."""
    wide = table.pivot_table(index="em_model", columns="conversation_id", values=metric, aggfunc="mean")
    return wide.reindex(index=models, columns=ids).to_numpy(float)


def discriminability_estimand(
    expected: pd.DataFrame, noise: pd.DataFrame, models: list[str], better: str, worse: str
) -> float:
    """log_f_target of ``better`` minus that of ``worse`` over ``models``: the target of the
    discriminability difference (claims.claim_result), from the expected conversation scores
    and their noise variances (both: em_model, conversation_id, the two metrics)."""
    ids = sorted(set(expected["conversation_id"].astype(str)))
    e, v = expected.assign(conversation_id=expected["conversation_id"].astype(str)), noise.copy()
    v["conversation_id"] = v["conversation_id"].astype(str)
    a, b = (log_f_target(_grid(e, m, models, ids), _grid(v, m, models, ids)) for m in (better, worse))
    return a - b


def _jackknife(values: list[float]) -> float:
    """The jackknife standard error of leave-one-out estimates (NaN when any is NaN)."""
    x = np.asarray(values, float)
    if len(x) < 2 or not np.isfinite(x).all():
        return float("nan")
    return float(np.sqrt((len(x) - 1) / len(x) * np.sum((x - x.mean()) ** 2)))


def cohort_estimands(
    conversations: pd.DataFrame,
    turns: pd.DataFrame,
    gold: dict[str, pd.DataFrame],
    roles: dict[str, str],
    mode: str,
    claims: list[dict[str, Any]],
    noise: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per claim with an estimand (COLUMNS: id, estimand, mc_se, draws, and for a topic
    claim hardest_gap with its Monte-Carlo error): the claim's statistic on the mean expected
    study and its Monte-Carlo error over the draws (``draw`` column of both tables,
    synthetic.expected_mc.expected_scores for every simulated model). With ``noise`` (em_model,
    leave_out, conversation_id and the metrics: expected_mc.noise_variances of every simulated
    model), the discriminability claims too, with a jackknife error (module docstring); without
    it they have no row."""
    keys = ["em_model", "conversation_id"]
    mean_conv = conversations.drop(columns="draw").groupby(keys, sort=True).mean().reset_index()
    tkeys = [*keys, "turn_number"]
    mean_turn = turns.drop(columns="draw").groupby(tkeys, sort=True).mean().reset_index()
    mean_study = noise_free_study(mean_conv, mean_turn, gold, roles, mode)
    point, gaps = study_estimands(mean_study, claims), hardest_gaps(mean_study, claims)
    draws = sorted(set(conversations["draw"]))
    per_draw = []
    for d in draws:
        study = noise_free_study(
            conversations[conversations["draw"] == d].drop(columns="draw"),
            turns[turns["draw"] == d].drop(columns="draw"),
            gold,
            roles,
            mode,
        )
        per_draw.append((study_estimands(study, claims), hardest_gaps(study, claims)))
    rows = []
    for cid, value in point.items():
        _, se = mc_summary(np.array([r.get(cid, np.nan) for r, _ in per_draw]))
        gap, gap_se = gaps.get(cid, np.nan), np.nan
        if cid in gaps:
            _, gap_se = mc_summary(np.array([g.get(cid, np.nan) for _, g in per_draw]))
        rows.append(
            {
                "id": cid,
                "estimand": value,
                "mc_se": se,
                "draws": len(draws),
                "hardest_gap": gap,
                "hardest_gap_mc_se": gap_se,
            }
        )
    if noise is not None:
        models = sorted(m for m, r in roles.items() if r == "model" and m in set(mean_conv["em_model"]))
        for c in claims:
            if c["test"] != "discriminability_difference":
                continue
            better, worse = c["params"]["better"], c["params"]["worse"]
            if not {better, worse} <= set(noise.columns) or not {better, worse} <= set(conversations.columns):
                continue
            value = discriminability_estimand(mean_conv, noise[noise["leave_out"] == -1], models, better, worse)
            leave_out = [
                discriminability_estimand(
                    conversations[conversations["draw"] != d].drop(columns="draw").groupby(keys).mean().reset_index(),
                    noise[noise["leave_out"] == d],
                    models,
                    better,
                    worse,
                )
                for d in draws
            ]
            if np.isfinite(value):
                rows.append(
                    {
                        "id": c["id"],
                        "estimand": value,
                        "mc_se": _jackknife(leave_out),
                        "draws": len(draws),
                        "hardest_gap": np.nan,
                        "hardest_gap_mc_se": np.nan,
                    }
                )
    return pd.DataFrame(rows, columns=COLUMNS)


__all__ = ["noise_free_study", "cohort_estimands", "discriminability_estimand", "log_f_target", "TURN_METRICS"]

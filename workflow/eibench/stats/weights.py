"""Sensitivity of the composite's ranking to its pillar weights.

The composite is 100 x the weighted mean of three pillars per conversation (tracking,
evaluation, holistic; metrics/composite.py), with the weights of missing pillars renormalised,
then averaged over conversations. Here the pillar weights are redrawn from a Dirichlet centred
on the published weights (concentration ``c``: each weight w_p has mean w_p and variance
w_p (1 - w_p) / (c + 1)) and from the flat Dirichlet (every weighting equally likely), and
every model's composite is recomputed on the same per-conversation pillars. The per-conversation
rounding to 2 decimals of the published composite is left out (it moves a model's mean by at
most 0.005 points). Point estimates only: the spread shown is due to the weights, not to the
sampling of conversations.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..metrics.composite import PILLAR_WEIGHTS
from .bootstrap import ranks_desc
from .study import Study

PILLARS = tuple(PILLAR_WEIGHTS)


def composites(pillars: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Model composites [n_draws, n_models] for pillar weights [n_draws, n_pillars] from
    per-conversation pillars [n_models, n_conversations, n_pillars] (0..1, NaN = missing):
    100 x the mean over conversations of the weighted pillar mean, weights renormalised over
    the pillars present; a conversation without any pillar is left out."""
    present = ~np.isnan(pillars)
    filled = np.where(present, pillars, 0.0)
    num = np.einsum("mcp,dp->dmc", filled, weights)
    den = np.einsum("mcp,dp->dmc", present.astype(float), weights)
    per_conv = np.divide(num, den, out=np.full(num.shape, np.nan), where=den > 0)
    return 100 * np.nanmean(per_conv, axis=-1)


def study_pillars(study: Study, models: list[int]) -> np.ndarray:
    """[n_models, n_conversations, 3] pillars of the given models, in PILLARS order."""
    return np.stack([study.values[p][models] for p in PILLARS], axis=-1)


def _weights_sd(published: np.ndarray, concentration: float, present: np.ndarray) -> dict[str, float]:
    """The standard deviation of each pillar's weight under the Dirichlet around the published
    weights, as the composite uses it: renormalised over the ``present`` pillars (those with a
    value somewhere). A Dirichlet's components renormalised over a subset are again Dirichlet
    with the subset's parameters, so weight w of total t among the present ones has mean w/t and
    variance m(1 - m)/(concentration t + 1). Absent pillars are left out."""
    total = float(published[present].sum())
    out = {}
    for pillar, w, here in zip(PILLARS, published, present):
        if here:
            m = w / total
            out[pillar] = float(np.sqrt(m * (1 - m) / (concentration * total + 1)))
    return out


def rank_stability(
    study: Study, models: list[int], concentration: float, n_draws: int, rng: np.random.Generator
) -> tuple[pd.DataFrame, dict]:
    """Per model: composite and rank under the published weights and under equal weights,
    and the share of weight draws in which it ranks first (ties share the first place
    equally) and its median rank, for the Dirichlet around the published weights and for
    the flat Dirichlet. The summary names the leaders and how often the published leader
    stays first. A single model is first under every weighting (probability 1)."""
    pillars = study_pillars(study, models)
    published = np.array([PILLAR_WEIGHTS[p] for p in PILLARS])
    equal = np.full(len(PILLARS), 1 / len(PILLARS))
    fixed = composites(pillars, np.stack([published, equal]))
    draws = {
        "around": rng.dirichlet(concentration * published, size=n_draws),
        "flat": rng.dirichlet(np.ones(len(PILLARS)), size=n_draws),
    }
    table = pd.DataFrame(
        {
            "em_model": [study.models[i] for i in models],
            "composite_published": fixed[0],
            "rank_published": ranks_desc(fixed[0]),
            "composite_equal_weights": fixed[1],
            "rank_equal_weights": ranks_desc(fixed[1]),
        }
    )
    for name, w in draws.items():
        ranks = ranks_desc(composites(pillars, w))  # [n_draws, n_models]
        first = ranks == ranks.min(axis=1, keepdims=True)
        table[f"p_first_{name}"] = (first / first.sum(axis=1, keepdims=True)).mean(axis=0)
        table[f"median_rank_{name}"] = np.median(ranks, axis=0)
    leader = int(np.argmin(table["rank_published"].to_numpy()))
    equal_leader = int(np.argmin(table["rank_equal_weights"].to_numpy()))
    summary = {
        "concentration": concentration,
        "n_draws": n_draws,
        "n_models": len(models),
        "weights_sd": _weights_sd(published, concentration, ~np.isnan(pillars).all(axis=(0, 1))),
        "leader": table["em_model"][leader],
        "equal_weights_leader": table["em_model"][equal_leader],
        "leader_changes_under_equal_weights": bool(leader != equal_leader),
        "p_leader_first_around": float(table["p_first_around"][leader]),
        "p_leader_first_flat": float(table["p_first_flat"][leader]),
        "most_often_first_flat": table["em_model"][int(np.argmax(table["p_first_flat"].to_numpy()))],
        "n_models_ever_first_around": int((table["p_first_around"] > 0).sum()),
        "n_models_ever_first_flat": int((table["p_first_flat"] > 0).sum()),
    }
    return table.sort_values(["rank_published", "em_model"]).reset_index(drop=True), summary

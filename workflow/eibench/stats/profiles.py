"""Turn-level against whole-conversation profiles: are the models strong per turn also strong
on the whole conversation?

Turn-level score: the composite's turn-level pillars (tracking and evaluation, weighted
0.24 : 0.49); conversation-level score: the holistic pillar. Kendall tau between the two
rankings of the evaluated models with a cluster-bootstrap interval, and every pair of models
whose order flips, marked 'clear' when both paired differences are significant (the larger of
their two bootstrap p-values, Holm-adjusted over all pairs of models, at most alpha, also with
every p of 0 raised to 2 / resamples: a p of 0 only says p < 2 / resamples, and Holm's first
factor is the number of pairs, so 2,000 resamples cannot resolve 55 pairs; the pairwise tests
take their own, larger number of resamples, ``discriminability.pairwise_resamples``).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from .bootstrap import bootstrap_p, percentile_interval, resampled_means, smallest_p
from .multiplicity import adjust_floored, adjust_present, reject_resolved
from .ranks import tau_b_matrix
from .study import Study

TURN_WEIGHTS = {"tracking": 0.24, "evaluation": 0.49}


def turn_level(study: Study) -> np.ndarray:
    t, e = study.values["tracking"], study.values["evaluation"]
    w = TURN_WEIGHTS
    return (w["tracking"] * t + w["evaluation"] * e) / (w["tracking"] + w["evaluation"])


def profiles(
    study: Study,
    models: list[int],
    weights: np.ndarray,
    alpha: float = 0.05,
    pair_weights: np.ndarray | None = None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The flips table and the summary (``tau`` and its interval on ``weights``; ``n_models``:
    the models with both pillars, over which tau is computed; ``n_flips``,
    ``n_clear_flips``, ``n_unresolved_flips``: the flips that Holm would call significant only
    with a bootstrap p of 0 read as exactly 0, not counted clear; ``flip_resamples``). The flips'
    p-values use ``pair_weights`` (default ``weights``): resamples of the same scheme, enough
    for Holm over the pairs (``discriminability.pairwise_resamples``)."""
    turn, conv = turn_level(study)[models], study.values["holistic"][models]
    mt, mc = np.nanmean(turn, axis=1), np.nanmean(conv, axis=1)
    tau = float(tau_b_matrix(np.stack([mt, mc], axis=-1))[0, 1])
    bt, bc = resampled_means(turn, weights), resampled_means(conv, weights)
    boot = tau_b_matrix(np.stack([bt, bc], axis=-1))[:, 0, 1]
    lo, hi = percentile_interval(boot)
    if pair_weights is not None and pair_weights is not weights:
        bt, bc = resampled_means(turn, pair_weights), resampled_means(conv, pair_weights)
    n_resamples = len(weights if pair_weights is None else pair_weights)
    rows = []
    for a, b in combinations(range(len(models)), 2):
        dt, dc = mt[a] - mt[b], mc[a] - mc[b]
        # A pair without both differences (a pillar the cohort lacks: NaN means) is no flip.
        if not (np.isfinite(dt) and np.isfinite(dc)) or np.sign(dt) * np.sign(dc) >= 0:
            continue
        # A flip is real only if both differences are: intersection-union test, p = the larger p.
        p = max(float(bootstrap_p(bt[:, a] - bt[:, b])), float(bootstrap_p(bc[:, a] - bc[:, b])))
        better_turn = study.models[models[a]] if dt > 0 else study.models[models[b]]
        better_conv = study.models[models[a]] if dc > 0 else study.models[models[b]]
        rows.append((better_turn, better_conv, float(abs(dt)), float(abs(dc)), p))
    flips = pd.DataFrame(
        rows, columns=["better_per_turn", "better_on_conversation", "turn_gap", "conversation_gap", "p_flip"]
    )
    # Holm over every pair of models (the pairs that did not flip count as p = 1): the flips
    # were found by looking at all of them.
    n_pairs = len(models) * (len(models) - 1) // 2
    family = list(flips["p_flip"]) + [1.0] * (n_pairs - len(flips))
    floor = smallest_p(n_resamples)
    padded = adjust_present(family, "holm") if n_pairs else np.array([])
    bound = adjust_floored(family, floor, "holm") if n_pairs else np.array([])
    clear, unresolved = reject_resolved(family, floor, alpha) if n_pairs else (np.array([], bool),) * 2
    flips["p_holm"] = padded[: len(flips)]
    flips["p_holm_bound"] = bound[: len(flips)]  # the adjusted p whatever the p-values of 0 stand for
    flips["clear"] = clear[: len(flips)]
    # No count from no data: without both rankings there is no pair to flip (None, not 0).
    ranked = bool(np.isfinite(mt).sum() >= 2 and np.isfinite(mc).sum() >= 2)
    summary = {
        "tau": tau,
        "n_models": int((np.isfinite(mt) & np.isfinite(mc)).sum()),
        "lo": float(lo),
        "hi": float(hi),
        "n_flips": int(len(flips)) if ranked else None,
        "n_clear_flips": (int(flips["clear"].sum()) if len(flips) else 0) if ranked else None,
        "n_unresolved_flips": int(unresolved[: len(flips)].sum()) if ranked else None,
        "flip_resamples": n_resamples,
    }
    return flips, summary

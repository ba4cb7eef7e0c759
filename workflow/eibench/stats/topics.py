"""Topic effects: which topic category is hardest, and the pre-specified contrast of romantic
relationships against the rest.

On conversation means over the evaluated models: a mixed model per metric (topic category
fixed, number of turns fixed, random intercept per participant); the bootstrap probability
that each category has the lowest mean (resampling conversations, or participants); and the
romantic - rest difference with its cluster-bootstrap interval and p-value, plus its
participant-adjusted mixed-model estimate.

Edge cases: the mixed models use the conversations with a known participant (the bootstrap
analyses use all); with fewer than two categories there is no hardest topic (NaN
probabilities, no name); the romantic contrast's note says why a mixed model was not fitted:
no conversation with a known participant, or which side of the contrast is empty.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from . import mixed
from .bootstrap import bootstrap_p, percentile_interval
from .breakdowns import MIN_CONVERSATIONS
from .study import Study
from .subgroups import conversation_means


def _weighted_group_means(conv: np.ndarray, group: np.ndarray, labels: list, weights: np.ndarray) -> np.ndarray:
    """[B, n_groups] weighted means of ``conv`` per group label."""
    ok = ~np.isnan(conv)
    out = np.full((weights.shape[0], len(labels)), np.nan)
    for j, label in enumerate(labels):
        sel = ok & (group == label)
        num = weights[:, sel] @ conv[sel]
        den = weights[:, sel].sum(axis=1)
        out[:, j] = np.divide(num, den, out=np.full(len(den), np.nan), where=den > 0)
    return out


def topic_effects(
    study: Study, metric: str, models: list[int], weights: np.ndarray, romantic: str, higher_is_better: bool = True
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Per category: mean, bootstrap interval, P(hardest); mixed-model effects; romantic contrast."""
    conv = conversation_means(study, metric, models)
    categories = sorted({c for c in study.category if isinstance(c, str)})
    point = _weighted_group_means(conv, study.category, categories, np.ones((1, len(conv))))[0]
    boot = _weighted_group_means(conv, study.category, categories, weights)
    lo, hi = percentile_interval(boot)
    if len(categories) >= 2:
        worst = np.nanargmin(boot if higher_is_better else -boot, axis=1)
        p_hardest = np.bincount(worst, minlength=len(categories)) / len(worst)
    else:  # one category is not the hardest of anything
        p_hardest = np.full(len(categories), np.nan)

    frame = pd.DataFrame(
        {"y": conv, "participant": study.participant, "category": study.category, "n_turns": study.n_turns}
    )
    # The mixed models adjust for the participant: they use the conversations with a known one.
    frame = frame[~np.isnan(frame["y"]) & (frame["participant"] >= 0)]
    reference = max(categories, key=lambda c: (int((frame["category"] == c).sum()), c))
    # A design or a fit without estimates (mixed.fit: fit None) gives NaN effects and its reason.
    fit, n_turns = mixed.fit(f"y ~ C(category, Treatment({reference!r})) + n_turns", frame, "n_turns")
    note = "" if fit is not None else n_turns.reason
    rows = []
    wald = fit.conf_int(alpha=0.05) if fit is not None else pd.DataFrame()
    for j, c in enumerate(categories):
        name = f"C(category, Treatment({reference!r}))[T.{c}]"
        effect = (
            0.0
            if c == reference
            else (float(fit.params[name]) if fit is not None and name in fit.params.index else np.nan)
        )
        elo, ehi = (float(wald.loc[name, 0]), float(wald.loc[name, 1])) if name in wald.index else (np.nan, np.nan)
        n = int((study.category == c).sum())
        # One conversation with a value resamples to itself: no interval (as in breakdowns).
        n_values = int(np.isfinite(conv[study.category == c]).sum())
        bounds = (float(lo[j]), float(hi[j])) if n_values >= MIN_CONVERSATIONS else (np.nan, np.nan)
        rows.append(
            (
                metric,
                c,
                n,
                float(point[j]),
                *bounds,
                float(p_hardest[j]),
                effect,
                elo,
                ehi,
                c == reference,
                note,
            )
        )
    table = pd.DataFrame(
        rows,
        columns=[
            "metric",
            "category",
            "n_conversations",
            "mean",
            "lo",
            "hi",
            "p_hardest",
            "effect_vs_reference",
            "effect_lo",
            "effect_hi",
            "is_reference",
            "mixed_model_note",
        ],
    )

    is_romantic = np.array([c == romantic for c in study.category])
    ok = ~np.isnan(conv)
    contrast_point = (
        conv[ok & is_romantic].mean() - conv[ok & ~is_romantic].mean() if (ok & is_romantic).any() else np.nan
    )
    both = _weighted_group_means(conv, is_romantic, [True, False], weights)
    diff = both[:, 0] - both[:, 1]
    dlo, dhi = percentile_interval(diff)
    frame["romantic"] = [c == romantic for c in frame["category"]]
    n_in = int(frame["romantic"].sum())
    if len(frame) == 0:
        r = mixed.Coefficient.missing("no scored conversation with a known participant (the mixed model needs them)")
    elif n_in == 0 or n_in == len(frame):
        side = "in" if n_in == 0 else "outside"
        r = mixed.Coefficient.missing(f"no conversation {side} {romantic!r} among those with a known participant")
    else:
        _, r = mixed.fit("y ~ romantic + n_turns", frame.assign(romantic=frame["romantic"].astype(float)), "romantic")
    contrast = {
        "metric": metric,
        "romantic": romantic,
        "n_romantic": int(is_romantic.sum()),
        "difference": float(contrast_point),
        "lo": float(dlo),
        "hi": float(dhi),
        "p_boot": float(bootstrap_p(diff)),
        "adjusted": r.estimate,
        "adjusted_lo": r.lo,
        "adjusted_hi": r.hi,
        "p_mixed": r.p_value,
        "mixed_model_note": r.reason,
        "hardest": (
            categories[int(np.nanargmin(point if higher_is_better else -point))] if len(categories) >= 2 else None
        ),
        "p_romantic_hardest": float(p_hardest[categories.index(romantic)]) if romantic in categories else np.nan,
    }
    return table, contrast

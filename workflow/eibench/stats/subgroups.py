"""Diagnosis vs no diagnosis: does a capability differ for participants with a diagnosis?

The unit is the participant (11 people in the published design, not 200 conversations): the
exact permutation test relabels participants, every assignment of the diagnosed count among
them once. The statistic is the difference in mean participant score (each participant's
score: the mean over their conversations of the conversation's mean over the evaluated
models). A mixed model on conversation means (random intercept per participant; fixed topic
category and number of turns) gives the adjusted effect with a Wald interval and a
standardised effect (divided by the sd of conversation means).
"""

from __future__ import annotations

from itertools import combinations
from math import comb
from typing import Any, Iterable

import numpy as np
import pandas as pd

from . import mixed
from .study import Study

MAX_EXACT = 200_000  # above this many relabellings, a seeded Monte-Carlo sample of them


def conversation_means(study: Study, metric: str, models: list[int]) -> np.ndarray:
    """Per conversation, the mean of the metric over the given models (NaN if none)."""
    values = study.values[metric][models]
    ok = ~np.isnan(values)
    return np.divide(
        np.nansum(values, axis=0), ok.sum(axis=0), out=np.full(values.shape[1], np.nan), where=ok.sum(axis=0) > 0
    )


def participant_scores(study: Study, conv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(score, diagnosed) per participant with at least one scored conversation and a recorded
    diagnosis (a profile without traits is left out: unknown is not 'no diagnosis')."""
    scores, diag = [], []
    recorded = study.diagnosis_recorded()
    for p in range(len(study.participants)):
        sel = (study.participant == p) & ~np.isnan(conv) & recorded
        if sel.any():
            scores.append(conv[sel].mean())
            diag.append(bool(study.diagnosed[sel][0]))
    return np.array(scores), np.array(diag, dtype=bool)


def permutation_test(scores: np.ndarray, labels: np.ndarray, rng: np.random.Generator) -> dict[str, Any]:
    """Difference in means (labelled - others) and its two-sided permutation p-value (share of
    relabellings with |difference| >= |observed|), exact when the number of relabellings is at
    most MAX_EXACT, else from MAX_EXACT random relabellings."""
    n, k = len(scores), int(labels.sum())
    observed = scores[labels].mean() - scores[~labels].mean() if 0 < k < n else np.nan
    if not 0 < k < n:
        # No test without two groups: no relabelling count either (NaN, not 0).
        return {"difference": float("nan"), "p_value": float("nan"), "n_permutations": float("nan"), "exact": None}
    total = comb(n, k)
    groups: Iterable[Any]
    if total <= MAX_EXACT:
        groups = combinations(range(n), k)
        exact = True
    else:
        groups = (rng.choice(n, size=k, replace=False) for _ in range(MAX_EXACT))
        exact = False
    s, count, extreme = scores.sum(), 0, 0
    for g in groups:
        inside = scores[list(g)].sum()
        diff = inside / k - (s - inside) / (n - k)
        extreme += abs(diff) >= abs(observed) - 1e-12
        count += 1
    # Exact: the observed labelling is among the enumerated ones. Monte Carlo: count it once
    # more, so that p is never 0 (Phipson and Smyth 2010).
    p = extreme / count if exact else (extreme + 1) / (count + 1)
    return {"difference": float(observed), "p_value": p, "n_permutations": count, "exact": exact}


def mixed_model(study: Study, conv: np.ndarray) -> dict[str, Any]:
    """The diagnosis coefficient in conv_mean ~ diagnosed + C(category) + n_turns with a random
    intercept per participant; Wald 95% interval; standardised by the sd of the outcome.

    The outcome is one value per conversation (the mean over the models), so the conversation's
    random intercept is the residual term of this model."""
    term = "diagnosed"
    frame = pd.DataFrame(
        {
            "y": conv,
            "participant": study.participant,
            "diagnosed": study.diagnosed.astype(float),
            "category": study.category,
            "n_turns": study.n_turns,
        }
    )
    known = ~np.isnan(frame["y"]) & (frame["participant"] >= 0)
    frame = frame[known & study.diagnosis_recorded()]
    formula = "y ~ diagnosed + C(category) + n_turns" if frame["category"].nunique() > 1 else "y ~ diagnosed + n_turns"
    if not np.isfinite(conv).any():  # the metric has no value at all (its kind of annotation is absent)
        c = mixed.Coefficient.missing(mixed.NO_VALUES)
    elif frame.empty and known.any():  # participants, but none whose diagnosis is recorded
        c = mixed.Coefficient.missing("no participant's diagnosis is recorded (their profiles give no traits)")
    elif len(frame) and frame["diagnosed"].nunique() < 2:  # a singular design, not a failed fit
        c = mixed.Coefficient.missing("every participant analysed is in one diagnosis group: no contrast")
    else:
        _, c = mixed.fit(formula, frame, term)
    sd = float(frame["y"].std(ddof=1)) if len(frame) > 1 else float("nan")
    return {
        "estimate": c.estimate,
        "se": c.se,
        "lo": c.lo,
        "hi": c.hi,
        "p_value": c.p_value,
        "standardised": c.estimate / sd if sd > 0 else float("nan"),
        "reason": c.reason,
        "n_conversations": int(len(frame)),
        "n_participants": int(frame["participant"].nunique()),
    }


def diagnosis_effects(study: Study, metrics: list[str], models: list[int], rng: np.random.Generator) -> pd.DataFrame:
    """One row per metric: participant-level permutation test and the adjusted mixed-model effect."""
    rows = []
    for metric in metrics:
        conv = conversation_means(study, metric, models)
        scores, diag = participant_scores(study, conv)
        perm = permutation_test(scores, diag, rng)
        mm = mixed_model(study, conv)
        rows.append(
            (
                metric,
                int(diag.sum()),
                int((~diag).sum()),
                perm["difference"],
                perm["p_value"],
                perm["n_permutations"],
                perm["exact"],
                mm["estimate"],
                mm["lo"],
                mm["hi"],
                mm["p_value"],
                mm["standardised"],
                mm["reason"],
            )
        )
    return pd.DataFrame(
        rows,
        columns=[
            "metric",
            "n_diagnosed",
            "n_not_diagnosed",
            "difference",
            "p_permutation",
            "n_permutations",
            "exact",
            "adjusted_effect",
            "adjusted_lo",
            "adjusted_hi",
            "p_mixed",
            "standardised_effect",
            "mixed_model_note",
        ],
    )

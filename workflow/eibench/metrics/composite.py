"""Pillars and composites per conversation.

Published weights: tracking 0.24, evaluation quality 0.49, holistic 0.27; inside the pillars
tracking = 0.5 F1 + 0.5 VA; evaluation = 0.5 mean(OM, HP accuracy) + 0.5 pairwise accuracy;
holistic = 0.4 PANAS part + 0.3 conversation-wide + 0.3 four-branch (+ 0.3 post-chat ratings,
an extension that only a cohort with those ratings has, e.g. ESConv). The composite is
100 x the weighted sum, rounded to 2 decimals per conversation (Python's round, as the public
scorer), then averaged over conversations; under parity the equal-weight composite is rounded
the same way (D5).

When a part is NaN (a strict-mode exclusion, or a cohort without that annotation), the
weights of the parts present are renormalised; ``composite_parts`` records how many pillars
entered. A cohort without post-chat ratings (the synthetic cohort, an AttuneBench release) leaves
that part NaN, so its holistic pillar and composite are exactly the published formula.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .rules import Rules, js_round, rules_for

PILLAR_WEIGHTS = {"tracking": 0.24, "evaluation": 0.49, "holistic": 0.27}
HOLISTIC_WEIGHTS = {"panas_part": 0.4, "conversation_wide": 0.3, "four_branch": 0.3, "post_chat_ratings": 0.3}
#: Extension parts: a table without the column (written before the extension) reads as NaN.
EXTENSION_PARTS = ("post_chat_ratings",)
#: The per-conversation parts the pillars and the composite are made of (``pillar_values``).
COMPOSITE_PARTS = ("tracking", "binary_om_acc", "binary_hp_acc", "pairwise_acc", *HOLISTIC_WEIGHTS)


def _weighted(values: np.ndarray, weights: list[float]) -> np.ndarray:
    """Row-wise weighted mean of the columns of ``values``, weights renormalised over non-NaN parts."""
    w = np.asarray(weights, dtype=float)
    present = ~np.isnan(values)
    total_w = (present * w).sum(axis=1)
    s = np.nansum(values * w, axis=1)
    return np.divide(s, total_w, out=np.full(len(values), np.nan), where=total_w > 0)


def _row_mean(*columns: np.ndarray) -> np.ndarray:
    """Row-wise mean over the non-NaN values (NaN when a row has none), as pandas' skipna mean
    (equal to it up to the last bits of the summation order)."""
    values = np.column_stack(columns)
    n = (~np.isnan(values)).sum(axis=1)
    return np.divide(np.nansum(values, axis=1), n, out=np.full(len(values), np.nan), where=n > 0)


def _round2(x: np.ndarray, half: str, scaled: np.ndarray | None = None) -> np.ndarray:
    """Round to 2 decimals: Python's round after snapping to 1e-9 (``half='even'``; the last bits
    of a summation order cannot flip a .xx5), or the port's Math.round(100 x) / 100 ('up'),
    where ``scaled`` (100 x, computed as the port does) replaces 100 x when it is not NaN."""
    if half == "up":
        hundred = x * 100 if scaled is None else np.where(np.isnan(scaled), x * 100, scaled)
        return np.array([js_round(float(v)) / 100 for v in hundred], dtype=float)
    return np.array([round(round(float(v), 9), 2) if not np.isnan(v) else np.nan for v in x], dtype=float)


def _port_formula(col: dict[str, np.ndarray], f1: np.ndarray, va: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """10^4 x the composite and the equal-weight composite (0..1) in the port's order of
    operations (scorer.ts computeComposite, computeEqualWeightComposite), from conversation
    means; NaN where a part is NaN."""
    blended = 0.5 * f1 + 0.5 * va
    binary = (col["binary_om_acc"] + col["binary_hp_acc"]) / 2
    evaluation = 0.5 * binary + 0.5 * col["pairwise_acc"]
    holistic = 0.4 * col["panas_part"] + 0.3 * col["conversation_wide"] + 0.3 * col["four_branch"]
    composite = 0.24 * blended + 0.49 * evaluation + 0.27 * holistic
    turn_level = (blended + binary + col["pairwise_acc"]) / 3
    conv_level = (col["panas_part"] + col["conversation_wide"] + col["four_branch"]) / 3
    return composite * 100 * 100, (turn_level + conv_level) / 2 * 100 * 100


def pillar_values(col: dict[str, np.ndarray]) -> tuple[np.ndarray, ...]:
    """The pillars and the unrounded composite of per-conversation parts ``col`` (1-D arrays of
    one length, NaN where a part is absent: ``binary_om_acc``, ``binary_hp_acc``,
    ``pairwise_acc``, ``tracking`` and the HOLISTIC_WEIGHTS parts), each weighted mean
    renormalised over the parts present: (mean of the two binary accuracies, evaluation,
    holistic, the pillars [n, 3], 100 x the composite). ``add_pillars`` rounds it; the
    validation by simulation (stats/simulation.py) builds its composite with it."""
    binary = _row_mean(col["binary_om_acc"], col["binary_hp_acc"])
    evaluation = _weighted(np.column_stack([binary, col["pairwise_acc"]]), [0.5, 0.5])
    holistic = _weighted(np.column_stack([col[k] for k in HOLISTIC_WEIGHTS]), list(HOLISTIC_WEIGHTS.values()))
    pillars = np.column_stack([col["tracking"], evaluation, holistic])
    raw = 100.0 * _weighted(pillars, list(PILLAR_WEIGHTS.values()))
    return binary, evaluation, holistic, pillars, raw


def add_pillars(conv: pd.DataFrame, rules: Rules | None = None) -> pd.DataFrame:
    """Add tracking (if absent), evaluation, holistic, composite and composite_equal columns.

    ``rules`` (default: the parity rules) decide the rounding: the composite is rounded to 2
    decimals under every rule set, the equal-weight composite under parity (D5, the public
    scorer); the port setting rounds halves up with JavaScript's Math.round, in the port's
    order of operations where every part is present (D16)."""
    rules = rules or rules_for("parity")
    col = {
        name: conv[name].to_numpy(float) if name in conv or name not in EXTENSION_PARTS else np.full(len(conv), np.nan)
        for name in COMPOSITE_PARTS
    }
    binary, evaluation, holistic, pillars, raw = pillar_values(col)
    turn_avg = _row_mean(col["tracking"], binary, col["pairwise_acc"])
    conv_avg = _row_mean(*(col[k] for k in HOLISTIC_WEIGHTS))
    equal = 100.0 * _row_mean(turn_avg, conv_avg)
    port_raw = port_equal = None
    if rules.compat == "port" and "emotion_f1" in conv and "emotion_va" in conv:
        port_raw, port_equal = _port_formula(
            col, conv["emotion_f1"].to_numpy(float), conv["emotion_va"].to_numpy(float)
        )
        usable = ~np.isnan(port_raw) & np.isnan(col["post_chat_ratings"])  # the port has no post-chat-ratings part
        port_raw, port_equal = np.where(usable, port_raw, np.nan), np.where(usable, port_equal, np.nan)
        equal = np.where(usable, port_equal / 100, equal)
    added = pd.DataFrame(
        {
            "evaluation": evaluation,
            "holistic": holistic,
            "composite": _round2(raw, rules.round_half, port_raw),
            "composite_parts": (~np.isnan(pillars)).sum(axis=1).astype("int64"),
            "composite_equal": _round2(equal, rules.round_half, port_equal) if rules.round_equal_composite else equal,
        },
        index=conv.index,
    )
    # A column already present (e.g. a rescored table) is replaced in place, as assignment did.
    return pd.concat([conv.drop(columns=[c for c in added if c in conv.columns]), added], axis=1)

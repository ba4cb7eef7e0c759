"""The expected metrics of a simulated model beyond the binary accuracies, by seeded Monte Carlo.

With the participant and conversation random effects set to zero (``without_random_effects``),
every answer of a simulated model at a turn depends on the model only through the accuracy of
the turn's capability, the sigmoid of its logit x (simulate.py). The expected value of a metric
at one conversation (or turn) is then a function f(x) of that logit alone, the same for every
model and cohort: the gold of the conversation fixes the rest. ``accuracy_curves`` estimates f
on a grid of logits by simulating, for every grid point, ``draws`` answer streams of a model whose
logit is that point on every capability (planted effects and random effects zero) and scoring
them with the pipeline's scorer (parity rule set, in memory, as synthetic/redraw.py does);
``expected_scores`` reads f at each model's logits (a least-squares cubic in the accuracy
sigmoid(logit) through the grid's values, logits outside the grid clipped to its ends) and adds
the exact binary accuracies (expected.py).

Each draw gives its own curves, so every expected value has ``draws`` independent Monte-Carlo
replicates: its Monte-Carlo standard error is their standard deviation over sqrt(draws)
(``mc_summary``). The binary accuracies are exact (no Monte-Carlo error); a conversation-level
value is read at the conversation's logit at the middle of the conversation (exact when the
capability has no planted turn drift, a second-order approximation otherwise); the composite is
the scorer's formula (metrics/composite.add_pillars) applied to the expected parts, rounded to 2
decimals per conversation like the scorer's.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..metrics.composite import add_pillars
from ..metrics.gold import GoldIndex
from ..metrics.score import score_rule_sets
from ..release import em_canonical
from ..release.tidy import em_tables
from .expected import METRICS as BINARY
from .expected import conversation_logits, turn_logits
from .null import null_simulation
from .simulate import CAPABILITIES, GoldRecords, SimulatedModel, indexed, sigmoid, simulate_outputs

#: Metrics read from the Monte-Carlo curves: metric -> capability whose accuracy drives it.
CURVE_METRICS = {
    "emotion_f1": "emotion",
    "emotion_va": "emotion",
    "tracking": "emotion",
    "pairwise_acc": "preference",
    "kendall_tau": "preference",
    "panas_part": "holistic",
    "panas_adjusted": "holistic",
    "conversation_wide": "holistic",
    "cw_q1_f1": "holistic",
    "four_branch": "holistic",
}
#: Turn-level metrics whose per-turn expectation is kept (the turn-drift claims read turns).
TURN_METRICS = ("emotion_f1",)
#: Every metric of an expected-score table.
EXPECTED_METRICS = (*BINARY, *CURVE_METRICS, "composite")
#: The composite's pillars beyond tracking (metrics/composite.add_pillars), also kept in the
#: conversation table: the profile-flip claim ranks the models on them (stats/profiles.py).
PILLARS = ("evaluation", "holistic")


def without_random_effects(sim: dict[str, Any]) -> dict[str, Any]:
    """A copy of the ``simulation`` settings with no participant or conversation random effect."""
    out = copy.deepcopy(sim)
    out["participant_sd"], out["conversation_sd"] = 0.0, 0.0
    return out


def grid_of(spec: dict[str, float]) -> np.ndarray:
    """The logit grid ``{min, max, step}`` (config ``truth.logit_grid``) as an array; a bad
    specification raises ValueError naming the key and the fix."""
    lo, hi, step = float(spec["min"]), float(spec["max"]), float(spec["step"])
    if not (step > 0 and hi > lo):
        raise ValueError(f"truth.logit_grid: need max > min and step > 0, got {spec}; fix config/config.yaml")
    grid = np.arange(lo, hi + step / 2, step)
    if len(grid) < 4:
        raise ValueError(f"truth.logit_grid: {len(grid)} points; a monotone cubic needs at least 4, use a smaller step")
    return grid


def _mode_bonus(sim: dict[str, Any], mode: str) -> dict[str, float]:
    omniscient = mode in ("omniscient", "verbose_omniscient")
    return {k: (sim["omniscient_bonus"][k] if omniscient else 0.0) for k in CAPABILITIES}


def accuracy_curves(
    gold: dict[str, pd.DataFrame],
    sim: dict[str, Any],
    seed: int,
    mode: str,
    romantic_category: str,
    grid: np.ndarray,
    draws: int,
    va_matching: str = "optimal",
    compat: str = "none",
) -> dict[str, Any]:
    """The Monte-Carlo curves: ``conversation`` {metric: array [draws, grid, conversations]} for
    CURVE_METRICS, ``turn`` {metric: array [draws, grid, turns]} for TURN_METRICS, with the
    ``conversations`` and ``turns`` ((conversation id, turn number)) they are indexed by and the
    ``grid``. Each grid point's model answers with logit = grid point on every capability (its
    abilities offset the base logits and the mode bonus; no planted or random effect), its
    streams seeded by (seed, 'predict', 'truth-curve-<i>', mode, conversation, 'redraw', k)."""
    if draws < 2:
        raise ValueError(f"truth.draws: {draws}; the Monte-Carlo error needs at least 2 draws")
    quiet = without_random_effects(null_simulation(sim))
    bonus = _mode_bonus(quiet, mode)
    index = GoldIndex.build(gold)
    ids = sorted(gold["conversations"]["conversation_id"].astype(str))
    turns_table = gold["turns"].sort_values(["conversation_id", "turn_number"])
    turn_keys = list(zip(turns_table["conversation_id"].astype(str), turns_table["turn_number"].astype(int)))
    records = indexed(gold)  # once, not per grid point and draw
    conv_pos = {c: j for j, c in enumerate(ids)}
    turn_pos = {k: j for j, k in enumerate(turn_keys)}
    conv = {m: np.full((draws, len(grid), len(ids)), np.nan) for m in CURVE_METRICS}
    turn = {m: np.full((draws, len(grid), len(turn_keys)), np.nan) for m in TURN_METRICS}
    for i, x in enumerate(grid):
        ability = {k: float(x) - quiet["base_logit"][k] - bonus[k] for k in CAPABILITIES}
        model = SimulatedModel(f"truth-curve-{i}", "model", ability)
        for k in range(draws):
            outputs = simulate_outputs(records, model, mode, quiet, seed, romantic_category, None, redraw=k + 1)
            parsed = [(Path(name), em_canonical.validate(obj)) for name, obj in sorted(outputs.items())]
            scores = score_rule_sets(index, em_tables(parsed), ("parity",), va_matching, compat)["parity"]
            c = scores.conversation
            cols = c["conversation_id"].astype(str).map(conv_pos).to_numpy(int)
            for m in CURVE_METRICS:
                conv[m][k, i, cols] = c[m].to_numpy(float)
            t = scores.turn
            rows = [turn_pos[(str(a), int(b))] for a, b in zip(t["conversation_id"], t["turn_number"])]
            for m in TURN_METRICS:
                turn[m][k, i, rows] = t[m].to_numpy(float)
    return {
        "grid": np.asarray(grid, float),
        "conversations": ids,
        "turns": turn_keys,
        "conversation": conv,
        "turn": turn,
    }


#: Degree of the polynomial in the accuracy p = sigmoid(logit) fitted to each item's curve.
DEGREE = 3


def _read(curve: np.ndarray, grid: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Each draw's curve [draws, grid, items] read at the items' logits x [items] (clipped to the
    grid): [draws, items]. Per draw and item, a least-squares polynomial of degree DEGREE in
    the accuracy p = sigmoid(logit) through the grid's values (an expected score is a smooth
    function of p, a polynomial for the answers drawn with probabilities linear in p; the fit
    pools the grid's independent streams). An item with a missing grid value is NaN."""
    p_grid = 1 / (1 + np.exp(-grid))
    p_x = 1 / (1 + np.exp(-np.clip(x, grid[0], grid[-1])))
    basis = np.vander(p_grid, DEGREE + 1)  # [grid, degree + 1]
    coef = np.linalg.pinv(basis) @ np.where(np.isfinite(curve), curve, 0.0)  # [draws, degree + 1, items]
    at_x = np.vander(p_x, DEGREE + 1)  # [items, degree + 1]
    out = np.einsum("ik,dki->di", at_x, coef)
    out[:, ~np.isfinite(curve).all(axis=(0, 1))] = np.nan
    return out


def expected_scores(
    gold: dict[str, pd.DataFrame] | GoldRecords,
    model: SimulatedModel,
    mode: str,
    sim: dict[str, Any],
    seed: int,
    romantic_category: str,
    curves: dict[str, Any],
    conversations: list[str] | None = None,
    random_effects: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One Monte-Carlo replicate per draw of the model's expected scores, with the random effects
    zero (or, ``random_effects`` True, with this cohort's drawn participant and conversation
    difficulties: the expectation of a rerun on the same conversations): the conversation table
    (draw, conversation_id, EXPECTED_METRICS, PILLARS) and the turn table (draw, conversation_id,
    turn_number, rel_position, binary_om_acc, TURN_METRICS), over ``conversations`` (None: all).
    The binary accuracies are exact and the same in every draw. ``gold``: the gold tables or their
    index (simulate.indexed), built once for many models."""
    quiet = sim if random_effects else without_random_effects(sim)
    g = indexed(gold)
    logits = turn_logits(g, model, mode, quiet, seed, romantic_category)
    middle = conversation_logits(g, model, mode, quiet, seed, romantic_category)
    ids = sorted(g.conversations) if conversations is None else sorted(conversations)
    grid, draws = curves["grid"], next(iter(curves["conversation"].values())).shape[0]
    conv_pos = {c: j for j, c in enumerate(curves["conversations"])}
    turn_pos = {k: j for j, k in enumerate(curves["turns"])}
    fixed = {cap: np.array([middle[c][cap] for c in ids]) for cap in CAPABILITIES}
    cols = [conv_pos[c] for c in ids]
    table: dict[str, np.ndarray] = {}
    for metric, cap in CURVE_METRICS.items():
        table[metric] = _read(curves["conversation"][metric][:, :, cols], grid, fixed[cap])
    turn_rows: list[int] = []
    keys: list[tuple[str, int]] = []
    rel: list[float] = []
    exact: dict[str, list[float]] = {m: [] for m in BINARY}
    for c in ids:
        for t in g.turns.get(c, []):
            key = (c, int(t.turn_number))
            turn_rows.append(turn_pos[key])
            keys.append(key)
            rel.append(float(t.rel_position))
            items = g.binary.get(key, [])
            for metric, (cap, column) in BINARY.items():
                if not items:
                    exact[metric].append(1.0)
                elif not any(getattr(j, column) in ("yes", "no") for j in items):
                    exact[metric].append(0.0)
                else:
                    exact[metric].append(sigmoid(logits[key][cap]))
    turn_values = {
        m: _read(curves["turn"][m][:, :, turn_rows], grid, np.array([logits[k][CURVE_METRICS[m]] for k in keys]))
        for m in TURN_METRICS
    }
    # the exact binary accuracies: mean of the turns' per conversation (0 without turns, as the scorer)
    conv_of = np.array([ids.index(k[0]) for k in keys], dtype=int) if keys else np.zeros(0, dtype=int)
    counts = np.bincount(conv_of, minlength=len(ids))
    for metric in BINARY:
        sums = np.bincount(conv_of, weights=np.array(exact[metric], float), minlength=len(ids))
        per_conv = np.divide(sums, counts, out=np.zeros(len(ids)), where=counts > 0)
        table[metric] = np.broadcast_to(per_conv, (draws, len(ids)))
    frames, turn_frames = [], []
    for k in range(draws):
        f = pd.DataFrame({"conversation_id": ids, **{m: table[m][k] for m in table}})
        f = add_pillars(f)
        f.insert(0, "draw", k)
        frames.append(f[["draw", "conversation_id", *EXPECTED_METRICS, *PILLARS]])
        turn_frames.append(
            pd.DataFrame(
                {
                    "draw": k,
                    "conversation_id": [a for a, _ in keys],
                    "turn_number": [b for _, b in keys],
                    "rel_position": rel,
                    "binary_om_acc": exact["binary_om_acc"],
                    **{m: turn_values[m][k] for m in TURN_METRICS},
                }
            )
        )
    return pd.concat(frames, ignore_index=True), pd.concat(turn_frames, ignore_index=True)


def noise_variances(
    gold: dict[str, pd.DataFrame] | GoldRecords,
    model: SimulatedModel,
    mode: str,
    sim: dict[str, Any],
    seed: int,
    romantic_category: str,
    curves: dict[str, Any],
    metrics: tuple[str, ...],
    conversations: list[str] | None = None,
    random_effects: bool = False,
) -> pd.DataFrame:
    """The answer noise of the model's conversation scores: per conversation, the variance of a
    metric's conversation score around its expectation, for each of ``metrics`` (CURVE_METRICS).

    Each draw of a curve is one answer stream of a model with that logit, so at each grid point
    and conversation the variance of the draws (ddof 1) estimates the noise variance there; it
    is read at the model's conversation logit as ``expected_scores`` reads the expectation (the
    same cubic in the accuracy, negative fits clipped to 0). One row per ``leave_out`` and
    conversation: leave_out -1 from every draw, k >= 0 from the draws but k (for a jackknife
    Monte-Carlo error, synthetic.estimands). The rest as in ``expected_scores``."""
    unknown = [m for m in metrics if m not in CURVE_METRICS]
    if unknown:
        raise ValueError(f"noise_variances: {unknown} are not curve metrics ({sorted(CURVE_METRICS)})")
    quiet = sim if random_effects else without_random_effects(sim)
    g = indexed(gold)
    middle = conversation_logits(g, model, mode, quiet, seed, romantic_category)
    ids = sorted(g.conversations) if conversations is None else sorted(conversations)
    grid, draws = curves["grid"], next(iter(curves["conversation"].values())).shape[0]
    if draws < 3:
        raise ValueError(f"truth.draws: {draws}; a leave-one-out noise variance needs at least 3 draws")
    conv_pos = {c: j for j, c in enumerate(curves["conversations"])}
    cols = [conv_pos[c] for c in ids]
    frames = []
    for leave_out in (-1, *range(draws)):
        keep = [k for k in range(draws) if k != leave_out]
        values = {}
        for metric in metrics:
            var = np.var(curves["conversation"][metric][keep][:, :, cols], axis=0, ddof=1)[None]
            x = np.array([middle[c][CURVE_METRICS[metric]] for c in ids])
            values[metric] = np.clip(_read(var, grid, x)[0], 0.0, None)
        frames.append(pd.DataFrame({"leave_out": leave_out, "conversation_id": ids, **values}))
    return pd.concat(frames, ignore_index=True)


def mc_summary(replicates: np.ndarray) -> tuple[float, float]:
    """The Monte-Carlo estimate (mean over the draws) and its standard error (sd over
    sqrt(draws); 0 when every replicate is equal, as for an exact value) of ``replicates``."""
    r = np.asarray(replicates, float)
    r = r[np.isfinite(r)]
    if len(r) == 0:
        return float("nan"), float("nan")
    se = float(r.std(ddof=1) / np.sqrt(len(r))) if len(r) > 1 else float("nan")
    return float(r.mean()), (0.0 if np.ptp(r) == 0 else se)


def curves_frame(curves: dict[str, Any]) -> pd.DataFrame:
    """The curves as one long table (level, metric, draw, logit, conversation_id, turn_number,
    value; turn_number -1 at the conversation level), for results/truth/curves.parquet."""
    parts = []
    grid = curves["grid"]
    for level, keys in (("conversation", [(c, -1) for c in curves["conversations"]]), ("turn", curves["turns"])):
        conv_ids = np.array([k[0] for k in keys], dtype=object)
        turn_nos = np.array([k[1] for k in keys], dtype=np.int64)
        for metric, arr in curves[level].items():
            d, g, n = arr.shape
            parts.append(
                pd.DataFrame(
                    {
                        "level": level,
                        "metric": metric,
                        "draw": np.repeat(np.arange(d), g * n).astype(np.int64),
                        "logit": np.tile(np.repeat(grid, n), d),
                        "conversation_id": np.tile(conv_ids, d * g),
                        "turn_number": np.tile(turn_nos, d * g),
                        "value": arr.ravel(),
                    }
                )
            )
    return pd.concat(parts, ignore_index=True)


def curves_from_frame(frame: pd.DataFrame) -> dict[str, Any]:
    """The inverse of ``curves_frame``; a table without both levels raises ValueError naming the fix."""
    if set(frame["level"]) != {"conversation", "turn"}:
        raise ValueError(
            "results/truth/curves.parquet: needs rows of level 'conversation' and 'turn'; rerun rule truth_curves"
        )
    grid = np.sort(frame["logit"].unique())
    out: dict[str, Any] = {"grid": grid, "conversation": {}, "turn": {}}
    for level in ("conversation", "turn"):
        part = frame[frame["level"] == level]
        first = part[(part["metric"] == part["metric"].iloc[0]) & (part["draw"] == 0) & (part["logit"] == grid[0])]
        keys = list(zip(first["conversation_id"].astype(str), first["turn_number"].astype(int)))
        if level == "conversation":
            out["conversations"] = [k[0] for k in keys]
        else:
            out["turns"] = keys
        draws = int(part["draw"].max()) + 1
        for metric, rows in part.groupby("metric", sort=True):
            rows = rows.sort_values(["draw", "logit"], kind="stable")
            out[level][metric] = rows["value"].to_numpy(float).reshape(draws, len(grid), len(keys))
    return out

"""Pairwise preferences per turn: pairwise accuracy and the Kendall tau of win rankings.

The EM's picks are keyed by the comparison's position in the turn's list ("0", "1", ...), as
in the public scorer. The denominator of pairwise accuracy is every comparison at the turn,
including those with a null gold winner (never matched). A turn without comparisons scores
1.0 under parity and is excluded (NaN) under strict.

Kendall tau: the labels present at the turn (alphabetical: alternate, human, original) are
ranked by wins, ties broken alphabetically, for the HP and for the EM;
tau = (concordant - discordant) / (concordant + discordant) over label pairs. Null with fewer
than two labels or no valid EM pick.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .gold import LABELS  # noqa: F401  (alphabetical: the tie-break order of the codes)
from .keys import first_value_table, lookup, mapped, take

A, B = 1, 2
_PICK = {"A": A, "B": B}
_POSITION = re.compile(r"0|[1-9][0-9]*")  # "0", "1", ... (ASCII digits, no leading zero)
_STATUS = {"ok": 1, "null": 2, "invalid": 3, "unrecognised": 4}  # 0: no pick at this position


def _position_keys(keys: pd.Series) -> np.ndarray:
    """An EM pick's key as a comparison position: "0", "1", ... exactly; -1 for any other key."""
    c, uniques = pd.factorize(keys)
    lut = np.array(
        [int(u) if isinstance(u, str) and _POSITION.fullmatch(u) else -1 for u in uniques] + [-1], dtype=np.int64
    )
    return lut[np.where(c >= 0, c, len(uniques))]


@dataclass
class PairwiseRows:
    """The gold comparisons of the scored turns with the EM's pick, and per-turn Kendall tau."""

    tid: np.ndarray  # turn id of each comparison
    winner: np.ndarray  # 1 = A, 2 = B, 0 = null
    pick: np.ndarray  # 1 = A, 2 = B, 0 = none or not A/B
    status: np.ndarray  # EM status code (0: no pick at this position)
    pick_tid_without_comparison: np.ndarray  # turn id of each EM pick keyed by no comparison
    tau: np.ndarray  # per turn; NaN when undefined


def pairwise_rows(
    gold_tid: np.ndarray,
    position: np.ndarray,
    a_idx: np.ndarray,
    b_idx: np.ndarray,
    winner: np.ndarray,
    picks: pd.DataFrame,
    pick_tid: np.ndarray,
    n: int,
) -> PairwiseRows:
    """Join every scored comparison with the EM's pick at its position; Kendall tau per turn.

    Gold comparisons come as arrays: turn id (-1: not scored), position in the turn's list,
    the two response labels (codes into LABELS) and the winner (1 = A, 2 = B, 0 = null).
    ``picks`` holds the EM's key, pick and status, with turn ids ``pick_tid``.
    """
    g = gold_tid >= 0
    tid = gold_tid[g]
    position, a_idx, b_idx, winner = position[g], a_idx[g], b_idx[g], winner[g]
    width = int(position.max(initial=0)) + 1
    p_keep = pick_tid >= 0
    p_pos = _position_keys(picks["key"])
    p_valid_key = p_keep & (p_pos >= 0) & (p_pos < width)
    packed_pick = mapped(picks["pick"], _PICK) * 8 + mapped(picks["status"], _STATUS)
    table = first_value_table(pick_tid[p_valid_key], p_pos[p_valid_key], packed_pick[p_valid_key], n, width)
    if table is not None:
        packed = table[tid, position]
    else:
        packed = take(
            packed_pick[p_valid_key],
            lookup(tid * width + position, pick_tid[p_valid_key] * width + p_pos[p_valid_key]),
            0,
        )
    pick, status = packed // 8, packed % 8
    own_key = np.where(p_valid_key, pick_tid * width + p_pos, -1)[p_keep]
    without = ~np.isin(own_key, tid * width + position)

    # Kendall tau of win rankings.
    valid_pick = pick > 0
    present = np.zeros((n, 3), dtype=bool)
    present[tid, a_idx] = True
    present[tid, b_idx] = True
    hp_wins = np.zeros((n, 3))
    won = winner > 0
    np.add.at(hp_wins, (tid[won], np.where(winner == A, a_idx, b_idx)[won]), 1)
    em_wins = np.zeros((n, 3))
    np.add.at(em_wins, (tid[valid_pick], np.where(pick == A, a_idx, b_idx)[valid_pick]), 1)
    n_em_picks = np.bincount(tid, weights=valid_pick, minlength=n)[:n]
    concordant = np.zeros(n)
    pairs = np.zeros(n)
    for i in range(3):
        for j in range(i + 1, 3):
            both = present[:, i] & present[:, j]
            hp_first = hp_wins[:, i] >= hp_wins[:, j]  # i < j alphabetically wins ties
            em_first = em_wins[:, i] >= em_wins[:, j]
            pairs += both
            concordant += both & (hp_first == em_first)
    discordant = pairs - concordant
    defined = (pairs > 0) & (n_em_picks > 0)
    tau = np.where(defined, np.divide(concordant - discordant, pairs, out=np.zeros(n), where=pairs > 0), np.nan)
    return PairwiseRows(tid, winner, pick, status, pick_tid[p_keep][without], tau)


def pairwise_scores(
    rows: PairwiseRows, n: int, rule_set: str, turns: np.ndarray, counts: Counter
) -> dict[str, np.ndarray]:
    """Per-turn pairwise accuracy and Kendall tau; ``turns`` marks the turn ids this rule set
    scores (the rule counts cover those only)."""
    tid = rows.tid
    in_set = turns[tid]
    match = (rows.pick > 0) & (rows.pick == rows.winner)
    n_comp = np.bincount(tid, minlength=n)[:n]
    n_match = np.bincount(tid, weights=match, minlength=n)[:n]
    acc = np.divide(n_match, n_comp, out=np.zeros(n), where=n_comp > 0)
    empty = n_comp == 0
    acc = np.where(empty, 1.0 if rule_set == "parity" else np.nan, acc)
    counts["pairwise_turn_without_comparisons"] += int((empty & turns).sum())
    counts["pairwise_null_gold_winner"] += int(((rows.winner == 0) & in_set).sum())
    counts["pairwise_pick_missing"] += int(((rows.status == 0) & in_set).sum())
    counts["pairwise_pick_invalid"] += int(((rows.status == 3) & in_set).sum())
    counts["pairwise_pick_unrecognised"] += int((((rows.status == 2) | (rows.status == 4)) & in_set).sum())
    counts["pairwise_pick_without_comparison"] += int(turns[rows.pick_tid_without_comparison].sum())
    counts["kendall_tau_undefined"] += int((np.isnan(rows.tau) & turns).sum())
    return {"pairwise_acc": acc, "kendall_tau": rows.tau}

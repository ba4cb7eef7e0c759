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

from collections import Counter

import numpy as np
import pandas as pd

from .keys import lookup, mapped, take

LABELS = ("alternate", "human", "original")  # alphabetical: the tie-break order
_LABEL = {label: i for i, label in enumerate(LABELS)}
A, B = 1, 2
_PICK = {"A": A, "B": B}
_STATUS = {"ok": 1, "null": 2, "invalid": 3, "unrecognised": 4}  # 0: no pick at this position


def _position_keys(keys: pd.Series) -> np.ndarray:
    """An EM pick's key as a comparison position: "0", "1", ... exactly; -1 for any other key."""
    c, uniques = pd.factorize(keys)
    lut = np.array([int(u) if isinstance(u, str) and u.isdigit() and str(int(u)) == u else -1 for u in uniques] + [-1],
                   dtype=np.int64)
    return lut[np.where(c >= 0, c, len(uniques))]


def pairwise_scores(
    gold: pd.DataFrame, gold_tid: np.ndarray, picks: pd.DataFrame, pick_tid: np.ndarray,
    n: int, rule_set: str, counts: Counter,
) -> dict[str, np.ndarray]:
    """Per-turn pairwise accuracy and Kendall tau.

    ``gold``: position, response_a, response_b, winner. ``picks``: key, pick, status.
    """
    g = gold_tid >= 0
    tid = gold_tid[g]
    position = gold["position"].to_numpy(np.int64)[g]
    width = int(position.max(initial=0)) + 1
    p_keep = pick_tid >= 0
    p_pos = _position_keys(picks["key"])
    p_valid_key = p_keep & (p_pos >= 0) & (p_pos < width)
    p_key = np.where(p_valid_key, pick_tid * width + p_pos, -1)
    row = lookup(tid * width + position, p_key[p_valid_key])
    pick = take(mapped(picks["pick"], _PICK)[p_valid_key], row, 0)
    status = take(mapped(picks["status"], _STATUS)[p_valid_key], row, 0)
    winner = mapped(gold["winner"], _PICK)[g]

    valid_pick = pick > 0
    match = valid_pick & (pick == winner)
    n_comp = np.bincount(tid, minlength=n)[:n]
    n_match = np.bincount(tid, weights=match, minlength=n)[:n]
    acc = np.divide(n_match, n_comp, out=np.zeros(n), where=n_comp > 0)
    empty = n_comp == 0
    acc = np.where(empty, 1.0 if rule_set == "parity" else np.nan, acc)

    counts["pairwise_turn_without_comparisons"] += int(empty.sum())
    counts["pairwise_null_gold_winner"] += int((winner == 0).sum())
    counts["pairwise_pick_missing"] += int((status == 0).sum())
    counts["pairwise_pick_invalid"] += int((status == 3).sum())
    counts["pairwise_pick_unrecognised"] += int(((status == 2) | (status == 4)).sum())
    counts["pairwise_pick_without_comparison"] += int((~np.isin(p_key[p_keep], tid * width + position)).sum())

    # Kendall tau of win rankings.
    a_idx = mapped(gold["response_a"], _LABEL, -1)[g]
    b_idx = mapped(gold["response_b"], _LABEL, -1)[g]
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
    counts["kendall_tau_undefined"] += int((~defined).sum())
    return {"pairwise_acc": acc, "kendall_tau": tau}

"""Emotion tracking per turn: emotion F1 (and its intensity variant) and emotion VA (and its
intensity variant), vectorised over every scored turn of a model.

Tags arrive as ``Tags``: parallel arrays of turn id, word code (into a shared vocabulary),
intensity (NaN when missing), sorted by turn and tag order. F1 compares sets (duplicates
collapse; a duplicated word keeps its last intensity under parity, as the public scorer's map,
and its first under strict); VA compares the lists as given. A word outside the PANAS table has
similarity 0 to everything; parity rounds the similarity table to 4 decimals (D3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .keys import codes, unique_first
from .labels import assignment_table, greedy_match_sum, optimal_match_sum, va_similarity_table

EMOTION_COLUMNS = ("emotion_f1", "emotion_f1_intensity", "emotion_va", "emotion_va_intensity")


@dataclass
class Tags:
    tid: np.ndarray  # int64, sorted ascending
    word: np.ndarray  # int64 code into the vocabulary
    intensity: np.ndarray  # float, NaN when missing

    @classmethod
    def build(cls, tid: np.ndarray, word: np.ndarray, intensity: np.ndarray, tag_index: np.ndarray) -> "Tags":
        """Tags of the scored turns (``tid`` >= 0), in turn then tag order."""
        keep = tid >= 0
        order = np.lexsort((tag_index[keep], tid[keep]))
        return cls(tid[keep][order], word[keep][order], intensity[keep][order])

    @classmethod
    def from_table(cls, df: pd.DataFrame, tid: np.ndarray, vocab: pd.Index) -> "Tags":
        """Tags of a tidy tag table whose rows have turn ids ``tid``; words coded in ``vocab``."""
        return cls.build(
            tid,
            codes(df["emotion"], vocab),
            df["intensity"].to_numpy(float, na_value=np.nan),
            df["tag_index"].to_numpy(np.int64),
        )


def _unique(keys: np.ndarray, last: bool) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct keys and the row of each one's first (or last) occurrence."""
    if not last:
        return unique_first(keys)
    k, first_of_reversed = unique_first(keys[::-1])
    return k, len(keys) - 1 - first_of_reversed


def set_f1_scores(
    gold: Tags, pred: Tags, n: int, n_words: int, last_intensity: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Per-turn emotion F1 and F1 x intensity agreement (arrays of length n); a word listed twice
    keeps its first intensity, or its last with ``last_intensity``."""
    g_key, g_first = _unique(gold.tid * n_words + gold.word, last_intensity)
    p_key, p_first = _unique(pred.tid * n_words + pred.word, last_intensity)
    n_g = np.bincount(g_key // max(n_words, 1), minlength=n)[:n]
    n_p = np.bincount(p_key // max(n_words, 1), minlength=n)[:n]
    both, gi, pi = np.intersect1d(g_key, p_key, assume_unique=True, return_indices=True)
    both_tid = both // max(n_words, 1)
    n_i = np.bincount(both_tid, minlength=n)[:n]
    total = n_g + n_p
    f1 = np.where(total == 0, 1.0, 2.0 * n_i / np.maximum(total, 1))

    ig = gold.intensity[g_first][gi]
    ip = pred.intensity[p_first][pi]
    has = ~np.isnan(ig) & ~np.isnan(ip)
    agree = 1.0 - np.abs(ig[has] - ip[has]) / 6.0
    k = np.bincount(both_tid[has], minlength=n)[:n]
    mean_agree = np.divide(np.bincount(both_tid[has], weights=agree, minlength=n)[:n], k, out=np.zeros(n), where=k > 0)
    # 0 without a matched label having both intensities; both sets empty 1, as F1 (the public rule).
    f1_int = np.where(total == 0, 1.0, np.where(k > 0, f1 * mean_agree, 0.0))
    return f1, f1_int


def _positions(tid: np.ndarray) -> np.ndarray:
    """0-based position of each row within its turn (rows sorted by turn)."""
    return np.arange(len(tid)) - np.searchsorted(tid, tid, side="left")


def _dense(tags: Tags, pos: np.ndarray, tids: np.ndarray, width: int) -> dict[str, np.ndarray]:
    """Dense [len(tids), width] arrays of word code and intensity."""
    sel = np.isin(tags.tid, tids)
    row = np.searchsorted(tids, tags.tid[sel])
    col = pos[sel]
    out = {"word": np.zeros((len(tids), width), dtype=np.int64), "intensity": np.full((len(tids), width), np.nan)}
    out["word"][row, col] = tags.word[sel]
    out["intensity"][row, col] = tags.intensity[sel]
    return out


def _similarities(
    g: dict[str, np.ndarray], p: dict[str, np.ndarray], table: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    label = table[g["word"][:, :, None], p["word"][:, None, :]]
    gi, pi = g["intensity"][:, :, None], p["intensity"][:, None, :]
    both = ~np.isnan(gi) & ~np.isnan(pi)
    intensity = np.where(both, 1.0 - np.abs(np.nan_to_num(gi) - np.nan_to_num(pi)) / 6.0, 0.0)
    return label, 0.7 * label + 0.3 * intensity


def _best_sums(sim: np.ndarray, matching: str) -> np.ndarray:
    """Best one-to-one total similarity for each matrix of a batch [B, a, b]."""
    _, a, b = sim.shape
    if matching == "greedy":
        return np.array([greedy_match_sum(m) for m in sim])
    maps = assignment_table(a, b)
    if maps is None:  # too many maps to enumerate: scipy's Hungarian solver, one turn at a time
        return np.array([optimal_match_sum(m) for m in sim])
    if a > b:
        sim = sim.transpose(0, 2, 1)
        a = b
    totals = sim[:, np.arange(a)[None, :], maps].sum(axis=-1)  # [B, n_maps]
    return totals.max(axis=1)


def va_scores(
    gold: Tags, pred: Tags, n: int, vocab: pd.Index, matching: str = "optimal", rounding: str | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Per-turn emotion VA and its intensity variant (arrays of length n).

    ``matching`` is 'optimal' (a maximum-similarity one-to-one assignment, as the official
    scorer) or 'greedy' (the public port's greedy pass in ascending cost); ``rounding`` of the
    label similarity table: None, 'python' or 'js' (4 decimals, ``labels.va_similarity_table``).
    """
    table = va_similarity_table(vocab, rounding)
    n_g = np.bincount(gold.tid, minlength=n)[:n]
    n_p = np.bincount(pred.tid, minlength=n)[:n]
    va = np.where((n_g == 0) & (n_p == 0), 1.0, 0.0)
    va_int = va.copy()
    g_pos, p_pos = _positions(gold.tid), _positions(pred.tid)
    both = np.flatnonzero((n_g > 0) & (n_p > 0))
    shapes = np.stack([n_g[both], n_p[both]], axis=1)
    for a, b in np.unique(shapes, axis=0) if len(both) else []:
        a, b = int(a), int(b)
        tids = both[(shapes[:, 0] == a) & (shapes[:, 1] == b)]
        label, combined = _similarities(_dense(gold, g_pos, tids, a), _dense(pred, p_pos, tids, b), table)
        va[tids] = _best_sums(label, matching) / max(a, b)
        va_int[tids] = _best_sums(combined, matching) / max(a, b)
    return va, va_int


def emotion_scores(
    gold: Tags,
    pred: Tags,
    n: int,
    vocab: pd.Index,
    matching: str = "optimal",
    rounding: str | None = None,
    last_intensity: bool = False,
) -> dict[str, np.ndarray]:
    """All four emotion metrics per turn, keyed by metric name."""
    f1, f1_int = set_f1_scores(gold, pred, n, len(vocab), last_intensity)
    va, va_int = va_scores(gold, pred, n, vocab, matching, rounding)
    return {"emotion_f1": f1, "emotion_f1_intensity": f1_int, "emotion_va": va, "emotion_va_intensity": va_int}

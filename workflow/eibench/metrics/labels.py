"""Pure label-matching functions used by the scorers.

All functions take plain Python values. Edge cases follow the public scorer (docs/metrics.md,
'Parity details').
"""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import permutations
from typing import Sequence

import numpy as np

from .. import instrument

SQRT2 = math.sqrt(2.0)
#: Above this many injective assignments, enumeration gives way to scipy's Hungarian solver.
MAX_ENUMERATED_ASSIGNMENTS = 720


def set_f1(gold: set[str], pred: set[str]) -> float:
    """F1 of two sets; 1.0 when both are empty, 0.0 when exactly one is."""
    if not gold and not pred:
        return 1.0
    if not gold or not pred:
        return 0.0
    return 2.0 * len(gold & pred) / (len(gold) + len(pred))


def va_point(word: str) -> tuple[float, float] | None:
    """(valence, arousal) of a lower-cased PANAS word, None outside the table."""
    item = instrument.panas_by_word().get(word)
    return None if item is None else (item.valence, item.arousal)


def va_similarity_matrix(gold: Sequence[str], pred: Sequence[str]) -> np.ndarray:
    """sim[i, j] = 1 - euclidean distance / sqrt(2); 0 when either word is outside the table."""
    sim = np.zeros((len(gold), len(pred)))
    for i, g in enumerate(gold):
        pg = va_point(g)
        for j, p in enumerate(pred):
            pp = va_point(p)
            if pg is not None and pp is not None:
                sim[i, j] = 1.0 - math.hypot(pg[0] - pp[0], pg[1] - pp[1]) / SQRT2
    return sim


def _round_similarity(x: float, rounding: str | None) -> float:
    if rounding is None:
        return x
    if rounding == "python":
        return round(x, 4)
    if rounding == "js":
        from .rules import js_round  # Math.round(x * 10000) / 10000, as the port's constants.ts

        return js_round(x * 10000) / 10000
    raise ValueError(f"VA similarity rounding must be None, 'python' or 'js', got {rounding!r}")


def va_similarity_table(vocab: Sequence[str], rounding: str | None = None) -> np.ndarray:
    """[len(vocab)]^2 label similarities of lower-cased words: 1 - VA distance / sqrt(2), 0 when
    either word is outside the PANAS table; ``rounding`` 'python' (round(x, 4), the Python
    scorer's table) or 'js' (the port's Math.round to 4 decimals), None exact."""
    items = instrument.panas_by_word()
    val = np.array([items[w].valence if w in items else 0.0 for w in vocab], dtype=float)
    aro = np.array([items[w].arousal if w in items else 0.0 for w in vocab], dtype=float)
    known = np.array([1.0 if w in items else 0.0 for w in vocab], dtype=float)
    if rounding is None:
        return (
            (1.0 - np.hypot(val[:, None] - val[None, :], aro[:, None] - aro[None, :]) / SQRT2) * known[:, None] * known
        )
    table = np.zeros((len(vocab), len(vocab)))
    for i, j in zip(*np.nonzero(known[:, None] * known)):
        dv, da = val[i] - val[j], aro[i] - aro[j]
        table[i, j] = _round_similarity(1.0 - math.sqrt(dv * dv + da * da) / SQRT2, rounding)
    return table


def intensity_similarity(gold: int | None, pred: int | None) -> float:
    """1 - |difference| / 6; 0 when either intensity is missing."""
    if gold is None or pred is None:
        return 0.0
    return 1.0 - abs(gold - pred) / 6.0


def optimal_match_sum(sim: np.ndarray) -> float:
    """Largest total similarity of a one-to-one match (min(rows, cols) pairs)."""
    if sim.size == 0:
        return 0.0
    from scipy.optimize import linear_sum_assignment  # imported here: rarely needed, slow to import

    rows, cols = linear_sum_assignment(sim, maximize=True)
    return float(sim[rows, cols].sum())


def greedy_match_sum(sim: np.ndarray) -> float:
    """Total similarity of the public port's greedy match: pairs in ascending cost
    (1 - similarity), ties in row-major order, each row and column used once."""
    if sim.size == 0:
        return 0.0
    order = np.argsort((1.0 - sim).ravel(), kind="stable")
    used_r: set[int] = set()
    used_c: set[int] = set()
    total = 0.0
    n_cols = sim.shape[1]
    for flat in order:
        r, c = divmod(int(flat), n_cols)
        if r in used_r or c in used_c:
            continue
        used_r.add(r)
        used_c.add(c)
        total += float(sim[r, c])
        if len(used_r) == min(sim.shape):
            break
    return total


def assignment_table(n_rows: int, n_cols: int) -> np.ndarray | None:
    """All injective maps of the smaller side into the larger, as index arrays
    (shape [n_maps, min(n_rows, n_cols)]), or None when there are too many to enumerate."""
    small, large = sorted((n_rows, n_cols))
    count = math.perm(large, small)
    if count > MAX_ENUMERATED_ASSIGNMENTS:
        return None
    return np.array(list(permutations(range(large), small)), dtype=np.intp).reshape(count, small)


@lru_cache(maxsize=65536)
def tokens(text: str) -> frozenset[str]:
    """The set of lower-cased whitespace tokens of ``text`` (cached: replies repeat)."""
    return frozenset(text.lower().split())


def token_jaccard(a: str, b: str) -> float:
    """Jaccard similarity of the lower-cased whitespace tokens of two strings, in [0, 1]; two
    strings without tokens have equal (empty) token sets: 1, as the public scorer."""
    ta, tb = tokens(a), tokens(b)
    if not ta and not tb:
        return 1.0
    return len(ta & tb) / len(ta | tb)


def fuzzy_f1(gold: Sequence[str], pred: Sequence[str], threshold: float = 0.3, as_lists: bool = False) -> float:
    """Fuzzy set F1 of free-text lists (as sets of trimmed, lower-cased, non-empty items): an item earns 1 for an exact
    match, else its best token-Jaccard with the other side if >= threshold, else 0.
    Both empty 1, one empty 0; 0 when precision + recall is 0. With ``as_lists`` (the public
    scorer, D20) the items are the lists as given, trimmed and lower-cased: duplicates and ''
    count."""
    if as_lists:
        g = [x.strip().lower() for x in gold]
        p = [x.strip().lower() for x in pred]
    else:
        g = list(dict.fromkeys(x.strip().lower() for x in gold if x.strip()))
        p = list(dict.fromkeys(x.strip().lower() for x in pred if x.strip()))
    if not g and not p:
        return 1.0
    if not g or not p:
        return 0.0

    def credit(item: str, other: list[str]) -> float:
        if item in other:
            return 1.0
        best = max(token_jaccard(item, o) for o in other)
        return best if best >= threshold else 0.0

    precision = sum(credit(x, g) for x in p) / len(p)
    recall = sum(credit(x, p) for x in g) / len(g)
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)

"""Integer keys for the scorer: strings become codes once, joins become sorted-array lookups.

The tidy tables key rows by strings (conversation id, question id, emotion word). The scorer
turns them into integer codes with ``pandas.factorize`` (fast on Arrow strings) and joins with
``numpy.searchsorted``, so scoring a model costs a few passes over arrays, not a Python loop per
turn.
"""

from __future__ import annotations

from typing import Iterable, Mapping

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc


def arrow(values: pd.Series) -> pa.Array | pa.ChunkedArray:
    """The column as Arrow data (no copy for Arrow-backed columns)."""
    try:
        return pa.array(values.array)
    except (TypeError, pa.ArrowInvalid):
        return pa.array(values.to_numpy(object, na_value=None), from_pandas=True)


def _positions(values: pd.Series, keys: list) -> np.ndarray:
    """Position of each value in ``keys`` (Arrow's hash lookup); -1 where absent or missing."""
    arr = arrow(values)
    if len(arr) == 0 or not keys:
        return np.full(len(arr), -1, dtype=np.int64)
    value_set = pa.array(keys, type=arr.type) if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type) else pa.array(keys)
    found = pc.index_in(arr, value_set=value_set)
    return pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)


def codes(values: pd.Series, index: pd.Index) -> np.ndarray:
    """Position of each value in ``index``; -1 where absent or missing."""
    return _positions(values, list(index))


def mapped(values: pd.Series, mapping: Mapping[str, int], default: int = 0) -> np.ndarray:
    """``mapping[value]`` for each value; ``default`` for missing or unmapped values."""
    keys = list(mapping)
    lut = np.array([mapping[k] for k in keys] + [default], dtype=np.int64)
    pos = _positions(values, keys)
    return lut[np.where(pos >= 0, pos, len(keys))]


def vocabulary(*columns: pd.Series) -> pd.Index:
    """The distinct non-missing values of several columns, sorted."""
    seen: set = set()
    for col in columns:
        if len(col):
            seen.update(v for v in pc.unique(arrow(col)).to_pylist() if v is not None)
    return pd.Index(sorted(seen), dtype=object)


def lookup(keys: np.ndarray, table_keys: np.ndarray) -> np.ndarray:
    """Row of the first ``table_keys`` entry equal to each key; -1 where there is none."""
    if len(table_keys) == 0:
        return np.full(len(keys), -1, dtype=np.int64)
    order = np.argsort(table_keys, kind="stable")
    sorted_keys = table_keys[order]
    pos = np.searchsorted(sorted_keys, keys, side="left")
    pos_c = np.minimum(pos, len(sorted_keys) - 1)
    found = (pos < len(sorted_keys)) & (sorted_keys[pos_c] == keys)
    return np.where(found, order[pos_c], -1)


def unique_first(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct keys and the row of each one's first occurrence.

    Sort-based: ``np.unique`` on large integer arrays is several times slower here.
    """
    order = np.argsort(keys, kind="stable")
    s = keys[order]
    first = np.ones(len(s), dtype=bool)
    first[1:] = s[1:] != s[:-1]
    return s[first], order[first]


def unique_sorted(keys: np.ndarray) -> np.ndarray:
    """Sorted distinct keys."""
    s = np.sort(keys)
    keep = np.ones(len(s), dtype=bool)
    keep[1:] = s[1:] != s[:-1]
    return s[keep]


def take(values: np.ndarray, row: np.ndarray, fill: object) -> np.ndarray:
    """``values[row]`` where row >= 0, ``fill`` elsewhere (safe when ``values`` is empty)."""
    out = np.full(len(row), fill, dtype=object if fill is None else np.asarray(values).dtype)
    ok = row >= 0
    out[ok] = values[row[ok]]
    return out


def group_sum(group: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    return np.bincount(group, weights=values, minlength=n)[:n].astype(float)


def group_nanmean(group: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Mean per group skipping NaN; NaN for a group without a value."""
    ok = ~np.isnan(values)
    s = np.bincount(group[ok], weights=values[ok], minlength=n)[:n]
    k = np.bincount(group[ok], minlength=n)[:n]
    return np.divide(s, k, out=np.full(n, np.nan), where=k > 0)


class TurnIndex:
    """The scored turns of one model, each with a dense id ``tid`` (0..n-1).

    ``conversations``: the scored conversation ids (sorted); ``frame``: one row per scored turn
    (conversation_id, turn_number, rel_position, present, conv) sorted by conversation and turn.
    ``tid(df)`` maps any table with conversation_id and turn_number to tids (-1 if not scored).
    """

    def __init__(self, gold_turns: pd.DataFrame, em_turns: pd.DataFrame, scored: Iterable[str], keep_missing: bool):
        self.conversations = pd.Index(sorted(set(scored)), dtype=object)
        g_conv = codes(gold_turns["conversation_id"], self.conversations)
        g_turn = gold_turns["turn_number"].to_numpy(np.int64)
        e_conv = codes(em_turns["conversation_id"], self.conversations)
        e_turn = em_turns["turn_number"].to_numpy(np.int64)
        self.width = int(max(g_turn.max(initial=0), e_turn.max(initial=0))) + 1
        g_key = g_conv * self.width + g_turn
        e_key = unique_sorted(e_conv[e_conv >= 0] * self.width + e_turn[e_conv >= 0])
        in_scored = g_conv >= 0
        present = np.isin(g_key, e_key)
        self.turns_missing = int((in_scored & ~present).sum())
        self.em_turns_not_in_gold = int((~np.isin(e_key, g_key[in_scored])).sum())
        keep = in_scored & (present | keep_missing)
        order = np.argsort(g_key[keep], kind="stable")
        rows = np.flatnonzero(keep)[order]
        self.keys = g_key[rows]
        self.rows = rows  # rows of gold_turns, in tid order
        self.n = len(rows)
        self.conv = g_conv[rows]
        self.present = present[rows]

    def tid(self, df: pd.DataFrame) -> np.ndarray:
        if self.n == 0:
            return np.full(len(df), -1, dtype=np.int64)
        conv = codes(df["conversation_id"], self.conversations)
        key = np.where(conv >= 0, conv * self.width + df["turn_number"].to_numpy(np.int64), -1)
        pos = np.minimum(np.searchsorted(self.keys, key), self.n - 1)
        return np.where((self.keys[pos] == key) & (key >= 0), pos, -1)

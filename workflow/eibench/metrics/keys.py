"""Integer keys for the scorer: strings become codes once, joins become sorted-array lookups.

The tidy tables key rows by strings (conversation id, question id, emotion word). The scorer
turns them into integer codes with ``pandas.factorize`` (fast on Arrow strings) and joins with
``numpy.searchsorted``, so scoring a model costs a few passes over arrays, not a Python loop per
turn.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from typing import Hashable, Mapping

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc


def arrow(values: pd.Series) -> pa.Array:
    """The column as one Arrow array (no copy for Arrow-backed columns)."""
    try:
        arr = pa.array(values.array)
    except (TypeError, pa.ArrowInvalid):
        arr = pa.array(values.to_numpy(object, na_value=None), from_pandas=True)
    return arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr


#: Positions of a categorical column's categories among some keys, by (categories, keys): one
#: model's table column is looked up again and again (per rule set, per metric), and its
#: categories are one immutable Index object for as long as the column lives. Entries hold
#: the objects they are keyed by (so an id is never reused while its entry exists); the
#: oldest entries go first beyond ``_CACHE_SIZE``.
_CATEGORY_POSITIONS: OrderedDict[tuple[int, Hashable], tuple[pd.Index, object, np.ndarray]] = OrderedDict()
_CACHE_SIZE = 256


def _category_positions(categories: pd.Index, owner: object, key: Hashable, keys: list) -> np.ndarray:
    """``_positions`` of ``categories`` among ``keys``, remembered under (categories, ``key``);
    ``owner`` is the object ``keys`` come from (kept alive with the entry)."""
    entry = _CATEGORY_POSITIONS.get((id(categories), key))
    if entry is not None and entry[0] is categories and entry[1] is owner:
        _CATEGORY_POSITIONS.move_to_end((id(categories), key))
        return entry[2]
    found = _small_positions(categories, keys, owner, key)
    if found is None:
        found = _positions(pd.Series(categories, dtype=object), keys)
    found.setflags(write=False)  # shared by every later lookup
    _CATEGORY_POSITIONS[(id(categories), key)] = (categories, owner, found)
    if len(_CATEGORY_POSITIONS) > _CACHE_SIZE:
        _CATEGORY_POSITIONS.popitem(last=False)
    return found


#: Categories up to this many are looked up in a dictionary of the keys, not by Arrow: a call
#: of ``pyarrow.compute.index_in`` costs about 0.2 ms whatever its size, and scoring one model
#: looks up a few dozen small category sets (conversation ids, question ids, words).
_SMALL = 4096
#: The keys as a dictionary (key -> its first position), by ``key`` as in ``_CATEGORY_POSITIONS``.
_KEY_POSITIONS: OrderedDict[Hashable, tuple[object, dict[str, int] | None]] = OrderedDict()


def _small_positions(categories: pd.Index, keys: list, owner: object, key: Hashable) -> np.ndarray | None:
    """``_positions`` of a few string ``categories`` among string ``keys`` through a dictionary
    of the keys (remembered under ``key``); None when there are many categories or a value that
    is not a string (the caller then asks Arrow, whose matching is typed)."""
    if len(categories) > _SMALL:
        return None
    values = categories.tolist()  # one conversion (iterating an Arrow-backed index is per item)
    if not all(type(c) is str for c in values):
        return None
    entry = _KEY_POSITIONS.get(key)
    if entry is not None and entry[0] is owner:
        _KEY_POSITIONS.move_to_end(key)
        where = entry[1]
    else:
        where = {}
        for i, k in enumerate(keys):
            if type(k) is not str:
                where = None
                break
            where.setdefault(k, i)  # the first position, as Arrow's index_in gives it
        _KEY_POSITIONS[key] = (owner, where)
        if len(_KEY_POSITIONS) > _CACHE_SIZE:
            _KEY_POSITIONS.popitem(last=False)
    if where is None:
        return None
    return np.fromiter(map(where.get, values, itertools.repeat(-1)), dtype=np.int64, count=len(values))


def _positions(values: pd.Series, keys: list, owner: object = None, key: Hashable = None) -> np.ndarray:
    """Position of each value in ``keys`` (Arrow's hash lookup); -1 where absent or missing.
    A categorical column looks up its categories once per (categories, ``key``) when ``key``
    (a hashable name of ``keys``, with ``owner`` the object they come from) is given."""
    if isinstance(values.dtype, pd.CategoricalDtype):  # look up the categories, then take by code
        categories = values.cat.categories
        if key is None:
            per_category = _positions(pd.Series(categories, dtype=object), keys)
        else:
            per_category = _category_positions(categories, owner, key, keys)
        c = values.cat.codes.to_numpy(np.int64)
        return np.where(c >= 0, per_category[np.maximum(c, 0)] if len(per_category) else -1, -1)
    arr = arrow(values)
    if len(arr) == 0 or not keys:
        return np.full(len(arr), -1, dtype=np.int64)
    value_set = (
        pa.array(keys, type=arr.type)
        if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)
        else pa.array(keys)
    )
    found = pc.index_in(arr, value_set=value_set)
    return pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)


def codes(values: pd.Series, index: pd.Index) -> np.ndarray:
    """Position of each value in ``index``; -1 where absent or missing."""
    return _positions(values, list(index), index, ("index", id(index)))


def mapped(values: pd.Series, mapping: Mapping[str, int], default: int = 0) -> np.ndarray:
    """``mapping[value]`` for each value; ``default`` for missing or unmapped values."""
    keys = list(mapping)
    lut = np.array([mapping[k] for k in keys] + [default], dtype=np.int64)
    pos = _positions(values, keys, None, ("keys", tuple(keys)))
    return lut[np.where(pos >= 0, pos, len(keys))]


def vocabulary(*columns: pd.Series) -> pd.Index:
    """The distinct non-missing values of several columns, sorted."""
    seen: set = set()
    for col in columns:
        if not len(col):
            continue
        if isinstance(col.dtype, pd.CategoricalDtype):
            used = np.unique(col.cat.codes.to_numpy())
            seen.update(col.cat.categories[used[used >= 0]])
        else:
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


def first_value_table(
    row: np.ndarray, col: np.ndarray, values: np.ndarray, n_rows: int, n_cols: int, fill: int = 0
) -> np.ndarray | None:
    """A dense [n_rows, n_cols] table of ``values`` at (row, col), the first occurrence winning;
    None when the table would be too large (then use ``lookup``). Rows with row or col < 0 are
    ignored."""
    if n_rows * n_cols > 64_000_000:
        return None
    table = np.full((n_rows, n_cols), fill, dtype=np.int64)
    ok = np.flatnonzero((row >= 0) & (col >= 0))[::-1]  # reversed: the first occurrence is written last
    table[row[ok], col[ok]] = values[ok]
    return table


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

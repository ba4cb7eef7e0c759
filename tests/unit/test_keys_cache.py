"""``metrics.keys.codes`` and ``mapped`` of a categorical column remember the positions of its
categories: a remembered lookup gives what a fresh one gives, whatever was looked up between."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
from eibench.metrics import keys
from eibench.metrics.keys import codes, mapped


def _fresh_codes(values: pd.Series, index: pd.Index) -> np.ndarray:
    """The position of each value, one dictionary lookup at a time."""
    where = {k: i for i, k in reversed(list(enumerate(index)))}
    return np.array([-1 if v is None or v is pd.NA else where.get(v, -1) for v in values.astype(object)])


def test_remembered_positions_are_the_fresh_ones():
    rng = random.Random(3)
    words = [f"w{i}" for i in range(30)]
    indices = [pd.Index(sorted(rng.sample(words, 10)), dtype=object) for _ in range(5)]
    columns = [
        pd.Series(pd.Categorical([rng.choice([*words, None]) for _ in range(50)]), dtype="category") for _ in range(8)
    ]
    for _ in range(3):  # again and again, interleaved: every answer is the fresh one
        for col in columns:
            for index in indices:
                got = codes(col, index)
                assert got.tolist() == _fresh_codes(col, index).tolist()
                got[:] = 0  # the caller's array is its own
    mapping = {"w1": 5, "w2": 7}
    for col in columns:
        expected = [mapping.get(v, 0) if v is not None and v is not pd.NA else 0 for v in col.astype(object)]
        assert mapped(col, mapping).tolist() == expected
        assert mapped(col, {"w2": 1, "w1": 2}, -1).tolist() == [
            {"w2": 1, "w1": 2}.get(v, -1) if isinstance(v, str) else -1 for v in col.astype(object)
        ]


def test_the_memory_is_bounded_and_stays_right_past_its_size():
    index = pd.Index(["a", "b", "c"], dtype=object)
    columns = [pd.Series(pd.Categorical(["c", "a", None, f"x{i}"])) for i in range(keys._CACHE_SIZE + 20)]
    for col in columns:
        assert codes(col, index).tolist() == [2, 0, -1, -1]
    assert len(keys._CATEGORY_POSITIONS) <= keys._CACHE_SIZE
    assert codes(columns[0], index).tolist() == [2, 0, -1, -1]  # evicted, looked up again


def test_the_dictionary_lookup_of_small_categories_is_arrows(monkeypatch):
    """Small string categories are looked up in a dictionary of the keys, others by Arrow
    (``_positions`` without a cache key): the same positions, the first of a repeated key."""
    rng = random.Random(5)
    words = [f"w{i}" for i in range(40)]
    for small in (keys._SMALL, 3):  # the dictionary path, then Arrow's for every column
        monkeypatch.setattr(keys, "_SMALL", small)
        for trial in range(20):
            index = pd.Index([rng.choice(words) for _ in range(15)], dtype=object)  # repeats
            col = pd.Series(pd.Categorical([rng.choice([*words, None]) for _ in range(60)]))
            if trial % 2:
                col = col.astype(pd.CategoricalDtype(col.cat.categories.astype("string")))
            assert codes(col, index).tolist() == keys._positions(col, list(index)).tolist()
            assert codes(col, index).tolist() == _fresh_codes(col, index).tolist()

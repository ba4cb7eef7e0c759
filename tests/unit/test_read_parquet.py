"""``tables.read_parquet`` with a spec reads a table as pandas' reader and ``TableSpec.coerce``
read it: Arrow's direct conversion (plain column types) and the row of casts agree exactly."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from eibench.tables import TableSpec, read_parquet, write_parquet

SPEC = TableSpec("t", (("s", "string"), ("i", "Int64"), ("f", "Float64"), ("b", "boolean"), ("c", "category")))
PLAIN = TableSpec("p", SPEC.columns[:4])


def _frame(n_missing: int) -> pd.DataFrame:
    rows = [("a", 1, 0.5, True, "x"), ("é", 2**52 + 1, -0.0, False, "y"), (None, None, None, None, None)]
    return SPEC.frame(rows[: 3 - n_missing] + rows[2:] * n_missing)


@pytest.mark.parametrize("spec", [SPEC, PLAIN])
@pytest.mark.parametrize("n_missing", [0, 1, 3])
def test_read_parquet_is_the_coerced_pandas_read(tmp_path, spec, n_missing):
    path = tmp_path / "t.parquet"
    df = _frame(n_missing)[spec.column_names]
    write_parquet(df, path, spec)
    got = read_parquet(path, spec)
    pd.testing.assert_frame_equal(got, spec.coerce(pd.read_parquet(path)), check_exact=True)
    if spec is PLAIN:  # (pandas' reader gives an all-missing categorical object categories)
        pd.testing.assert_frame_equal(got, df, check_exact=True)


def test_an_integer_beyond_float_precision_is_read_exactly(tmp_path):
    path = tmp_path / "t.parquet"
    write_parquet(PLAIN.frame([("a", 2**60 + 1, 1.0, True), (None, None, None, None)]), path)
    # Arrow's conversion keeps it; pandas' reader (an integer column with a null read as floats) did not.
    assert read_parquet(path, PLAIN)["i"][0] == 2**60 + 1


def test_a_nan_float_is_read_as_missing_as_the_cast_reads_it(tmp_path):
    path = tmp_path / "t.parquet"
    raw = pd.DataFrame({"s": ["a", "b"], "i": [1, 2], "f": [np.nan, 1.5], "b": [True, False]})
    write_parquet(raw, path)  # a float64 column holding a NaN value (not a null)
    got = read_parquet(path, PLAIN)
    assert got["f"].isna().tolist() == [True, False]
    pd.testing.assert_frame_equal(got, PLAIN.coerce(pd.read_parquet(path)), check_exact=True)


def test_a_column_of_another_type_takes_the_pandas_path(tmp_path):
    path = tmp_path / "t.parquet"
    write_parquet(pd.DataFrame({"s": [1, 2], "i": [1, 2], "f": [1.0, 2.0], "b": [True, None]}), path)
    got = read_parquet(path, PLAIN)  # 's' is int64 on disk, declared string
    assert got["s"].tolist() == ["1", "2"]
    pd.testing.assert_frame_equal(got, PLAIN.coerce(pd.read_parquet(path)), check_exact=True)

"""The column-wise tables are the tables built one row at a time: ``tables.categorical`` gives
the categorical ``TableSpec.coerce`` makes, and ``em_tables``' answer and pick tables are the
tables built from one tuple per row."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest
from eibench.release.read import list_json_files, read_em_outputs
from eibench.release.schema import EMOutputFile
from eibench.release.tidy import EM_TABLES, _answer_status, _keyed_frame, _pick_status, em_tables
from eibench.tables import TableSpec, categorical

from ..conftest import RELEASE

SPEC = TableSpec("t", (("c", "category"),))


def _coerced(values: list) -> pd.Series:
    return SPEC.coerce(pd.DataFrame({"c": pd.Series(values, dtype=object)}))["c"]


@pytest.mark.parametrize(
    "values",
    [
        ["b", "a", None, "b", "é", "Z", ""],
        [None, None],
        ["only"],
        ["B10", "B2", "B1", "b1"],
    ],
)
def test_categorical_is_the_coerced_column(values):
    expected = _coerced(values)
    got = pd.Series(categorical(values), name="c")
    assert got.dtype == expected.dtype
    assert got.cat.codes.dtype == expected.cat.codes.dtype
    pd.testing.assert_series_equal(got, expected)


def test_categorical_with_repeats_is_the_repeated_column():
    values, repeats = ["x", None, "a", "gone", "x"], [2, 1, 3, 0, 1]
    expected = _coerced([v for v, n in zip(values, repeats) for _ in range(n)])
    got = pd.Series(categorical(values, repeats), name="c")
    pd.testing.assert_series_equal(got, expected)
    assert "gone" not in got.cat.categories  # a value of no row is no category
    with pytest.raises(ValueError, match="3 values but 2 repeat counts"):
        categorical(["a", "b", "c"], [1, 2])


def _row_built(tables: dict[str, pd.DataFrame], name: str) -> pd.DataFrame:
    """The table rebuilt the generic way: one tuple per row, a DataFrame of them, then
    ``TableSpec.coerce`` (the reference of ``TableSpec.frame``'s column-wise path)."""
    df = tables[name]
    plain = df.astype(object).where(df.notna(), None)
    spec = EM_TABLES[name]
    return spec.coerce(pd.DataFrame(list(plain.itertuples(index=False, name=None)), columns=spec.column_names))


ALL_TYPES = TableSpec(
    "all",
    (("s", "string"), ("i", "Int64"), ("f", "Float64"), ("b", "boolean"), ("c", "category")),
)


@pytest.mark.parametrize(
    "rows",
    [
        [("a", 1, 1.5, True, "x"), (None, None, None, None, None), ("é", 7, 2, False, "a")],
        [("", 0, float("nan"), None, "")],  # NaN in a Float64 column is missing
        [(None, None, None, None, None)] * 3,  # every value missing
        [("a", 2**60 + 1, 1.0, True, "b"), ("b", None, None, None, None)],  # beyond float precision
        [("a", True, 1.0, True, "x")],  # a boolean in an integer column: no plain type, row-wise
        [("a", 1, np.float64(0.25), np.bool_(True), "x")],  # NumPy scalars: row-wise
        [(1, 1, 1.0, True, 2)],  # numbers in string columns: row-wise
    ],
)
def test_frame_is_the_coerced_frame_of_the_rows(rows):
    expected = ALL_TYPES.coerce(pd.DataFrame(rows, columns=ALL_TYPES.column_names))
    if rows[0][1] == 2**60 + 1:  # the row-wise path loses it in pandas' float detour; the column-wise keeps it
        assert ALL_TYPES.frame(rows)["i"][0] == 2**60 + 1
        expected["i"] = pd.array([2**60 + 1, None], dtype="Int64")
    pd.testing.assert_frame_equal(ALL_TYPES.frame(rows), expected, check_exact=True)


def test_frame_of_rows_of_the_wrong_width_is_refused_as_pandas_refuses_it():
    with pytest.raises(ValueError):
        ALL_TYPES.frame([("a", 1)])


ODD_ANSWERS = [
    "yes",
    "no",
    "na",
    " Yes ",
    "Y",
    "invalid",
    "perhaps",
    True,
    False,
    1,
    0,
    2,
    1.0,
    0.0,
    0.5,
    None,
    "",
]
ODD_PICKS = ["A", "B", "a", " b ", "invalid", "C", None, 1, True, 0.5]


def _em_file(rng: random.Random, cid: str, strings_only: bool) -> dict:
    """A random EM output file; ``strings_only``: every answer and pick a string (the path that
    normalises each distinct string once)."""
    answers = [a for a in ODD_ANSWERS if isinstance(a, str)] if strings_only else ODD_ANSWERS
    picks = [p for p in ODD_PICKS if isinstance(p, str)] if strings_only else ODD_PICKS
    turns = []
    for t in rng.sample(range(1, 9), rng.randint(0, 4)):
        turn: dict = {"turnNumber": t}
        for field in (
            "em_binary_om_assessment",
            "em_binary_human_prediction",
            "em_binary_om_assessment_hp",
            "em_binary_human_prediction_hp",
        ):
            if rng.random() < 0.7:
                turn[field] = {f"B{rng.randint(1, 30)}": rng.choice(answers) for _ in range(rng.randint(0, 5))}
        if rng.random() < 0.7:
            turn["em_pairwise_selections"] = {
                rng.choice(["0", "1", "2", "07", "x"]): rng.choice(picks) for _ in range(rng.randint(0, 3))
            }
        turns.append(turn)
    return {"conversationId": cid, "em_model": "m", "mode": "default", "turns": turns}


@pytest.mark.parametrize("seed", range(12))
def test_answer_and_pick_tables_are_the_row_built_tables(seed, tmp_path):
    rng = random.Random(seed)
    parsed = [
        (tmp_path / f"c{i}.json", EMOutputFile.model_validate(_em_file(rng, f"c{i}", seed % 2 == 0))) for i in range(4)
    ]
    tables = em_tables(parsed)
    for name in ("em_binary", "em_pairwise"):
        pd.testing.assert_frame_equal(tables[name], _row_built(tables, name))
    # The values and statuses are those of the per-answer functions, row by row.
    raw = [
        (k, v, target)
        for _, out in parsed
        for turn in sorted(out.turns, key=lambda t: t.turnNumber)
        for field, target in (
            ("em_binary_om_assessment", "om"),
            ("em_binary_human_prediction", "hp"),
            ("em_binary_om_assessment_hp", "om"),
            ("em_binary_human_prediction_hp", "hp"),
        )
        for k, v in getattr(turn, field).items()
    ]
    b = tables["em_binary"].astype(object).where(tables["em_binary"].notna(), None)
    assert list(zip(b["value"], b["status"])) == [_answer_status(v) for _, v, _ in raw]
    assert list(b["target"]) == [target for _, _, target in raw]
    assert list(b["question_id"]) == [k for k, _, _ in raw]  # each run's keys, in order
    picks = [(k, v) for _, out in parsed for t in sorted(out.turns, key=lambda t: t.turnNumber) for k, v in
             t.em_pairwise_selections.items()]  # fmt: skip
    p = tables["em_pairwise"].astype(object).where(tables["em_pairwise"].notna(), None)
    assert list(zip(p["pick"], p["status"])) == [_pick_status(v) for _, v in picks]
    assert list(p["key"]) == [k for k, _ in picks]


def test_the_fixture_tables_are_the_row_built_tables():
    tables = em_tables(read_em_outputs(list_json_files(RELEASE / "em_valid"), "model-x", "default"))
    for name in ("em_binary", "em_pairwise"):
        assert len(tables[name])
        pd.testing.assert_frame_equal(tables[name], _row_built(tables, name))


def test_an_empty_table_has_the_spec_and_is_a_fresh_copy():
    spec = EM_TABLES["em_runs"]
    first = spec.frame()
    pd.testing.assert_frame_equal(first, spec.coerce(pd.DataFrame([], columns=spec.column_names)))
    first["api_cost"] = pd.array([], dtype="Float64")
    first.insert(0, "changed", [])
    assert list(spec.frame().columns) == spec.column_names  # changing one leaves the next as declared
    assert spec.frame() is not spec.frame()


@pytest.mark.parametrize("odd", [False, True])
def test_keyed_tables_are_the_tables_of_the_rows_with_their_keys(odd):
    """``_keyed_frame`` puts each file's key on its rows; a value of no plain type (a NumPy
    float) takes the row-wise path with the keys put back. Both give ``spec.frame``'s table."""
    spec = EM_TABLES["em_four_branch"]
    keys = [("c2", "m", "default"), ("c1", "m", "default"), ("c3", "m", "default")]
    rows = [("turn", 1, "perceiving", 3.0), ("post", None, "using", None), ("turn", 2, "managing", 5.5)]
    if odd:
        rows[1] = ("post", None, "using", np.float64(2.5))
    ends = [2, 2, 3]  # the second file has no row: its key is no category
    expected = spec.frame([(*keys[0], *rows[0]), (*keys[0], *rows[1]), (*keys[2], *rows[2])])
    got = _keyed_frame(spec, keys, ends, rows)
    pd.testing.assert_frame_equal(got, expected)
    assert list(got["conversation_id"].cat.categories) == ["c2", "c3"]
    pd.testing.assert_frame_equal(_keyed_frame(spec, keys, [0, 0, 0], []), spec.frame())

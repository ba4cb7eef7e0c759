"""``tables.concat_parquet``: the score tables of every model into one file (rule
aggregate_scores), streamed in Arrow instead of concatenated in pandas."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from eibench.tables import ROW_GROUP_ROWS, concat_parquet, write_parquet


def score_frame(model: str, n: int) -> pd.DataFrame:
    """A frame shaped like a model's turn scores: strings, integers, floats with missing values."""
    return pd.DataFrame(
        {
            "em_model": pd.array([model] * n, dtype="string"),
            "conversation_id": pd.array([f"c{i % 7:03d}" for i in range(n)], dtype="string"),
            "turn_number": pd.array(range(n), dtype="Int64"),
            "present": pd.array([i % 3 != 0 for i in range(n)], dtype="boolean"),
            "emotion_f1": pd.array([None if i % 5 == 0 else i / (n + 1) for i in range(n)], dtype="Float64"),
        }
    )


def written(tmp_path: Path, frames: dict[str, pd.DataFrame]) -> list[Path]:
    paths = []
    for name, df in frames.items():
        write_parquet(df, tmp_path / f"{name}.parquet")
        paths.append(tmp_path / f"{name}.parquet")
    return paths


def test_same_bytes_as_the_pandas_concatenation(tmp_path: Path) -> None:
    paths = written(tmp_path, {"a": score_frame("a", 300), "b": score_frame("b", 0), "c": score_frame("c", 41)})
    write_parquet(pd.concat([pd.read_parquet(p) for p in paths], ignore_index=True), tmp_path / "pandas.parquet")
    assert concat_parquet(paths, tmp_path / "arrow.parquet") == 341
    assert (tmp_path / "arrow.parquet").read_bytes() == (tmp_path / "pandas.parquet").read_bytes()


@pytest.mark.parametrize("row_group_rows", [1, 7, 100, 300, 341, 10_000])
def test_row_groups_as_the_whole_table_gives_them(tmp_path: Path, row_group_rows: int) -> None:
    """Streamed in blocks, the file is the one writing the whole concatenation at once gives:
    row groups cut every ``row_group_rows`` rows across the input files' boundaries."""
    paths = written(tmp_path, {"a": score_frame("a", 120), "b": score_frame("b", 180), "c": score_frame("c", 41)})
    whole = pa.concat_tables([pq.read_table(p) for p in paths])
    pq.write_table(
        whole, tmp_path / "whole.parquet", row_group_size=row_group_rows, compression="zstd", write_statistics=False
    )
    concat_parquet(paths, tmp_path / "streamed.parquet", row_group_rows=row_group_rows)
    meta = pq.ParquetFile(tmp_path / "streamed.parquet").metadata
    assert meta.num_row_groups == math.ceil(341 / row_group_rows)
    assert (tmp_path / "streamed.parquet").read_bytes() == (tmp_path / "whole.parquet").read_bytes()
    assert pq.read_table(tmp_path / "streamed.parquet").equals(whole)


def test_pinned_row_group_size_is_pyarrows_default(tmp_path: Path) -> None:
    """The pinned size is the one earlier outputs were written with (pyarrow's default)."""
    table = pa.table({"x": pa.array(range(ROW_GROUP_ROWS + 5), pa.int64())})
    pq.write_table(table, tmp_path / "default.parquet")
    assert pq.ParquetFile(tmp_path / "default.parquet").metadata.row_group(0).num_rows == ROW_GROUP_ROWS


def test_empty_inputs_give_the_empty_table(tmp_path: Path) -> None:
    paths = written(tmp_path, {"a": score_frame("a", 0), "b": score_frame("b", 0)})
    write_parquet(pd.concat([pd.read_parquet(p) for p in paths], ignore_index=True), tmp_path / "pandas.parquet")
    assert concat_parquet(paths, tmp_path / "arrow.parquet") == 0
    assert (tmp_path / "arrow.parquet").read_bytes() == (tmp_path / "pandas.parquet").read_bytes()


def test_nan_stays_nan_and_a_null_column_takes_the_others_type(tmp_path: Path) -> None:
    pq.write_table(
        pa.table({"m": ["a", "a"], "x": pa.array([float("nan"), 1.0]), "note": pa.nulls(2)}), tmp_path / "a.parquet"
    )
    pq.write_table(pa.table({"m": ["b"], "x": pa.array([None], pa.float64()), "note": ["why"]}), tmp_path / "b.parquet")
    concat_parquet([tmp_path / "a.parquet", tmp_path / "b.parquet"], tmp_path / "out.parquet")
    out = pq.read_table(tmp_path / "out.parquet")
    assert out.schema.field("note").type == pa.string()
    assert out.column("note").to_pylist() == [None, None, "why"]
    x = out.column("x").to_pylist()
    assert math.isnan(x[0]) and x[1:] == [1.0, None]


def test_other_columns_are_refused_and_nothing_is_written(tmp_path: Path) -> None:
    paths = written(tmp_path, {"a": score_frame("a", 3), "b": score_frame("b", 3).drop(columns="present")})
    with pytest.raises(ValueError, match=r"b\.parquet: its columns .* differ from those of .*a\.parquet"):
        concat_parquet(paths, tmp_path / "out.parquet")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.parquet", "b.parquet"]


def test_another_type_is_refused_naming_the_column(tmp_path: Path) -> None:
    paths = written(tmp_path, {"a": score_frame("a", 3), "b": score_frame("b", 3).astype({"turn_number": "Float64"})})
    (tmp_path / "out.parquet").write_bytes(b"earlier output")
    with pytest.raises(ValueError, match=r"b\.parquet: column 'turn_number' is double, where another input .* int64"):
        concat_parquet(paths, tmp_path / "out.parquet")
    assert (tmp_path / "out.parquet").read_bytes() == b"earlier output"


def test_no_inputs_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no input files"):
        concat_parquet([], tmp_path / "out.parquet")

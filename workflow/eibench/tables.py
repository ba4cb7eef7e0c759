"""Typed tables on disk: declared column types, deterministic Parquet and CSV writers.

Every tidy table of the pipeline is declared once as a ``TableSpec`` (name, columns and
pandas dtypes). Writers enforce the declared columns and types, so a table on disk always
has the same shape whatever the cohort, and identical inputs give identical bytes.
"""

from __future__ import annotations

import functools
import json
import math
import os
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Hashable, Iterable, Iterator, Mapping, Sequence, cast

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq


@dataclass(frozen=True)
class TableSpec:
    """A table's name and its columns as (name, pandas dtype) in order."""

    name: str
    columns: tuple[tuple[str, str], ...]
    doc: str = ""

    @property
    def column_names(self) -> list[str]:
        return [c for c, _ in self.columns]

    def frame(self, rows: Iterable[Sequence[object]] | None = None) -> pd.DataFrame:
        """Build a DataFrame of this spec from row tuples (in column order).

        Built column by column (``typed_column``) when every value is of a plain type: the same
        table as ``coerce(pd.DataFrame(rows))``, without pandas inferring a type for each column
        first (and without its float detour for an integer column with a missing value)."""
        rows = list(rows or [])
        if not rows:  # the empty table of a spec is built once, then copied
            empty = _EMPTY.get(self)
            if empty is None:
                empty = _EMPTY[self] = self.coerce(pd.DataFrame([], columns=self.column_names))
            return empty.copy()
        width = len(self.columns)
        if all(len(r) == width for r in rows):
            columns = {name: typed_column(values, dtype) for (name, dtype), values in zip(self.columns, zip(*rows))}
            if all(c is not None for c in columns.values()):
                return pd.DataFrame(columns)
        # A value of no plain type (or a row of the wrong width, which pandas names): row-wise.
        return self.coerce(pd.DataFrame(rows, columns=self.column_names))

    def frame_columns(self, columns: Mapping[str, Sequence[object]]) -> pd.DataFrame:
        """Build a DataFrame of this spec from one list of values per column (same result as
        ``frame`` of the rows, without a tuple per row)."""
        if len(next(iter(columns.values()), [])) == 0:
            return self.frame()
        return self.coerce(pd.DataFrame({name: columns[name] for name in self.column_names}))

    def coerce(self, df: pd.DataFrame) -> pd.DataFrame:
        missing = [c for c in self.column_names if c not in df.columns]
        if missing:
            raise ValueError(f"table {self.name!r} is missing columns {missing}")
        # A new frame (copy-on-write, pandas >= 3: casting its columns leaves the caller's frame
        # as it was); a column already of its declared dtype is kept as it is, not cast again.
        # Selecting the columns copies every one of them, so a frame already in order is not
        # selected but shallow-copied.
        df = df.copy(deep=False) if list(df.columns) == self.column_names else df[self.column_names]
        for col, dtype in self.columns:
            values = given = df[col]
            if dtype == "category":
                # Sorted string categories: the same values give the same codes and bytes.
                if not isinstance(values.dtype, pd.CategoricalDtype):
                    values = values.astype("string").astype("category")
                categories = values.cat.categories
                if not categories.is_monotonic_increasing:
                    values = values.cat.reorder_categories(sorted(categories))
                if values is not given:
                    df[col] = values
            elif values.dtype != _pandas_dtype(dtype):
                df[col] = values.astype(dtype)
        index = df.index
        if isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1:
            return df  # already the index reset_index would give
        return df.reset_index(drop=True)


_EMPTY: dict[TableSpec, pd.DataFrame] = {}


@functools.cache
def _pandas_dtype(name: str) -> Any:
    """The pandas dtype a declared dtype name stands for (``"string"``: the pyarrow-backed
    string dtype with NA, which a python-backed string column is not)."""
    return pd.api.types.pandas_dtype(name)


#: Per declared dtype, the Python types whose values ``pd.array`` turns into that dtype exactly as
#: ``astype`` turns an object column of them (checked in tests/unit/test_columnwise_tables.py).
_PLAIN_TYPES: dict[str, frozenset[type]] = {
    "string": frozenset((str, type(None))),
    "Int64": frozenset((int, type(None))),
    "Float64": frozenset((float, int, type(None))),
    "boolean": frozenset((bool, type(None))),
    "category": frozenset((str, type(None))),
}


def typed_column(values: Sequence[object], dtype: str) -> Any:
    """One column of Python values (None: missing) as ``TableSpec.coerce`` types it, an array of
    ``dtype``, when every value is of a plain type of ``dtype`` (``_PLAIN_TYPES``: strings,
    integers, floats, booleans, None); else None (the caller takes ``coerce``'s own path). A
    float NaN in a Float64 column is missing, as ``astype`` reads it."""
    plain = _PLAIN_TYPES.get(dtype)
    if plain is None or not plain.issuperset(map(type, values)):
        return None
    if dtype == "category":
        return categorical(values)
    return pd.array(values, dtype=dtype)


def categorical(
    values: Sequence[Hashable],
    repeats: Sequence[int] | np.ndarray | None = None,
    labels: Mapping[Any, str | None] | None = None,
) -> pd.Categorical:
    """A categorical column as ``TableSpec.coerce`` makes one from ``values`` (strings or None;
    None is missing): sorted string categories of the values present, codes without a Python
    object per row.

    With ``repeats`` (one count >= 0 per value) each value stands for that many consecutive
    rows, so a value shared by a run of rows (a file's key, a field's name) is looked up once; a
    value of no row (count 0) is no category. With ``labels`` (every distinct value -> its
    label, a string or None) the column holds the label of each value: the column of
    ``[labels[v] for v in values]``, each distinct value looked up once. Values are told apart
    as dictionary keys are (``True`` and ``1`` are one key: give ``labels`` only for values of
    one type)."""
    counts = None
    if repeats is not None:
        counts = np.asarray(repeats, dtype=np.int64)
        if len(counts) != len(values):
            raise ValueError(f"categorical: {len(values)} values but {len(counts)} repeat counts")
        distinct = set(values)
        # A value is a category when it has a row; with no count 0, every value has one.
        present = distinct if counts.min(initial=1) > 0 else {v for v, n in zip(values, counts.tolist()) if n > 0}
    else:
        distinct = present = set(values)
    label = labels if labels is not None else {v: v for v in distinct}
    named = {label[v] for v in present}
    named.discard(None)
    categories = sorted(named)  # type: ignore[type-var]
    code = {c: i for i, c in enumerate(categories)}
    lookup = {v: code.get(label[v], -1) if v in present else -1 for v in distinct}
    codes = np.fromiter(map(lookup.__getitem__, values), dtype=np.int32, count=len(values))
    if counts is not None:
        codes = np.repeat(codes, counts)
    return pd.Categorical.from_codes(codes, dtype=string_categories(cast(list[str], categories)))


#: Category sets up to this size are remembered by ``string_categories``.
_REMEMBERED_CATEGORIES = 4096


def string_categories(categories: Sequence[str]) -> pd.CategoricalDtype:
    """The categorical dtype of ``categories`` (distinct strings, sorted), as a string Index.

    A small set is made once and shared: the tidy tables of every model and file repeat the
    same few (models, modes, question ids, words), and building the dtype (an Index, then the
    check that its values are distinct) costs more than the column. A dtype is immutable, so
    columns may share it."""
    if len(categories) > _REMEMBERED_CATEGORIES:
        return pd.CategoricalDtype(pd.Index(categories, dtype="string"))
    return _string_categories(tuple(categories))


@functools.lru_cache(maxsize=1024)
def _string_categories(categories: tuple[str, ...]) -> pd.CategoricalDtype:
    return pd.CategoricalDtype(pd.Index(categories, dtype="string"))


def with_none(df: pd.DataFrame) -> pd.DataFrame:
    """An object-typed copy of ``df`` whose missing values are None (for row-wise Python code,
    where pandas' NA would make comparisons ambiguous)."""
    return df.astype(object).where(df.notna(), None)


def atomic_path(path: Path) -> Path:
    """A temporary sibling of ``path``; rename it onto ``path`` when complete. It gets the
    permissions of an ordinary new file (mkstemp would leave it private to its owner)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    return Path(tmp)


@contextmanager
def replaced_atomically(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary sibling of ``path`` (``atomic_path``) for the block to write; renamed onto
    ``path`` when the block ends, removed when it raises: ``path`` is never half-written."""
    path = Path(path)
    tmp = atomic_path(path)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


#: How every Parquet table of the pipeline is written: the rows of a row group (pyarrow's
#: default, pinned so that the bytes do not move with it), zstd, no column statistics.
ROW_GROUP_ROWS = 1024 * 1024
_PARQUET_OPTIONS: dict[str, Any] = {"compression": "zstd", "write_statistics": False}


def write_parquet(df: pd.DataFrame, path: str | os.PathLike[str], spec: TableSpec | None = None) -> None:
    """Write ``df`` to Parquet atomically, without index and without pandas metadata.

    Leaving the pandas metadata out keeps the bytes independent of the pandas version's JSON
    layout; column types come from the Arrow schema (and from ``spec`` when given).
    """
    if spec is not None:
        df = spec.coerce(df)
    table = pa.Table.from_pandas(df, preserve_index=False).replace_schema_metadata(None)
    with replaced_atomically(path) as tmp:
        pq.write_table(table, tmp, row_group_size=ROW_GROUP_ROWS, **_PARQUET_OPTIONS)


def concat_parquet(
    paths: Sequence[str | os.PathLike[str]], path: str | os.PathLike[str], row_group_rows: int = ROW_GROUP_ROWS
) -> int:
    """Concatenate Parquet files of the same columns into one file at ``path``; rows written.

    The rows of ``paths`` in that order, streamed in Arrow: one input file and at most one row
    group of the output (``row_group_rows`` rows, plus the rest of the file that filled it) are
    held at a time, never the whole table, and never a pandas frame (a string is a Python object
    per cell there; at 50x the published cohort, concatenating the turn scores of 17 models in
    pandas peaked at 1,880 MiB, docs/scaling.md). The file keeps the inputs' values and types:
    it has the bytes ``write_parquet`` gives for the pandas concatenation of the files (same row
    groups, pages and footer) whenever that round trip changes nothing, which holds for the
    score tables (tests/unit/test_concat_parquet.py); where it would, pandas made a float NaN a
    null and an integer column with a null a float column, and this does neither. A column that
    is all null in some file (Arrow's null type) takes the type the other files give it.

    Raises ValueError, naming the file and the column, when a file's columns or their types
    differ from those of the others (score tables written by two versions of the code);
    ``paths`` must not be empty. The output is written atomically: a failure leaves no file.
    """
    if not paths:
        raise ValueError("concat_parquet: no input files")
    schema = _common_schema(paths)
    rows = 0
    with replaced_atomically(path) as tmp, pq.ParquetWriter(tmp, schema, **_PARQUET_OPTIONS) as writer:
        pending: list[pa.Table] = []
        for p in paths:
            pending.append(pq.read_table(p).replace_schema_metadata(None).cast(schema))
            buffered = sum(t.num_rows for t in pending)
            if buffered >= row_group_rows:
                block = pa.concat_tables(pending)
                full = buffered - buffered % row_group_rows
                writer.write_table(block.slice(0, full), row_group_size=row_group_rows)
                pending, rows = [block.slice(full)], rows + full
                del block  # else the rows written stay alive until the next row group
        rest = pa.concat_tables(pending)
        if rest.num_rows or not rows:  # an empty output still gets its (empty) row group, as write_table gives
            writer.write_table(rest, row_group_size=row_group_rows)
        rows += rest.num_rows
    return rows


def _common_schema(paths: Sequence[str | os.PathLike[str]]) -> pa.Schema:
    """The schema of every file of ``paths`` (read from their footers), a null-typed column
    taking the type another file gives it; ValueError naming the file and column that differ."""
    schemas = [pq.read_schema(p) for p in paths]
    names = schemas[0].names
    types: dict[str, pa.DataType] = {}
    for p, schema in zip(paths, schemas):
        if schema.names != names:
            raise ValueError(
                f"{p}: its columns {schema.names} differ from those of {paths[0]} ({names}); the two were "
                "written by different versions of the code: rerun the job that wrote the older one"
            )
        for field in schema:
            known = types.get(field.name)
            if known is None or pa.types.is_null(known):
                types[field.name] = field.type
            elif field.type != known and not pa.types.is_null(field.type):
                raise ValueError(
                    f"{p}: column {field.name!r} is {field.type}, where another input file has {known}; the "
                    "files were written by different versions of the code: rerun the job that wrote the older one"
                )
    return pa.schema([pa.field(name, types[name]) for name in names])


#: Arrow types read straight into the declared pandas dtype (``read_parquet``); float64 is not
#: among them: pandas reads it as NumPy floats and the cast to Float64 makes a NaN missing.
_ARROW_TO_PANDAS: dict[pa.DataType, Any] = {
    pa.string(): pd.StringDtype(),
    pa.large_string(): pd.StringDtype(),
    pa.int64(): pd.Int64Dtype(),
    pa.bool_(): pd.BooleanDtype(),
}
_PLAIN_TARGETS: dict[pa.DataType, str] = {
    pa.string(): "string",
    pa.large_string(): "string",
    pa.int64(): "Int64",
    pa.bool_(): "boolean",
    pa.float64(): "Float64",
}


def read_parquet(path: str | os.PathLike[str], spec: TableSpec | None = None) -> pd.DataFrame:
    """A Parquet table as a DataFrame; with ``spec``, in its declared columns and dtypes.

    When every column of the file is a string, int64, bool or float64 column and ``spec``
    declares it as the matching pandas dtype (string, Int64, boolean, Float64), Arrow converts
    it straight into that dtype (a null is missing; a float NaN too, as the cast of ``coerce``
    reads it); any other table is read by pandas and cast by ``TableSpec.coerce``. Both give the
    same frame, except that an integer beyond 2**53 in a column with nulls is kept exact (pandas'
    reader rounds it through a float column); tests/unit/test_read_parquet.py."""
    if spec is None:
        return pd.read_parquet(path)
    table = pq.read_table(path)
    declared = dict(spec.columns)
    if all(_PLAIN_TARGETS.get(f.type) == declared.get(f.name) for f in table.schema) and len(
        set(table.column_names)
    ) == len(table.column_names):
        return spec.coerce(table.to_pandas(types_mapper=_ARROW_TO_PANDAS.get))
    return spec.coerce(pd.read_parquet(path))


def write_csv(df: pd.DataFrame, path: str | os.PathLike[str], float_format: str = "%.10g") -> None:
    """Write a CSV atomically with a fixed float format and '\\n' line endings."""
    with replaced_atomically(path) as tmp:
        df.to_csv(tmp, index=False, float_format=float_format, lineterminator="\n")


def json_safe(x: Any) -> Any:
    """``x`` with every NaN or infinite float (Python or NumPy) replaced by None, recursively
    through dicts, lists and tuples: JSON has no NaN, and a missing number is null."""
    if isinstance(x, (float, np.floating)):
        return float(x) if math.isfinite(x) else None
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, dict):
        return {k: json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_safe(v) for v in x]
    return x


def json_text(obj: Any, indent: int = 1) -> str:
    """Strict JSON of ``obj`` (sorted keys, NaN as null, never a bare NaN) with a final newline."""
    return json.dumps(json_safe(obj), indent=indent, sort_keys=True, allow_nan=False) + "\n"


def write_text(text: str, path: str | os.PathLike[str]) -> None:
    """Write text atomically (UTF-8, '\\n')."""
    with replaced_atomically(path) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="\n")


def write_tables(frames: Mapping[str, pd.DataFrame], specs: Mapping[str, TableSpec], outdir: Path) -> None:
    """Write several tables as ``<outdir>/<name>.parquet``."""
    outdir.mkdir(parents=True, exist_ok=True)
    for name, df in frames.items():
        write_parquet(df, outdir / f"{name}.parquet", specs[name])

"""The scaling study's measured record (benchmarks/records/scaling.csv, written by
benchmarks/bench_scaling.py): reading it with validation, the growth exponents and the table
the paper prints.

The record holds one row per configuration of the family (config/scaling/*.yaml): its size,
the wall time of ``snakemake -n``, the CPU time (user + system, seconds) and the wall time of
the scoring and statistics stages, the CPU time per simulated study of the validation by
simulation, the peak resident set (MiB) of the largest job of each stage, and the date, commit
and machine of the measurement. It is a measured record of one machine, committed with the
sources; the workflow reads it, it does not measure anything.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

#: Configurations of the family, in the order the table prints them.
FAMILY = ("1x", "10x", "50x", "100models")
#: The size series of the growth fit: the published models, more conversations.
SIZE_SERIES = ("1x", "10x", "50x")
#: The exponents the table prints: key -> (label, configurations). "10x-50x" is the one of the
#: bar of issue 8 (<= 1.1); "1x-10x" is pulled below the true growth by fixed costs (start-up).
SPANS = {
    "1x-10x": ("Exponent, 1x to 10x", ("1x", "10x")),
    "10x-50x": ("Exponent, 10x to 50x", ("10x", "50x")),
    "fit": ("Exponent, fit 1x to 50x", SIZE_SERIES),
}

INTEGER_COLUMNS = ("conversations", "models")
MEASURED_COLUMNS = (
    "dry_run_wall_s",
    "data_wall_s",
    "scoring_wall_s",
    "scoring_cpu_s",
    "scoring_peak_mib",
    "statistics_wall_s",
    "statistics_cpu_s",
    "statistics_peak_mib",
    "simulation_cpu_s_per_study",
    "simulation_peak_mib",
)
TEXT_COLUMNS = ("date", "commit", "machine")
COLUMNS = ("configuration", *INTEGER_COLUMNS, *MEASURED_COLUMNS, *TEXT_COLUMNS)
#: The quantities whose growth in the number of conversations is fitted.
GROWTH = {
    "scoring_cpu_s": "Scoring",
    "statistics_cpu_s": "Statistics",
    "simulation_cpu_s_per_study": "Simulation per study",
    "peak_mib": "Peak memory",
}

NOT_MEASURED = "not measured"
REGENERATE = "run  python benchmarks/bench_scaling.py  to measure it again"


class RecordError(ValueError):
    """The record is missing or malformed; the message names the file, the field and the fix."""


def read_record(path: str | Path) -> pd.DataFrame:
    """The validated record: every column of ``COLUMNS``, one row per configuration measured
    (some of ``FAMILY``, each once; returned in the family's order), positive finite
    measurements, whole positive sizes growing along ``SIZE_SERIES`` and non-empty date,
    commit and machine. Raises ``RecordError`` otherwise."""
    path = Path(path)
    if not path.is_file():
        raise RecordError(f"{path}: the scaling record is missing; {REGENERATE}")
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise RecordError(f"{path}: not a CSV file ({err}); {REGENERATE}") from None
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise RecordError(f"{path}: columns {missing} are missing; {REGENERATE}")
    configs = list(df["configuration"])
    if not configs or not set(configs) <= set(FAMILY) or len(set(configs)) != len(configs):
        raise RecordError(
            f"{path}: field 'configuration' must list some of {list(FAMILY)}, each once, found {configs}; {REGENERATE}"
        )
    df = df.set_index("configuration").loc[[c for c in FAMILY if c in configs]].reset_index()[list(COLUMNS)]
    for col in (*INTEGER_COLUMNS, *MEASURED_COLUMNS):
        values = pd.to_numeric(df[col], errors="coerce")
        bad = df["configuration"][~(np.isfinite(values) & (values > 0))].tolist()
        if col in INTEGER_COLUMNS:
            bad += df["configuration"][np.isfinite(values) & (values != np.round(values))].tolist()
        if bad:
            raise RecordError(
                f"{path}: field {col!r} of {bad} must be a positive "
                f"{'whole number' if col in INTEGER_COLUMNS else 'number'}; {REGENERATE}"
            )
        df[col] = values.astype(int) if col in INTEGER_COLUMNS else values.astype(float)
    for col in TEXT_COLUMNS:
        empty = df["configuration"][df[col].str.strip() == ""].tolist()
        if empty:
            raise RecordError(f"{path}: field {col!r} of {empty} is empty; {REGENERATE}")
    sizes = df.set_index("configuration")["conversations"].reindex(list(SIZE_SERIES)).dropna()
    if not sizes.is_monotonic_increasing or not sizes.is_unique:
        raise RecordError(
            f"{path}: field 'conversations' must grow along {list(SIZE_SERIES)}, found {sizes.tolist()}; {REGENERATE}"
        )
    return df


def growth_exponent(record: pd.DataFrame, column: str, configurations: tuple[str, ...]) -> float:
    """Least-squares slope of log(column) on log(conversations) over the configurations (the
    exact log-log slope for two). 1 = linear growth in the number of conversations. NaN when
    one of the configurations is not in the record (not measured)."""
    rows = record.set_index("configuration")
    if not set(configurations) <= set(rows.index):
        return float("nan")
    rows = rows.loc[list(configurations)]
    values = _column(rows, column)
    slope = np.polyfit(np.log(rows["conversations"].to_numpy(float)), np.log(values), 1)[0]
    return float(slope)


def _column(rows: pd.DataFrame, column: str) -> np.ndarray:
    if column == "peak_mib":  # the largest job of scoring or statistics
        return np.maximum(rows["scoring_peak_mib"], rows["statistics_peak_mib"]).to_numpy(float)
    return rows[column].to_numpy(float)


def exponents(record: pd.DataFrame) -> dict[str, dict[str, float]]:
    """For each quantity of ``GROWTH``: the exponent over each span of ``SPANS`` (NaN where a
    configuration of the span is not in the record)."""
    return {
        col: {span: growth_exponent(record, col, configs) for span, (_, configs) in SPANS.items()} for col in GROWTH
    }


def _seconds(x: float) -> str:
    return f"{x:,.1f}" if x < 100 else f"{x:,.0f}"


def paper_table(record: pd.DataFrame) -> pd.DataFrame:
    """The table of the paper's reproducibility section: one row per configuration measured,
    then the growth exponents (1x to 10x, 10x to 50x, least squares over 1x/10x/50x) of the
    CPU times and of the peak memory ("not measured" when a configuration they need is not in
    the record). Every cell is display text."""
    head = [
        "Configuration",
        "Conversations",
        "Models",
        "DAG, wall (s)",
        "Scoring, CPU (s)",
        "Statistics, CPU (s)",
        "Simulation, CPU per study (s)",
        "Peak memory (MiB)",
    ]
    rows = []
    for r in record.itertuples(index=False):
        rows.append(
            [
                r.configuration,
                f"{r.conversations:,}",
                f"{r.models:,}",
                _seconds(r.dry_run_wall_s),
                _seconds(r.scoring_cpu_s),
                _seconds(r.statistics_cpu_s),
                _seconds(r.simulation_cpu_s_per_study),
                f"{max(r.scoring_peak_mib, r.statistics_peak_mib):,.0f}",
            ]
        )
    fitted = exponents(record)
    for kind, (label, _) in SPANS.items():
        rows.append(
            [
                label,
                "",
                "",
                "",
                *(f"{fitted[col][kind]:.2f}" if np.isfinite(fitted[col][kind]) else NOT_MEASURED for col in GROWTH),
            ]
        )
    return pd.DataFrame(rows, columns=head)


def provenance(record: pd.DataFrame) -> dict[str, str]:
    """What the caption prints: the machine(s), commit(s) and date(s) of the measurement (each
    distinct value once, in the order of the family)."""
    return {col: "; ".join(dict.fromkeys(record[col])) for col in TEXT_COLUMNS}

"""The scaling study's record: validation with clear errors, the growth exponents and the
paper's table; and the committed record itself."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from eibench.report.scaling import (
    COLUMNS,
    FAMILY,
    GROWTH,
    RecordError,
    exponents,
    paper_table,
    provenance,
    read_record,
)

from ..conftest import REPO

SIZES = {"1x": (200, 17), "10x": (2000, 17), "50x": (10000, 17), "100models": (200, 100)}


def _rows(power: float = 1.0) -> list[dict]:
    """A record whose CPU times grow as conversations ** power (from 2 s at 200)."""
    rows = []
    for name in FAMILY:
        conv, models = SIZES[name]
        t = 2.0 * (conv / 200) ** power * models / 17
        rows.append(
            {
                "configuration": name,
                "conversations": conv,
                "models": models,
                "dry_run_wall_s": 5.0,
                "data_wall_s": 3 * t,
                "scoring_wall_s": 1.5 * t,
                "scoring_cpu_s": t,
                "scoring_peak_mib": 100 * t,
                "statistics_wall_s": 2.5 * t,
                "statistics_cpu_s": 2 * t,
                "statistics_peak_mib": 50 * t,
                "simulation_cpu_s_per_study": t / 4,
                "simulation_peak_mib": 10 * t,
                "date": "2026-11-29",
                "commit": "0123456789ab",
                "machine": "2 cores, 24 GiB RAM",
            }
        )
    return rows


def _write(path: Path, rows: list[dict], columns=COLUMNS) -> Path:
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(columns), extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.mark.parametrize("power", [0.8, 1.0, 1.5])
def test_exponents_recover_the_power_of_the_growth(tmp_path, power):
    record = read_record(_write(tmp_path / "scaling.csv", _rows(power)))
    fitted = exponents(record)
    assert set(fitted) == set(GROWTH)
    for col in GROWTH:
        assert fitted[col] == pytest.approx({"1x-10x": power, "10x-50x": power, "fit": power})


def test_the_record_is_read_in_family_order_and_typed(tmp_path):
    rows = _rows()
    record = read_record(_write(tmp_path / "scaling.csv", rows[::-1]))
    assert list(record["configuration"]) == list(FAMILY)
    assert record["conversations"].dtype.kind == "i" and record["scoring_cpu_s"].dtype.kind == "f"
    assert provenance(record) == {"date": "2026-11-29", "commit": "0123456789ab", "machine": "2 cores, 24 GiB RAM"}


def test_the_paper_table_has_a_row_per_configuration_and_the_exponents(tmp_path):
    table = paper_table(read_record(_write(tmp_path / "scaling.csv", _rows(1.2))))
    assert list(table["Configuration"][: len(FAMILY)]) == list(FAMILY)
    assert len(table) == len(FAMILY) + 3
    assert table.iloc[2]["Conversations"] == "10,000"
    assert list(table["Configuration"][len(FAMILY) :]) == [
        "Exponent, 1x to 10x",
        "Exponent, 10x to 50x",
        "Exponent, fit 1x to 50x",
    ]
    for k in range(1, 4):
        assert list(table.iloc[-k][-len(GROWTH) :]) == ["1.20"] * len(GROWTH)
    assert table.map(lambda c: isinstance(c, str)).all().all()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda rows: [], "'configuration' must list some of"),
        (lambda rows: rows + rows[:1], "'configuration' must list some of"),
        (lambda rows: [{**rows[0], "configuration": "2x"}], "'configuration' must list some of"),
        (lambda rows: [{**r, "scoring_cpu_s": "nan"} for r in rows], "'scoring_cpu_s'"),
        (lambda rows: [{**r, "statistics_cpu_s": -1} for r in rows], "'statistics_cpu_s'"),
        (lambda rows: [{**r, "conversations": 200.5} for r in rows], "'conversations'"),
        (lambda rows: [{**r, "commit": " "} for r in rows], "'commit'"),
        (lambda rows: [{**r, "conversations": 200} for r in rows], "must grow along"),
    ],
)
def test_a_malformed_record_names_the_file_the_field_and_the_fix(tmp_path, edit, message):
    path = _write(tmp_path / "scaling.csv", edit(_rows()))
    with pytest.raises(RecordError, match=message) as err:
        read_record(path)
    assert str(path) in str(err.value) and "benchmarks/bench_scaling.py" in str(err.value)


def test_a_partial_record_prints_what_was_measured(tmp_path):
    rows = [r for r in _rows() if r["configuration"] != "50x"]
    record = read_record(_write(tmp_path / "scaling.csv", rows))
    assert list(record["configuration"]) == ["1x", "10x", "100models"]
    table = paper_table(record)
    assert len(table) == 3 + 3
    assert list(table.iloc[-3][-len(GROWTH) :]) == ["1.00"] * len(GROWTH)  # 1x to 10x
    for k in (1, 2):
        assert list(table.iloc[-k][-len(GROWTH) :]) == ["not measured"] * len(GROWTH)


def test_a_missing_column_or_file_is_an_error(tmp_path):
    path = _write(tmp_path / "scaling.csv", _rows(), columns=[c for c in COLUMNS if c != "machine"])
    with pytest.raises(RecordError, match=r"columns \['machine'\] are missing"):
        read_record(path)
    with pytest.raises(RecordError, match="the scaling record is missing"):
        read_record(tmp_path / "absent.csv")
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(RecordError, match="not a CSV file"):
        read_record(tmp_path / "empty.csv")


def test_the_committed_record_is_valid():
    record = read_record(REPO / "benchmarks" / "records" / "scaling.csv")
    assert set(record["configuration"]) >= {"1x", "10x"}

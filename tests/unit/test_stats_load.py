"""``stats.load.read_scores`` reads one mode and rule set of a score table, and only the columns
asked for: the same rows, in the same order and dtypes, as filtering the whole table after
reading it."""

from __future__ import annotations

import pandas as pd
from eibench.stats.load import TURN_COLUMNS, read_scores


def _table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "em_model": ["b", "a", "a", "b", "a", "c"],
            "mode": ["default", "default", "verbose", "default", "default", "default"],
            "rule_set": ["parity", "strict", "parity", "parity", "parity", "parity"],
            "conversation_id": ["c2", "c1", "c1", "c1", "c3", "c1"],
            "rel_position": [0.0, 0.5, 1.0, 0.25, 0.75, 1.0],
            "binary_om_acc": [1.0, 0.0, float("nan"), 0.5, 1.0, 0.0],
            "om_tp": [1, 2, 3, 4, 5, 6],
        }
    )


def test_the_rows_of_one_mode_and_rule_set_in_the_files_order(tmp_path):
    path = tmp_path / "turn_scores.parquet"
    _table().to_parquet(path)
    whole = pd.read_parquet(path)
    expected = whole[(whole["mode"] == "default") & (whole["rule_set"] == "parity")].reset_index(drop=True)
    got = read_scores(str(path), "default", "parity")
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert list(got["em_model"]) == ["b", "b", "a", "c"]


def test_only_the_columns_asked_for_that_the_file_has(tmp_path):
    path = tmp_path / "turn_scores.parquet"
    _table().to_parquet(path)
    got = read_scores(str(path), "default", "strict", TURN_COLUMNS)
    assert "om_tp" not in got.columns and "binary_om_acc" in got.columns
    assert list(got.columns) == [c for c in _table().columns if c in TURN_COLUMNS]
    assert got[["em_model", "conversation_id"]].values.tolist() == [["a", "c1"]]


def test_no_matching_row_gives_an_empty_table_with_the_columns(tmp_path):
    path = tmp_path / "conversation_scores.parquet"
    _table().to_parquet(path)
    got = read_scores(str(path), "omniscient", "parity")
    assert len(got) == 0 and list(got.columns) == list(_table().columns)

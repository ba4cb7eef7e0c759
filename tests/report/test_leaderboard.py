"""The leaderboard and the data dictionary of rule aggregate_scores: their principal metrics
are the cohort's (statistics.principal_metrics), the registry's only by default."""

from __future__ import annotations

import numpy as np
import pandas as pd
from eibench.metrics.registry import PRINCIPAL, data_dictionary
from eibench.report.leaderboard import board_metrics, leaderboard

ESCONV = ["binary_om_acc", "panas_items_adjusted", "post_chat_ratings"]


def _summary() -> pd.DataFrame:
    rows = []
    for model, base in (("lexicon", 0.6), ("chance", 0.4)):
        for metric in ("composite", "binary_om_acc", "post_chat_ratings", "emotion_f1", "n_conversations"):
            rows.append(
                {
                    "em_model": model,
                    "mode": "default",
                    "rule_set": "parity",
                    "role": "baseline",
                    "subset": "all",
                    "metric": metric,
                    "mean": 100 * base if metric == "composite" else 30 if metric == "n_conversations" else base,
                    "se": 0.01,
                }
            )
    return pd.DataFrame(rows)


def test_leaderboard_columns_are_the_cohorts_principal_metrics():
    board = leaderboard(_summary(), ("baseline",), ESCONV)
    registry = tuple(m for m in PRINCIPAL if m != "draft_judge")  # the paper's numbers read emotion_f1
    extra = ("panas_items_adjusted", "post_chat_ratings")
    assert board_metrics(ESCONV) == (
        "composite",
        "composite_equal",
        "tracking",
        "evaluation",
        "holistic",
        *registry,
        *extra,
    )
    assert list(board["em_model"]) == ["lexicon", "chance"] and list(board["rank"]) == [1, 2]
    assert list(board["post_chat_ratings"]) == [0.6, 0.4]
    assert np.allclose(board["post_chat_ratings_lo"], board["post_chat_ratings"] - 1.959963984540054 * 0.01)
    # a principal metric without any value is a column of NaN (printed as en dashes), not left out
    assert board[["panas_items_adjusted", "panas_items_adjusted_se"]].isna().all().all()
    assert board["emotion_f1"].notna().all()


def test_leaderboard_defaults_to_the_registrys_principal_metrics_but_the_judged_draft():
    assert board_metrics()[5:] == tuple(m for m in PRINCIPAL if m != "draft_judge")
    assert "emotion_f1" in leaderboard(_summary())


def test_data_dictionary_marks_the_cohorts_principal_metrics():
    table = data_dictionary(ESCONV).set_index("name")
    assert sorted(table.index[table["principal"]]) == sorted(ESCONV)
    default = data_dictionary().set_index("name")
    assert sorted(default.index[default["principal"]]) == sorted(PRINCIPAL)
    assert list(data_dictionary(ESCONV).columns) == list(data_dictionary().columns)

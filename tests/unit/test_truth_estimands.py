"""Each claim's estimand from the simulated models' expected scores (eibench.synthetic.estimands):
the statistic of the mean over the Monte-Carlo draws, with the draws' spread as its error."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from eibench.synthetic.estimands import cohort_estimands

N = 8
GOLD = {
    "conversations": pd.DataFrame(
        {
            "conversation_id": [f"c{j}" for j in range(N)],
            "participant_id": ["p0", "p0", "p1", "p1", "p2", "p2", "p3", "p3"],
            "category": ["A", "B"] * 4,
            "n_turns": [3, 4, 3, 5, 4, 3, 5, 4],
        }
    ),
    "participants": pd.DataFrame(
        {"participant_id": ["p0", "p1", "p2", "p3"], "has_diagnosis": [True, True, False, False]}
    ),
}
CLAIMS = [
    {"id": "C3", "test": "diagnosis_effect", "params": {"metric": "emotion_f1", "direction": "negative"}},
    {"id": "C7", "test": "humans_vs_models", "params": {"metric": "binary_hp_acc", "direction": "humans_better"}},
    {"id": "C2", "test": "discriminability_difference", "params": {"better": "pairwise_acc", "worse": "emotion_f1"}},
]


def _frames(effects: list[float]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per draw, emotion F1 = 0.6 + effect x diagnosed; binary HP accuracy exact (the same in
    every draw): models 0.5, 0.6, 0.7, the human rater 0.65."""
    diag = np.array([1, 1, 1, 1, 0, 0, 0, 0], dtype=float)
    rows, turns = [], []
    for d, effect in enumerate(effects):
        for name, hp in (("m0", 0.5), ("m1", 0.6), ("m2", 0.7), ("human_1", 0.65)):
            for j in range(N):
                rows.append(
                    {
                        "draw": d,
                        "em_model": name,
                        "conversation_id": f"c{j}",
                        "emotion_f1": 0.6 + effect * diag[j],
                        "binary_hp_acc": hp,
                    }
                )
                turns.append(
                    {"draw": d, "em_model": name, "conversation_id": f"c{j}", "turn_number": 1, "rel_position": 0.0}
                )
    return pd.DataFrame(rows), pd.DataFrame(turns)


def test_the_estimand_is_the_statistic_of_the_mean_and_its_error_the_draws_spread():
    conv, turns = _frames([0.09, 0.11])
    roles = {"m0": "model", "m1": "model", "m2": "model", "human_1": "human"}
    out = cohort_estimands(conv, turns, GOLD, roles, "default", CLAIMS).set_index("id")
    assert out.loc["C3", "estimand"] == pytest.approx(0.10)
    assert out.loc["C3", "mc_se"] == pytest.approx(np.std([0.09, 0.11], ddof=1) / np.sqrt(2))
    # the raters (0.65) beat two of three models; exact values: no Monte-Carlo error
    assert out.loc["C7", "estimand"] == pytest.approx(2 / 3) and out.loc["C7", "mc_se"] == 0.0
    assert "C2" not in out.index and set(out["draws"]) == {2}

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


def test_the_log_f_target_is_the_mean_log_f_of_noisy_studies():
    """The first-order target of stats.discriminability.log_f: the mean log F of studies whose
    scores are the expected ones plus answer noise of the given variances comes close to it,
    and without noise it is the log F of the expected scores themselves."""
    from eibench.stats.discriminability import _weighted_se2, log_f
    from eibench.synthetic.estimands import log_f_target

    rng = np.random.default_rng(3)
    models, convs = 30, 150
    expected = rng.normal(0.0, 0.05, (models, 1)) + rng.normal(0.6, 0.1, (1, convs))
    noise = np.full((models, convs), 0.2**2)
    ones = np.ones((1, convs))

    def observed_log_f(values: np.ndarray) -> float:
        return float(log_f(np.nanmean(values, axis=1), _weighted_se2(values, ones)[0]))

    target = log_f_target(expected, noise)
    draws = [observed_log_f(expected + rng.normal(0.0, 0.2, expected.shape)) for _ in range(200)]
    assert abs(np.mean(draws) - target) < 0.1, (np.mean(draws), target)
    assert log_f_target(expected, np.zeros_like(noise)) == pytest.approx(observed_log_f(expected))
    # more answer noise hides the same model differences: a lower target
    assert log_f_target(expected, 4 * noise) < target
    assert np.isnan(log_f_target(expected[:1], noise[:1]))  # one model separates nothing


def test_the_discriminability_estimand_reads_the_noise_and_has_a_jackknife_error():
    conv, turns = _frames([0.09, 0.11])
    rng = np.random.default_rng(0)
    conv["pairwise_acc"] = conv["em_model"].map({"m0": 0.5, "m1": 0.6, "m2": 0.7, "human_1": 0.65}) + rng.normal(
        0, 0.01, len(conv)
    )
    roles = {"m0": "model", "m1": "model", "m2": "model", "human_1": "human"}
    noise = pd.DataFrame(
        [
            {"em_model": m, "leave_out": k, "conversation_id": f"c{j}", "pairwise_acc": 0.04, "emotion_f1": v}
            for m in ("m0", "m1", "m2")
            for k, v in ((-1, 0.04), (0, 0.03), (1, 0.05))
            for j in range(N)
        ]
    )
    out = cohort_estimands(conv, turns, GOLD, roles, "default", CLAIMS, noise).set_index("id")
    # the models differ on pairwise accuracy, not on emotion F1: pairwise separates them more
    assert out.loc["C2", "estimand"] > 0 and np.isfinite(out.loc["C2", "estimand"])
    assert out.loc["C2", "mc_se"] > 0  # the two leave-one-out noise variances differ
    assert np.isnan(out.loc["C3", "hardest_gap"])  # only a topic claim has a gap

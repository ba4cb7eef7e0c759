"""Building a Study from the score tables, loading it from Parquet, and the shared resamples."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from eibench.stats import load
from eibench.stats.study import Study

from .conftest import make_study


def _tables(metrics: list[str]):
    conversations = pd.DataFrame(
        {
            "conversation_id": ["c3", "c1", "c2", "c4"],  # not sorted: the Study sorts them
            "participant_id": ["P2", "P1", None, "P1"],
            "category": ["Family", "Studies", "Family", "Grief and loss"],
            "n_turns": [4, 3, 5, 6],
        }
    )
    participants = pd.DataFrame({"participant_id": ["P1", "P2", "P9"], "has_diagnosis": [True, False, True]})
    rows = []
    for mode, rule_set, offset in (("default", "parity", 0.0), ("default", "strict", 10.0), ("other", "parity", 20.0)):
        for model, base in (("b_model", 0.5), ("a_model", 0.1)):
            for j, cid in enumerate(["c1", "c2", "c3", "c4"]):
                if model == "a_model" and cid == "c4":
                    continue  # a missing value
                rows.append(
                    {
                        "mode": mode,
                        "rule_set": rule_set,
                        "em_model": model,
                        "conversation_id": cid,
                        **{m: base + offset + j / 10 for m in metrics},
                    }
                )
    scores = pd.DataFrame(rows)
    turns = pd.DataFrame(
        {
            "mode": ["default", "default", "default"],
            "rule_set": ["strict", "strict", "parity"],
            "em_model": ["a_model", "b_model", "a_model"],
            "conversation_id": ["c1", "c1", "c1"],
            "rel_position": [0.0, 0.0, 0.0],
            "emotion_f1": [0.1, 0.2, 0.3],
        }
    )
    return scores, turns, conversations, participants


def test_from_tables_builds_sorted_arrays_for_one_mode_and_rule_set():
    scores, turns, conversations, participants = _tables(["emotion_f1", "composite"])
    study = Study.from_tables(
        scores,
        turns,
        conversations,
        participants,
        {"b_model": "human"},
        ["emotion_f1", "composite"],
        "default",
        "strict",
    )
    assert study.models == ["a_model", "b_model"]
    assert study.conversations == ["c1", "c2", "c3", "c4"]
    assert study.roles == {"a_model": "model", "b_model": "human"}
    assert study.participants == ["P1", "P2"]
    np.testing.assert_array_equal(study.participant, [0, -1, 1, 0])
    np.testing.assert_array_equal(study.diagnosed, [True, False, False, True])
    np.testing.assert_array_equal(study.category, ["Studies", "Family", "Family", "Grief and loss"])
    np.testing.assert_array_equal(study.n_turns, [3.0, 5.0, 4.0, 6.0])
    np.testing.assert_allclose(study.values["emotion_f1"], [[10.1, 10.2, 10.3, np.nan], [10.5, 10.6, 10.7, 10.8]])
    assert study.n_conversations == 4
    assert study.with_role("human") == [1] and study.with_role("model") == [0]
    assert len(study.turns) == 2 and set(study.turns["rule_set"]) == {"strict"}


def test_load_study_from_parquet(tmp_path):
    scores, turns, conversations, participants = _tables(load.STUDY_METRICS)
    paths = {}
    for name, frame in (
        ("scores", scores),
        ("turns", turns),
        ("conversations", conversations),
        ("participants", participants),
    ):
        paths[name] = tmp_path / f"{name}.parquet"
        frame.to_parquet(paths[name])
    study = load.load_study(
        str(paths["scores"]),
        str(paths["turns"]),
        str(paths["conversations"]),
        str(paths["participants"]),
        {},
        {"mode": "default", "rule_set": "parity"},
    )
    assert set(study.values) == set(load.STUDY_METRICS)
    np.testing.assert_allclose(study.values["composite"][0], [0.1, 0.2, 0.3, np.nan])
    assert len(study.turns) == 1 and study.turns["emotion_f1"].iloc[0] == 0.3
    assert "emotion_f1" in load.STUDY_METRICS and "cw_q1_f1" in load.STUDY_METRICS


def _stats(cluster="conversation", n=50):
    return {"mode": "default", "rule_set": "parity", "cluster": cluster, "n_bootstrap": n}


def test_resamples_are_seeded_and_shared():
    study = make_study({"emotion_f1": np.zeros((1, 8))}, participant=[0, 0, 1, 1, 1, 2, -1, -1])
    a = load.resamples(study, _stats(), seed=3)
    assert a.shape == (50, 8)
    np.testing.assert_array_equal(a, load.resamples(study, _stats(), seed=3))
    assert not np.array_equal(a, load.resamples(study, _stats(), seed=4))
    assert load.resamples(study, _stats(), seed=3, n=7).shape == (7, 8)
    np.testing.assert_array_equal(a.sum(axis=1), np.full(50, 8.0))
    # A different rule set draws other resamples.
    other = dict(_stats(), rule_set="strict")
    assert not np.array_equal(a, load.resamples(study, other, seed=3))


def test_participant_resamples_move_a_participants_conversations_together():
    study = make_study({"emotion_f1": np.zeros((1, 8))}, participant=[0, 0, 1, 1, 1, 2, -1, -1])
    w = load.resamples(study, _stats("participant", 200), seed=3)
    np.testing.assert_array_equal(w[:, 0], w[:, 1])
    np.testing.assert_array_equal(w[:, 2], w[:, 4])
    assert np.any(w[:, 6] != w[:, 7])  # unknown participants are clusters of their own
    assert len(np.unique(w.sum(axis=1))) > 1


def test_available_metrics_need_a_value_among_the_given_models():
    values = {
        "emotion_f1": np.array([[0.1, np.nan], [np.nan, np.nan]]),
        "draft_judge": np.array([[np.nan, np.nan], [0.3, np.nan]]),
    }
    study = make_study(values)
    assert load.available(study, ["emotion_f1", "draft_judge", "not_there"], [0, 1]) == ["emotion_f1", "draft_judge"]
    assert load.available(study, ["emotion_f1", "draft_judge"], [0]) == ["emotion_f1"]


@pytest.mark.parametrize("metric", ["emotion_f1", "panas_adjusted", "composite", "cw_q1_f1"])
def test_study_metrics_are_per_conversation_metrics(metric):
    assert metric in load.STUDY_METRICS
    assert not any(m.endswith(("_precision", "_recall", "_mcc")) for m in load.STUDY_METRICS)

"""Every claim under every resampling scheme (eibench.stats.claim_schemes, rule
stats_claim_schemes): the claims' own analyses and verdict rules rerun with each scheme's
resamples."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from eibench.stats.bootstrap import SCHEMES
from eibench.stats.claim_schemes import RESAMPLED, claims_by_scheme, interval_kind
from eibench.stats.claims import verdicts
from eibench.stats.discriminability import compare, discriminability

from .conftest import make_study

ROMANTIC = "Romantic relationships"
STATS = {"alpha": 0.05, "principal_metrics": ["emotion_f1", "pairwise_acc"]}
TOPIC = {
    "id": "T",
    "family": "headline",
    "text": "Romantic relationships are the hardest topic.",
    "test": "topic_hardest",
    "params": {"metric": "composite", "category": ROMANTIC},
}
DIAGNOSIS = {
    "id": "D",
    "family": "exploratory",
    "text": "Worse with a diagnosis.",
    "test": "diagnosis_effect",
    "params": {"metric": "composite", "direction": "negative"},
}


def _diagnosis_table() -> pd.DataFrame:
    """Rule stats_subgroups' row of the diagnosis claim (mixed model and permutation p)."""
    return pd.DataFrame(
        {
            "metric": ["composite"],
            "adjusted_effect": [-1.5],
            "adjusted_lo": [-2.5],
            "adjusted_hi": [-0.5],
            "p_permutation": [0.01],
            "n_permutations": [70],
            "difference": [-1.4],
        }
    )


def _clustered_study():
    """Eight participants of ten conversations each; the first four talk only about romantic
    relationships. The participants differ a lot and the conversations of one participant
    little, so the romantic contrast (-3 points) is precise if the conversations are taken as
    independent and not when the participants are resampled."""
    rng = np.random.default_rng(5)
    participant = np.repeat(np.arange(8), 10)
    person = np.array([-3.0, -1.0, 1.0, -5.0, 2.0, -2.0, 4.0, 0.0])
    base = 60 + person[participant] + rng.normal(0, 0.3, 80)
    values = np.stack([base, base - 1 + rng.normal(0, 0.3, 80)])
    category = np.where(participant < 4, ROMANTIC, "Work")
    study = make_study(
        {"composite": values},
        participant=participant,
        category=category,
        diagnosed=participant % 2 == 0,
        n_turns=rng.integers(4, 12, 80),
    )
    weights = {s: SCHEMES[s](participant, 400, np.random.default_rng(7)) for s in ("conversation", "two_stage")}
    return study, weights


def _run(study, claims, weights):
    return claims_by_scheme(
        study, claims, STATS, weights, lambda: np.random.default_rng(1), _diagnosis_table(), design=None
    )


def test_a_clustered_contrast_is_supported_over_conversations_and_not_over_participants():
    study, weights = _clustered_study()
    t = _run(study, [TOPIC], weights).set_index("scheme")
    assert list(t.index) == ["conversation", "two_stage"]
    assert t.loc["conversation", "estimate"] == t.loc["two_stage", "estimate"] == pytest.approx(-3, abs=0.3)
    conv, two = t.loc["conversation"], t.loc["two_stage"]
    assert two["hi"] - two["lo"] > 2.5 * (conv["hi"] - conv["lo"])
    assert conv["verdict"] == "supported" and conv["hi"] < 0
    assert two["verdict"] == "inconclusive" and two["lo"] < 0 < two["hi"]
    assert (t["interval"] == RESAMPLED).all()


def test_the_diagnosis_claim_is_the_same_under_every_scheme_and_says_why():
    study, weights = _clustered_study()
    t = _run(study, [TOPIC, DIAGNOSIS], weights)
    d = t[t["id"] == "D"]
    assert d[["estimate", "lo", "hi", "p_value"]].nunique().eq(1).all()
    assert (d["lo"] == -2.5).all() and (d["interval"] == "mixed model, not resampled").all()
    # Each scheme adjusts its own families: the exploratory diagnosis claim is alone in its family.
    assert (d["p_adjusted"] == 0.01).all() and (d["verdict"] == "supported").all()


def test_a_scheme_reproduces_the_claims_verdict_from_the_analysis_itself():
    """Under the resamples the analyses' rules draw, the rows are those of rule stats_claims."""
    rng = np.random.default_rng(2)
    participant = np.repeat(np.arange(6), 8)
    values = {
        "pairwise_acc": np.linspace(0.3, 0.9, 5)[:, None] + rng.normal(0, 0.05, (5, 48)),
        "emotion_f1": 0.5 + rng.normal(0, 0.05, (5, 48)),
    }
    study = make_study(values, participant=participant)
    claim = {
        "id": "C2",
        "family": "headline",
        "text": "Preference separates models more than emotion F1.",
        "test": "discriminability_difference",
        "params": {"better": "pairwise_acc", "worse": "emotion_f1"},
    }
    w = SCHEMES["participant"](participant, 300, np.random.default_rng(3))
    table, snr = discriminability(study, ["emotion_f1", "pairwise_acc"], list(range(5)), w)
    point = dict(zip(table["metric"], table["log_f"]))
    direct = verdicts(
        [claim],
        {
            "discriminability_comparisons": {
                ("pairwise_acc", "emotion_f1"): compare(snr, *claim["params"].values(), point)
            }
        },
        0.05,
    ).iloc[0]
    got = _run(study, [claim], {"participant": w}).iloc[0]
    for column in ("estimate", "lo", "hi", "p_value", "verdict"):
        assert got[column] == direct[column]
    assert got["verdict"] == "supported"


def test_claims_without_a_resampling_interval_say_so_and_an_unknown_test_is_named():
    assert interval_kind("humans_vs_models").startswith("none")
    assert interval_kind("rank_independence").startswith("none")
    assert interval_kind("turn_flat") == RESAMPLED
    with pytest.raises(ValueError, match="'new_test'.*claim_schemes.py INTERVAL"):
        interval_kind("new_test")
    study, weights = _clustered_study()
    with pytest.raises(ValueError, match="new_test"):
        _run(study, [{**TOPIC, "test": "new_test"}], weights)


def test_a_cohort_without_human_raters_leaves_the_humans_claim_not_testable():
    study, weights = _clustered_study()
    claim = {
        "id": "C7",
        "family": "headline",
        "text": "Humans better.",
        "test": "humans_vs_models",
        "params": {"metric": "composite", "direction": "humans_better"},
    }
    t = _run(study, [claim], weights)
    assert (t["verdict"] == "not testable").all() and t["estimate"].isna().all()

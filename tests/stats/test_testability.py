"""What each claim needs from the cohort: a claim the design cannot support is 'not testable'
with its reason, has no number, and leaves its multiplicity family."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from eibench.stats.claims import verdicts
from eibench.stats.testability import (
    MIN_CONVERSATIONS,
    enough_conversations,
    min_kendall_models,
    min_page_models,
    min_permutation_p,
    tau_within_margin,
    unmet_needs,
)

from .test_claims import ALPHA, ROMANTIC, _claim, _family_claims, _results

METRICS = [
    "binary_hp_acc",
    "binary_om_acc",
    "composite",
    "cw_q1_f1",
    "draft_judge",
    "emotion_f1",
    "evaluation",
    "holistic",
    "pairwise_acc",
    "tracking",
]


def _design(**override):
    """A design that supports every claim type; ``override`` replaces top-level keys."""
    design = {
        "n_conversations": 40,
        "participants": {
            "conversations_with_participant": 40,
            "diagnosed": {"participants": 5, "conversations": 20},
            "not_diagnosed": {"participants": 5, "conversations": 20},
        },
        "categories": {ROMANTIC: 10, "Work and career": 30},
        "conversations_without_category": 0,
        "turns": [6] * 40,
        "turn_positions": ["early", "middle", "late"],
        "models": [f"m{i}" for i in range(6)],
        "humans": ["human_1"],
        "human_conversations": 10,
        "metrics_models": METRICS,
        "metrics_humans": ["binary_hp_acc", "cw_q1_f1"],
    }
    design.update(override)
    return design


ALL = {
    "rank_independence": dict(metrics=["emotion_f1", "binary_om_acc"], margin=0.3),
    "discriminability_difference": dict(better="pairwise_acc", worse="emotion_f1"),
    "diagnosis_effect": dict(metric="emotion_f1", direction="negative"),
    "turn_drift": dict(metric="binary_om_acc", direction="negative"),
    "turn_flat": dict(metric="emotion_f1", margin=0.05),
    "topic_hardest": dict(metric="composite", category=ROMANTIC),
    "profile_flips": {},
    "humans_vs_models": dict(metric="binary_hp_acc", direction="humans_better"),
}


@pytest.mark.parametrize("test", sorted(ALL))
def test_the_full_design_supports_every_claim_type(test):
    assert unmet_needs(_claim(test, **ALL[test]), _design(), ALPHA) == []


@pytest.mark.parametrize("test", sorted(ALL))
def test_a_cohort_of_mood_tags_only_supports_none_of_the_analyses_it_lacks(test):
    """The mood-only cohort: no participants, one topic, three baselines, emotion metrics only."""
    design = _design(
        participants={
            "conversations_with_participant": 0,
            "diagnosed": {"participants": 0, "conversations": 0},
            "not_diagnosed": {"participants": 0, "conversations": 0},
        },
        categories={"Daily life": 16},
        models=["chance", "lexicon", "prior"],
        humans=[],
        metrics_models=["composite", "emotion_f1", "tracking"],
        metrics_humans=[],
    )
    reasons = unmet_needs(_claim(test, **ALL[test]), design, ALPHA)
    # turn_flat on emotion F1 is the one claim such a cohort can test
    assert (reasons == []) == (test == "turn_flat"), reasons


@pytest.mark.parametrize(
    "change, test, words",
    [
        ({"humans": []}, "humans_vs_models", "no human raters"),
        ({"metrics_humans": ["cw_q1_f1"]}, "humans_vs_models", "raters have no value of binary_hp_acc"),
        ({"categories": {ROMANTIC: 40}}, "topic_hardest", "in other categories: 0"),
        ({"categories": {"Work and career": 40}}, "topic_hardest", f"conversations in {ROMANTIC!r}: 0"),
        ({"turn_positions": ["early"]}, "turn_drift", "early and late"),
        ({"turn_positions": ["early"]}, "turn_flat", "early and late"),
        ({"models": ["a", "b"]}, "turn_drift", "Page's trend test"),
        ({"models": ["a", "b", "c", "d"]}, "rank_independence", "exact Kendall test"),
        ({"metrics_models": ["emotion_f1"]}, "discriminability_difference", "pairwise_acc has no value"),
        ({"metrics_models": ["tracking", "holistic"]}, "profile_flips", "evaluation has no value"),
    ],
)
def test_each_unmet_need_is_named(change, test, words):
    reasons = unmet_needs(_claim(test, **ALL[test]), _design(**change), ALPHA)
    assert any(words in r for r in reasons), reasons


def test_page_s_trend_test_needs_middle_turns_and_a_flat_claim_does_not():
    """ESConv cut to its first 2 turns has early and late turns only: Page's trend test over early,
    middle and late turns had no block, and the drift claim E2 was 'inconclusive' with no p."""
    drift, flat = (_claim(t, **ALL[t]) for t in ("turn_drift", "turn_flat"))
    two = _design(turns=[2] * 40, turn_positions=["early", "late"])
    assert unmet_needs(drift, two, ALPHA) == [
        "no middle turns, as the conversations have at most 2 turns; Page's trend test compares early, middle and "
        "late turns"
    ]
    assert unmet_needs(flat, two, ALPHA) == []  # late minus early needs no middle turn
    row = verdicts([drift], _results(), ALPHA, two).iloc[0]
    assert row["verdict"] == "not testable" and row["detail"].startswith("not testable: no middle turns, as ")
    assert np.isnan(row["p_value"]) and np.isnan(row["estimate"])
    # Longer conversations without a scored middle turn: the reason does not blame their length.
    (reason,) = unmet_needs(drift, _design(turn_positions=["early", "late"]), ALPHA)
    assert reason.startswith("no middle turns, as no scored turn lies in the middle third of a conversation")


@pytest.mark.parametrize(
    "metrics, defined, named",
    [
        (
            ["binary_om_acc", "panas_items_adjusted"],
            ["binary_om_acc"],
            "1 of its 2 metrics has values in this cohort (binary_om_acc; panas_items_adjusted has none)",
        ),
        (
            ["emotion_f1", "tracking", "pairwise_acc"],
            ["tracking"],
            "1 of its 3 metrics has values in this cohort (tracking; emotion_f1, pairwise_acc have none)",
        ),
        (
            ["emotion_f1", "tracking"],
            [],
            "0 of its 2 metrics have values in this cohort (emotion_f1, tracking have none)",
        ),
    ],
)
def test_a_rank_claim_with_one_metric_with_values_says_which_and_agrees_with_its_count(metrics, defined, named):
    """ESConv's E3 read "1 of its metrics (binary_om_acc, panas_items_adjusted) have values": the
    count was right, the verb did not agree with it and the list was the claim's, not the metrics
    with values."""
    claim = _claim("rank_independence", metrics=metrics, margin=0.3)
    reasons = unmet_needs(claim, _design(metrics_models=defined), ALPHA)
    assert reasons[0] == named + "; a rank comparison needs two"


def test_diagnosis_needs_both_groups_and_enough_participants():
    small = {
        "conversations_with_participant": 40,
        "diagnosed": {"participants": 3, "conversations": 20},
        "not_diagnosed": {"participants": 3, "conversations": 20},
    }
    reasons = unmet_needs(_claim("diagnosis_effect", **ALL["diagnosis_effect"]), _design(participants=small), ALPHA)
    assert reasons and "smallest p of the permutation test is 0.100" in reasons[0]
    few = copy.deepcopy(small)
    few["diagnosed"] = {"participants": 1, "conversations": MIN_CONVERSATIONS - 1}
    reasons = unmet_needs(_claim("diagnosis_effect", **ALL["diagnosis_effect"]), _design(participants=few), ALPHA)
    assert reasons and f"with a diagnosis: {MIN_CONVERSATIONS - 1}" in reasons[0]


def test_a_diagnosis_not_recorded_is_the_reason_it_names():
    claim = _claim("diagnosis_effect", **ALL["diagnosis_effect"])
    none = {
        "conversations_with_participant": 40,
        "diagnosed": {"participants": 0, "conversations": 0},
        "not_diagnosed": {"participants": 0, "conversations": 0},
    }
    reasons = unmet_needs(claim, _design(participants=none, participant_diagnosis_recorded=[False] * 11), ALPHA)
    assert reasons == ["no participant's diagnosis is recorded: the profiles of all 11 give no traits"]
    some = copy.deepcopy(none)
    some["not_diagnosed"] = {"participants": 4, "conversations": 30}
    recorded = [True] * 4 + [False] * 7
    reasons = unmet_needs(claim, _design(participants=some, participant_diagnosis_recorded=recorded), ALPHA)
    assert reasons and reasons[0].endswith("(7 participants, whose diagnosis is not recorded, in neither)")


def test_a_group_and_the_rest_each_need_the_minimum_of_conversations():
    m = MIN_CONVERSATIONS
    assert enough_conversations(m, m) and not enough_conversations(m - 1, 100) and not enough_conversations(100, m - 1)
    n = np.array([m, m - 1, 3 * m])
    assert enough_conversations(n, n.sum() - n).tolist() == [True, False, True]


def test_minimum_sizes_follow_the_exact_tests():
    assert min_kendall_models(0.05) == 5  # 2/4! = 0.083, 2/5! = 0.017
    assert min_page_models(0.05) == 3  # 2/36 = 0.056, 2/216 = 0.009
    assert min_permutation_p(3, 3) == pytest.approx(0.1) and min_permutation_p(4, 4) == pytest.approx(2 / 70)
    assert min_permutation_p(2, 3) == pytest.approx(0.1) and np.isnan(min_permutation_p(0, 5))
    assert not tau_within_margin(3, 0.3) and tau_within_margin(4, 0.3)


def test_not_testable_claims_have_no_numbers_and_leave_their_family():
    claims = _family_claims()
    full = verdicts(claims, _results(), ALPHA, _design()).set_index("id")
    design = _design(categories={ROMANTIC: 40})  # no complement: H4 (topic_hardest) cannot be tested
    part = verdicts(claims, _results(), ALPHA, design).set_index("id")
    assert part.loc["H4", "verdict"] == "not testable" and part.loc["H4", "detail"].startswith("not testable: ")
    assert part.loc["H4", ["estimate", "lo", "hi", "p_value", "p_adjusted"]].isna().all()
    assert np.isfinite(full.loc["H4", "p_adjusted"])
    # Holm over one fewer test: the adjusted p-values of the rest can only fall
    tested = full.index[np.isfinite(full["p_adjusted"].to_numpy(float)) & (full.index != "H4")]
    assert (part.loc[tested, "p_adjusted"] <= full.loc[tested, "p_adjusted"] + 1e-12).all()
    assert (part.loc[tested, "p_adjusted"] < full.loc[tested, "p_adjusted"] - 1e-12).any()
    assert "inconclusive" not in set(part.loc[["H4"], "verdict"])

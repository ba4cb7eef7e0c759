"""The statistics' numbers of rule paper_numbers (eibench.report.stats_numbers) that the paper
chooses its sentences from: what it may print as a number, and what it must word instead."""

from __future__ import annotations

import pandas as pd
from eibench.report.numbers import Numbers
from eibench.report.stats_numbers import add_drift, add_profiles, add_romantic

SCRIPTS = {r: f"workflow/scripts/{r}.py" for r in ("stats_topics", "stats_drift")}


def _romantic(adjusted: float, note: str) -> pd.DataFrame:
    """romantic_contrast.csv of rule stats_topics: the composite's row and another metric's."""
    nan = float("nan")
    return pd.DataFrame(
        {
            "metric": ["composite", "evaluation"],
            "romantic": ["Romantic relationships"] * 2,
            "n_romantic": [239, 239],
            "difference": [0.41, 0.0005],
            "lo": [-0.14, -0.004],
            "hi": [0.97, 0.005],
            "p_boot": [0.146, 0.849],
            "adjusted": [adjusted, nan],
            "adjusted_lo": [adjusted - 0.5, nan],
            "adjusted_hi": [adjusted + 0.5, nan],
            "mixed_model_note": [note, "singular fit (x)"],
            "hardest": ["Family", "Family"],
            "p_romantic_hardest": [0.0, 0.0155],
        }
    )


def test_a_romantic_contrast_the_mixed_model_did_not_estimate_is_said_so_not_printed():
    """Release build on ESConv's chats: the mixed model of the composite gave a singular fit, and
    the paper printed "the adjusted contrast with the other topics is – composite points ([–, –])".
    The numbers say whether there is an estimate, and why not (the kind of failed fit)."""
    note = "singular fit (The Hessian matrix at the estimated parameter values is not positive definite.)"
    nums = Numbers(scripts=SCRIPTS)
    add_romantic(nums, _romantic(float("nan"), note))
    e = nums.entries
    assert e["topics.romantic_estimated"]["value"] is False
    assert e["topics.romantic_no_estimate"]["value"] == "singular fit"
    assert e["topics.romantic_composite"]["display"] == "–"  # never printed: the paper asks romantic_estimated
    assert e["topics.hardest"]["value"] == "Family" and e["topics.n_romantic"]["value"] == 239

    nums = Numbers(scripts=SCRIPTS)
    add_romantic(nums, _romantic(float("nan"), "term 'romantic' not estimable in this design"))
    assert nums.entries["topics.romantic_no_estimate"]["value"] == "term 'romantic' not estimable in this design"

    nums = Numbers(scripts=SCRIPTS)
    add_romantic(nums, _romantic(-4.2, ""))
    e = nums.entries
    assert e["topics.romantic_estimated"]["value"] is True and e["topics.romantic_no_estimate"]["value"] == "none"
    assert e["topics.romantic_composite"]["display"] == "-4.20"


def test_no_romantic_contrast_adds_no_topic_numbers():
    nums = Numbers(scripts=SCRIPTS)
    add_romantic(nums, pd.DataFrame())
    assert nums.entries == {}


def _page(n_turns: list[int]) -> pd.DataFrame:
    """page_trend.csv of rule stats_drift for binary OM accuracy and emotion F1."""
    nan = float("nan")
    value = [0.03 if n else nan for n in n_turns]
    return pd.DataFrame(
        {
            "metric": ["binary_om_acc", "emotion_f1"],
            "L": [32.0 if n else nan for n in n_turns],
            "p_decreasing": [0.97 if n else nan for n in n_turns],
            "p_increasing": [0.09 if n else nan for n in n_turns],
            "n_blocks": [3 if n else 0 for n in n_turns],
            "slope": value,
            "slope_lo": value,
            "slope_hi": value,
            "late_minus_early": value,
            "late_early_lo": [v - 0.01 for v in value],
            "late_early_hi": [v + 0.01 for v in value],
            "n_turns": n_turns,
        }
    )


def test_the_models_that_do_not_decline_are_counted_apart_from_the_pooled_row():
    """Release build on ESConv's chats with four models read from files: the pooled decline's
    interval excluded zero while Page's test, which ranks the bins within each model, was
    inconclusive; 3 of the 7 models (the baselines) did not decline, which the paper now says.
    The pooled row is no model."""
    from eibench.stats.drift import POOLED

    per_model = pd.DataFrame(
        {
            "metric": ["binary_om_acc"] * 4 + ["emotion_f1"],
            "em_model": ["a", "b", "c", POOLED, "a"],
            "late_minus_early": [-0.1, 0.0, 0.04, -0.02, float("nan")],
        }
    )
    nums = Numbers(scripts=SCRIPTS)
    add_drift(nums, _page([43926, 0]), per_model)
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert e["drift.binary_om_acc.n_models"] == 3 and e["drift.binary_om_acc.n_not_declining"] == 2
    assert e["drift.emotion_f1.n_models"] == 0 and e["drift.emotion_f1.n_not_declining"] == 0


def test_the_drift_numbers_count_and_name_only_the_metrics_with_values():
    """Release build on ESConv's chats: the paper said "each of the 2 turn-level metrics analysed
    for drift (Binary OM accuracy and Emotion F1)", though emotion F1 has no value there."""
    nums = Numbers(scripts=SCRIPTS)
    add_drift(nums, _page([43926, 0]))
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert e["drift.n_metrics"] == 1 and e["drift.metrics"] == "Binary OM accuracy"
    assert e["drift.n_no_values"] == 1 and e["drift.no_values"] == "Emotion F1"
    assert e["drift.binary_om_acc.p_page"] == "0.180" and e["drift.emotion_f1.p_page"] == "–"

    nums = Numbers(scripts=SCRIPTS)
    add_drift(nums, _page([43926, 1200]))
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert e["drift.n_metrics"] == 2 and e["drift.metrics"] == "Binary OM accuracy and Emotion F1"
    assert e["drift.n_no_values"] == 0 and e["drift.no_values"] == "none"

    nums = Numbers(scripts=SCRIPTS)
    add_drift(nums, _page([43926, 0]).iloc[:0])  # no metric analysed: the header alone
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert e["drift.n_metrics"] == 0 and e["drift.metrics"] == "none" and e["drift.n_no_values"] == 0


def test_the_claims_caption_says_which_test_gave_each_p_value():
    """Table 3's caption said "Holm-adjusted p-values" of tests that differ in kind: two-sided
    tests of no difference beside partial conjunctions of equivalence tests."""
    import pytest
    from eibench.report.stats_numbers import p_value_kinds
    from eibench.stats.claims import P_VALUE_OF_TEST

    nan = float("nan")
    claims = pd.DataFrame(
        {
            "id": ["C1", "C2", "C3", "C4", "C4b", "C5", "C7"],
            "test": [
                "rank_independence",
                "discriminability_difference",
                "diagnosis_effect",
                "turn_drift",
                "turn_flat",
                "topic_hardest",
                "humans_vs_models",
            ],
            # C3 not testable (no p), C4b a test without a p-value
            "p_adjusted": [0.3, 0.01, nan, 0.05, nan, 0.002, 0.01],
        }
    )
    said = p_value_kinds(claims)
    assert said.startswith("C1: partial conjunction over the metric pairs' equivalence tests")
    assert "C2, C5: two-sided bootstrap test of no difference; C4: two-sided Page's trend test; C7: " in said
    assert "C3" not in said and "C4b" not in said
    assert p_value_kinds(claims.assign(p_adjusted=nan)) == "none"
    with pytest.raises(ValueError, match="test 'new_test' gives a p-value.*P_VALUE_OF_TEST"):
        p_value_kinds(claims.assign(test=["new_test", *claims["test"][1:]]))
    assert "turn_flat" not in P_VALUE_OF_TEST and "profile_flips" not in P_VALUE_OF_TEST  # no p-value


def test_every_kind_of_test_with_a_p_value_says_what_it_is():
    """Every test kind of claim_result that sets a finite p_value is in P_VALUE_OF_TEST."""
    import inspect
    import re

    from eibench.stats import claims as claims_module

    source = inspect.getsource(claims_module.claim_result)
    kinds = set(re.findall(r'test == "(\w+)"', source))
    assert kinds - {"turn_flat", "profile_flips"} == set(claims_module.P_VALUE_OF_TEST)


def _profiles(n_models: int) -> dict[str, float]:
    """Rule stats_profiles' summary.json over ``n_models`` models."""
    return {
        "tau": 1.0,
        "lo": 1 / 3,
        "hi": 1.0,
        "n_models": n_models,
        "n_flips": 0,
        "n_clear_flips": 0,
        "n_unresolved_flips": 0,
        "flip_resamples": 2000,
    }


def test_few_models_make_the_rank_correlation_coarse():
    """Over 3 models Kendall's tau-b of untied ranks takes 4 values (-1, -1/3, 1/3, 1): the
    release build's interval [0.33, 1.00] can only jump between them. Over 11 it takes 56."""
    for n_models, values, coarse in ((3, 4, True), (5, 11, True), (6, 16, False), (11, 56, False), (1, 0, False)):
        nums = Numbers(scripts={"stats_profiles": "workflow/scripts/stats_profiles.py"})
        add_profiles(nums, _profiles(n_models))
        e = {k: v["value"] for k, v in nums.entries.items()}
        assert (e["profiles.n_models"], e["profiles.n_tau_values"], e["profiles.tau_coarse"]) == (
            n_models,
            values,
            coarse,
        ), n_models
        assert nums.entries["profiles.tau"]["ci"] == [1 / 3, 1.0]

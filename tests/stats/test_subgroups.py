"""Diagnosis subgroups: conversation means, participant scores, the exact participant-level
permutation test and the mixed model."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np
import pandas as pd
import pytest
from eibench.stats import mixed, subgroups
from eibench.stats import simulation as sim
from scipy import stats

from .conftest import make_study


def test_conversation_means_skip_missing_models():
    values = np.array([[0.2, np.nan, np.nan], [0.4, 0.6, np.nan], [9.0, 9.0, 9.0]])
    study = make_study({"emotion_f1": values})
    got = subgroups.conversation_means(study, "emotion_f1", [0, 1])
    np.testing.assert_allclose(got, [0.3, 0.6, np.nan])


def test_participant_scores_average_conversations_and_skip_unknown_and_unscored_people():
    conv = np.array([0.1, 0.3, 0.5, np.nan, 0.9, 0.7])
    participant = np.array([0, 0, 1, 2, -1, 1])
    diagnosed = np.array([True, True, False, True, True, False])
    study = make_study({"emotion_f1": np.zeros((1, 6))}, participant=participant, diagnosed=diagnosed)
    scores, diag = subgroups.participant_scores(study, conv)
    np.testing.assert_allclose(scores, [0.2, 0.6])  # participant 2 has no scored conversation
    np.testing.assert_array_equal(diag, [True, False])


def test_a_participant_without_a_recorded_diagnosis_is_in_neither_group():
    """A profile without traits records no diagnosis: reading it as 'none' would put it in the
    undiagnosed group. It is left out of the scores, the mixed model and the design's groups."""
    from eibench.stats.design import cohort_design

    conv = np.array([0.1, 0.3, 0.5, 0.6, 0.9, 0.7, 0.2, 0.4])
    participant = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    diagnosed = np.array([True, True, False, False, False, False, True, True])
    study = make_study({"emotion_f1": np.zeros((1, 8))}, participant=participant, diagnosed=diagnosed)
    study.diagnosis_known = participant != 2  # participant 2's profile lists no trait
    scores, diag = subgroups.participant_scores(study, conv)
    np.testing.assert_allclose(scores, [0.2, 0.55, 0.3])
    np.testing.assert_array_equal(diag, [True, False, True])
    groups = cohort_design(study)["participants"]
    assert groups["not_diagnosed"] == {"participants": 1, "conversations": 2}
    assert groups["diagnosed"] == {"participants": 2, "conversations": 4}
    assert groups["conversations_with_participant"] == 8


def _brute_force_p(scores, labels) -> tuple[float, int]:
    """Every relabelling with the same number of labelled participants, by bit masks; exact
    arithmetic when the scores are integers."""
    n, k = len(scores), int(sum(labels))
    exact = all(float(s).is_integer() for s in scores)
    conv = Fraction if exact else float
    x = [conv(int(s)) if exact else float(s) for s in scores]

    def diff(mask):
        inside = [x[i] for i in range(n) if mask >> i & 1]
        outside = [x[i] for i in range(n) if not mask >> i & 1]
        return sum(inside) / len(inside) - sum(outside) / len(outside)

    observed = diff(sum(1 << i for i in range(n) if labels[i]))
    total = extreme = 0
    for mask in range(1 << n):
        if bin(mask).count("1") != k:
            continue
        total += 1
        d = diff(mask)
        extreme += abs(d) >= abs(observed) if exact else abs(d) >= abs(observed) - 1e-12
    return extreme / total, total


@pytest.mark.parametrize("seed", range(4))
def test_permutation_test_is_the_exact_enumeration_of_462_relabellings(seed):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=11) + np.r_[np.full(6, 0.8 * seed / 3), np.zeros(5)]
    labels = np.r_[np.ones(6, bool), np.zeros(5, bool)]
    perm = np.random.default_rng(seed + 100).permutation(11)
    scores, labels = scores[perm], labels[perm]
    out = subgroups.permutation_test(scores, labels, np.random.default_rng(0))
    p, total = _brute_force_p(scores, labels)
    assert total == comb(11, 6) == 462
    assert out["n_permutations"] == 462 and out["exact"] is True
    assert out["p_value"] == pytest.approx(p, abs=1e-15)
    assert out["difference"] == pytest.approx(scores[labels].mean() - scores[~labels].mean())
    # scipy's exact independent-samples permutation test of |difference| agrees too.
    ref = stats.permutation_test(
        (scores[labels], scores[~labels]),
        lambda a, b: abs(a.mean() - b.mean()),
        permutation_type="independent",
        n_resamples=np.inf,
        alternative="greater",
        vectorized=False,
    )
    assert out["p_value"] == pytest.approx(ref.pvalue, abs=1e-12)


def test_permutation_test_with_tied_integer_scores_counts_ties_as_extreme():
    scores = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5], dtype=float)
    labels = np.array([1, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1], dtype=bool)
    out = subgroups.permutation_test(scores, labels, np.random.default_rng(0))
    p, _ = _brute_force_p(scores, labels)
    assert out["p_value"] == pytest.approx(p, abs=1e-15)
    # Identical scores: every relabelling is as extreme as the observed one.
    assert subgroups.permutation_test(np.ones(11), labels, np.random.default_rng(0))["p_value"] == 1.0


def test_the_most_extreme_labelling_has_the_smallest_possible_p():
    scores = np.arange(11, dtype=float)
    labels = scores >= 5  # the six largest scores
    out = subgroups.permutation_test(scores, labels, np.random.default_rng(0))
    # 7.5 - 2 = 5.5; only the mirror labelling (the six smallest: 2.5 - 8 = -5.5) is as extreme.
    p, _ = _brute_force_p(scores, labels)
    assert out["difference"] == pytest.approx(5.5)
    assert out["p_value"] == pytest.approx(p) == pytest.approx(2 / 462)


def test_permutation_test_without_both_groups_is_nan():
    for labels in (np.zeros(5, bool), np.ones(5, bool)):
        out = subgroups.permutation_test(np.arange(5.0), labels, np.random.default_rng(0))
        assert np.isnan(out["difference"]) and np.isnan(out["p_value"]) and np.isnan(out["n_permutations"])
        assert out["exact"] is None  # no test ran: neither exact nor drawn


def test_permutation_test_falls_back_to_a_seeded_monte_carlo_sample(monkeypatch):
    monkeypatch.setattr(subgroups, "MAX_EXACT", 300)
    rng = np.random.default_rng(5)
    scores = rng.normal(size=11)
    labels = np.r_[np.ones(6, bool), np.zeros(5, bool)]
    a = subgroups.permutation_test(scores, labels, np.random.default_rng(1))
    b = subgroups.permutation_test(scores, labels, np.random.default_rng(1))
    assert a == b
    assert a["exact"] is False and a["n_permutations"] == 300
    exact, _ = _brute_force_p(scores, labels)
    assert a["p_value"] == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / 300) + 1e-9)


# ----------------------------------------------------------------- mixed model


def _emotion_diagnosis_fit(effect: float, seed: int):
    g = sim.Generator(n_conversations=150, n_models=6, n_humans=0, diagnosis=(("emotion", effect),))
    study, _ = sim.simulate(g, np.random.default_rng(seed))
    conv = subgroups.conversation_means(study, "emotion_f1", study.with_role("model"))
    return study, conv, subgroups.mixed_model(study, conv)


def test_mixed_model_recovers_a_planted_diagnosis_effect():
    planted = -0.1
    fits = [_emotion_diagnosis_fit(planted, seed)[2] for seed in range(8)]
    # A fit that did not converge (seed 5: every optimiser of MixedLM stops with |grad| 3.8) is
    # reported with its reason, never as an estimate.
    failed = [f for f in fits if f["reason"]]
    assert len(failed) <= 1 and all(mixed.is_fit_failure(f["reason"]) and np.isnan(f["estimate"]) for f in failed)
    estimates = np.array([f["estimate"] for f in fits if not f["reason"]])
    covered = [f["lo"] <= planted <= f["hi"] for f in fits]
    assert sum(covered) >= 6  # a 95% interval; 8 studies
    assert np.all(estimates < 0)
    assert estimates.mean() == pytest.approx(planted, abs=0.03)
    assert sum(f["p_value"] < 0.05 for f in fits) >= 6


def test_mixed_model_fields():
    study, conv, fit = _emotion_diagnosis_fit(0.0, 42)
    assert fit["n_conversations"] == int(np.isfinite(conv).sum())
    assert fit["n_participants"] == len(np.unique(study.participant))
    # The diagnosis is a participant-level term: t on the participants minus 2 degrees of freedom.
    q = stats.t.ppf(0.975, fit["n_participants"] - 2)
    assert fit["hi"] - fit["estimate"] == pytest.approx(q * fit["se"])
    assert fit["estimate"] - fit["lo"] == pytest.approx(q * fit["se"])
    assert fit["standardised"] == pytest.approx(fit["estimate"] / np.nanstd(conv, ddof=1))
    assert 0 <= fit["p_value"] <= 1


def test_mixed_model_leaves_out_unknown_participants():
    study, conv, fit = _emotion_diagnosis_fit(0.0, 43)
    study.participant = study.participant.copy()
    study.participant[:10] = -1
    fit = subgroups.mixed_model(study, conv)
    assert fit["n_conversations"] == int(np.isfinite(conv[10:]).sum())


def test_mixed_model_without_a_recorded_diagnosis_says_so():
    study, conv, _ = _emotion_diagnosis_fit(0.0, 43)
    study.diagnosis_known = np.zeros(study.n_conversations, dtype=bool)
    fit = subgroups.mixed_model(study, conv)
    assert np.isnan(fit["estimate"]) and fit["n_conversations"] == 0
    assert fit["reason"] == "no participant's diagnosis is recorded (their profiles give no traits)"


def test_mixed_model_with_one_diagnosis_group_says_so():
    study, conv, _ = _emotion_diagnosis_fit(0.0, 43)
    study.diagnosed = np.zeros(study.n_conversations, dtype=bool)
    fit = subgroups.mixed_model(study, conv)
    assert np.isnan(fit["estimate"]) and fit["n_conversations"] == int(np.isfinite(conv).sum())
    assert fit["reason"] == "every participant analysed is in one diagnosis group: no contrast"


def test_diagnosis_effects_table_combines_both_tests():
    g = sim.Generator(n_conversations=80, n_models=4, n_humans=0)
    study, _ = sim.simulate(g, np.random.default_rng(7))
    models = study.with_role("model")
    table = subgroups.diagnosis_effects(study, ["emotion_f1", "binary_om_acc"], models, np.random.default_rng(0))
    assert list(table["metric"]) == ["emotion_f1", "binary_om_acc"]
    row = table.iloc[1]
    conv = subgroups.conversation_means(study, "binary_om_acc", models)
    scores, diag = subgroups.participant_scores(study, conv)
    perm = subgroups.permutation_test(scores, diag, np.random.default_rng(0))
    mm = subgroups.mixed_model(study, conv)
    assert row["n_diagnosed"] == diag.sum() == 6 and row["n_not_diagnosed"] == 5
    assert row["difference"] == pytest.approx(perm["difference"]) and row["p_permutation"] == perm["p_value"]
    assert row["n_permutations"] == 462 and bool(row["exact"])
    assert row["adjusted_effect"] == pytest.approx(mm["estimate"]) and row["p_mixed"] == pytest.approx(mm["p_value"])


def test_mixed_model_of_a_metric_without_values_says_so():
    """Release build on ESConv's chats: emotion F1 has no value (no emotion annotation), and its
    mixed_model_note said "fewer than two participants"; it says that the metric has no values,
    and no fit is tried. An empty frame given to the fit is no observation, not too few people."""
    study, conv, _ = _emotion_diagnosis_fit(0.0, 43)
    fit = subgroups.mixed_model(study, np.full_like(conv, np.nan))
    assert np.isnan(fit["estimate"]) and fit["n_conversations"] == 0
    assert fit["reason"] == mixed.NO_VALUES == "no values of this metric"
    study.diagnosis_known = np.zeros(study.n_conversations, dtype=bool)  # no diagnosis recorded either
    assert subgroups.mixed_model(study, np.full_like(conv, np.nan))["reason"] == mixed.NO_VALUES
    empty = pd.DataFrame({"y": [], "participant": [], "n_turns": []})
    assert mixed.fit("y ~ n_turns", empty, "n_turns")[1].reason == "no observation to fit"

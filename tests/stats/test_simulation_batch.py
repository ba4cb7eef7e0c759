"""The vectorised validation by simulation: the same numbers as the per-study tests on the same
study and resamples, determinism, chunking, and the tests left out."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd
import pytest
from eibench.stats import simulation as sim
from eibench.stats import simulation_batch as sb
from eibench.stats.bootstrap import cluster_weights

PLANTED = sim.Generator(
    n_conversations=80,
    n_models=5,
    n_humans=2,
    human_conversations=25,
    diagnosis=(("emotion", -0.08),),
    romantic=(("preference", -0.05),),
    drift=(("behaviour", -0.1),),
    human_shift=(("preference", 0.1),),
)
B = 60
#: Columns from the mixed models, which reml.fit_many fits instead of statsmodels.
MIXED = {
    "p_diagnosis_mixed",
    "est_diagnosis",
    "lo_diagnosis",
    "hi_diagnosis",
    "p_romantic_mixed",
    "est_romantic",
    "lo_romantic",
    "hi_romantic",
}


def _batch(g, seeds, design_seed=5):
    rngs = [np.random.default_rng(s) for s in seeds]
    return sb.draw(g, rngs, np.random.default_rng(design_seed)), rngs


def test_vectorised_tests_equal_the_per_study_tests_on_the_same_study():
    batch, rngs = _batch(PLANTED, range(3))
    weights = cluster_weights(np.arange(PLANTED.n_conversations), B, np.random.default_rng(99))
    table = sb.run_tests(batch, weights, 0.05, rngs)
    for s in range(3):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = sim.run_tests(sb.to_study(batch, s), B, np.random.default_rng(99), 0.05)  # the same weights
        ref.update(sim.human_tests(sb.to_study(batch, s, twin=True), PLANTED, B, np.random.default_rng(99), 0.05))
        assert set(ref) == set(table.columns)
        for column, expected in ref.items():
            got = table.loc[s, column]
            if column in MIXED:
                if np.isfinite(expected) and np.isfinite(
                    got
                ):  # statsmodels may fail where REML in closed form does not
                    key = column.split("_")[1]
                    half = (ref[f"hi_{key}"] - ref[f"lo_{key}"]) / 2
                    if column.startswith("est_"):  # the same REML optimum
                        assert got == pytest.approx(expected, abs=1e-5 * max(abs(expected), 1)), column
                    elif column.startswith(("lo_", "hi_")):  # expected vs observed information (reml.py)
                        assert abs(got - expected) <= 0.05 * half, column
                    else:
                        assert got == pytest.approx(expected, abs=0.01), column
            else:  # the same arithmetic up to summation order
                assert got == pytest.approx(expected, abs=1e-12, nan_ok=True), column


def test_to_study_copies_the_values_and_the_turns():
    batch, _ = _batch(PLANTED, [1])
    study = sb.to_study(batch, 0)
    grouped = study.turns.groupby(["em_model", "conversation_id"], sort=False)["binary_om_acc"].mean()
    models = study.with_role("model")
    expected = study.values["binary_om_acc"][models].ravel()
    np.testing.assert_allclose(grouped.to_numpy(), expected, atol=1e-12)
    assert np.isfinite(study.values["composite"][models]).all()
    rated = np.isfinite(study.values["binary_hp_acc"][study.with_role("human")])
    assert (rated.sum(axis=1) == PLANTED.human_conversations).all()
    # Without its turn table, the same study otherwise.
    bare = sb.to_study(batch, 0, turns=False)
    assert bare.turns is None
    assert bare.models == study.models and bare.conversations == study.conversations
    assert bare.roles == study.roles and bare.participants == study.participants
    for name in ("participant", "diagnosed", "category", "n_turns"):
        np.testing.assert_array_equal(getattr(bare, name), getattr(study, name))
    assert bare.values.keys() == study.values.keys()
    for metric, values in study.values.items():
        np.testing.assert_array_equal(bare.values[metric], values)


def test_planted_effects_are_recovered_on_average():
    batch, rngs = _batch(PLANTED, range(30))
    weights = cluster_weights(np.arange(PLANTED.n_conversations), B, np.random.default_rng(1))
    table = sb.run_tests(batch, weights, 0.05, rngs)
    assert table["est_drift"].mean() == pytest.approx(-0.1, abs=0.02)
    assert table["est_diagnosis"].mean() == pytest.approx(-0.08, abs=0.03)
    assert table["est_romantic"].mean() == pytest.approx(sim.composite_effect(PLANTED, "romantic"), abs=0.6)
    assert table["est_human"].mean() == pytest.approx(0.1, abs=0.03)


def test_results_are_byte_identical_for_the_same_seeds_and_independent_of_other_studies():
    weights = cluster_weights(np.arange(PLANTED.n_conversations), B, np.random.default_rng(2))
    make = lambda seeds, chunk: sb.simulate_and_test_many(  # noqa: E731
        PLANTED,
        [np.random.default_rng(s) for s in seeds],
        weights,
        0.05,
        chunk=chunk,
        design_rng=np.random.default_rng(5),
    )
    a, b = make(range(6), 3), make(range(6), 3)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    # A study's values come from its own generator: split differently, the non-mixed columns are
    # equal to the last bits and the mixed ones to the REML tolerance (reml.py).
    c = make(range(6), 6)
    for column in a.columns:
        np.testing.assert_allclose(
            c[column], a[column], rtol=0, atol=1e-6 if column in MIXED else 1e-12, err_msg=column
        )
    assert not np.array_equal(make(range(6, 12), 3)["est_drift"], a["est_drift"])


def test_left_out_tests_are_nan():
    skip = frozenset(
        {
            "turn drift: Page's trend test",
            "rank independence: exact Kendall test",
            "human vs model: paired cluster bootstrap",
        }
    )
    g = sim.Generator(n_conversations=40, n_models=4, n_humans=2, human_conversations=10, skip=skip)
    batch, rngs = _batch(g, range(2))
    table = sb.run_tests(batch, cluster_weights(np.arange(40), 20, np.random.default_rng(0)), 0.05, rngs)
    for test in skip:
        assert table[sim.TESTS[test]].isna().all(), test
    assert table["p_drift_slope"].notna().all() and table["p_diagnosis_permutation"].notna().all()


def test_kendall_p_equals_scipy():
    from scipy import stats

    rng = np.random.default_rng(8)
    a, b = rng.normal(size=(40, 11)), rng.normal(size=(40, 11))
    b[0] = b[0].round(0)  # ties: scipy on the row itself
    expected = [stats.kendalltau(x, y).pvalue for x, y in zip(a, b)]
    np.testing.assert_allclose(sb._kendall_p(a, b), expected, rtol=0, atol=1e-12)


def test_a_cohort_without_participants_raters_or_romantic_chats_runs_and_leaves_every_test_out():
    from eibench.stats.design import cohort_design

    mood_only = sim.Generator(
        n_conversations=16,
        n_models=3,
        n_humans=0,
        human_conversations=0,
        conversation_participant=(-1,) * 16,
        conversation_category=("Daily life",) * 16,
        participant_diagnosed=(),
        turns_each=tuple(6 + (j % 5) for j in range(16)),
    )
    design = cohort_design(sim.simulate(mood_only, np.random.default_rng(3))[0])
    design["metrics_models"] = ["composite", "emotion_f1", "emotion_va", "tracking"]  # mood tags only
    config = {"diagnosis": {"emotion": -0.5}, "romantic": {"emotion": -0.5}, "turn_drift": {}, "human_shift": {}}
    g = sim.planted_generator(config, sim.generator_design(design, 0.05))
    out = sb.simulate_and_test_many(
        g, [np.random.default_rng(i) for i in range(3)], sb.shared_weights(g, 20, np.random.default_rng(0)), 0.05
    )
    assert len(out) == 3 and out[list(sim.TESTS.values())].isna().all().all()


def test_a_drawn_design_without_participants_leaves_every_participant_unknown():
    """The reliability curve draws designs of other sizes from a cohort's generator; one with no
    participants (mood tags only) has every conversation's participant unknown (-1)."""
    g = sim.Generator(
        n_conversations=12, n_models=3, n_participants=0, n_diagnosed=0, n_humans=0, human_conversations=0
    )
    participant, diagnosed, category, turns = sb._design(g, np.random.default_rng(1))
    assert (participant == -1).all() and len(participant) == 12 and diagnosed.size == 0
    assert len(category) == 12 and ((turns >= g.turns[0]) & (turns <= g.turns[1])).all()
    batch = sb.draw(g, [np.random.default_rng(2)], design_rng=np.random.default_rng(1))
    assert batch.values["emotion_f1"].shape[-1] == 12 and not batch.diagnosed.any()


def _unrecorded_design(n_unrecorded: int = 3) -> sim.Generator:
    """PLANTED's effects on a copied design whose last ``n_unrecorded`` participants have no
    recorded diagnosis (profiles without traits), generated as undiagnosed."""
    participant, diagnosed, category, turns = sb._design(PLANTED, np.random.default_rng(3))
    P = len(diagnosed)
    recorded = np.arange(P) < P - n_unrecorded
    diagnosed = diagnosed & recorded
    return sim.Generator(
        **{
            **{f: getattr(PLANTED, f) for f in ("n_conversations", "n_models", "n_humans", "human_conversations")},
            "diagnosis": PLANTED.diagnosis,
            "conversation_participant": tuple(int(p) for p in participant),
            "conversation_category": tuple(category),
            "participant_diagnosed": tuple(bool(d) for d in diagnosed),
            "participant_recorded": tuple(bool(r) for r in recorded),
            "turns_each": tuple(int(t) for t in turns),
        }
    )


def test_unrecorded_participants_are_left_out_of_the_simulated_diagnosis_tests():
    """As in a cohort's own analyses (Study.diagnosis_known): their conversations move neither
    the permutation test nor the mixed model; read as undiagnosed, they would."""
    g = _unrecorded_design()
    batch, rngs = _batch(g, range(3))
    unrecorded = (batch.participant >= 0) & ~batch.recorded
    assert unrecorded.any() and not batch.diagnosed[unrecorded].any()
    conv = batch.values["emotion_f1"][:, : g.n_models].mean(axis=1)
    moved = conv + 0.3 * unrecorded  # the unrecorded participants' conversations shifted
    base, shifted = sb._diagnosis(batch, conv, rngs), sb._diagnosis(batch, moved, rngs)
    for column in ("p_diagnosis_permutation", "est_diagnosis", "lo_diagnosis", "hi_diagnosis"):
        np.testing.assert_allclose(shifted[column], base[column], rtol=0, atol=1e-9, err_msg=column)
    # The operating characteristics' diagnosis table (the claim's verdicts) alike.
    from eibench.stats.operating import _diagnosis_table

    values = dict(batch.values, emotion_f1=batch.values["emotion_f1"] + 0.3 * unrecorded)
    before = _diagnosis_table(batch, ["emotion_f1"], rngs)
    after = _diagnosis_table(dataclasses.replace(batch, values=values), ["emotion_f1"], rngs)
    for b, a in zip(before, after):
        pd.testing.assert_frame_equal(a, b, check_exact=False, atol=1e-9)
    as_undiagnosed = dataclasses.replace(batch, recorded=None)
    assert not np.allclose(
        sb._diagnosis(as_undiagnosed, moved, rngs)["est_diagnosis"],
        sb._diagnosis(as_undiagnosed, conv, rngs)["est_diagnosis"],
    )


def test_unrecorded_participants_vectorised_tests_equal_the_per_study_tests():
    g = _unrecorded_design()
    batch, rngs = _batch(g, range(2))
    weights = cluster_weights(np.arange(g.n_conversations), B, np.random.default_rng(99))
    table = sb.run_tests(batch, weights, 0.05, rngs)
    for s in range(2):
        study = sb.to_study(batch, s)
        known = batch.participant >= 0
        np.testing.assert_array_equal(study.diagnosis_recorded()[known], batch.diagnosis_rows[known])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = sim.run_tests(study, B, np.random.default_rng(99), 0.05)
        assert table.loc[s, "p_diagnosis_permutation"] == pytest.approx(ref["p_diagnosis_permutation"], abs=1e-12)
        assert table.loc[s, "est_diagnosis"] == pytest.approx(ref["est_diagnosis"], abs=1e-5)


def test_a_cohorts_unrecorded_participants_are_copied_by_the_simulated_design():
    from eibench.stats.design import cohort_design

    g = _unrecorded_design()
    study, _ = sim.simulate(g, np.random.default_rng(4))
    design = cohort_design(study)
    assert design["participant_diagnosis_recorded"] == list(g.participant_recorded)
    copied = sim.generator_design(design, 0.05)
    assert copied["participant_recorded"] == g.participant_recorded
    assert copied["n_diagnosed"] == sum(g.participant_diagnosed)
    groups = design["participants"]
    known = study.participant >= 0
    assert (
        groups["diagnosed"]["conversations"] + groups["not_diagnosed"]["conversations"]
        == int((known & study.diagnosis_recorded()).sum())
        < int(known.sum())
    )
    assert sim.Generator(**copied).n_recorded == sum(g.participant_recorded)


def test_no_recorded_diagnosis_gives_empty_diagnosis_tests_not_an_error():
    """Every participant unrecorded (ESConv-like profiles): nothing enters the diagnosis tests."""
    from eibench.stats.operating import _diagnosis_table

    participant, _, category, turns = sb._design(PLANTED, np.random.default_rng(3))
    g = dataclasses.replace(
        _unrecorded_design(),
        participant_diagnosed=(False,) * (participant.max() + 1),
        participant_recorded=(False,) * (participant.max() + 1),
    )
    batch, rngs = _batch(g, range(2))
    assert not batch.diagnosis_rows.any()
    (table, _) = _diagnosis_table(batch, ["emotion_f1"], rngs)
    assert table[["adjusted_effect", "p_permutation", "n_permutations", "difference"]].isna().all().all()


def test_drawn_drops_every_field_of_a_copied_design():
    g = sim.Generator(**{**sim.generator_design(_a_copied_design(), 0.05), "n_conversations": 12})
    drawn = g.drawn(n_participants=4)
    assert all(getattr(g, f) is not None for f in sim.COPIED_DESIGN)
    assert all(getattr(drawn, f) is None for f in sim.COPIED_DESIGN)
    assert (drawn.n_participants, drawn.n_conversations, drawn.n_models) == (4, 12, g.n_models)


def _a_copied_design():
    from eibench.stats.design import cohort_design

    return cohort_design(sim.simulate(_unrecorded_design(), np.random.default_rng(4))[0])

"""The Monte-Carlo expected metrics of a simulated model (eibench.synthetic.expected_mc): the mean
score of many simulated models with the same abilities (each its own answer stream, random
effects zero) comes within Monte-Carlo error of the expectation read from the curves, for the
non-binary metrics; the binary accuracies are exact; a bad grid is refused."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
from eibench.metrics.score import score_model
from eibench.release.read import read_conversations, read_em_outputs
from eibench.release.tidy import em_tables, gold_tables
from eibench.synthetic.cohort import generate_cohort
from eibench.synthetic.expected import expected_binary_accuracy
from eibench.synthetic.expected_mc import (
    accuracy_curves,
    expected_scores,
    grid_of,
    mc_summary,
    noise_variances,
    without_random_effects,
)
from eibench.synthetic.simulate import SimulatedModel, simulate_outputs

from ..conftest import write_files as _write

N_REPLICATES = 16
ABILITY = {"emotion": 0.3, "behaviour": -0.4, "preference": 0.5, "holistic": -0.2}
METRICS = ("emotion_f1", "emotion_va", "pairwise_acc", "conversation_wide", "four_branch", "composite")
#: The metrics whose answer noise the discriminability estimand reads.
NOISY = ("emotion_f1", "pairwise_acc")


@pytest.fixture(scope="module")
def cohort(default_config, tmp_path_factory):
    params = copy.deepcopy(default_config["cohorts"]["synthetic"]) | {"n_conversations": 16}
    seed = default_config["seed"]
    sim = copy.deepcopy(default_config["simulation"])
    sim["effects"]["diagnosis"]["emotion"] = -0.6
    files, _ = generate_cohort(params, seed)
    root = tmp_path_factory.mktemp("expected_mc")
    gold = gold_tables(read_conversations(_write(files, root / "conversations")))
    quiet = without_random_effects(sim)
    scores, per_conversation = [], []
    for k in range(N_REPLICATES):
        model = SimulatedModel(f"replicate-{k}", "model", ABILITY)
        outs = simulate_outputs(gold, model, "default", quiet, seed, params["romantic_category"])
        em = em_tables(read_em_outputs(_write(outs, root / model.name), model.name, "default"))
        conv = score_model(gold, em, "parity").conversation.sort_values("conversation_id")
        scores.append({m: float(conv[m].mean()) for m in METRICS})
        per_conversation.append(conv.set_index("conversation_id")[list(NOISY)])
    grid = grid_of({"min": -1.5, "max": 2.5, "step": 0.5})
    curves = accuracy_curves(gold, sim, seed, "default", params["romantic_category"], grid, draws=3)
    conv, turns = expected_scores(
        gold, SimulatedModel("any", "model", ABILITY), "default", sim, seed, params["romantic_category"], curves
    )
    noise = noise_variances(
        gold, SimulatedModel("any", "model", ABILITY), "default", sim, seed, params["romantic_category"], curves, NOISY
    )
    return gold, sim, seed, params, (per_conversation, noise), scores, conv, turns


@pytest.mark.parametrize("metric", METRICS)
def test_the_expectation_matches_many_simulated_studies(cohort, metric):
    *_, scores, conv, _ = cohort
    values = np.array([s[metric] for s in scores])
    expected, mc_se = mc_summary(conv.groupby("draw")[metric].mean().to_numpy())
    se = values.std(ddof=1) / np.sqrt(len(values))
    assert mc_se > 0
    assert abs(values.mean() - expected) < 4 * np.hypot(se, mc_se), (values.mean(), expected, se, mc_se)


def test_the_binary_accuracies_are_the_exact_ones(cohort):
    gold, sim, seed, params, _, _, conv, turns = cohort
    exact = expected_binary_accuracy(
        gold,
        SimulatedModel("any", "model", ABILITY),
        "default",
        without_random_effects(sim),
        seed,
        params["romantic_category"],
    )
    per_draw = conv.groupby("draw")["binary_om_acc"].mean().to_numpy()
    assert per_draw == pytest.approx(np.full(len(per_draw), exact["binary_om_acc"]), abs=1e-12)
    assert mc_summary(per_draw)[1] == 0.0
    assert set(turns["draw"]) == set(conv["draw"]) and turns["emotion_f1"].notna().any()


def test_a_planted_emotion_effect_lowers_the_diagnosed_conversations_emotion_f1(cohort):
    gold, *_, conv, _ = cohort
    diagnosed = set(gold["participants"].loc[gold["participants"]["has_diagnosis"], "participant_id"])
    who = gold["conversations"].set_index("conversation_id")["participant_id"]
    is_diag = conv["conversation_id"].map(who).isin(diagnosed)
    assert 0 < is_diag.mean() < 1
    assert conv.loc[is_diag, "emotion_f1"].mean() < conv.loc[~is_diag, "emotion_f1"].mean()


@pytest.mark.parametrize(
    "spec, needle",
    [({"min": 1.0, "max": 0.0, "step": 0.5}, "max > min"), ({"min": 0.0, "max": 1.0, "step": 0.5}, "at least 4")],
)
def test_a_bad_grid_is_refused_with_the_key(spec, needle):
    with pytest.raises(ValueError, match=needle) as err:
        grid_of(spec)
    assert "truth.logit_grid" in str(err.value)


@pytest.mark.parametrize("metric", NOISY)
def test_the_noise_variance_matches_the_spread_of_many_simulated_studies(cohort, metric):
    """The variance of a conversation's score over many answer streams of one model, averaged over
    the conversations, is what noise_variances reads from the curves' draws (within Monte-Carlo
    error, large with 16 conversations, 16 streams and 3 draws: within a factor 1.65, so a factor of
    two is out); a leave-one-out row per draw."""
    *_, (per_conversation, noise), _, _, _ = cohort
    streams = pd.concat([v[metric] for v in per_conversation], axis=1)
    observed = float(streams.var(axis=1, ddof=1).mean())
    full = noise[noise["leave_out"] == -1].set_index("conversation_id")[metric]
    assert list(full.index) == sorted(streams.index)
    assert abs(np.log(full.mean() / observed)) < 0.5, (full.mean(), observed)  # within a factor 1.65
    assert sorted(set(noise["leave_out"])) == [-1, 0, 1, 2] and (noise[metric] >= 0).all()


def test_the_noise_variance_is_the_draws_variance_at_the_models_logit(cohort):
    """Curves whose three draws sit at -d, 0, +d around any value at every grid point: the noise
    variance is d^2 wherever it is read, and leaving a draw out gives the variance of the other two."""
    gold, sim, seed, params, *_ = cohort
    ids = sorted(gold["conversations"]["conversation_id"].astype(str))
    grid = np.arange(-1.5, 3.0, 0.5)
    d = np.array([-0.1, 0.0, 0.1])[:, None, None]
    curves = {
        "grid": grid,
        "conversations": ids,
        "conversation": {"pairwise_acc": 0.3 + 0.05 * grid[None, :, None] + d + np.zeros((3, len(grid), len(ids)))},
    }
    model = SimulatedModel("any", "model", ABILITY)
    out = noise_variances(gold, model, "default", sim, seed, params["romantic_category"], curves, ("pairwise_acc",))
    by = out.groupby("leave_out")["pairwise_acc"]
    assert by.min().to_dict() == pytest.approx({-1: 0.01, 0: 0.005, 1: 0.02, 2: 0.005})
    assert by.max().to_dict() == pytest.approx({-1: 0.01, 0: 0.005, 1: 0.02, 2: 0.005})
    assert list(out.loc[out["leave_out"] == -1, "conversation_id"]) == ids


def test_noise_variances_refuse_a_metric_without_a_curve(cohort):
    gold, sim, seed, params, *_ = cohort
    with pytest.raises(ValueError, match="not curve metrics"):
        noise_variances(
            gold, SimulatedModel("any", "model", ABILITY), "default", sim, seed, "x", {}, ("binary_om_acc",)
        )


def test_one_draw_is_refused(cohort):
    gold, sim, seed, params, *_ = cohort
    with pytest.raises(ValueError, match="truth.draws"):
        accuracy_curves(gold, sim, seed, "default", params["romantic_category"], np.arange(4.0), draws=1)

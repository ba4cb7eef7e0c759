"""The exact expected binary accuracies of a simulated model (eibench.synthetic.expected) agree
with the simulator and the scorer: the mean over many models of the same abilities (each its own
answer stream, the same cohort and random effects) comes within Monte Carlo error of them."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from eibench.metrics.score import score_model
from eibench.release.read import read_conversations, read_em_outputs
from eibench.release.tidy import em_tables, gold_tables
from eibench.synthetic.cohort import generate_cohort
from eibench.synthetic.expected import expected_binary_accuracy
from eibench.synthetic.simulate import SimulatedModel, simulate_outputs

from ..conftest import write_files as _write

N_REPLICATES = 20


@pytest.fixture(scope="module")
def replicated(default_config, tmp_path_factory):
    params = copy.deepcopy(default_config["cohorts"]["synthetic"]) | {"n_conversations": 24}
    seed, sim = default_config["seed"], default_config["simulation"]
    files, _ = generate_cohort(params, seed)
    root = tmp_path_factory.mktemp("expected")
    gold = gold_tables(read_conversations(_write(files, root / "conversations")))
    ability = {"emotion": 0.1, "behaviour": -0.4, "preference": 0.5, "holistic": 0.0}
    scores = []
    for k in range(N_REPLICATES):
        model = SimulatedModel(f"replicate-{k}", "model", ability)
        outs = simulate_outputs(gold, model, "default", sim, seed, params["romantic_category"])
        em = em_tables(read_em_outputs(_write(outs, root / model.name), model.name, "default"))
        conv = score_model(gold, em, "parity").conversation
        scores.append({m: float(conv[m].mean()) for m in ("binary_om_acc", "binary_hp_acc")})
    exact = expected_binary_accuracy(
        gold, SimulatedModel("any", "model", ability), "default", sim, seed, params["romantic_category"]
    )
    return scores, exact


@pytest.mark.parametrize("metric", ["binary_om_acc", "binary_hp_acc"])
def test_the_exact_expectation_matches_the_simulated_scores(replicated, metric):
    scores, exact = replicated
    values = np.array([s[metric] for s in scores])
    se = values.std(ddof=1) / np.sqrt(len(values))
    assert 0 < exact[metric] < 1
    assert abs(values.mean() - exact[metric]) < 4 * se + 1e-9, (values.mean(), exact[metric], se)


def test_no_conversation_gives_nan(default_config, tmp_path):
    params = default_config["cohorts"]["synthetic"] | {"n_conversations": 5}
    files, _ = generate_cohort(params, 1)
    gold = gold_tables(read_conversations(_write(files, tmp_path)))
    model = SimulatedModel("x", "model", dict.fromkeys(("emotion", "behaviour", "preference", "holistic"), 0.0))
    out = expected_binary_accuracy(
        gold, model, "default", default_config["simulation"], 1, params["romantic_category"], conversations=[]
    )
    assert np.isnan(out["binary_om_acc"]) and np.isnan(out["binary_hp_acc"])

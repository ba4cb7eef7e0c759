"""Topic effects: category means, P(hardest), the mixed model and the romantic contrast."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from eibench.stats import simulation as sim
from eibench.stats import topics
from eibench.stats.bootstrap import cluster_weights
from eibench.stats.subgroups import conversation_means


def test_weighted_group_means_match_a_loop():
    rng = np.random.default_rng(1)
    conv = rng.normal(size=12)
    conv[3] = np.nan
    group = np.array(list("abcabcabcabc"), dtype=object)
    weights = rng.integers(0, 3, size=(10, 12)).astype(float)
    got = topics._weighted_group_means(conv, group, ["a", "b", "c", "z"], weights)
    assert got.shape == (10, 4)
    for b in range(10):
        for j, label in enumerate("abc"):
            sel = (group == label) & ~np.isnan(conv)
            w = weights[b, sel]
            expected = np.sum(w * conv[sel]) / w.sum() if w.sum() > 0 else np.nan
            assert got[b, j] == pytest.approx(expected, nan_ok=True)
    assert np.isnan(got[:, 3]).all()  # a label without conversations


@pytest.fixture(scope="module")
def romantic_study():
    effects = tuple((c, -0.2) for c in sim.CAPABILITIES)
    g = sim.Generator(n_conversations=180, n_models=5, n_humans=0, romantic=effects)
    study, _ = sim.simulate(g, np.random.default_rng(3))
    models = study.with_role("model")
    weights = cluster_weights(np.arange(study.n_conversations), 300, np.random.default_rng(4))
    table, contrast = topics.topic_effects(study, "composite", models, weights, sim.ROMANTIC)
    return study, models, weights, table, contrast


def test_category_means_and_counts(romantic_study):
    study, models, _, table, _ = romantic_study
    conv = conversation_means(study, "composite", models)
    expected = pd.Series(conv).groupby(study.category).mean()
    assert list(table["category"]) == sorted(expected.index)
    np.testing.assert_allclose(table["mean"], expected.loc[table["category"]].to_numpy())
    np.testing.assert_array_equal(
        table["n_conversations"], pd.Series(study.category).value_counts().loc[table["category"]].to_numpy()
    )
    assert (table["lo"] <= table["mean"]).all() and (table["mean"] <= table["hi"]).all()


def test_p_hardest_is_a_distribution_that_finds_the_planted_category(romantic_study):
    _, _, _, table, contrast = romantic_study
    assert table["p_hardest"].sum() == pytest.approx(1.0)
    assert table.set_index("category").loc[sim.ROMANTIC, "p_hardest"] > 0.9
    assert contrast["hardest"] == sim.ROMANTIC
    assert contrast["p_romantic_hardest"] == pytest.approx(table.set_index("category").loc[sim.ROMANTIC, "p_hardest"])


def test_reference_category_is_the_most_frequent(romantic_study):
    study, _, _, table, _ = romantic_study
    reference = table[table["is_reference"]]
    assert len(reference) == 1
    counts = pd.Series(study.category).value_counts()
    assert counts[reference["category"].iloc[0]] == counts.max()
    assert reference["effect_vs_reference"].iloc[0] == 0.0
    assert np.isnan(reference["effect_lo"].iloc[0]) and np.isnan(reference["effect_hi"].iloc[0])
    others = table[~table["is_reference"]]
    assert (others["effect_lo"] < others["effect_vs_reference"]).all()
    assert (others["effect_vs_reference"] < others["effect_hi"]).all()


def test_romantic_contrast_recovers_the_planted_composite_effect(romantic_study):
    study, models, _, table, contrast = romantic_study
    conv = conversation_means(study, "composite", models)
    romantic = study.category == sim.ROMANTIC
    assert contrast["n_romantic"] == romantic.sum()
    assert contrast["difference"] == pytest.approx(conv[romantic].mean() - conv[~romantic].mean())
    planted = sim.composite_effect(sim.Generator(romantic=tuple((c, -0.2) for c in sim.CAPABILITIES)), "romantic")
    # 100 x (0.24 + 0.49 + 0.27 x (0.4 / 2 + 0.3 + 0.3)) x -0.2: the PANAS part halves its shift.
    assert planted == pytest.approx(-18.92)
    assert contrast["lo"] <= contrast["difference"] <= contrast["hi"] < 0
    assert contrast["adjusted_lo"] <= planted <= contrast["adjusted_hi"]
    assert contrast["p_boot"] < 0.01 and contrast["p_mixed"] < 0.01
    # In this study the romantic category is also the most frequent, hence the reference: every
    # other category's mixed-model effect against it is then -planted.
    t = table.set_index("category")
    assert t.loc[sim.ROMANTIC, "is_reference"]
    others = t.drop(index=sim.ROMANTIC)
    assert ((others["effect_lo"] <= -planted) & (-planted <= others["effect_hi"])).sum() >= 7
    assert (others["effect_lo"] > 0).all()


def test_lower_is_better_turns_the_hardest_category_around(romantic_study):
    study, models, weights, table, _ = romantic_study
    flipped, contrast = topics.topic_effects(study, "composite", models, weights, sim.ROMANTIC, higher_is_better=False)
    assert contrast["hardest"] == table.loc[table["mean"].idxmax(), "category"] != sim.ROMANTIC
    assert flipped.set_index("category").loc[sim.ROMANTIC, "p_hardest"] < 0.05


def test_one_topic_without_participants_names_no_hardest_and_the_empty_side():
    """The mood-only cohort: one category, no participant profiles, no romantic conversation.
    No topic is 'the hardest', and the note says there is no romantic conversation (the
    conversations without a participant are not dropped)."""
    from .conftest import make_study

    rng = np.random.default_rng(0)
    n = 16
    study = make_study(
        {"composite": rng.normal(50, 5, size=(3, n))}, participant=np.full(n, -1), category=["Daily life"] * n
    )
    weights = cluster_weights(np.arange(n), 50, rng)
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        table, contrast = topics.topic_effects(study, "composite", [0, 1, 2], weights, "Romantic relationships")
    assert table["p_hardest"].isna().all() and contrast["hardest"] is None
    assert contrast["n_romantic"] == 0 and np.isnan(contrast["p_boot"]) and np.isnan(contrast["difference"])
    assert contrast["mixed_model_note"].startswith("no scored conversation with a known participant")


def test_the_romantic_note_names_the_empty_side():
    from .conftest import make_study

    rng = np.random.default_rng(1)
    n = 20
    weights = cluster_weights(np.arange(n), 50, rng)
    for category, note in (
        (["Family"] * n, "no conversation in 'Romantic relationships' among those"),
        (["Romantic relationships"] * n, "no conversation outside 'Romantic relationships'"),
    ):
        study = make_study(
            {"composite": rng.normal(50, 5, size=(2, n))}, participant=np.arange(n) % 4, category=category
        )
        with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
            _, contrast = topics.topic_effects(study, "composite", [0, 1], weights, "Romantic relationships")
        assert contrast["mixed_model_note"].startswith(note), contrast["mixed_model_note"]


def test_a_category_of_one_conversation_has_a_mean_and_no_interval():
    from .conftest import make_study

    rng = np.random.default_rng(2)
    n = 13
    category = ["Family"] * 6 + ["Work"] * 6 + ["Finances"]
    study = make_study({"composite": rng.normal(50, 5, size=(2, n))}, participant=np.arange(n), category=category)
    weights = cluster_weights(np.arange(n), 200, rng)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table, _ = topics.topic_effects(study, "composite", [0, 1], weights, "Romantic relationships")
    rows = table.set_index("category")
    assert rows.loc["Finances", "n_conversations"] == 1 and np.isfinite(rows.loc["Finances", "mean"])
    assert np.isnan(rows.loc["Finances", "lo"]) and np.isnan(rows.loc["Finances", "hi"])
    assert (rows.loc[["Family", "Work"], "hi"] > rows.loc[["Family", "Work"], "lo"]).all()
    # two conversations, of which one has a value: one value still gives no interval
    values = np.hstack([study.values["composite"], np.full((2, 1), np.nan)])
    gappy = make_study({"composite": values}, participant=np.arange(n + 1), category=[*category, "Finances"])
    weights = cluster_weights(np.arange(n + 1), 200, rng)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table, _ = topics.topic_effects(gappy, "composite", [0, 1], weights, "Romantic relationships")
    finances = table.set_index("category").loc["Finances"]
    assert finances["n_conversations"] == 2 and np.isnan(finances["lo"]) and np.isnan(finances["hi"])

"""Run-to-run noise: the simulated models' answers drawn again (synthetic/redraw.py)."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
from eibench.release.read import read_conversations
from eibench.release.tidy import gold_tables
from eibench.release.write import dumps
from eibench.synthetic.cohort import generate_cohort
from eibench.synthetic.redraw import SPREAD_COLUMNS, redrawn_composites, spread
from eibench.synthetic.simulate import draw_ability, simulate_outputs

from ..conftest import write_files as _write


@pytest.fixture(scope="module")
def gold(default_config, tmp_path_factory):
    params = copy.deepcopy(default_config["cohorts"]["synthetic"]) | {"n_conversations": 12}
    files, _ = generate_cohort(params, default_config["seed"])
    return gold_tables(read_conversations(_write(files, tmp_path_factory.mktemp("cohort"))))


def test_redraw_zero_is_the_published_draw_and_a_redraw_differs(gold, default_config):
    sim, seed = default_config["simulation"], default_config["seed"]
    model = draw_ability("sim-01", "model", sim, seed)
    published = simulate_outputs(gold, model, "default", sim, seed, "Romantic relationships")
    again = simulate_outputs(gold, model, "default", sim, seed, "Romantic relationships", redraw=0)
    other = simulate_outputs(gold, model, "default", sim, seed, "Romantic relationships", redraw=1)
    assert {k: dumps(v) for k, v in published.items()} == {k: dumps(v) for k, v in again.items()}
    assert set(other) == set(published)
    assert {k: dumps(v) for k, v in other.items()} != {k: dumps(v) for k, v in published.items()}


def test_redrawn_composites_are_seeded_and_vary_between_draws(gold, default_config):
    sim, seed = default_config["simulation"], default_config["seed"]
    args = (gold, {"sim-01": "model", "human_1": "human"}, sim, seed, "default", "Romantic relationships", 2)
    a, b = redrawn_composites(*args), redrawn_composites(*args)
    pd.testing.assert_frame_equal(a, b)
    assert list(a["draw"]) == [1, 2, 1, 2]
    one = a[a["em_model"] == "sim-01"]["composite"]
    assert one.nunique() == 2 and ((one > 0) & (one < 100)).all()
    assert (a[a["em_model"] == "sim-01"]["n_conversations"] == 12).all()
    human = a[a["em_model"] == "human_1"]["n_conversations"]
    assert (human == min(12, sim["human"]["n_conversations"])).all()


def test_spread_puts_the_redraw_sd_beside_the_bootstrap_sd():
    draws = pd.DataFrame(
        {
            "draw": [1, 2],
            "em_model": ["a"] * 2,
            "profile": ["model"] * 2,
            "composite": [70.0, 72.0],
            "n_conversations": [10] * 2,
        }
    )
    published = pd.DataFrame(
        {"em_model": ["a", "b"], "estimate": [71.0, 50.0], "width": [2 * 1.959963984540054 * 2.0, 1]}
    )
    s = spread(draws, published).set_index("em_model")
    assert list(s.index) == ["a"]  # only the redrawn models
    assert s.loc["a", "draws"] == 3 and s.loc["a", "min"] == 70 and s.loc["a", "max"] == 72  # with the published draw
    assert s.loc["a", "sd"] == pytest.approx(1.0) and s.loc["a", "bootstrap_sd"] == pytest.approx(2.0)
    assert s.loc["a", "noise_share"] == pytest.approx(0.5)
    # The sd's 95% interval from 3 draws (2 degrees of freedom): chi-square quantiles 0.0506, 7.378.
    assert s.loc["a", "sd_lo"] == pytest.approx(np.sqrt(2 / 7.378), rel=1e-3)
    assert s.loc["a", "sd_hi"] == pytest.approx(np.sqrt(2 / 0.0506), rel=1e-2)
    assert list(s.reset_index().columns) == SPREAD_COLUMNS
    alone = spread(draws, published.iloc[0:0])
    assert alone.loc[0, "draws"] == 2 and np.isnan(alone.loc[0, "noise_share"])

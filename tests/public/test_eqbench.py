"""EQ-Bench v2: hand-computed item scores, the run rules, the reliability curve on synthetic data, and
(with the local mirror) all 86 stored benchmark scores recomputed from the per-item answers."""

from __future__ import annotations

import math
import shutil
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from eibench.public import eqbench as eq

# Hand-computed: d' = 6.5 / (1 + e^{-1.2 (d - 4)}); e^{1.2} = 3.3201169, e^{-1.2} = 0.3011942.
D3 = 6.5 / 4.3201169  # 1.5045889
D5 = 6.5 / 1.3011942  # 4.9954111


@lru_cache(maxsize=1)
def _real(directory: str):
    data = eq.load(directory)
    items = eq.item_scores(data.answers)
    return data, items, eq.benchmark_scores(items, data.summary)


# --- item scores ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ratings", "references", "expected"),
    [
        ([3, 6, 0, 7], [3, 6, 0, 7], 10.0),  # d = 0 everywhere
        ([3, 6, 0, 7], [0, 6, 0, 7], 10 - 0.7477 * D3),  # d = 3: 8.875019
        ([5, 6, 0, 7], [0, 6, 0, 7], 10 - 0.7477 * D5),  # d = 5: 6.264931
        ([6, 6, 0, 7], [0, 6, 0, 7], 10 - 0.7477 * 6),  # d = 6 > 5: linear, 5.5138
        ([0, 3, 5, 6], [0, 0, 0, 0], 10 - 0.7477 * 12.5),  # 0 + d'(3) + d'(5) + 6 = 12.5 (symmetric S-curve)
        ([3, 6, 0, 7], ["0", "6", 0, "7"], 10 - 0.7477 * D3),  # references stored as strings
    ],
)
def test_item_score_hand_computed(ratings, references, expected):
    assert eq.item_score_from_ratings(ratings, references) == pytest.approx(expected, abs=1e-6)


def test_hand_values_are_the_expected_numbers():
    assert 10 - 0.7477 * D3 == pytest.approx(8.875019, abs=1e-6)
    assert 10 - 0.7477 * D5 == pytest.approx(6.264931, abs=1e-6)
    assert eq.scaled_difference(0.0) == 0.0
    assert eq.scaled_difference(6.0) == 6.0


def test_missing_rating_makes_item_unparseable():
    assert math.isnan(eq.item_score_from_ratings([1, None, 2, 3], [1, 1, 2, 3]))
    with pytest.raises(ValueError, match="4 emotions"):
        eq.item_score_from_ratings([1, 2, 3], [1, 2, 3])


def _answers(model: str, n_items: int, parseable: int, first=0.0, revised=None, revised_parseable=None):
    """Synthetic answers: every reference 2; the first ``parseable`` items fully rated ``2 + first``,
    the rest with one rating missing; optionally a revised pass."""
    rows = []
    for item in range(1, n_items + 1):
        for e in range(4):
            fp = 2 + first if item <= parseable or e else np.nan
            rv = np.nan
            if revised is not None:
                rv = 2 + revised if item <= (revised_parseable or parseable) or e else np.nan
            rows.append((model, 1, item, f"E{e}", fp, rv, "2"))
    return pd.DataFrame(rows, columns=list(eq.ANSWER_COLUMNS))


def test_item_scores_table_with_string_reference():
    items = eq.item_scores(_answers("m", 3, parseable=2, first=3))
    first = items[items["pass"] == "first_pass"].set_index("item")
    assert first.loc[1, "item_score"] == pytest.approx(10 - 0.7477 * 4 * D3, abs=1e-6)
    assert first.loc[1, "n_rated"] == 4
    assert first.loc[3, "n_rated"] == 3 and math.isnan(first.loc[3, "item_score"])
    assert items[items["pass"] == "revised"]["item_score"].isna().all()


@pytest.mark.parametrize(("parseable", "valid"), [(142, False), (143, True), (171, True)])
def test_invalid_run_below_83_33_percent_parseable(parseable, valid):
    # 142 / 171 = 0.8304 < 0.8333 <= 143 / 171 = 0.8363
    scores = eq.benchmark_scores(eq.item_scores(_answers("m", 171, parseable)), n_items=171)
    row = scores.loc["m"]
    assert row["n_parseable"] == parseable
    assert row["parseable_share"] == pytest.approx(parseable / 171)
    assert bool(row["valid"]) is valid
    assert row["recomputed"] == 100.0  # every parseable item exact


def test_revised_pass_rule():
    # revised better and as parseable -> revised; revised better but < 95% as parseable -> first pass
    better = eq.benchmark_scores(eq.item_scores(_answers("m", 20, 20, first=3, revised=0)), n_items=20).loc["m"]
    assert better["chosen_pass"] == "revised" and better["recomputed"] == 100.0
    sparse = eq.benchmark_scores(
        eq.item_scores(_answers("m", 20, 20, first=3, revised=0, revised_parseable=18)), n_items=20
    ).loc["m"]
    assert sparse["chosen_pass"] == "first_pass"
    assert sparse["recomputed"] == pytest.approx(round(10 * (10 - 0.7477 * 4 * D3), 2))


# --- reliability curve (synthetic) --------------------------------------------------------------


def _synthetic(n_models=12, n_items=80, spread=1.0, seed=0):
    gen = np.random.default_rng(seed)
    x = np.linspace(0, spread, n_models)[:, None] + gen.normal(0, 1, (n_models, n_items))
    x[0, :5] = np.nan  # some unparseable items
    return x


def test_curve_deterministic_bounded_and_increasing():
    x = _synthetic()
    a = eq.ranking_reliability_curve(x, [5, 40], 200, np.random.default_rng(7))
    b = eq.ranking_reliability_curve(x, [5, 40], 200, np.random.default_rng(7))
    c = eq.ranking_reliability_curve(x, [5, 40], 200, np.random.default_rng(8))
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)
    assert set(a["method"]) == {"split_half", "bootstrap"}
    for col in ("tau_mean", "tau_lo", "tau_hi", "rho_mean", "rho_lo", "rho_hi"):
        assert a[col].between(-1, 1).all()
    for method, part in a.groupby("method"):
        part = part.set_index("k")
        assert part.loc[40, "tau_mean"] > part.loc[5, "tau_mean"], method
    assert (a["tau_lo"] <= a["tau_mean"]).all() and (a["tau_mean"] <= a["tau_hi"]).all()


def test_curve_split_half_only_up_to_half_the_items():
    curve = eq.ranking_reliability_curve(_synthetic(n_items=30), [10, 15, 16, 30], 20, np.random.default_rng(1))
    assert sorted(curve.loc[curve["method"] == "split_half", "k"]) == [10, 15]
    assert sorted(curve.loc[curve["method"] == "bootstrap", "k"]) == [10, 15, 16, 30]


def test_curve_pure_noise_gives_no_agreement():
    x = np.random.default_rng(3).normal(0, 1, (15, 100))
    curve = eq.ranking_reliability_curve(x, [50], 300, np.random.default_rng(4))
    assert abs(curve.loc[curve["method"] == "split_half", "tau_mean"].item()) < 0.05


def test_spearman_brown_and_items_needed():
    assert float(eq.spearman_brown(0.5, 2)) == pytest.approx(2 / 3)
    assert math.isnan(float(eq.spearman_brown(-0.1, 2)))
    curve = pd.DataFrame({"method": "split_half", "k": [10, 20, 40], "tau_mean": [0.5, 0.8, 0.95], "rho_mean": 0.9})
    assert eq.items_needed(curve, 0.9) == pytest.approx(20 + 20 * (0.1 / 0.15))
    assert eq.items_needed(curve, 0.4) == 10
    assert math.isnan(eq.items_needed(curve, 0.99))
    # rho 0.9 at k = 40 -> rho 0.95 needs 40 * 0.95 * 0.1 / (0.9 * 0.05) = 84.4 items
    assert eq.items_needed_projected(curve, 0.95, "rho_mean") == pytest.approx(40 * 0.95 * 0.1 / (0.9 * 0.05))
    assert eq.projected_agreement(curve, 40, "tau_mean") == pytest.approx(0.95)


# --- the real mirror ----------------------------------------------------------------------------


def test_all_86_stored_scores_recomputed_within_002(eqbench_dir):
    _, _, scores = _real(str(eqbench_dir))
    assert len(scores) == 86
    assert scores["stored"].notna().all()
    diff = scores["difference"].abs()
    assert diff.max() <= 0.02 + 1e-9
    assert int((diff <= 0.02 + 1e-9).sum()) == 86
    assert (scores["n_parseable"] == scores["stored_n_parseable"]).all()
    assert scores["valid"].all()
    assert scores.loc["gpt-4-1106-preview", "chosen_pass"] == "revised"


def test_real_reference_strings_are_cast(eqbench_dir):
    data, _, _ = _real(str(eqbench_dir))
    assert len(data.questions) == 171 * 4
    assert data.questions["reference"].dtype == float
    assert data.questions["reference"].between(0, 10).all()


def test_real_curve(eqbench_dir):
    _, items, _ = _real(str(eqbench_dir))
    wide = eq.item_matrix(items, n_items=171)
    assert wide.shape == (86, 171)
    a = eq.ranking_reliability_curve(wide, [10, 85], 100, np.random.default_rng(2024))
    b = eq.ranking_reliability_curve(wide, [10, 85], 100, np.random.default_rng(2024))
    pd.testing.assert_frame_equal(a, b)
    for col in ("tau_mean", "tau_lo", "tau_hi", "rho_mean", "rho_lo", "rho_hi"):
        assert a[col].between(-1, 1).all()
    for _, part in a.groupby("method"):
        part = part.set_index("k")
        assert part.loc[85, "tau_mean"] > part.loc[10, "tau_mean"]
    assert a["adjacent_stability"].dropna().between(0, 1).all()


def test_missing_column_gives_clear_error(eqbench_dir, tmp_path: Path):
    for name in (eq.SUMMARY_FILE, eq.QUESTIONS_FILE):
        shutil.copy(eqbench_dir / name, tmp_path / name)
    answers = pd.read_csv(eqbench_dir / eq.ANSWERS_FILE, nrows=40).drop(columns=["reference"])
    answers.to_csv(tmp_path / eq.ANSWERS_FILE, index=False)
    with pytest.raises(ValueError) as err:
        eq.load(tmp_path)
    message = str(err.value)
    assert eq.ANSWERS_FILE in message and "'reference'" in message and "Fix" in message


def test_missing_file_is_named(tmp_path: Path):
    with pytest.raises(FileNotFoundError, match=eq.ANSWERS_FILE):
        eq.load(tmp_path)

"""EmoBench-M published results: the averages recompute (but for the known print error), rank
independence, discriminability and human gaps; synthetic fixtures with known answers; the clear
error on a malformed mirror."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from eibench.public import emobench_m as E
from eibench.stats.ranks import tau_b_matrix
from scipy import stats


@pytest.fixture
def data(emobench_m_dir: Path) -> E.EmoBenchM:
    return E.load(emobench_m_dir)


# ------------------------------------------------------------------------------ real mirror


def test_load_gives_tidy_tables(data):
    assert list(data.scenarios["scenario"]) == [
        "SOER",
        "SPER",
        "OSA",
        "EIA",
        "SEA",
        "FGDEA",
        "PEA",
        "FCDEA",
        "CEIA",
        "MPDER",
        "HU",
        "SD",
        "LR",
    ]
    assert data.n["LR"] == 80 and data.n["SEA"] == 250 and data.n["FCDEA"] == 457
    assert not data.scenarios.set_index("scenario").loc["LR", "binomial_exact"]
    assert set(data.latest_printed["dimension"]) == {"FER", "CEU", "SCEA"}
    assert len(data.latest_printed) == 160  # 27 FER + 27 CEU + 26 SCEA, ACC and WAF
    assert {"Human", "Random"} <= set(data.v2["model_id"])
    assert "SCEA" not in set(data.latest["scenario"]) | set(data.v2["scenario"])  # the stock scenario is SEA


def test_every_average_recomputes_but_the_known_print_error(data):
    a = E.recompute_averages(data)
    assert len(a) == 160 + 57 + 84
    assert a["recomputed"].notna().all()
    ok = a[~a["flagged"]]
    assert (ok["difference"].abs() <= 0.05 + 1e-9).all()
    flagged = a[a["flagged"]]
    assert set(zip(flagged["table"], flagged["model_id"], flagged["dimension"])) == {
        ("v2", "Qwen2.5-VL-72B-Instruct", "FER"),
        ("readme", "Qwen2.5-VL-72B-Instruct", "FER"),
    }
    assert flagged["known_print_error"].all()
    assert np.allclose(flagged["recomputed"], 54.78, atol=0.01)
    assert np.allclose(flagged["printed"], 53.0)
    # the latest tables recompute entirely (per PROVENANCE.md)
    assert not a.loc[a["table"] == "latest", "flagged"].any()


def test_coverage_is_inferred_from_the_data(data):
    cov = E.infer_coverage(data)
    chosen = cov[cov["chosen"]].set_index(["table", "average", "metric"])["candidate"]
    assert chosen[("latest", "SCEA", "ACC")] == "HU+SD"  # LR excluded in the latest tables
    assert chosen[("latest", "SCEA", "WAF")] == "HU+SD"
    assert chosen[("v2", "HU_SD_avg", "ACC")] == "HU+SD"
    assert chosen[("readme", "SCEA", "ACC")] == "HU+SD+LR Total"  # LR included in the README
    assert chosen[("readme", "Avg", "ACC")] == "printed FER+CEU+SCEA"
    assert (cov.loc[cov["chosen"], "share_within"] == 1.0).all()


def test_rank_independence_on_the_published_scores(data):
    scores = E.score_matrix(data)
    assert scores.shape == (25, 13) and E.MISLABELLED_ROW not in scores.index
    res = E.rank_independence(scores, data.n, data.dimension_of, n_boot=200, seed=1)
    assert len(res.tau) == 3 + 78
    for col in ("W", "ci_low", "ci_high", "ci_low_basic", "ci_high_basic"):
        assert res.w[col].between(0, 1).all()
    assert res.tau[["tau", "ci_low", "ci_high"]].abs().le(1).all().all()
    assert (res.tau["ci_low"] <= res.tau["ci_high"]).all()
    assert res.tau.loc[res.tau["approximate"], ["a", "b"]].isin(["LR"]).any(axis=1).all()
    assert res.tau["approximate"].sum() == 12


def test_discriminability_and_human_gaps_on_the_published_scores(data):
    d = E.discriminability(E.score_matrix(data), data.n, data.dimension_of, holm=True)
    s = d.summary
    assert set(s["level"]) == {"scenario", "dimension"} and len(s) == 13 + 3
    assert s["share_separated"].between(0, 1).all()
    assert (s["share_separated_holm"] <= s["share_separated"] + 1e-12).all()
    h = E.human_gaps(data)
    assert len(h.summary) == 12 and "LR" not in set(h.summary["scenario"])
    sper = h.pairs[(h.pairs["scenario"] == "SPER") & (h.pairs["model_id"] == "Qwen2-Audio-7B-Instruct")].iloc[0]
    assert sper["gap"] == pytest.approx(82.0 - 71.7)
    hu = h.summary.set_index("scenario").loc["HU"]
    assert hu["human_below_random"] and hu["share_below"] == 0.0


# ------------------------------------------------------------------------------ synthetic


def _synthetic(columns: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame(columns, index=[f"m{i}" for i in range(len(next(iter(columns.values()))))])


def test_tau_is_one_on_identical_rankings_and_symmetric():
    base = [30.0, 40.0, 50.0, 60.0, 70.0, 80.0]
    scores = _synthetic({"A": base, "B": [b + 5 for b in base], "C": base[::-1]})
    n = {"A": 10_000, "B": 10_000, "C": 10_000}
    dims = {"A": "FER", "B": "CEU", "C": "SCEA"}
    res = E.rank_independence(scores, n, dims, n_boot=100, seed=0)
    tau = res.tau[res.tau["level"] == "scenario"].set_index(["a", "b"])["tau"]
    assert tau[("A", "B")] == pytest.approx(1.0)
    assert tau[("A", "C")] == pytest.approx(-1.0)
    swapped = E.rank_independence(scores[["B", "A", "C"]], n, dims, n_boot=100, seed=0)
    tau2 = swapped.tau[swapped.tau["level"] == "scenario"].set_index(["a", "b"])["tau"]
    assert tau2[("B", "A")] == pytest.approx(tau[("A", "B")])
    assert tau2[("A", "C")] == pytest.approx(tau[("A", "C")])
    # well-separated scores with huge n: the bootstrap interval collapses on the observed tau
    ab = res.tau[(res.tau["a"] == "A") & (res.tau["b"] == "B")].iloc[0]
    assert ab["ci_low"] == pytest.approx(1.0) and ab["ci_high"] == pytest.approx(1.0)
    w_same = E.kendall_w(scores[["A", "B"]])
    assert w_same["W"] == pytest.approx(1.0)
    assert E.kendall_w(scores)["W"] < 1.0


def test_kendall_w_matches_a_hand_computation():
    # 3 raters, 4 objects, no ties: rank sums 4, 8, 8, 10 (lower value = lower rank here, but W
    # is invariant to reversing every rater), S = sum (R - 7.5)^2 = 12.25 + .25 + .25 + 6.25 = 19
    x = np.array([[1, 2, 1], [2, 3, 3], [3, 1, 4], [4, 4, 2]], dtype=float)
    res = E.kendall_w(x)
    assert res["W"] == pytest.approx(12 * 19 / (9 * (64 - 4)))
    assert res["chi2"] == pytest.approx(3 * 3 * res["W"])
    assert res["p_value"] == pytest.approx(stats.chi2.sf(res["chi2"], 3))


def test_vectorised_tau_b_equals_scipy_with_ties():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 5, size=(20, 4)).astype(float)
    m = tau_b_matrix(x)
    for i in range(4):
        for j in range(4):
            if i != j:
                assert m[i, j] == pytest.approx(stats.kendalltau(x[:, i], x[:, j]).statistic)


def test_discriminability_known_answer():
    # n = 100: se of 50% = 5 pp, of 90% = 3 pp. A vs B: difference 0, not separated; A or B vs C:
    # 40 > 1.96 * sqrt(25 + 9) = 11.4, separated -> 2 of 3 pairs. SNR = var(50, 50, 90) / mean(se^2)
    # = 533.33 / ((25 + 25 + 9) / 3). D: all equal -> nothing separated, SNR 0.
    scores = _synthetic({"X": [50.0, 50.0, 90.0], "D": [60.0, 60.0, 60.0], "N": [50.0, 54.0, 58.0]})
    n = {"X": 100, "D": 100, "N": 100}
    res = E.discriminability(scores, n, holm=True)
    s = res.summary.set_index("unit")
    assert s.loc["X", "share_separated"] == pytest.approx(2 / 3)
    assert s.loc["X", "mean_sampling_var"] == pytest.approx(59 / 3)
    assert s.loc["X", "snr"] == pytest.approx((1600 / 3) / (59 / 3))
    assert s.loc["X", "share_separated_holm"] == pytest.approx(2 / 3)
    assert s.loc["D", "share_separated"] == 0.0 and s.loc["D", "snr"] == 0.0
    # N: steps of 4 pp with se ~5 pp: no pair separated (8 < 1.96 * sqrt(25 + 24.36))
    assert s.loc["N", "share_separated"] == 0.0
    assert len(res.pairs) == 9
    # dimension rows: mean of the members, se sqrt(sum se^2) / k
    res2 = E.discriminability(scores[["X", "D"]], n, {"X": "FER", "D": "FER"})
    fer = res2.summary.set_index(["level", "unit"]).loc[("dimension", "FER")]
    assert fer["n"] == 200 and fer["share_separated"] == pytest.approx(2 / 3)
    se_d = 100 * np.sqrt(0.6 * 0.4 / 100)
    expected = [np.sqrt(25 + se_d**2) / 2, np.sqrt(25 + se_d**2) / 2, np.sqrt(9 + se_d**2) / 2]
    assert fer["mean_se"] == pytest.approx(np.mean(expected))


def test_binomial_se_and_edges():
    assert E.binomial_se(50.0, 100) == pytest.approx(5.0)
    assert E.binomial_se(0.0, 100) == 0.0 and E.binomial_se(100.0, 100) == 0.0
    with pytest.raises(ValueError):
        E.binomial_se(50.0, 0)
    scores = _synthetic({"Z": [0.0, 0.0, 100.0]})
    s = E.discriminability(scores, {"Z": 50}).summary.iloc[0]
    assert s["share_separated"] == pytest.approx(2 / 3)  # se 0: separated exactly when different


# ------------------------------------------------------------------------------ errors


def test_clear_error_on_a_missing_column(tmp_path):
    pd.DataFrame(
        {
            "dimension": ["FER"],
            "scenario_abbrev": ["SOER"],
            "scenario": ["Song"],
            "source_dataset": ["x"],
            "task": ["6-CLS"],
            "labels": ["a|b"],
        }
    ).to_csv(tmp_path / "scenarios.csv", index=False)
    with pytest.raises(E.EmoBenchMFormatError, match=r"scenarios\.csv: missing column\(s\) n_test.*fix"):
        E.load(tmp_path)


def test_clear_error_on_a_missing_column_of_the_mirror(emobench_m_dir, tmp_path):
    for f in emobench_m_dir.glob("*.csv"):
        shutil.copy(f, tmp_path / f.name)
    E.load(tmp_path)  # an intact copy loads
    v2 = pd.read_csv(tmp_path / "published_results_v2_acc.csv").drop(columns=["CEIA"])
    v2.to_csv(tmp_path / "published_results_v2_acc.csv", index=False)
    with pytest.raises(E.EmoBenchMFormatError, match=r"published_results_v2_acc\.csv: missing column\(s\) CEIA"):
        E.load(tmp_path)


def test_clear_error_on_a_missing_file(tmp_path):
    with pytest.raises(E.EmoBenchMFormatError, match=r"scenarios\.csv: file missing; fix"):
        E.load(tmp_path)

"""Cross-benchmark agreement (eibench.public.cross_benchmark): the model-family mapping, its
matching rules and the rank agreement with its intervals, on hand-made fixtures with known
answers and on the local mirrors."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from eibench.public import cross_benchmark as xb
from eibench.public.replications import cross_benchmark_replication
from eibench.report.cross_benchmark_table import display_table

HEADER = ",".join(xb.COLUMNS)


def _row(bench, model, system="", base="", family="", developer="", tuning="official", match="none"):
    return f"{bench},{model},{system or model.lower()},{base},{family},{developer},{tuning},text,{match},,"


FIXTURE = [
    # EQ-Bench: official releases, plus a third-party tune that must never match
    _row("eqbench", "llama-7b-chat", base="llama-7b", family="llama", developer="meta", match="backbone"),
    _row("eqbench", "llama-70b-chat", base="llama-70b", family="llama", developer="meta", match="family"),
    _row("eqbench", "qwen-7b-chat", base="qwen-7b", family="qwen1", developer="ali", match="developer"),
    _row("eqbench", "gpt-x", family="gpt-4", developer="openai", match="developer"),
    _row("eqbench", "yi-6b-chat", base="yi-6b", family="yi", developer="01", match="none"),
    _row("eqbench", "tune-of-llama-7b", base="llama-7b", family="llama", developer="meta", tuning="third_party"),
    # EmoBench-M
    _row(
        "emobench_m",
        "vl-llama-7b",
        base="llama-7b",
        family="llama",
        developer="meta",
        tuning="third_party",
        match="backbone",
    ),
    _row(
        "emobench_m",
        "vl-qwen2-7b",
        base="qwen2-7b",
        family="qwen2",
        developer="ali",
        tuning="third_party",
        match="developer",
    ),
    _row("emobench_m", "gpt-y", family="gpt-5", developer="openai", match="developer"),
    _row("emobench_m", "glm", family="glm", developer="zhipu", match="none"),
]


def _write(tmp_path, rows=FIXTURE, version="# test families, version 7", header=HEADER):
    path = tmp_path / "families.csv"
    path.write_text("\n".join([version, header, *rows]) + "\n", encoding="utf-8")
    return path


def test_the_fixture_reads_with_its_version_and_levels(tmp_path):
    version, table = xb.read_mapping(_write(tmp_path))
    assert xb.version_number(version) == 7
    assert list(xb.match_levels(table)) == list(table["match"])
    assert not xb.eligible(table)[table["model"] == "tune-of-llama-7b"].any()


def test_pairs_and_units_follow_the_rules(tmp_path):
    _, table = xb.read_mapping(_write(tmp_path))
    p = xb.pairs(table)
    got = {(a, b): lv for a, b, lv in zip(p["eqbench_model"], p["emobench_m_model"], p["level"])}
    assert got == {
        ("llama-7b-chat", "vl-llama-7b"): "backbone",
        ("llama-70b-chat", "vl-llama-7b"): "family",
        ("qwen-7b-chat", "vl-qwen2-7b"): "developer",
        ("gpt-x", "gpt-y"): "developer",
    }
    assert xb.units(table, "exact") == {}
    assert xb.units(table, "backbone") == {"llama-7b": {"eqbench": ["llama-7b-chat"], "emobench_m": ["vl-llama-7b"]}}
    assert xb.units(table, "family") == {
        "llama": {"eqbench": ["llama-70b-chat", "llama-7b-chat"], "emobench_m": ["vl-llama-7b"]}
    }
    assert sorted(xb.units(table, "developer")) == ["ali", "meta", "openai"]


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda rows: [rows[0].replace(",backbone,", ",family,"), *rows[1:]],
            "states 'family' but its keys give 'backbone'",
        ),
        (lambda rows: [rows[0].replace(",backbone,", ",close,"), *rows[1:]], "column match: 'close' is not one of"),
        (lambda rows: [*rows, rows[-1]], "is listed twice"),
        (lambda rows: [rows[0].replace("eqbench", "eq-bench"), *rows[1:]], "column benchmark"),
    ],
)
def test_a_wrong_mapping_is_refused_naming_line_and_column(tmp_path, edit, message):
    with pytest.raises(xb.MappingError) as err:
        xb.read_mapping(_write(tmp_path, edit(list(FIXTURE))))
    assert message in str(err.value) and "families.csv: line" in str(err.value) and "fix:" in str(err.value)


def test_a_mapping_without_version_or_columns_is_refused(tmp_path):
    with pytest.raises(xb.MappingError, match="version"):
        xb.read_mapping(_write(tmp_path, version="benchmark,model"))
    with pytest.raises(xb.MappingError, match="missing column"):
        xb.read_mapping(_write(tmp_path, header=HEADER.replace("family", "fam")))


def test_rank_agreement_known_values():
    rng = np.random.default_rng(0)
    r = xb.rank_agreement([1, 2, 3, 4, 5], [1, 2, 3, 5, 4], 500, 1000, rng)
    assert r["n"] == 5 and r["tau"] == pytest.approx(0.8) and r["rho"] == pytest.approx(0.9)
    # 5 of the 120 orderings have at most one discordant pair; two-sided: 10 / 120
    assert r["p_exact"] and r["p_permutation"] == pytest.approx(10 / 120)
    assert -1 <= r["tau_lo_models"] <= r["tau_hi_models"] <= 1 and 0 < r["share_defined_models"] <= 1
    assert math.isnan(r["tau_lo_items"])  # no redraws given
    three = xb.rank_agreement([1, 2, 3], [10, 20, 30], 200, 1000, rng)
    assert three["tau"] == 1 and three["p_permutation"] == pytest.approx(2 / 6)  # the floor at n = 3
    reversed_ = xb.rank_agreement([1, 2, 3, 4], [4, 3, 2, 1], 200, 1000, rng)
    assert reversed_["tau"] == -1 and reversed_["p_permutation"] == pytest.approx(2 / 24)
    two = xb.rank_agreement([1, 2], [1, 2], 100, 100, rng)
    assert two["n"] == 2 and math.isnan(two["tau"]) and math.isnan(two["p_permutation"])


def test_noise_free_redraws_give_a_point_interval_and_noise_widens_it():
    x, y = np.array([1.0, 2, 3, 4, 5, 6]), np.array([2.0, 1, 3, 4, 6, 5])
    still = xb.rank_agreement(
        x, y, 100, 1000, np.random.default_rng(1), x_draws=np.tile(x, (50, 1)), y_draws=np.tile(y, (50, 1))
    )
    assert still["tau_lo_items"] == still["tau_hi_items"] == pytest.approx(still["tau"])
    rng = np.random.default_rng(2)
    noisy = xb.rank_agreement(
        x, y, 100, 1000, rng, x_draws=x + rng.normal(0, 2, (400, 6)), y_draws=np.tile(y, (400, 1))
    )
    assert noisy["tau_lo_items"] < still["tau"] and noisy["tau_hi_items"] - noisy["tau_lo_items"] > 0.3


def test_monte_carlo_permutations_above_n_factorial():
    x = np.arange(9.0)
    r = xb.rank_agreement(x, x, 50, 500, np.random.default_rng(3))
    assert not r["p_exact"] and 0 < r["p_permutation"] < 0.01


def test_emobench_m_measures_and_redraws():
    scores = pd.DataFrame(
        {"a": [50.0, 80.0], "b": [70.0, np.nan], "c": [40.0, 60.0], "LR": [10.0, 10.0]}, index=["m1", "m2"]
    )
    dims = {"a": "FER", "b": "FER", "c": "CEU", "LR": "SCEA"}
    # SCEA has no classification scenario here: a dimension without scenarios is NaN
    with np.errstate(invalid="ignore"), pytest.warns(RuntimeWarning):
        m = xb.emobench_m_measures(scores, dims)
    assert m.loc["m1", "FER"] == 60 and m.loc["m1", "CEU"] == 40 and np.isnan(m.loc["m2", "FER"])
    eq = pd.DataFrame([[8.0, 6.0, np.nan], [5.0, 5.0, 5.0]], index=["e1", "e2"])
    with np.errstate(invalid="ignore"), pytest.warns(RuntimeWarning):
        eq_d, em_d = xb.measurement_draws(
            eq, scores, {"a": 100, "b": 100, "c": 50}, dims, 300, np.random.default_rng(4)
        )
    assert eq_d.shape == (300, 2) and em_d.shape == (300, 2, 4)
    assert np.all(eq_d[:, 1] == 50) and 60 <= np.nanmean(eq_d[:, 0]) <= 80
    assert np.isnan(em_d[:, 1, 1]).all() and abs(em_d[:, 0, 2].mean() - 40) < 2


def test_caveats_name_the_floor_of_the_p_value():
    assert "cannot fall below 0.333" in xb.caveats("family", 3)
    assert "not the same checkpoint" in xb.caveats("backbone", 4)
    assert "no agreement computed" in xb.caveats("exact", 0)


# ----------------------------------------------------------------------------------------------
# the repository's table and the mirrors


def test_the_repository_mapping_is_consistent():
    version, table = xb.read_mapping()
    assert xb.version_number(version) >= 1
    counts = table["benchmark"].value_counts()
    assert counts["eqbench"] == 86 and counts["emobench_m"] == 28
    assert (table["match"] == "exact").sum() == 0  # no system is in both benchmarks
    assert (table.loc[table["benchmark"] == "emobench_m", "modality"] != "text").all()
    third_party_eq = (table["benchmark"] == "eqbench") & (table["tuning"] == "third_party")
    assert (table.loc[third_party_eq, "match"] == "none").all()
    assert set(xb.units(table, "family")) == {"llama-2", "mistral-7b", "qwen1"}


def test_the_replication_on_the_mirrors(eqbench_dir, emobench_m_dir):
    tables, s = cross_benchmark_replication(eqbench_dir, emobench_m_dir, 60, 2000, np.random.default_rng(5))
    assert s["n_eqbench_models"] == 86 and s["n_emobench_m_models"] == 28 and s["n_exact_pairs"] == 0
    assert (s["n_backbone_units"], s["n_family_units"], s["n_developer_units"]) == (3, 3, 6)
    # A rule links every pair sharing its key, whether or not a finer key is shared too.
    assert (s["n_backbone_pairs"], s["n_family_pairs"], s["n_developer_pairs"]) == (4, 12, 73)
    for rule in ("backbone", "family", "developer"):
        assert s[f"n_{rule}_pairs"] == (tables["pairs"][f"{rule}_key"] != "").sum()
    # InternVL2.5-38B and Qwen2.5-VL-32B have no SCEA score, so no overall accuracy: their 6
    # developer pairs are linked but enter no unit's overall score.
    assert (s["n_backbone_pairs_scored"], s["n_family_pairs_scored"], s["n_developer_pairs_scored"]) == (4, 12, 67)
    assert s["family_p_permutation"] >= 1 / 3 - 1e-12  # three units: the exact test's floor
    for rule in ("family", "developer"):
        assert -1 <= s[f"{rule}_tau_lo_items"] <= s[f"{rule}_tau_hi_items"] <= 1
        assert -1 <= s[f"{rule}_tau"] <= 1 and 0 < s[f"{rule}_p_permutation"] <= 1
    agreement = tables["agreement"]
    assert len(agreement) == len(xb.LEVELS) * len(xb.MEASURES) and agreement["caveats"].str.len().min() > 0
    table = display_table(agreement)
    assert list(table["Units"]) == [0, 3, 3, 6] and table.loc[0, "tau-b"] == "–"
    again, s2 = cross_benchmark_replication(eqbench_dir, emobench_m_dir, 60, 2000, np.random.default_rng(5))
    assert s2 == s
    pd.testing.assert_frame_equal(again["agreement"], agreement)


def test_a_mapping_missing_a_model_of_the_data_is_refused(eqbench_dir, emobench_m_dir, tmp_path):
    lines = xb.MAPPING_FILE.read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if not line.startswith("emobench_m,AffectGPT 7B,")]
    assert len(kept) == len(lines) - 1
    path = tmp_path / "families.csv"
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    with pytest.raises(xb.MappingError, match=r"not listed \['AffectGPT 7B'\]"):
        cross_benchmark_replication(eqbench_dir, emobench_m_dir, 20, 100, np.random.default_rng(6), mapping=path)

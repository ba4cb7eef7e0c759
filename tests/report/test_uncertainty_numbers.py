"""The uncertainty section's numbers and display tables, from rule stats_resampling's tables
computed on a hand-built study."""

from __future__ import annotations

import json

import numpy as np
import pytest
from eibench.report.numbers import Numbers
from eibench.report.uncertainty_numbers import add_uncertainty, digits_for, display_tables, ratio_digits
from eibench.stats.bootstrap import SCHEMES
from eibench.stats.breakdowns import breakdown
from eibench.stats.ranks import reliability_curve
from eibench.stats.uncertainty import adjacent_pairs, scheme_table
from eibench.stats.weights import rank_stability

from ..stats.conftest import make_study

CONFIG = {
    "schemes": ["conversation", "participant", "two_stage"],
    "primary": "two_stage",
    "primary_reason": "participants are the sampled units",
    "claims_scheme": "conversation",
    "weights": {"concentration": 30, "n_draws": 500},
    "reliability": {"sizes": [10, 40], "n_splits": 50},
}


@pytest.fixture
def paths(tmp_path):
    rng = np.random.default_rng(0)
    n = 60
    participant = np.repeat(np.arange(6), 10)
    skill = np.array([0.8, 0.75, 0.6, 0.5, 0.7])[:, None]
    pillars = {
        k: np.clip(skill + rng.normal(0, 0.1, (5, n)) + rng.normal(0, 0.05, 6)[participant], 0, 1)
        for k in ("tracking", "evaluation", "holistic")
    }
    pillars = {k: v for k, v in pillars.items()}
    composite = 100 * (0.24 * pillars["tracking"] + 0.49 * pillars["evaluation"] + 0.27 * pillars["holistic"])
    for v in (*pillars.values(), composite):
        v[4, 20:] = np.nan  # the human rater answers a subset
    models = ["a", "b", "c", "d", "h"]
    study = make_study(
        {**pillars, "composite": composite},
        participant=participant,
        models=models,
        roles={**{m: "model" for m in models[:4]}, "h": "human"},
        category=np.array(["Family", "Work"] * 30, dtype=object),
        diagnosed=participant % 2 == 0,
    )
    ranked = [0, 1, 2, 3]
    weights = {s: SCHEMES[s](participant, 300, np.random.default_rng(1)) for s in CONFIG["schemes"]}
    out = {k: tmp_path / f"{k}.csv" for k in ("schemes", "adjacent", "weights", "reliability", "breakdowns")}
    scheme_table(study, "composite", ranked, weights).to_csv(out["schemes"], index=False)
    adjacent_pairs(study, "composite", ranked, weights).to_csv(out["adjacent"], index=False)
    table, summary = rank_stability(study, ranked, 30, 500, np.random.default_rng(2))
    table.to_csv(out["weights"], index=False)
    out["weights_summary"] = tmp_path / "weights.json"
    out["weights_summary"].write_text(json.dumps(summary))
    reliability_curve(study, "composite", ranked, [10, 40], 50, np.random.default_rng(3)).to_csv(
        out["reliability"], index=False
    )
    group = np.array(["diagnosis" if d else "no diagnosis" for d in study.diagnosed], dtype=object)
    import pandas as pd

    pd.concat(
        [
            breakdown(study, "composite", [0, 1, 2, 3, 4], study.category, weights["two_stage"], "topic"),
            breakdown(study, "composite", [0, 1, 2, 3, 4], group, weights["two_stage"], "group"),
        ]
    ).to_csv(out["breakdowns"], index=False)
    return {k: str(v) for k, v in out.items()}


def test_digits_follow_two_significant_digits_of_the_half_width():
    assert digits_for([0.83, 2.0]) == 2
    assert digits_for([1.7]) == 1
    assert digits_for([12.0]) == 0
    assert digits_for([np.nan]) == 1


def test_a_width_ratio_that_would_print_1_0_gets_two_decimals():
    """The release cohort's participant interval is 0.966 times the conversation one: "1.0 times
    as wide" hid that it is narrower."""
    assert ratio_digits(0.966) == 2 and ratio_digits(1.04) == 2
    assert ratio_digits(2.02) == 1 and ratio_digits(0.94) == 1 and ratio_digits(float("nan")) == 1


def test_width_ratios_printed_together_share_one_precision():
    """ESConv's sample: the participant scheme's leader interval 1.00 times the conversation one,
    the two-stage scheme's 0.929 times, printed "1.00 ... 0.9": the second now prints 0.93."""
    assert ratio_digits(1.0, 0.929) == 2 and ratio_digits(0.929) == 1 and ratio_digits(1.8, 2.0) == 1


def test_add_uncertainty_names_the_primary_and_compares_the_schemes(paths):
    nums = Numbers(scripts={r: f"workflow/scripts/{r}.py" for r in ("stats_resampling", "stats_seed_noise")})
    add_uncertainty(nums, paths, CONFIG, 300)
    e = nums.entries
    assert e["unc.primary"]["value"] == "participants, then conversations"
    assert e["unc.primary_reason"]["value"] == CONFIG["primary_reason"]
    assert e["unc.leader"]["value"] == "a" and e["unc.runner_up"]["value"] == "b"
    assert e["unc.n_models"]["value"] == 4 and e["unc.n_humans"]["value"] == 1
    assert e["unc.n_human_conversations"]["value"] == 20 and e["unc.n_model_conversations"]["value"] == 60
    schemes = __import__("pandas").read_csv(paths["schemes"])
    widths = schemes[schemes["em_model"] == "a"].set_index("scheme")["width"]
    assert e["unc.two_stage.leader_width"]["value"] == pytest.approx(widths["two_stage"])
    assert e["unc.two_stage.leader_width_ratio"]["value"] == pytest.approx(widths["two_stage"] / widths["conversation"])
    # the leader's widths, compared in one sentence, share one precision
    shown = [e[f"unc.{k}.leader_width"]["display"] for k in ("conversation", "participant", "two_stage")]
    assert len({len(x.partition(".")[2]) for x in shown}) == 1, shown
    # ... at least a decimal more than the leader's bounds, printed beside each (a width of 2.88
    # printed "2.9" beside [81.0, 83.8] read as an error)
    for k in ("conversation", "participant", "two_stage"):
        bound_decimals = len(e[f"unc.{k}.leader"]["ci_display"].split(",")[0].partition(".")[2])
        assert len(shown[0].partition(".")[2]) >= bound_decimals + 1, (shown, e[f"unc.{k}.leader"]["ci_display"])
    assert e["unc.n_adjacent"]["value"] == 3
    assert e["unc.claims_use_primary"]["value"] is False
    assert 0 <= e["unc.weights.p_leader_first_flat"]["value"] <= 100
    assert e["unc.reliability.full_n"]["value"] == 40
    assert e["unc.reliability.full_is_whole"]["value"] is False  # 40 of the 60 conversations


def test_display_tables_list_humans_after_models_with_their_n(paths):
    t = display_tables(paths, CONFIG, n_bootstrap=2000)
    board = t["uncertainty_leaderboard"]
    assert list(board["Model"]) == ["a", "b", "c", "d", "h"]
    assert list(board["n"]) == ["60"] * 4 + ["20"]
    assert board.set_index("Model").loc["h", "Rank (two-stage)"] == "–"
    assert {"95% (conversation)", "95% (participant)", "95% (two-stage)"} <= set(board.columns)
    assert len(t["uncertainty_adjacent"]) == 3 and "Holm p (two-stage)" in t["uncertainty_adjacent"]
    topic = t["uncertainty_topic"]
    assert [c for c in topic.columns if c not in ("Model", "Role")] == ["Family (30)", "Work (30)"]
    assert topic.set_index("Model").loc["h", "Family (30)"].endswith("(10)")
    assert "(" not in topic.set_index("Model").loc["a", "Family (30)"]
    assert list(t["uncertainty_group"].columns[2:]) == ["diagnosis (30)", "no diagnosis (30)"]
    assert list(board["Role"]) == ["model"] * 4 + ["human rater"]


def test_display_tables_print_a_ranked_baseline_as_a_baseline(paths):
    """A cohort compared on its baselines alone ranks them; the tables say what they are."""
    t = display_tables(paths, CONFIG, {"a": "baseline", "b": "model", "h": "human"}, n_bootstrap=2000)
    for name in ("uncertainty_leaderboard", "uncertainty_topic"):
        roles = t[name].set_index("Model")["Role"]
        assert (roles["a"], roles["b"], roles["h"]) == ("baseline", "model", "human rater"), name


def test_the_weights_concentration_is_also_given_over_the_pillars_present(paths, tmp_path):
    """Renormalised over the pillars a cohort has, the Dirichlet around the published weights
    has concentration 30 x (their share of the published weights), and each weight's standard
    deviation is that of a Dirichlet of that concentration: the section prints the effective
    one. With every pillar present the two are the same."""
    nums = Numbers(scripts={r: f"workflow/scripts/{r}.py" for r in ("stats_resampling", "stats_seed_noise")})
    add_uncertainty(nums, paths, CONFIG, 300)
    assert nums.entries["unc.weights.effective_concentration"]["value"] == pytest.approx(30.0)
    from eibench.stats.weights import _weights_sd

    published = np.array([0.24, 0.49, 0.27])
    summary = json.loads(open(paths["weights_summary"]).read())
    summary["weights_sd"] = _weights_sd(published, 30.0, np.array([False, True, True]))
    no_tracking = dict(paths, weights_summary=str(tmp_path / "no_tracking.json"))
    (tmp_path / "no_tracking.json").write_text(json.dumps(summary))
    nums = Numbers(scripts={r: f"workflow/scripts/{r}.py" for r in ("stats_resampling", "stats_seed_noise")})
    add_uncertainty(nums, no_tracking, CONFIG, 300)
    e = nums.entries
    effective = e["unc.weights.effective_concentration"]["value"]
    assert effective == pytest.approx(22.8) and e["unc.weights.effective_concentration"]["display"] == "22.8"
    m = 0.49 / 0.76
    assert e["unc.weights.sd_max"]["value"] == pytest.approx(np.sqrt(m * (1 - m) / (effective + 1)))
    assert e["unc.weights.sd_min"]["value"] == pytest.approx(e["unc.weights.sd_max"]["value"])


def test_a_holm_p_of_zero_is_printed_as_the_bound_its_resamples_allow():
    """Adjacent pairs' Holm p-values from bootstrap p-values: a p of 0 only says p < 2 / B, and
    Holm multiplies the smallest by the number of pairs, so ten pairs of 2,000 resamples with
    p 0 are below 0.010, not 0.001."""
    from eibench.report.numbers import fmt_p_bounded
    from eibench.report.uncertainty_numbers import holm_bounds

    bounds = holm_bounds([0.0] * 10, 2000)
    assert bounds == pytest.approx([0.01] * 10)
    assert fmt_p_bounded(0.0, bounds[0]) == "< 0.010"
    # one pair at 0 among larger p-values: Holm's step-down gives it the family size times 2 / B
    mixed = holm_bounds([0.0, 0.2, float("nan")], 500)
    assert mixed[0] == pytest.approx(2 * 2 / 500) and np.isnan(mixed[2])
    assert fmt_p_bounded(0.5, mixed[1]) == "0.500"  # a p that is not 0 prints as it is


def test_another_model_first_more_often_under_flat_weights_is_named_beside_the_leader(paths):
    """Release build, three baselines: under flat weights the leader was first in 49.5 % of the
    draws, printed 50 %, and another baseline in 50.5 %, not printed at all: the paper called
    the leader first in half the draws without saying that another is first more often."""
    from pathlib import Path

    import pandas as pd

    nums = Numbers(scripts={r: f"workflow/scripts/{r}.py" for r in ("stats_resampling", "stats_seed_noise")})
    add_uncertainty(nums, paths, CONFIG, 300)
    assert nums.entries["unc.weights.flat_leader_differs"]["value"] is False  # the leader is first most often
    table = pd.read_csv(paths["weights"])
    summary_file = Path(paths["weights_summary"])
    summary = json.loads(summary_file.read_text())
    table["p_first_flat"] = 0.0
    table.loc[table["em_model"] == summary["leader"], "p_first_flat"] = 0.495
    other = table.loc[table["em_model"] != summary["leader"], "em_model"].iloc[0]
    table.loc[table["em_model"] == other, "p_first_flat"] = 0.505
    table.to_csv(paths["weights"], index=False)
    summary_file.write_text(json.dumps({**summary, "p_leader_first_flat": 0.495, "most_often_first_flat": other}))
    nums = Numbers(scripts={r: f"workflow/scripts/{r}.py" for r in ("stats_resampling", "stats_seed_noise")})
    add_uncertainty(nums, paths, CONFIG, 300)
    e = nums.entries
    assert e["unc.weights.flat_leader_differs"]["value"] is True
    assert e["unc.weights.most_often_first_flat"]["value"] == other
    # 49.5 and 50.5 both print 50 without a decimal: one more tells them apart
    assert (e["unc.weights.p_leader_first_flat"]["display"], e["unc.weights.p_most_often_first_flat"]["display"]) == (
        "49.5",
        "50.5",
    )

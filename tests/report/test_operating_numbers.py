"""add_operating: the operating characteristics' numbers and display table."""

from __future__ import annotations

import numpy as np
import pandas as pd
from eibench.report.numbers import Numbers
from eibench.report.operating_numbers import add_operating

from .rule_map import RULE_SCRIPTS


def _files(tmp_path, models_power=(0.1, 0.5, 0.9), taus_related=(0.2, 0.6, 0.9)):
    nan = np.nan
    claims = pd.DataFrame(
        [
            {
                "id": "C1",
                "family": "headline",
                "test": "rank_independence",
                "simulated": True,
                "n_true": 200,
                "n_false": 100,
                "power": 0.0,
                "power_lo": 0.0,
                "power_hi": 0.02,
                "fpr": 0.0,
                "fpr_lo": 0.0,
                "fpr_hi": 0.04,
                "estimand": nan,
                "coverage": nan,
                "coverage_lo": nan,
                "coverage_hi": nan,
                "coverage_p": nan,
                "coverage_vs_nominal": nan,
                "sign_recovery": nan,
                "note": "metric draft_judge not simulated",
                "family_left_out": nan,
            },
            {
                "id": "C3",
                "family": "headline",
                "test": "diagnosis_effect",
                "simulated": True,
                "n_true": 100,
                "n_false": 100,
                "power": 0.81,
                "power_lo": 0.72,
                "power_hi": 0.88,
                "fpr": 0.02,
                "fpr_lo": 0.0,
                "fpr_hi": 0.07,
                "estimand": -0.08,
                "coverage": 0.89,
                "coverage_lo": 0.81,
                "coverage_hi": 0.94,
                "coverage_p": 0.0123,
                "coverage_vs_nominal": "below nominal",
                "sign_recovery": 1.0,
                "note": nan,
                "family_left_out": nan,
            },
            {
                "id": "C6",
                "family": "exploratory",
                "test": "profile_flips",
                "simulated": False,
                "note": "not simulated: no profiles",
                "family_left_out": nan,
            },
        ]
    )
    paths = {"claims": tmp_path / "claims.csv"}
    claims.to_csv(paths["claims"], index=False)
    curve = lambda claim, values, share: pd.DataFrame(  # noqa: E731
        {
            "claim": claim,
            "value": values,
            "n_studies": 100,
            "supported": share,
            "supported_lo": np.array(share) - 0.05,
            "supported_hi": np.array(share) + 0.05,
            "not_supported": share,
            "design": 11,
        }
    )
    paths["models"] = tmp_path / "models.csv"
    curve("C1", [11, 20, 40], list(models_power)).to_csv(paths["models"], index=False)
    paths["margins"] = tmp_path / "margins.csv"
    m = curve("C1", [0.3, 0.5, 0.7], [0.0, 0.0, 0.0]).assign(not_supported=list(taus_related))
    m.insert(1, "margin", 0.3)
    m.insert(2, "n_models", 11)
    m.to_csv(paths["margins"], index=False)
    paths["participants"] = tmp_path / "participants.csv"
    curve("C3", [8, 11, 14], [0.5, 0.7, 0.75]).to_csv(paths["participants"], index=False)
    paths["conversations"] = tmp_path / "conversations.csv"
    pd.DataFrame(
        {
            "n_conversations": [50, 50, 200, 200],
            "metric": ["a", "b", "a", "b"],
            "n_studies": 100,
            "reliability": [0.5, 0.3, 0.8, 0.6],
            "snr": [1, 0.6, 2, 1.2],
        }
    ).to_csv(paths["conversations"], index=False)
    return {k: str(v) for k, v in paths.items()}


def test_numbers_and_table(tmp_path):
    nums = Numbers(scripts=RULE_SCRIPTS)
    table = add_operating(nums, _files(tmp_path))
    e = nums.entries
    assert e["operating.n_studies"]["value"] == 100
    assert e["operating.not_simulated"]["value"] == "C6"
    assert e["operating.coverage_below"]["value"] == "C3" and e["operating.any_coverage_below"]["value"] is True
    # the rates print with the table's two decimals, not at the interval's precision
    assert e["operating.C3.power"]["ci_display"] == "[0.72, 0.88]"
    assert "operating.C1.coverage" not in e and "operating.C6.power" not in e
    assert e["operating.C6.note"]["value"] == "not simulated: no profiles"
    assert e["operating.models.reached"]["value"] is True and e["operating.models.needed"]["value"] == 40
    assert e["operating.margin.smallest_tau"]["value"] == 0.7 and e["operating.margin.power_at_margin"]["value"] == 0.2
    assert e["operating.participants.reached"]["value"] is False and e["operating.participants.needed"]["value"] == 14
    assert e["operating.conversations.least_reliable"]["value"] == "b"
    # at the design's 11 participants the curve (0.70) and the table (0.81) fall on either side
    # of the bar, with overlapping intervals; at its 11 models C1 is below the bar in both
    assert e["operating.participants.at_design_split"]["value"] is True
    assert e["operating.participants.design"]["value"] == 11 and e["operating.participants.at_design"]["value"] == 0.7
    assert e["operating.participants.at_design_overlap"]["value"] is True
    assert e["operating.models.at_design_split"]["value"] is False and "operating.models.at_design" not in e
    rows = table.set_index("Claim")
    assert rows.loc["C3", "Power [95% CI]"] == "0.81 [0.72, 0.88]" and rows.loc["C3", "p below 0.95"] == "0.012"
    assert "coverage below nominal" in rows.loc["C3", "Note"]
    assert rows.loc["C6", "Power [95% CI]"] == "–" and rows.loc["C6", "Note"] == "not simulated: no profiles"
    assert rows.loc["C1", "Coverage [95% CI]"] == "–"


def test_a_family_the_simulation_draws_only_in_part_is_named_with_what_it_lacks(tmp_path):
    paths = _files(tmp_path)
    claims = pd.read_csv(paths["claims"])
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_operating(nums, paths)
    e = nums.entries
    assert e["operating.n_short_family"]["value"] == 0 and e["operating.short_family"]["value"] == "none"
    assert e["operating.short_family_detail"]["value"] == "none"
    assert e["operating.models.short_family"]["value"] is False
    assert e["operating.models.adjustment"]["value"] == "Holm"
    claims["family_left_out"] = ["E3; E4", "E4", ""]
    claims.loc[claims["id"] == "C3", "family"] = "exploratory"
    claims.to_csv(paths["claims"], index=False)
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_operating(nums, paths)
    e = nums.entries
    assert e["operating.n_short_family"]["value"] == 2 and e["operating.short_family"]["value"] == "C1 and C3"
    assert e["operating.C1.family_left_out"]["value"] == "E3 and E4"
    assert e["operating.C3.family_left_out"]["value"] == "E4"
    # each claim with its own left-out claims, not the union beside the union
    assert e["operating.short_family_detail"]["value"] == "C1 together with E3 and E4, and C3 together with E4"
    assert e["operating.short_family_holm"]["value"] is False  # C3 is exploratory here
    assert e["operating.models.short_family"]["value"] is True
    # the participant curve's claim is exploratory here: Benjamini-Hochberg, not Holm
    assert e["operating.participants.adjustment"]["value"] == "Benjamini-Hochberg"


def test_curve_and_table_are_compared_with_the_bar_as_printed(tmp_path):
    """A table power of 0.795 prints 0.80, which reads as reaching a bar of 0.8: beside a curve
    at 0.81 the two are not on either side of it. A curve whose design column is missing (this
    cohort's design is none of its points) is compared with nothing."""
    paths = _files(tmp_path)
    claims = pd.read_csv(paths["claims"])
    claims.loc[claims["id"] == "C3", "power"] = 0.795
    claims.to_csv(paths["claims"], index=False)
    part = pd.read_csv(paths["participants"])
    part.loc[part["value"] == 11, "supported"] = 0.81
    part.to_csv(paths["participants"], index=False)
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_operating(nums, paths)
    assert nums.entries["operating.participants.at_design_split"]["value"] is False
    part.loc[part["value"] == 11, "supported"] = 0.7
    part["design"] = np.nan
    part.to_csv(paths["participants"], index=False)
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_operating(nums, paths)
    assert nums.entries["operating.participants.at_design_split"]["value"] is False


def test_a_curve_that_never_reaches_the_bar_reports_the_largest_tried(tmp_path):
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_operating(nums, _files(tmp_path, models_power=(0.0, 0.1, 0.3), taus_related=(0.1, 0.2, 0.3)))
    e = nums.entries
    assert e["operating.models.reached"]["value"] is False and e["operating.models.needed"]["value"] == 40
    assert e["operating.models.largest_power"]["value"] == 0.3
    assert e["operating.margin.detected"]["value"] is False


def test_a_curve_not_computed_prints_its_reason_and_no_number(tmp_path):
    from eibench.stats.operating import not_computed_curve

    paths = _files(tmp_path)
    for name, claim in (("models", "C1"), ("margins", "C1"), ("participants", "")):
        curve = not_computed_curve("claim C1 is not simulated: fewer than two of its metrics are simulated")
        curve.insert(0, "claim", claim)
        if name == "margins":
            curve.insert(1, "margin", None)
            curve.insert(2, "n_models", 11)
        curve.to_csv(paths[name], index=False)
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_operating(nums, paths)
    e = nums.entries
    assert e["operating.models.computed"]["value"] is False
    assert e["operating.models.note"]["value"].startswith("claim C1 is not simulated")
    assert e["operating.participants.computed"]["value"] is False and e["operating.participants.claim"]["value"] == ""
    assert not any(
        k.startswith(("operating.models.needed", "operating.margin.", "operating.participants.needed")) for k in e
    )
    assert e["operating.conversations.least_reliable"]["value"] == "b"  # the reliability curve is still printed


def test_a_cohort_without_the_curves_metrics_prints_no_reliability(tmp_path):
    from eibench.stats.operating import reliability_curve
    from eibench.stats.simulation import Generator

    paths = _files(tmp_path)
    empty = reliability_curve(Generator(n_models=3), [], [50, 100], lambda n: [], lambda n: None)
    assert empty.empty and list(empty.columns) == ["n_conversations", "metric", "n_studies", "reliability", "snr"]
    empty.to_csv(paths["conversations"], index=False)
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_operating(nums, paths)
    e = nums.entries
    assert e["operating.conversations.computed"]["value"] is False
    assert not any(k.startswith("operating.conversations.least") for k in e)


def test_the_simulated_rules_and_the_margin_cohort_follow_the_claims_simulated(tmp_path):
    """The release cohort's case: C1 (rank independence, with a margin) and C4b (flat drift, with
    a margin) are not simulated, C3 is. The paper names the simulated rules (Section 5.1) and
    draws no cohort at the independence claim's margin (Section 8)."""
    paths = _files(tmp_path)
    claims = pd.read_csv(paths["claims"])
    claims.loc[claims["id"] == "C1", ["simulated", "note"]] = [False, "not simulated: 3 compared models"]
    flat = {"id": "C4b", "family": "exploratory", "test": "turn_flat", "simulated": False, "note": "not simulated"}
    pd.concat([claims, pd.DataFrame([flat])]).to_csv(paths["claims"], index=False)
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_operating(nums, paths)
    e = nums.entries
    assert e["operating.simulated"]["value"] == "C3" and e["operating.n_simulated"]["value"] == 1
    assert e["operating.not_simulated"]["value"] == "C1, C6, C4b"
    assert e["operating.margin_simulated"]["value"] == "none"
    assert e["operating.margin_not_simulated"]["value"] == "C1, C4b"
    assert e["operating.at_margin"]["value"] is False
    # the synthetic study's case: C1 simulated, so its cohort at the margin is drawn
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_operating(nums, _files(tmp_path))
    e = nums.entries
    assert e["operating.at_margin"]["value"] is True and e["operating.margin_simulated"]["value"] == "C1"
    assert e["operating.simulated"]["value"] == "C1, C3"


def test_claims_with_a_false_positive_rate_but_no_power_are_named(tmp_path):
    """C2's case on every synthetic design: its generator plants no difference of spreads, so only
    its false-positive rate is simulated; Sections 5.1 and 8 must not present its error rates as
    known (operating.fpr_only). A claim with both rates is not named."""
    paths = _files(tmp_path)
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_operating(nums, paths)
    assert nums.entries["operating.fpr_only"]["value"] == "none" and nums.entries["operating.n_fpr_only"]["value"] == 0
    claims = pd.read_csv(paths["claims"])
    claims.loc[claims["id"] == "C3", ["power", "power_lo", "power_hi"]] = np.nan
    claims.to_csv(paths["claims"], index=False)
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_operating(nums, paths)
    assert nums.entries["operating.fpr_only"]["value"] == "C3" and nums.entries["operating.n_fpr_only"]["value"] == 1


def test_rates_print_with_the_tables_two_decimals(tmp_path):
    """A power of 0 in [0, 0.0183] printed at its interval's precision is '0.0000'; the table
    beside the sentence prints 0.00 [0.00, 0.02], and so does the sentence."""
    paths = _files(tmp_path)
    claims = pd.read_csv(paths["claims"])
    claims.loc[claims["id"] == "C1", "power_hi"] = 0.01827534036
    claims.to_csv(paths["claims"], index=False)
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_operating(nums, paths)
    e = nums.entries
    assert e["operating.C1.power"]["display"] == "0.00" and e["operating.C1.power"]["ci_display"] == "[0.00, 0.02]"
    assert e["operating.models.largest_power"]["display"] == "0.90"


def test_claims_whose_false_positive_rate_is_above_the_nominal_level_are_named(tmp_path):
    """C2's simulated false-positive rate 0.23 [0.152, 0.325] lies above 0.05; C7's 0.10
    [0.049, 0.176] does not (its interval holds 0.05), and its bounds print rounded outward,
    [0.04, 0.18], not on the level it lies below ([0.05, 0.18])."""
    paths = _files(tmp_path)
    claims = pd.read_csv(paths["claims"])
    base = {"family": "headline", "simulated": True, "n_true": 0, "n_false": 100, "note": ""}
    extra = pd.DataFrame(
        [
            {
                **base,
                "id": "C2",
                "test": "discriminability_difference",
                "fpr": 0.23,
                "fpr_lo": 0.1517,
                "fpr_hi": 0.3249,
            },
            {**base, "id": "C7", "test": "humans_vs_models", "fpr": 0.1, "fpr_lo": 0.049, "fpr_hi": 0.1762},
        ]
    )
    pd.concat([claims, extra]).to_csv(paths["claims"], index=False)
    nums = Numbers(scripts=RULE_SCRIPTS)
    table = add_operating(nums, paths, alpha=0.05).set_index("Claim")
    e = nums.entries
    assert e["operating.n_fpr_above"]["value"] == 1 and e["operating.fpr_above"]["value"] == "C2"
    assert e["operating.fpr_above_detail"]["value"] == "C2 (0.23 [0.15, 0.33])"
    assert table.loc["C7", "FPR [95% CI]"] == "0.10 [0.04, 0.18]"
    assert e["operating.C7.fpr"]["display"] == "0.10" and e["operating.C7.fpr"]["ci_display"] == "[0.04, 0.18]"
    assert e["operating.alpha"]["display"] == "0.05"
    assert e["operating.equal_spreads"]["value"] == "C2" and e["operating.n_equal_spreads"]["value"] == 1
    # a human-baseline claim's null draws the raters as it draws the models: its rate is read apart
    assert e["operating.humans_drawn"]["value"] == "C7" and e["operating.n_humans_drawn"]["value"] == 1
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_operating(nums, _files(tmp_path))
    e = nums.entries
    assert e["operating.n_fpr_above"]["value"] == 0 and e["operating.fpr_above"]["value"] == "none"


def test_coverages_below_nominal_but_not_significantly_are_listed(tmp_path):
    """With 100 simulated studies a coverage of 0.91 has binomial p 0.100: below 0.95, not
    significantly; the paper says so beside the validation's significant 91 % of 200 studies."""
    paths = _files(tmp_path)
    claims = pd.read_csv(paths["claims"])
    claims.loc[claims["id"] == "C3", ["coverage", "coverage_p", "coverage_vs_nominal"]] = [
        0.91,
        0.1001708,
        "consistent with nominal",
    ]
    claims.to_csv(paths["claims"], index=False)
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_operating(nums, paths)
    e = nums.entries
    assert e["operating.any_coverage_below"]["value"] is False
    assert e["operating.n_coverage_tested"]["value"] == 1 and e["operating.n_coverage_low"]["value"] == 1
    assert e["operating.coverage_low"]["value"] == "C3 (0.91, p 0.100)"
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_operating(nums, _files(tmp_path))
    assert nums.entries["operating.n_coverage_low"]["value"] == 0  # 0.89, significantly below


def _reliabilities(tmp_path, values: dict[str, float]) -> dict[str, str]:
    paths = _files(tmp_path)
    pd.DataFrame(
        {
            "n_conversations": 400,
            "metric": list(values),
            "n_studies": 100,
            "reliability": list(values.values()),
            "snr": 1.0,
        }
    ).to_csv(paths["conversations"], index=False)
    return paths


def test_no_metric_is_singled_out_when_the_reliabilities_print_alike(tmp_path):
    """The default build's curve: 0.9877, 0.9882, 0.9872 and 0.9914 all print 0.99, so no
    metric is 'the least reliable'; they are all about 0.99."""
    reliability = {"emotion_f1": 0.9877, "binary_om_acc": 0.9882, "pairwise_acc": 0.9872, "composite": 0.9914}
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_operating(nums, _reliabilities(tmp_path, reliability))
    e = nums.entries
    assert e["operating.conversations.all_alike"]["value"] is True
    assert e["operating.conversations.n_least"]["value"] == 4 and e["operating.conversations.n_metrics"]["value"] == 4
    assert e["operating.conversations.least_reliability"]["display"] == "0.99"
    assert e["operating.conversations.largest"]["value"] == 400
    # "both metrics" or "all 4 metrics" left them unnamed: they are named
    names = "Binary OM accuracy, Composite, Emotion F1 and Pairwise accuracy"
    assert e["operating.conversations.metrics"]["value"] == names


def test_the_least_reliable_metric_is_named_by_its_label(tmp_path):
    """ESConv's curve: the composite (0.984) prints below binary OM accuracy (0.991): it is
    named by its label, not its key."""
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_operating(nums, _reliabilities(tmp_path, {"binary_om_acc": 0.9911, "composite": 0.9839}))
    e = nums.entries
    assert e["operating.conversations.all_alike"]["value"] is False
    assert e["operating.conversations.least_reliable"]["value"] == "Composite"
    assert e["operating.conversations.least_reliability"]["display"] == "0.98"
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_operating(nums, _reliabilities(tmp_path, {"emotion_f1": 0.981, "pairwise_acc": 0.9805, "composite": 0.99}))
    e = nums.entries
    assert e["operating.conversations.least_reliable"]["value"] == "Pairwise accuracy and Emotion F1"
    assert e["operating.conversations.n_least"]["value"] == 2


def test_a_rule_names_the_adjustment_of_its_claims_family(tmp_path):
    """An exploratory claim's family-adjusted p is Benjamini-Hochberg's (stats.claims), so its
    rule is never printed '(Holm)': ESConv's exploratory discriminability claim E4 was."""
    paths = _files(tmp_path)
    claims = pd.read_csv(paths["claims"])
    extra = pd.DataFrame(
        [
            {"id": "E4", "family": "exploratory", "test": "discriminability_difference", "simulated": False},
            {"id": "C2", "family": "headline", "test": "discriminability_difference", "simulated": False},
            {"id": "C3b", "family": "exploratory", "test": "diagnosis_effect", "simulated": False},
        ]
    ).assign(note="not simulated")
    pd.concat([claims, extra], ignore_index=True).to_csv(paths["claims"], index=False)
    rows = add_operating(Numbers(scripts=RULE_SCRIPTS), paths).set_index("Claim")["Rule"]
    assert rows["E4"] == "log F difference > 0 (BH)"
    assert rows["C2"] == "log F difference > 0 (Holm)"
    assert rows["C3"] == "permutation p (Holm) and sign of the adjusted effect"
    assert rows["C3b"] == "permutation p (BH) and sign of the adjusted effect"


def test_a_rank_claim_of_two_metrics_has_one_pair_not_a_majority(tmp_path):
    """ESConv's E3 names two metrics: its rule reads the one pair's |tau|, not 'majority of
    pairs'; a rank claim of more metrics keeps the majority, and so does one whose parameters
    are not known."""
    paths = _files(tmp_path)
    two = [{"id": "C1", "test": "rank_independence", "params": {"metrics": ["emotion_f1", "pairwise_acc"]}}]
    three = [{"id": "C1", "test": "rank_independence", "params": {"metrics": ["emotion_f1", "pairwise_acc", "va"]}}]
    rule = {
        name: add_operating(Numbers(scripts=RULE_SCRIPTS), paths, config_claims=claims)
        .set_index("Claim")
        .at["C1", "Rule"]
        for name, claims in (("two", two), ("three", three), ("unknown", []))
    }
    assert (
        rule["two"] == "equivalence p (Holm) that the one pair has |tau| < margin (models and conversations resampled)"
    )
    majority = (
        "partial-conjunction p (Holm) that a majority of pairs has |tau| < margin "
        "(equivalence tests, models and conversations resampled)"
    )
    assert rule["three"] == rule["unknown"] == majority


def test_the_rules_of_claims_about_most_of_a_set_name_their_family_adjustment():
    """Table 11 said "more than half of the models differ (Holm)" of C7b, an exploratory claim
    adjusted by Benjamini-Hochberg, and described C1's rule without its partial-conjunction p."""
    from eibench.report.operating_numbers import rule_text

    assert rule_text("humans_vs_models", "exploratory") == (
        "partial-conjunction p (BH) that more than half of the models differ on the claimed side"
    )
    assert rule_text("rank_independence", "headline", {"metrics": ["a", "b", "c"]}).startswith(
        "partial-conjunction p (Holm) that a majority of pairs"
    )
    assert rule_text("rank_independence", "exploratory", {"metrics": ["a", "b"]}).startswith("equivalence p (BH)")


def test_rates_round_on_their_exact_share_of_the_studies(tmp_path):
    """191 of 200 studies is 0.955, stored as 0.95499999...: binary rounding printed 0.95, onto
    the nominal coverage; the table, the sentence and the sign recovery now print 0.96. A
    coverage of 189 of 200 (0.945) listed as below nominal prints 0.945, not the 0.95 that two
    decimals round it to."""
    paths = _files(tmp_path)
    claims = pd.read_csv(paths["claims"])
    claims.loc[claims["id"] == "C3", ["power", "coverage", "sign_recovery"]] = [191 / 200, 191 / 200, 191 / 200]
    claims.to_csv(paths["claims"], index=False)
    nums = Numbers(scripts=RULE_SCRIPTS)
    table = add_operating(nums, paths).set_index("Claim")
    e = nums.entries
    assert f"{191 / 200:.2f}" == "0.95"  # what binary rounding prints
    assert e["operating.C3.power"]["display"] == "0.96" and e["operating.C3.coverage"]["display"] == "0.96"
    assert e["operating.C3.sign_recovery"]["display"] == "0.96"
    assert table.loc["C3", "Power [95% CI]"].startswith("0.96 [")
    assert table.loc["C3", "Coverage [95% CI]"].startswith("0.96 [") and table.loc["C3", "Sign recovery"] == "0.96"
    claims.loc[claims["id"] == "C3", ["coverage", "coverage_p", "coverage_vs_nominal"]] = [
        189 / 200,
        0.64,
        "consistent with nominal",
    ]
    claims.to_csv(paths["claims"], index=False)
    nums = Numbers(scripts=RULE_SCRIPTS)
    add_operating(nums, paths)
    assert nums.entries["operating.coverage_low"]["value"] == "C3 (0.945, p 0.640)"

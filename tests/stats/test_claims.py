"""Pre-registered claims: each test's numbers, the verdict rules and the family-wise multiplicity
correction, on hand-built results."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
from eibench.stats.claims import claim_result, fit_note, verdicts

ALPHA = 0.05


def _page(late_minus_early=-0.05, lo=-0.08, hi=-0.02, p_decreasing=0.01, p_increasing=0.99, slope=-0.06):
    return {
        "metric": "binary_om_acc",
        "late_minus_early": late_minus_early,
        "late_early_lo": lo,
        "late_early_hi": hi,
        "p_decreasing": p_decreasing,
        "p_increasing": p_increasing,
        "slope": slope,
    }


def _diagnosis(metric="emotion_f1", difference=None, effect=-0.04, lo=-0.07, hi=-0.01, p=0.01):
    """A row of the diagnosis table; the permutation test's difference has the effect's sign unless given."""
    return {
        "metric": metric,
        "difference": effect * 1.2 if difference is None else difference,
        "adjusted_effect": effect,
        "adjusted_lo": lo,
        "adjusted_hi": hi,
        "p_permutation": p,
        "n_permutations": 462,
    }


ROMANTIC = "Romantic relationships"


def _romantic(difference=-3.0, lo=-5.0, hi=-1.0, p_boot=0.004, hardest=ROMANTIC):
    return {
        "metric": "composite",
        "romantic": ROMANTIC,
        "difference": difference,
        "lo": lo,
        "hi": hi,
        "p_boot": p_boot,
        "hardest": hardest,
        "p_romantic_hardest": 0.8,
    }


# A model's paired difference (humans - model) and bootstrap p that give its verdict.
_HUMAN_ROWS = {"humans better": (0.1, 0.001), "model better": (-0.1, 0.001), "no difference": (0.01, 0.5)}


def _humans(verdicts_):
    return pd.DataFrame(
        {
            "em_model": [f"m{i}" for i in range(len(verdicts_))],
            "verdict": verdicts_,
            "human_minus_model": [_HUMAN_ROWS[v][0] for v in verdicts_],
            "p_boot": [_HUMAN_ROWS[v][1] for v in verdicts_],
        }
    )


def _rank_pairs(intervals, taus=None, margin=0.3):
    """One row per pair of four metrics; ``intervals``: (lo90, hi90, lo95, hi95) per pair; the
    equivalence p at ``margin`` is 0.01 for a 90% interval inside it, else 0.5."""
    metrics = ["emotion_f1", "binary_om_acc", "pairwise_acc", "draft_judge"]
    pairs = [(a, b) for i, a in enumerate(metrics) for b in metrics[i + 1 :]]
    taus = taus or [0.01 * (i + 1) for i in range(len(pairs))]
    return pd.DataFrame(
        {
            "metric_a": [a for a, _ in pairs],
            "metric_b": [b for _, b in pairs],
            "tau": taus,
            "lo90": [i[0] for i in intervals],
            "hi90": [i[1] for i in intervals],
            "lo95": [i[2] for i in intervals],
            "hi95": [i[3] for i in intervals],
            "p_equivalence": [0.01 if -margin < i[0] and i[1] < margin else 0.5 for i in intervals],
            "margin": margin,
        }
    )


INDEPENDENT = (-0.2, 0.2, -0.25, 0.25)  # inside +-0.3 with 90% confidence
RELATED = (0.4, 0.8, 0.35, 0.85)  # the 95% interval excludes 0
UNCLEAR = (-0.1, 0.5, -0.2, 0.6)


def _results(**override):
    results = {
        "rank_pairs": _rank_pairs([INDEPENDENT] * 4 + [UNCLEAR] * 2),
        "discriminability_comparisons": {
            ("pairwise_acc", "emotion_f1"): {"difference": 0.6, "lo": 0.2, "hi": 1.0, "p_boot": 0.002}
        },
        "diagnosis": pd.DataFrame([_diagnosis(), _diagnosis("binary_om_acc", 0.02, 0.03, -0.01, 0.07, 0.2)]),
        "drift_pages": {"binary_om_acc": _page(), "emotion_f1": _page(0.0, -0.02, 0.03, 0.5, 0.5)},
        "romantic": {("composite", ROMANTIC): _romantic()},
        "profiles": {"tau": 0.6, "lo": 0.2, "hi": 0.9, "n_flips": 3, "n_clear_flips": 1},
        "humans": {
            "binary_hp_acc": _humans(["humans better"] * 3 + ["no difference"]),
            "cw_q1_f1": _humans(["no difference"] * 4),
        },
    }
    results.update(override)
    return results


def _claim(test, family="headline", id_="X", **params):
    return {"id": id_, "family": family, "text": f"a claim tested by {test}", "test": test, "params": params}


def _verdict(claim, results, alpha=ALPHA) -> pd.Series:
    return verdicts([claim], results, alpha).iloc[0]


# ----------------------------------------------------------------- directional claims


@pytest.mark.parametrize(
    "effect,lo,hi,p,expected",
    [
        (-0.04, -0.07, -0.01, 0.01, "supported"),  # predicted sign, significant
        (0.04, 0.01, 0.07, 0.01, "not supported"),  # opposite sign, significant
        (0.04, 0.01, 0.07, 0.30, "not supported"),  # not significant, but the interval excludes the prediction
        (-0.01, -0.04, 0.02, 0.30, "inconclusive"),
        (0.01, -0.02, 0.04, 0.30, "inconclusive"),
        (-0.04, -0.07, -0.01, ALPHA, "supported"),  # adjusted p <= alpha rejects (statsmodels' convention)
        (-0.04, -0.07, -0.01, ALPHA + 1e-9, "inconclusive"),
    ],
)
def test_diagnosis_effect_verdicts(effect, lo, hi, p, expected):
    results = _results(diagnosis=pd.DataFrame([_diagnosis(effect=effect, lo=lo, hi=hi, p=p)]))
    row = _verdict(_claim("diagnosis_effect", metric="emotion_f1", direction="negative"), results)
    assert row["verdict"] == expected
    assert row["p_value"] == p and row["p_adjusted"] == pytest.approx(p)  # one claim: nothing to adjust


def test_diagnosis_effect_estimate_and_interval_come_from_the_same_model():
    results = _results(diagnosis=pd.DataFrame([_diagnosis(difference=-0.9, effect=-0.04, lo=-0.07, hi=-0.01)]))
    out = claim_result(_claim("diagnosis_effect", metric="emotion_f1", direction="negative"), results)
    assert (out["estimate"], out["lo"], out["hi"]) == (-0.04, -0.07, -0.01)
    assert out["predicted_sign"] == -1
    positive = claim_result(_claim("diagnosis_effect", metric="emotion_f1", direction="positive"), results)
    assert positive["predicted_sign"] == 1


@pytest.mark.parametrize("difference,effect", [(0.02, -0.04), (-0.02, 0.04)])
def test_diagnosis_effect_is_inconclusive_when_the_two_analyses_disagree_in_sign(difference, effect):
    lo, hi = (-0.07, -0.01) if effect < 0 else (0.01, 0.07)
    results = _results(
        diagnosis=pd.DataFrame([_diagnosis(difference=difference, effect=effect, lo=lo, hi=hi, p=0.001)])
    )
    for direction in ("negative", "positive"):
        row = _verdict(_claim("diagnosis_effect", metric="emotion_f1", direction=direction), results)
        assert row["verdict"] == "inconclusive"
        assert "disagree in sign" in row["detail"]


def test_positive_direction_mirrors_the_rules():
    results = _results(diagnosis=pd.DataFrame([_diagnosis(effect=-0.04, lo=-0.07, hi=-0.01, p=0.3)]))
    claim = _claim("diagnosis_effect", metric="emotion_f1", direction="positive")
    assert _verdict(claim, results)["verdict"] == "not supported"  # interval entirely below zero
    results = _results(diagnosis=pd.DataFrame([_diagnosis(effect=0.04, lo=0.01, hi=0.07, p=0.01)]))
    assert _verdict(claim, results)["verdict"] == "supported"


def test_turn_drift_uses_the_two_sided_page_p_value():
    page = _page(-0.05, -0.08, -0.02, p_decreasing=0.01, p_increasing=0.99)
    results = _results(drift_pages={"binary_om_acc": page})
    down = claim_result(_claim("turn_drift", metric="binary_om_acc", direction="negative"), results)
    up = claim_result(_claim("turn_drift", metric="binary_om_acc", direction="positive"), results)
    assert down["p_value"] == pytest.approx(0.02) and up["p_value"] == pytest.approx(0.02)
    assert (
        claim_result(
            _claim("turn_drift", metric="binary_om_acc", direction="negative"),
            _results(drift_pages={"binary_om_acc": _page(p_decreasing=0.7, p_increasing=0.6)}),
        )["p_value"]
        == 1.0
    )  # capped
    assert down["estimate"] == -0.05 and (down["lo"], down["hi"]) == (-0.08, -0.02)
    assert (
        _verdict(_claim("turn_drift", metric="binary_om_acc", direction="negative"), results)["verdict"] == "supported"
    )
    assert (
        _verdict(_claim("turn_drift", metric="binary_om_acc", direction="positive"), results)["verdict"]
        == "not supported"
    )


def test_discriminability_difference_predicts_a_positive_difference():
    claim = _claim("discriminability_difference", better="pairwise_acc", worse="emotion_f1")
    assert _verdict(claim, _results())["verdict"] == "supported"
    flipped = {("pairwise_acc", "emotion_f1"): {"difference": -0.6, "lo": -1.0, "hi": -0.2, "p_boot": 0.002}}
    assert _verdict(claim, _results(discriminability_comparisons=flipped))["verdict"] == "not supported"
    weak = {("pairwise_acc", "emotion_f1"): {"difference": 0.1, "lo": -0.2, "hi": 0.4, "p_boot": 0.4}}
    assert _verdict(claim, _results(discriminability_comparisons=weak))["verdict"] == "inconclusive"


@pytest.mark.parametrize(
    "romantic,expected_p,expected",
    [
        (_romantic(), 0.004, "supported"),  # the two-sided bootstrap p of the contrast
        (_romantic(hardest="Work and career"), 0.004, "inconclusive"),  # lower than the rest, but not the hardest
        (_romantic(difference=3.0, lo=1.0, hi=5.0, p_boot=0.004), 0.004, "not supported"),  # higher than the rest
        (_romantic(difference=3.0, lo=1.0, hi=5.0, p_boot=0.3), 0.3, "not supported"),  # interval above zero
        (_romantic(difference=-0.5, lo=-2.0, hi=1.0, p_boot=0.5), 0.5, "inconclusive"),
    ],
)
def test_topic_hardest(romantic, expected_p, expected):
    claim = _claim("topic_hardest", metric="composite", category=ROMANTIC)
    row = _verdict(claim, _results(romantic={("composite", ROMANTIC): romantic}))
    assert row["p_value"] == pytest.approx(expected_p)
    assert row["verdict"] == expected


@pytest.mark.parametrize(
    "p,shown", [(0.8, "0.80"), (0.9995, "0.9995"), (0.0005, "0.001"), (1.0, "1.00"), (0.0, "0.00")]
)
def test_the_hardest_topic_probability_is_never_printed_as_certain_when_it_is_not(p, shown):
    """The default run's 1,999 of 2,000 resamples printed "hardest 1.00": a probability strictly
    between 0 and 1 gets the decimals that keep it off 0 and 1; 0 and 1 themselves stay two."""
    claim = _claim("topic_hardest", metric="composite", category=ROMANTIC)
    romantic = {**_romantic(), "p_romantic_hardest": p}
    row = _verdict(claim, _results(romantic={("composite", ROMANTIC): romantic}))
    assert row["detail"].endswith(f"is hardest {shown}")


# ----------------------------------------------------------------- claims with their own rule


@pytest.mark.parametrize(
    "lo,hi,expected",
    [
        (-0.04, 0.04, "supported"),
        (-0.05, 0.04, "inconclusive"),  # touches -margin: not strictly inside
        (-0.04, 0.05, "inconclusive"),  # touches +margin
        (-0.0499, 0.0499, "supported"),
        (0.05, 0.09, "inconclusive"),  # lo on the margin: not strictly outside
        (0.0501, 0.09, "not supported"),  # entirely above +margin
        (-0.09, -0.0501, "not supported"),  # entirely below -margin
        (-0.09, -0.05, "inconclusive"),
        (-0.09, 0.09, "inconclusive"),
    ],
)
def test_turn_flat_equivalence_at_the_margin(lo, hi, expected):
    results = _results(drift_pages={"emotion_f1": _page((lo + hi) / 2, lo, hi, 0.5, 0.5)})
    row = _verdict(_claim("turn_flat", family="exploratory", metric="emotion_f1", margin=0.05), results)
    assert row["verdict"] == expected
    assert np.isnan(row["p_value"]) and np.isnan(row["p_adjusted"])


@pytest.mark.parametrize(
    "intervals,expected",
    [
        ([INDEPENDENT] * 4 + [UNCLEAR] * 2, "supported"),
        ([INDEPENDENT] * 3 + [UNCLEAR] * 3, "inconclusive"),  # exactly half is not a majority
        ([RELATED] * 4 + [INDEPENDENT] * 2, "not supported"),
        ([RELATED] * 3 + [INDEPENDENT] * 3, "inconclusive"),
        ([(-0.3, 0.2, -0.35, 0.25)] * 6, "inconclusive"),  # lo90 on -margin: not strictly inside
        ([(-0.01, 0.2, 0.0, 0.3)] * 6, "supported"),  # lo95 = 0 does not exclude 0; inside the margin
    ],
)
def test_rank_independence_majority_rule(intervals, expected):
    results = _results(rank_pairs=_rank_pairs(intervals))
    claim = _claim(
        "rank_independence", metrics=["emotion_f1", "binary_om_acc", "pairwise_acc", "draft_judge"], margin=0.3
    )
    assert _verdict(claim, results)["verdict"] == expected


def test_rank_independence_uses_the_claims_own_margin():
    metrics = ["emotion_f1", "binary_om_acc", "pairwise_acc", "draft_judge"]
    for margin, expected in ((0.3, "supported"), (0.2, "inconclusive")):
        results = _results(rank_pairs=_rank_pairs([(-0.25, 0.25, -0.3, 0.3)] * 6, margin=margin))
        assert _verdict(_claim("rank_independence", metrics=metrics, margin=margin), results)["verdict"] == expected


def test_rank_independence_refuses_a_margin_other_than_the_equivalence_tests():
    metrics = ["emotion_f1", "binary_om_acc", "pairwise_acc", "draft_judge"]
    results = _results(rank_pairs=_rank_pairs([INDEPENDENT] * 6, margin=0.3))
    with pytest.raises(ValueError, match=r"claim X: its margin 0.2 differs from statistics.independence_margin"):
        _verdict(_claim("rank_independence", metrics=metrics, margin=0.2), results)


def test_partial_conjunction_is_bonferroni_on_the_u_th_smallest():
    from eibench.stats.claims import partial_conjunction

    assert partial_conjunction([0.01, 0.2, 0.03, 0.5], 3) == pytest.approx(2 * 0.2)
    assert partial_conjunction([0.01, 0.02], 1) == pytest.approx(2 * 0.01)  # Bonferroni of the minimum
    assert partial_conjunction([0.4, 0.6], 2) == pytest.approx(0.6)  # all false: the maximum
    assert partial_conjunction([0.9, 0.95, 0.99], 2) == 1.0  # capped
    assert np.isnan(partial_conjunction([0.01, np.nan], 2))  # fewer p-values than u


def test_claims_about_most_of_a_set_enter_the_headline_holm_family():
    """Rank independence and humans-vs-models have a p-value, so Holm covers every headline claim."""
    claims = [
        _claim(
            "rank_independence",
            "headline",
            "R",
            metrics=["emotion_f1", "binary_om_acc", "pairwise_acc", "draft_judge"],
            margin=0.3,
        ),
        _claim("humans_vs_models", "headline", "H", metric="binary_hp_acc", direction="humans_better"),
        _claim("diagnosis_effect", "headline", "D", metric="emotion_f1", direction="negative"),
    ]
    table = verdicts(claims, _results(), ALPHA).set_index("id")
    assert table["p_adjusted"].notna().all()
    # R: 4 of 6 pairs at p 0.01, u = 4 -> 3 x 0.01; H: 3 of 4 models at 0.001, u = 3 -> 2 x 0.001; D: 0.01
    np.testing.assert_allclose(table.loc[["R", "H", "D"], "p_value"], [0.03, 0.002, 0.01])
    np.testing.assert_allclose(table.loc[["R", "H", "D"], "p_adjusted"], [0.03, 0.006, 0.02])
    assert (table["verdict"] == "supported").all()


def test_rank_independence_uses_only_pairs_within_the_claimed_metrics():
    pairs = _rank_pairs(
        [RELATED, INDEPENDENT, INDEPENDENT, RELATED, RELATED, RELATED], taus=[0.9, 0.05, -0.1, 0.7, 0.8, 0.6]
    )
    claim = _claim("rank_independence", metrics=["emotion_f1", "pairwise_acc", "draft_judge"], margin=0.3)
    out = claim_result(claim, _results(rank_pairs=pairs))
    # Pairs among these three: (f1, pairwise) independent, (f1, draft) independent, (pairwise, draft) related:
    # 2 of 3 at p 0.01, u = 2 -> partial-conjunction p 2 x 0.01.
    assert out["p_value"] == pytest.approx(0.02)
    assert _verdict(claim, _results(rank_pairs=pairs))["verdict"] == "supported"
    assert out["estimate"] == pytest.approx(np.median([0.05, 0.1, 0.6]))
    assert "2 of 3 metric pairs shown independent" in out["detail"]
    # A claim of two metrics has one pair: the noun agrees with it.
    two = _claim("rank_independence", metrics=["emotion_f1", "pairwise_acc"], margin=0.3)
    assert "1 of 1 metric pair shown independent" in claim_result(two, _results(rank_pairs=pairs))["detail"]


@pytest.mark.parametrize(
    "profiles,expected",
    [
        ({"tau": 0.6, "lo": 0.2, "hi": 0.9, "n_flips": 3, "n_clear_flips": 1}, "supported"),
        ({"tau": 0.98, "lo": 0.95, "hi": 1.0, "n_flips": 0, "n_clear_flips": 0}, "not supported"),  # no flip at all
        ({"tau": 0.98, "lo": 0.2, "hi": 1.0, "n_flips": 0, "n_clear_flips": 0}, "not supported"),
        ({"tau": 0.98, "lo": 0.95, "hi": 1.0, "n_flips": 1, "n_clear_flips": 0}, "inconclusive"),  # flips, none clear
    ],
)
def test_profile_flips(profiles, expected):
    row = _verdict(_claim("profile_flips", family="exploratory"), _results(profiles=profiles))
    assert row["verdict"] == expected and row["estimate"] == profiles["tau"]


def test_flips_the_resamples_cannot_resolve_leave_the_claim_inconclusive_and_say_so():
    profiles = {
        "tau": -0.3,
        "lo": -0.4,
        "hi": -0.1,
        "n_flips": 36,
        "n_clear_flips": 0,
        "n_unresolved_flips": 20,
        "flip_resamples": 2000,
    }
    row = _verdict(_claim("profile_flips", family="exploratory"), _results(profiles=profiles))
    assert row["verdict"] == "inconclusive"
    assert row["detail"] == (
        "36 pairs of models change order, 0 clearly; 20 more only with a bootstrap p of 0 read as exactly 0, "
        "which 2000 resamples cannot resolve"
    )


@pytest.mark.parametrize(
    "table,direction,expected",
    [
        (["humans better"] * 3 + ["no difference"], "humans_better", "supported"),
        (["humans better"] * 2 + ["no difference"] * 2, "humans_better", "inconclusive"),  # half is not most
        (["model better"] * 2 + ["no difference"] * 2, "humans_better", "not supported"),  # half the other way
        (["model better"] * 3 + ["humans better"], "models_better", "supported"),
        (["humans better"] * 2 + ["model better"] * 2, "models_better", "not supported"),
    ],
)
def test_humans_vs_models(table, direction, expected):
    results = _results(humans={"binary_hp_acc": _humans(table)})
    row = _verdict(_claim("humans_vs_models", metric="binary_hp_acc", direction=direction), results)
    assert row["verdict"] == expected


@pytest.mark.parametrize(
    "direction,metric,expected",
    [
        ("humans_better", "binary_hp_acc", 0.75),
        ("models_better", "binary_hp_acc", 0.25),
        ("humans_better", "four_branch_mae", 0.25),
    ],
)
def test_a_human_claims_estimate_is_the_share_of_models_on_its_side(direction, metric, expected):
    """The estimate is the share of models whose observed difference from the raters lies on the
    claimed side (what stats.operating.estimands gives without noise), not the share of models
    the Holm-adjusted tests separate: here 3 of 4 models lie below the raters and 1 of them is
    separated."""
    table = _humans(["humans better", "no difference", "no difference", "model better"])
    table["human_minus_model"] = [0.2, 0.05, 0.01, -0.1]
    row = _verdict(_claim("humans_vs_models", metric=metric, direction=direction), _results(humans={metric: table}))
    assert row["estimate"] == expected
    assert row["detail"].startswith(("humans better for 1 of 4 models (Holm)", "model better for 1 of 4 models (Holm)"))


def test_humans_vs_models_without_human_raters_is_not_testable():
    row = _verdict(_claim("humans_vs_models", metric="binary_hp_acc", direction="humans_better"), _results(humans={}))
    assert row["verdict"] == "not testable" and np.isnan(row["estimate"]) and "no human raters" in row["detail"]


def test_turn_drift_without_page_test_is_not_testable():
    """min(1.0, nan) is 1.0: a Page test that did not run must not give p = 1; nor is its claim
    'inconclusive' (a verdict for a test that ran): ESConv cut to 2 turns has no middle turns, so
    no model is a block of Page's test, and E2 was 'inconclusive' with no p."""
    claim = _claim("turn_drift", metric="binary_om_acc", direction="negative")
    for blocks, have in ((0, "0 compared models"), (1, "1 compared model "), (None, "too few models")):
        nan_page = {
            **_page(p_decreasing=np.nan, p_increasing=np.nan),
            **({} if blocks is None else {"n_blocks": blocks}),
        }
        row = _verdict(claim, _results(drift_pages={"binary_om_acc": nan_page}))
        assert np.isnan(row["p_value"]) and np.isnan(row["p_adjusted"]) and np.isnan(row["estimate"])
        assert row["verdict"] == "not testable"
        assert row["detail"] == (
            f"not testable: Page's trend test did not run: {have.strip()} with a mean of binary_om_acc in each "
            "of the early, middle and late turns; it needs two"
        )
    # Left out of its family: the other headline claim is adjusted alone.
    other = _claim("diagnosis_effect", "headline", "H1", metric="emotion_f1", direction="negative")
    rows = verdicts(
        [other, claim], _results(drift_pages={"binary_om_acc": _page(p_decreasing=np.nan, p_increasing=np.nan)}), ALPHA
    )
    assert rows.loc[0, "p_adjusted"] == rows.loc[0, "p_value"]


def test_unknown_test_raises_naming_the_claim():
    with pytest.raises(ValueError, match=r"claim C99: unknown test 'rank_magic'"):
        verdicts([_claim("rank_magic", id_="C99")], _results(), ALPHA)


# ----------------------------------------------------------------- multiplicity within families


def _family_claims():
    return [
        _claim("diagnosis_effect", "headline", "H1", metric="emotion_f1", direction="negative"),
        _claim("turn_drift", "headline", "H2", metric="binary_om_acc", direction="negative"),
        _claim("discriminability_difference", "headline", "H3", better="pairwise_acc", worse="emotion_f1"),
        _claim("topic_hardest", "headline", "H4", metric="composite", category=ROMANTIC),
        _claim("rank_independence", "headline", "H5", metrics=["emotion_f1", "binary_om_acc"], margin=0.3),
        _claim("diagnosis_effect", "exploratory", "E1", metric="binary_om_acc", direction="positive"),
        _claim("turn_drift", "exploratory", "E2", metric="emotion_f1", direction="positive"),
        _claim("turn_flat", "exploratory", "E3", metric="emotion_f1", margin=0.05),
        _claim("diagnosis_effect", "exploratory", "E4", metric="emotion_f1", direction="negative"),
    ]


def _family_results():
    return _results(
        diagnosis=pd.DataFrame([_diagnosis(p=0.012), _diagnosis("binary_om_acc", 0.02, 0.03, 0.01, 0.05, 0.03)]),
        drift_pages={
            "binary_om_acc": _page(p_decreasing=0.01),  # two-sided 0.02
            "emotion_f1": _page(0.01, -0.02, 0.04, 0.6, 0.0225),
        },  # two-sided 0.045
        discriminability_comparisons={
            ("pairwise_acc", "emotion_f1"): {"difference": 0.6, "lo": 0.2, "hi": 1.0, "p_boot": 0.04}
        },
        romantic={("composite", ROMANTIC): _romantic(p_boot=0.004)},
    )


def test_holm_within_headline_and_bh_within_exploratory(multipletests):
    table = verdicts(_family_claims(), _family_results(), ALPHA).set_index("id")
    headline = ["H1", "H2", "H3", "H4", "H5"]  # H5: the partial conjunction of its one pair (inconclusive: 0.5)
    p = table.loc[headline, "p_value"].to_numpy(float)
    np.testing.assert_allclose(p, [0.012, 0.02, 0.04, 0.004, 0.01])
    np.testing.assert_allclose(table.loc[headline, "p_adjusted"], multipletests(p, method="holm")[1])
    exploratory = ["E1", "E2", "E4"]  # E3 (equivalence) has no p-value
    q = table.loc[exploratory, "p_value"].to_numpy(float)
    np.testing.assert_allclose(table.loc[exploratory, "p_adjusted"], multipletests(q, method="fdr_bh")[1])
    assert np.isnan(table.loc["E3", "p_adjusted"])
    # The families are adjusted apart: pooling all eight p-values would give other numbers.
    pooled = multipletests(np.r_[p, q], method="holm")[1][:5]
    assert not np.allclose(table.loc[headline, "p_adjusted"], pooled)


def test_verdicts_use_the_adjusted_p_value():
    claims = [c for c in _family_claims() if c["id"] != "H5"]
    table = verdicts(claims, _family_results(), ALPHA).set_index("id")
    # Holm over (0.012, 0.02, 0.04, 0.004): 0.036, 0.04, 0.04, 0.016 -> all below 0.05.
    assert list(table.loc[["H1", "H2", "H3", "H4"], "verdict"]) == ["supported"] * 4
    # At alpha 0.039 the adjusted 0.04 values are no longer at or below alpha, though H2's raw 0.02 is.
    strict = verdicts(claims, _family_results(), 0.039).set_index("id")
    assert list(strict.loc[["H1", "H2", "H3", "H4"], "verdict"]) == [
        "supported",
        "inconclusive",
        "inconclusive",
        "supported",
    ]
    # BH over (0.03, 0.045, 0.012): 0.045, 0.045, 0.036.
    np.testing.assert_allclose(table.loc[["E1", "E2", "E4"], "p_adjusted"], [0.045, 0.045, 0.036])
    assert table.loc["E1", "verdict"] == "supported" and table.loc["E2", "verdict"] == "supported"


def test_verdict_table_columns_and_order():
    claims = _family_claims()
    table = verdicts(claims, _family_results(), ALPHA)
    assert list(table["id"]) == [c["id"] for c in claims]
    assert list(table.columns) == [
        "id",
        "family",
        "text",
        "test",
        "estimate",
        "lo",
        "hi",
        "p_value",
        "p_adjusted",
        "verdict",
        "detail",
        "scope",
        "note",
        "p_bound",
    ]
    assert set(table["verdict"]) <= {"supported", "not supported", "inconclusive"}


def test_every_claim_of_the_config_evaluates(default_config):
    claims = copy.deepcopy(default_config["statistics"]["claims"])
    results = _results()
    for c in claims:  # results for whatever metric each claim names
        metric = c.get("params", {}).get("metric")
        if c["test"] in ("turn_drift", "turn_flat"):
            results["drift_pages"][metric] = _page()
        elif c["test"] == "diagnosis_effect":
            results["diagnosis"] = pd.concat(
                [results["diagnosis"], pd.DataFrame([_diagnosis(metric)])]
            ).drop_duplicates("metric")
        elif c["test"] == "topic_hardest":
            results["romantic"][(metric, c["params"]["category"])] = _romantic()
        elif c["test"] == "humans_vs_models":
            results["humans"][metric] = _humans(["no difference"] * 3)
        elif c["test"] == "discriminability_difference":
            results["discriminability_comparisons"][(c["params"]["better"], c["params"]["worse"])] = {
                "difference": 0.1,
                "lo": -0.1,
                "hi": 0.3,
                "p_boot": 0.3,
            }
    table = verdicts(claims, results, default_config["statistics"]["alpha"])
    assert list(table["id"]) == [c["id"] for c in claims]
    assert table["verdict"].notna().all()
    assert set(table["family"]) <= {"headline", "exploratory"}


def test_topic_hardest_on_an_error_metric_predicts_a_higher_value():
    # four_branch_mae: lower is better, so the hardest topic has the HIGHER error.
    higher = _romantic() | {"metric": "four_branch_mae", "difference": 0.4, "lo": 0.1, "hi": 0.7, "p_boot": 0.004}
    results = _results(romantic={("four_branch_mae", ROMANTIC): higher})
    claim = _claim("topic_hardest", metric="four_branch_mae", category=ROMANTIC)
    assert _verdict(claim, results)["verdict"] == "supported"
    lower = higher | {"difference": -0.4, "lo": -0.7, "hi": -0.1}
    results = _results(romantic={("four_branch_mae", ROMANTIC): lower})
    assert _verdict(claim, results)["verdict"] == "not supported"


@pytest.mark.parametrize(
    "claim,override,why",
    [
        (
            _claim("discriminability_difference", better="kendall_tau", worse="emotion_f1"),
            {},
            "a compared metric has no values",
        ),
        (
            _claim("topic_hardest", metric="composite", category="Work and career"),
            {},
            "no contrast for 'Work and career'",
        ),
        (
            _claim("humans_vs_models", metric="binary_hp_acc", direction="humans_better"),
            {"humans": {}},
            "the cohort has no human raters",
        ),
    ],
)
def test_claims_that_cannot_be_tested_are_not_testable_and_say_why(claim, override, why):
    """Without a design, the missing result itself makes the claim not testable (never inconclusive)."""
    row = _verdict(claim, _results(**override))
    assert row["verdict"] == "not testable"
    assert why in row["detail"] and np.isnan(row["estimate"]) and np.isnan(row["p_adjusted"])


def test_rank_independence_names_the_metrics_without_values():
    """A claim metric without values in the cohort has no pairs: the detail says which and how many
    of the claim's pairs are left (the synthetic cohort has no judge scores: 3 of 6)."""
    pairs = _rank_pairs([INDEPENDENT] * 6)
    present = pairs[(pairs["metric_a"] != "draft_judge") & (pairs["metric_b"] != "draft_judge")]
    claim = _claim(
        "rank_independence", metrics=["emotion_f1", "binary_om_acc", "pairwise_acc", "draft_judge"], margin=0.3
    )
    partly = claim_result(claim, _results(rank_pairs=present))
    assert partly["detail"].endswith("; 3 of its 6 pairs tested, draft_judge without values in this cohort")
    assert partly["scope"] == "3 of its 6 pairs tested"
    whole = claim_result(claim, _results(rank_pairs=pairs))
    assert "pairs tested" not in whole["detail"] and whole["scope"] == ""


def test_discriminability_difference_names_the_metrics_it_compares():
    claim = _claim("discriminability_difference", better="pairwise_acc", worse="emotion_f1")
    detail = claim_result(claim, _results())["detail"]
    assert detail == "log F ratio of pairwise accuracy (pairwise_acc) minus that of emotion F1 (emotion_f1)"


def test_a_metric_label_keeps_an_acronym_inside_a_sentence():
    from eibench.stats.claims import _label

    assert _label("emotion_f1") == "emotion F1" and _label("not_a_metric") == "not_a_metric"
    assert _label("panas_adjusted")[:5] == "PANAS"


def test_a_diagnosis_claim_whose_mixed_model_failed_says_so():
    """Release cohort: C3b's mixed model did not converge, so the claim had no estimate, yet its
    verdict cell and detail gave no reason. Its ``note`` now says why; a fit that gave an
    estimate has none."""
    failed = dict(_diagnosis("binary_om_acc", difference=0.0002, effect=np.nan, lo=np.nan, hi=np.nan, p=1.0))
    failed["mixed_model_note"] = "did not converge (MixedLM optimization failed)"
    results = _results(diagnosis=pd.DataFrame([_diagnosis(), failed]))
    claim = _claim("diagnosis_effect", metric="binary_om_acc", direction="negative")
    row = _verdict(claim, results)
    assert row["verdict"] == "inconclusive" and np.isnan(row["estimate"])
    assert row["note"] == "mixed model did not converge"
    assert row["detail"].endswith("which gave none (did not converge (MixedLM optimization failed))")
    fitted = _verdict(_claim("diagnosis_effect", metric="emotion_f1", direction="negative"), results)
    assert fitted["note"] == "" and "gave none" not in fitted["detail"]
    assert fit_note("singular fit (x)") == "singular fit of the mixed model"
    assert fit_note("") == "no mixed-model estimate"


def test_a_bootstrap_p_of_zero_gets_the_bound_its_resamples_allow():
    """Small build, C7: every model's paired bootstrap p was 0 over 500 resamples, and Table 4
    printed '< 0.001'; 0 only means p < 2/500 per model. ``p_bound`` is the adjusted p with the
    zeros raised to 2/500: the partial conjunction over 3 models (2 of 3) doubles it, Holm over
    the family's 2 tested claims doubles it again."""
    humans = _humans(["humans better"] * 3).assign(p_boot=0.0)
    results = _results(humans={"draft_judge": humans}, n_bootstrap=500)
    claims = [
        _claim("humans_vs_models", id_="C7", metric="draft_judge", direction="humans_better"),
        _claim("diagnosis_effect", id_="C3", metric="emotion_f1", direction="negative"),
    ]
    table = verdicts(claims, results, ALPHA).set_index("id")
    assert table.loc["C7", "p_adjusted"] == 0
    assert table.loc["C7", "p_bound"] == pytest.approx(2 * 2 * 2 / 500)
    # C3's permutation p (0.01) is not 0, but Holm ranked it behind C7's zero: with C7's true p
    # anywhere below its floor 0.008, C3's adjusted p lies between 0.01 and 2 x 0.008
    assert table.loc["C3", "p_adjusted"] == pytest.approx(0.01)
    assert table.loc["C3", "p_bound"] == pytest.approx(2 * 2 * 2 / 500)
    # without the resamples' count, no bound (the table prints fmt_p's '< 0.001')
    results.pop("n_bootstrap")
    assert np.isnan(verdicts(claims, results, ALPHA).set_index("id").loc["C7", "p_bound"])


def test_the_bound_of_a_zero_p_floors_every_zero_p_of_its_family():
    """Two headline claims with a bootstrap p of 0 over 2,000 resamples: each true p is below
    0.001, in any order, so Holm over the 2 claims bounds both at 2 x 0.001 (flooring only the
    claim itself would give 0.001, below what the other claim's true p allows)."""
    comparisons = {("pairwise_acc", "emotion_f1"): {"difference": 0.6, "lo": 0.2, "hi": 1.0, "p_boot": 0.0}}
    humans = _humans(["humans better"] * 3).assign(p_boot=0.0)
    results = _results(discriminability_comparisons=comparisons, humans={"draft_judge": humans}, n_bootstrap=2000)
    claims = [
        _claim("discriminability_difference", id_="C2", better="pairwise_acc", worse="emotion_f1"),
        _claim("humans_vs_models", id_="C7", metric="draft_judge", direction="humans_better"),
    ]
    table = verdicts(claims, results, ALPHA).set_index("id")
    assert (table["p_adjusted"] == 0).all()
    # C2: floored 0.001; C7: the partial conjunction (2 of 3 models) of 0.001 each, 0.002
    assert table.loc["C2", "p_bound"] == pytest.approx(0.002)
    assert table.loc["C7", "p_bound"] == pytest.approx(0.002)


def test_a_p_adjusted_with_a_zero_p_of_its_family_gets_that_familys_bound():
    """Default build, C3 (permutation p 0.0022) in the Holm family with three bootstrap p of 0
    (C2, C5, C7): its adjusted p, 0.004, was computed with those zeros taken as 0, ranking it
    behind them; their true p-values are only known to be below their floors, and C7's floor,
    0.006 after the partial conjunction, lies above C3's p, so C3's adjusted p can reach 0.0065.
    Here: C2's bootstrap p is 0 over 500 resamples (floor 0.004) and C3's permutation p 0.003,
    so Holm with the zero gives C3 0.003, with the floor 2 x 0.003 = 0.006: its bound; a claim
    whose adjusted p the zeros cannot move has none."""
    from eibench.report.numbers import fmt_p_bounded

    comparisons = {("pairwise_acc", "emotion_f1"): {"difference": 0.6, "lo": 0.2, "hi": 1.0, "p_boot": 0.0}}
    diagnosis = pd.DataFrame([_diagnosis(p=0.003), _diagnosis("binary_om_acc", 0.02, 0.03, -0.01, 0.07, 0.2)])
    results = _results(discriminability_comparisons=comparisons, diagnosis=diagnosis, n_bootstrap=500)
    claims = [
        _claim("discriminability_difference", id_="C2", better="pairwise_acc", worse="emotion_f1"),
        _claim("diagnosis_effect", id_="C3", metric="emotion_f1", direction="negative"),
    ]
    table = verdicts(claims, results, ALPHA).set_index("id")
    assert table.loc["C3", "p_adjusted"] == pytest.approx(0.003)
    assert table.loc["C3", "p_bound"] == pytest.approx(0.006)
    assert table.loc["C2", "p_bound"] == pytest.approx(0.006)
    assert fmt_p_bounded(table.loc["C3", "p_adjusted"], table.loc["C3", "p_bound"]) == "\u2264 0.006"
    assert fmt_p_bounded(table.loc["C2", "p_adjusted"], table.loc["C2", "p_bound"]) == "< 0.006"
    # a p far above the zeros' floors: Holm's order cannot change, so no bound
    diagnosis = pd.DataFrame([_diagnosis(p=0.3), _diagnosis("binary_om_acc", 0.02, 0.03, -0.01, 0.07, 0.2)])
    results = _results(discriminability_comparisons=comparisons, diagnosis=diagnosis, n_bootstrap=500)
    assert np.isnan(verdicts(claims, results, ALPHA).set_index("id").loc["C3", "p_bound"])
    # a bound that prints as the p itself is not printed
    assert fmt_p_bounded(0.0043, 0.0044) == "0.004"


def test_a_verdict_the_resamples_cannot_resolve_is_inconclusive():
    """C2's bootstrap p is 0 over 50 resamples (so below 0.04) and C3's permutation p 0.03: with
    the zero taken as 0, Holm gives C2 0 and C3 0.03, both "supported" at 0.05; with C2's p
    anywhere below its floor, each adjusted p can reach 2 x 0.03 = 0.06. Neither verdict is
    shown, so both are inconclusive and say why; with 2,000 resamples (floor 0.001) both stand."""
    comparisons = {("pairwise_acc", "emotion_f1"): {"difference": 0.6, "lo": 0.2, "hi": 1.0, "p_boot": 0.0}}
    diagnosis = pd.DataFrame([_diagnosis(p=0.03), _diagnosis("binary_om_acc", 0.02, 0.03, -0.01, 0.07, 0.2)])
    claims = [
        _claim("discriminability_difference", id_="C2", better="pairwise_acc", worse="emotion_f1"),
        _claim("diagnosis_effect", id_="C3", metric="emotion_f1", direction="negative"),
    ]
    results = _results(discriminability_comparisons=comparisons, diagnosis=diagnosis, n_bootstrap=50)
    table = verdicts(claims, results, ALPHA).set_index("id")
    assert table.loc["C2", "p_adjusted"] == 0 and table.loc["C3", "p_adjusted"] == pytest.approx(0.03)
    assert table.loc["C2", "p_bound"] == pytest.approx(0.06) and table.loc["C3", "p_bound"] == pytest.approx(0.06)
    assert (table["verdict"] == "inconclusive").all()
    for cid in ("C2", "C3"):
        assert table.loc[cid, "note"].endswith(
            "50 resamples bound the adjusted p only below 0.060, above alpha 0.05: too few to decide "
            "(statistics.n_bootstrap)"
        )
    results = _results(discriminability_comparisons=comparisons, diagnosis=diagnosis, n_bootstrap=2000)
    table = verdicts(claims, results, ALPHA).set_index("id")
    assert (table["verdict"] == "supported").all() and (table["note"] == "").all()

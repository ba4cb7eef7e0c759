"""The mixed models behind the diagnosis and topic effects: a balanced design against the
two-sample t-test on participant means, and degenerate designs that must not crash."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from eibench.stats import mixed, subgroups, topics
from eibench.stats import simulation as sim
from eibench.stats.bootstrap import cluster_weights
from eibench.stats.study import Study
from scipy import stats


@pytest.mark.parametrize("seed", range(3))
def test_balanced_design_equals_the_t_test_on_participant_means(seed):
    # With the same number of conversations per participant and a participant-level covariate,
    # REML gives the ANOVA variance estimates: the coefficient is the difference of the group means
    # of participant means and its standard error that of the pooled two-sample t-test.
    rng = np.random.default_rng(seed)
    n_people, per = 10, 4
    part = np.repeat(np.arange(n_people), per)
    diagnosed = (part < 5).astype(float)
    y = 1 + 0.7 * diagnosed + rng.normal(0, 0.5, n_people)[part] + rng.normal(0, 0.3, n_people * per)
    frame = pd.DataFrame({"y": y, "participant": part, "diagnosed": diagnosed})
    _, c = mixed.fit("y ~ diagnosed", frame, "diagnosed")
    means = frame.groupby("participant")["y"].mean().to_numpy()
    group = frame.groupby("participant")["diagnosed"].first().to_numpy() == 1
    difference = means[group].mean() - means[~group].mean()
    test = stats.ttest_ind(means[group], means[~group])
    assert c.reason == ""
    assert c.estimate == pytest.approx(difference, rel=1e-6)
    assert c.se == pytest.approx(difference / test.statistic, rel=1e-4)
    # ... and the interval and p-value those of the t-test too: t on the between-participant
    # degrees of freedom (participants - 2), not the normal reference, which is liberal here.
    q = stats.t.ppf(0.975, n_people - 2)
    assert (c.lo, c.hi) == pytest.approx((c.estimate - q * c.se, c.estimate + q * c.se), rel=1e-6)
    assert c.p_value == pytest.approx(test.pvalue, rel=1e-3)


def test_fewer_than_two_participants_is_a_recorded_reason():
    frame = pd.DataFrame({"y": [1.0, 2.0, 3.0], "participant": [0, 0, 0], "x": [0.0, 1.0, 0.0]})
    result, c = mixed.fit("y ~ x", frame, "x")
    assert result is None and np.isnan(c.estimate) and np.isnan(c.p_value) and "participant" in c.reason


@pytest.fixture(scope="module")
def small_study():
    return sim.simulate(sim.Generator(n_conversations=60, n_models=3, n_humans=0), np.random.default_rng(1))[0]


def test_mixed_model_without_diagnosed_participants_does_not_crash(small_study):
    conv = subgroups.conversation_means(small_study, "emotion_f1", [0, 1, 2])
    study = Study(**{**small_study.__dict__, "diagnosed": np.zeros(60, dtype=bool)})
    fit = subgroups.mixed_model(study, conv)
    assert np.isnan(fit["estimate"]) and np.isnan(fit["lo"]) and np.isnan(fit["p_value"])
    assert fit["reason"] != "" and fit["n_conversations"] == 60


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the empty romantic group's all-NaN resamples
def test_topic_contrast_without_romantic_conversations_does_not_crash(small_study):
    category = np.where(small_study.category == sim.ROMANTIC, "Family", small_study.category).astype(object)
    study = Study(**{**small_study.__dict__, "category": category})
    weights = cluster_weights(np.arange(60), 20, np.random.default_rng(2))
    table, contrast = topics.topic_effects(study, "composite", [0, 1, 2], weights, sim.ROMANTIC)
    assert contrast["n_romantic"] == 0 and np.isnan(contrast["adjusted"]) and np.isnan(contrast["p_mixed"])
    assert np.isnan(contrast["p_romantic_hardest"]) and sim.ROMANTIC not in set(table["category"])


# ------------------------------------------------------------- failed fits (stats/mixed.py)


def _warning(category, text):
    import warnings

    return warnings.WarningMessage(category(text), category, "statsmodels.py", 1)


def _result(converged=True, variance=0.2, scale=1.0, bse=(0.1, 0.2)):
    from types import SimpleNamespace

    return SimpleNamespace(
        converged=converged,
        cov_re=np.array([[variance]]),
        scale=scale,
        bse_fe=np.array(bse),
        fe_params=pd.Series([0.0, 1.0], index=["Intercept", "x"]),
    )


@pytest.mark.parametrize(
    ("result", "caught", "prefix"),
    [
        (_result(), [], ""),
        (
            _result(),
            [
                ("C", "Maximum Likelihood optimization failed to converge. Check mle_retvals"),
                ("C", "Retrying MixedLM optimization with lbfgs"),
                ("C", "The MLE may be on the boundary"),
            ],
            "",
        ),
        (_result(converged=False), [], "did not converge"),
        (_result(), [("C", "MixedLM optimization failed, trying a different optimizer may help.")], "did not converge"),
        (_result(), [("S", "The random effects covariance matrix is singular.")], "singular fit"),
        (
            _result(),
            [("C", "The Hessian matrix at the estimated parameter values is not positive definite.")],
            "singular fit",
        ),
        (_result(bse=(0.1, np.inf)), [], "singular fit"),
        (_result(variance=1e-9), [], "boundary fit"),
        (_result(variance=float("nan")), [], "singular fit"),
    ],
)
def test_fit_failure_names_each_kind_of_failed_fit(result, caught, prefix):
    from statsmodels.tools.sm_exceptions import ConvergenceWarning, SingularMatrixWarning

    kinds = {"C": ConvergenceWarning, "S": SingularMatrixWarning}
    reason = mixed.fit_failure(result, [_warning(kinds[k], text) for k, text in caught])
    assert reason.startswith(prefix) and (reason == "") is (prefix == "")
    assert mixed.is_fit_failure(reason) is (prefix != "")
    assert mixed.fit_failure_kind(reason) == (prefix or None)


def test_a_fit_that_did_not_converge_is_a_reason_never_an_estimate():
    # Every optimiser of MixedLM stops on this simulated study (|grad| 3.8); before the check the
    # coefficient of the non-converged fit was reported as an estimate.
    g = sim.Generator(n_conversations=150, n_models=6, n_humans=0, diagnosis=(("emotion", -0.1),))
    study, _ = sim.simulate(g, np.random.default_rng(5))
    fit = subgroups.mixed_model(study, subgroups.conversation_means(study, "emotion_f1", study.with_role("model")))
    assert fit["reason"].startswith("did not converge") and np.isnan(fit["estimate"]) and np.isnan(fit["p_value"])


def test_a_fit_stopped_by_a_singular_matrix_is_a_singular_fit_not_a_design_without_the_term():
    """ESConv cut to 2 turns: every conversation has as many turns, so the length the topic models
    adjust for is collinear with the intercept and statsmodels' fit raises LinAlgError. Its reason
    was 'mixed model not estimable (LinAlgError: ...)', counted as a design without the term."""
    frame = pd.DataFrame(
        {"y": np.linspace(0.0, 1.0, 10) ** 2, "participant": np.arange(10), "romantic": [1.0] + [0.0] * 9, "n_turns": 2}
    )
    result, c = mixed.fit("y ~ romantic + n_turns", frame, "romantic")
    assert result is None and np.isnan(c.estimate)
    assert c.reason == (
        "singular fit (the fixed effects' design matrix has rank 2 for 3 columns; LinAlgError: Singular matrix)"
    )
    assert mixed.is_fit_failure(c.reason) and mixed.fit_failure_kind(c.reason) == "singular fit"
    from eibench.report.stats_numbers import mixed_model_counts, mixed_model_failures

    notes = [c.reason] * 4 + ["fewer than two participants"] * 6
    assert mixed_model_counts(notes) == {
        "n_fits": 10,
        "n_failed": 4,
        "n_no_values": 0,
        "n_not_estimable": 6,
        "n_estimated": 0,
    }
    assert mixed_model_failures(notes) == "4 singular fits"


def test_mixed_model_counts_tell_failed_fits_from_designs_without_the_term():
    from eibench.report.stats_numbers import fit_notes, mixed_model_counts, mixed_model_failures

    diagnosis = pd.DataFrame(
        {"metric": ["a", "b", "c", "d"], "mixed_model_note": ["", "did not converge (x)", np.nan, mixed.NO_VALUES]}
    )
    romantic = pd.DataFrame({"metric": ["a"], "mixed_model_note": ["no conversation in 'Romantic'"]})
    topics = pd.DataFrame({"metric": ["a", "a", "b"], "mixed_model_note": ["boundary fit (v)"] * 2 + [""]})
    notes = fit_notes(diagnosis, romantic, topics)
    # a metric without values is neither a failed fit nor a design without the term
    # and the three fits without a note (empty or missing) gave an estimate (n_estimated)
    assert mixed_model_counts(notes) == {
        "n_fits": 7,
        "n_failed": 2,
        "n_no_values": 1,
        "n_not_estimable": 1,
        "n_estimated": 3,
    }
    assert mixed_model_failures(notes) == "1 did not converge and 1 boundary fit"
    none = fit_notes(pd.DataFrame(), pd.DataFrame(), pd.DataFrame())
    assert mixed_model_counts(none)["n_fits"] == 0 and mixed_model_failures(none) == "none"
    # a kind that is a noun takes the plural after a count above one
    several = ["singular fit (x)"] * 4 + ["did not converge (y)"] * 2 + ["boundary fit (z)"]
    assert mixed_model_failures(several) == "2 did not converge, 4 singular fits and 1 boundary fit"


def test_topic_contrasts_are_counted_only_where_the_fit_gave_them():
    """ESConv's holistic topic fit is singular (no contrast), its composite fit is not: the
    subgroups figure marks the composite's reference category only when it has contrasts."""
    from eibench.report.stats_numbers import n_topic_contrasts

    topics = pd.DataFrame(
        {
            "metric": ["composite"] * 3 + ["holistic"] * 3,
            "category": ["A", "B", "C"] * 2,
            "effect_vs_reference": [0.0, -1.4, 0.3, 0.0, np.nan, np.nan],
            "is_reference": [True, False, False] * 2,
        }
    )
    assert n_topic_contrasts(topics) == 2
    assert n_topic_contrasts(topics, "holistic") == 0
    assert n_topic_contrasts(topics.assign(effect_vs_reference=np.nan)) == 0
    assert n_topic_contrasts(pd.DataFrame()) == 0

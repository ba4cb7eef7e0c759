"""Operating characteristics of every claim's verdict rule, over simulated studies of this
study's design.

simulation.py validates the underlying tests; this module applies each pre-registered claim's
whole decision rule (claims.verdicts: the test, the family's multiplicity adjustment, the
equivalence or majority rule) to every simulated study, exactly as the pipeline applies it to
the real one. Each simulated study is drawn by simulation_batch.draw; its analyses are the
library's own where they are fast enough (humans.human_vs_models, drift._bin_contrast,
discriminability.compare, ranks.tau_b_matrix / oriented_means, the batch's REML diagnosis
models) and are turned into the ``results`` dictionary that claims.verdicts reads.

Per claim (``operating_table``):

- power: the share of simulated studies with verdict 'supported' in the planted cohort, for a
  claim whose predicted effect the generator plants (C1: the abilities are independent, so its
  claim is true in the null and planted cohorts);
- false-positive rate: the share 'supported' when the claim is false: the null cohort (no
  planted effect), and for the independence claim a cohort whose abilities have Kendall tau
  equal to its margin (``margin_correlation``);
- coverage of the estimate's interval of the planted estimand (the claim's estimate computed on
  the noise-free study, ``estimands``), with its Clopper-Pearson interval and one-sided exact
  binomial p-values against 0.95 (simulation.coverage_test), and sign recovery (share of estimates with the
  estimand's sign), for claims with a signed estimate and an interval.

A claim whose test the batch does not run is 'not simulated' with the reason (NOT_SIMULATED)
and no number; its metric pairs without simulated values (the judged-draft metric) are named.
"""

from __future__ import annotations

from dataclasses import replace
from math import comb
from typing import Any, Callable

import numpy as np
import pandas as pd
from scipy.stats import page_trend_test

from ..metrics.registry import BY_NAME
from .bootstrap import bootstrap_p, percentile_interval
from .claims import P_VALUE_OF_TEST, verdict_rows
from .discriminability import _reliability_snr, compare
from .drift import _bin, _bin_contrast, _weighted_slope
from .humans import human_vs_models, share_on_claimed_side
from .profiles import turn_level
from .ranks import equivalence_p, oriented_means, tau_b_matrix
from .simulation import METRICS, ROMANTIC, Generator, coverage_test
from .simulation_batch import _design, _diagnosis, _log_f, draw, to_study
from .subgroups import MAX_EXACT, conversation_means
from .topics import _weighted_group_means

#: Tests the batch does not run: the claim is 'not simulated' for this reason.
NOT_SIMULATED = {
    "turn_flat": "the simulated studies draw turn-level values of binary OM accuracy only, not of the claim's metric",
    "profile_flips": "the simulated studies have no per-turn versus whole-conversation profile of each model",
}


def simulated_claims(claims: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The claims whose rule the simulated studies can apply, and the others with their reason
    (a test the batch does not run, or a metric it does not simulate)."""
    keep, out = [], {}
    for c in claims:
        params = c.get("params", {})
        metrics = [params[k] for k in ("metric", "better", "worse") if k in params] + list(params.get("metrics", []))
        missing = [m for m in metrics if m not in METRICS and m != "composite"]
        if c["test"] in NOT_SIMULATED:
            out[c["id"]] = NOT_SIMULATED[c["test"]]
        elif c["test"] == "rank_independence" and len([m for m in metrics if m in METRICS]) < 2:
            out[c["id"]] = "fewer than two of its metrics are simulated"
        elif missing and c["test"] != "rank_independence":
            out[c["id"]] = f"metric {', '.join(missing)} is not simulated"
        else:
            keep.append(c)
    return keep, out


def untestable_set_aside(
    claims: list[dict[str, Any]],
    keep: list[dict[str, Any]],
    skipped: dict[str, str],
    unmet: Callable[[dict[str, Any]], list[str]],
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """``simulated_claims``' result (``keep``, ``skipped``) with every claim the cohort cannot
    test (``unmet(claim)``: its unmet needs, testability.unmet_needs) set aside: a claim this
    cohort cannot test is not testable in its simulated studies either. That reason comes first,
    before a limit of the simulator that would also keep the claim out ('not testable in this
    design: ...; besides, ...'): the table then says what the reader's cohort lacks, not only
    what the simulator lacks."""
    kept, out = list(keep), dict(skipped)
    for c in claims:
        reasons = unmet(c)
        if reasons:
            kept = [k for k in kept if k is not c]
            why = "not testable in this design: " + "; ".join(reasons)
            out[c["id"]] = why + (f"; besides, {skipped[c['id']]}" if c["id"] in skipped else "")
    return kept, out


def dropped_metrics(claim: dict[str, Any]) -> list[str]:
    """The metrics of a rank-independence claim the simulated studies do not have."""
    return [m for m in claim.get("params", {}).get("metrics", []) if m not in METRICS]


def margin_correlation(tau: float) -> float:
    """The Pearson correlation of normal abilities whose Kendall tau is ``tau`` (Greiner's
    relation tau = 2 / pi x arcsin(r))."""
    return float(np.sin(np.pi * tau / 2))


def _rank_pairs(
    study, metrics: list[str], models: list[int], weights: np.ndarray, rng: np.random.Generator, margin: float
):
    """ranks.rank_independence's pair table (tau, joint model-and-conversation 90% and 95%
    intervals, the equivalence p within +-``margin``), without its split-half reliabilities and
    power, which the verdict does not read."""
    point = tau_b_matrix(oriented_means(study, metrics, models))
    boot_means = oriented_means(study, metrics, models, weights)
    picks = rng.integers(0, len(models), size=(len(weights), len(models)))
    joint = tau_b_matrix(np.take_along_axis(boot_means, picks[:, :, None], axis=1))
    lo95, hi95 = percentile_interval(joint, 0.95)
    lo90, hi90 = percentile_interval(joint, 0.90)
    p_eq = equivalence_p(joint, margin)
    rows = [
        (metrics[a], metrics[b], point[a, b], lo95[a, b], hi95[a, b], lo90[a, b], hi90[a, b], p_eq[a, b], margin)
        for a in range(len(metrics))
        for b in range(a + 1, len(metrics))
    ]
    return pd.DataFrame(
        rows, columns=["metric_a", "metric_b", "tau", "lo95", "hi95", "lo90", "hi90", "p_equivalence", "margin"]
    )


def _romantic(study, metric: str, models: list[int], weights: np.ndarray) -> dict[str, Any]:
    """topics.topic_effects's romantic contrast without its mixed models (the verdict reads the
    raw contrast, its bootstrap p and the hardest category)."""
    conv = conversation_means(study, metric, models)
    categories = sorted({c for c in study.category if isinstance(c, str)})
    point = _weighted_group_means(conv, study.category, categories, np.ones((1, len(conv))))[0]
    boot = _weighted_group_means(conv, study.category, categories, weights)
    worst = np.nanargmin(boot, axis=1)  # the composite: higher is better
    p_hardest = np.bincount(worst, minlength=len(categories)) / len(worst)
    is_rom = np.array([c == ROMANTIC for c in study.category])
    ok = ~np.isnan(conv)
    both = _weighted_group_means(conv, is_rom, [True, False], weights)
    diff = both[:, 0] - both[:, 1]
    lo, hi = percentile_interval(diff)
    return {
        "difference": float(conv[ok & is_rom].mean() - conv[ok & ~is_rom].mean()),
        "lo": float(lo),
        "hi": float(hi),
        "p_boot": float(bootstrap_p(diff)),
        "romantic": ROMANTIC,
        "hardest": categories[int(np.nanargmin(point))],
        "p_romantic_hardest": float(p_hardest[categories.index(ROMANTIC)]) if ROMANTIC in categories else np.nan,
    }


def _drift_page(y: np.ndarray, rel: np.ndarray, conversation: np.ndarray, weights: np.ndarray) -> dict[str, Any]:
    """drift.turn_drift's page dictionary (its pooled part and Page's tests) for one study's
    turn values ``y`` [models, turns] with the turns' relative positions and conversations,
    vectorised over the models (turn_drift filters a turn table per model, ten times slower)."""
    b = _bin(rel)
    counts = np.array([(b == k).sum() for k in range(3)])
    data = np.stack([y[:, b == k].mean(axis=1) if counts[k] else np.full(len(y), np.nan) for k in range(3)], axis=1)
    flat_b, flat_c = np.tile(b, len(y)), np.tile(conversation, len(y))
    late_early = _bin_contrast(y.ravel(), flat_b, flat_c, weights)
    llo, lhi = percentile_interval(late_early)
    means = [float(y[:, b == k].mean()) if counts[k] else np.nan for k in range(3)]
    ok = ~np.isnan(data).any(axis=1)
    page: dict[str, Any] = {"p_decreasing": np.nan, "p_increasing": np.nan, "n_blocks": int(ok.sum())}
    if ok.sum() >= 2:
        page.update(
            p_decreasing=float(page_trend_test(data[ok], ranked=False, predicted_ranks=[3, 2, 1]).pvalue),
            p_increasing=float(page_trend_test(data[ok], ranked=False, predicted_ranks=[1, 2, 3]).pvalue),
        )
    slope = float(_weighted_slope(np.tile(rel, len(y)), y.ravel(), np.ones((1, y.size)))[0])
    return {
        **page,
        "slope": slope,
        "late_minus_early": means[2] - means[0],
        "late_early_lo": float(llo),
        "late_early_hi": float(lhi),
    }


def _diagnosis_table(batch, metrics: list[str], rngs) -> list[pd.DataFrame]:
    """Per study, subgroups' diagnosis table for ``metrics``: the mixed model's adjusted effect
    (reml, as the batch fits it), the participant permutation p and the difference of
    participant means."""
    models = slice(0, batch.n_models)
    present, labels = batch.diagnosis_participants
    n, k = len(present), int(labels.sum())
    per_metric = {}
    for metric in metrics:
        conv = batch.values[metric][:, models].mean(axis=1)
        fit = _diagnosis(batch, conv, rngs)
        diff = np.full(len(conv), np.nan)  # both groups needed (none when no diagnosis is recorded)
        if 0 < k < n:
            scores = np.stack([conv[:, batch.participant == p].mean(axis=1) for p in present], axis=1)
            diff = scores[:, labels].mean(axis=1) - scores[:, ~labels].mean(axis=1)
        per_metric[metric] = (fit, diff)
    S = batch.om_turns.shape[0]
    return [
        pd.DataFrame(
            [
                {
                    "metric": m,
                    "adjusted_effect": f["est_diagnosis"][s],
                    "adjusted_lo": f["lo_diagnosis"][s],
                    "adjusted_hi": f["hi_diagnosis"][s],
                    "p_permutation": f["p_diagnosis_permutation"][s],
                    "n_permutations": min(comb(n, k), MAX_EXACT) if 0 < k < n else np.nan,  # no test
                    "difference": d[s],
                }
                for m, (f, d) in per_metric.items()
            ]
        )
        for s in range(S)
    ]


def study_results(
    batch, claims: list[dict[str, Any]], weights: np.ndarray, alpha: float, rngs, rank_rngs
) -> list[dict[str, Any]]:
    """For each study of ``batch``, the ``results`` dictionary claims.verdicts reads, holding
    the analyses the (simulated) ``claims`` name."""
    g = batch.g
    models = list(range(g.n_models))
    humans = list(range(g.n_models, g.n_models + g.n_humans))
    diag_metrics = sorted({c["params"]["metric"] for c in claims if c["test"] == "diagnosis_effect"})
    diagnosis = _diagnosis_table(batch, diag_metrics, rngs) if diag_metrics else None
    discr = {}
    for c in claims:
        if c["test"] == "discriminability_difference":
            a, b = c["params"]["better"], c["params"]["worse"]
            va, vb = batch.values[a][:, : g.n_models], batch.values[b][:, : g.n_models]
            ones = np.ones((1, va.shape[-1]))
            discr[(a, b)] = (_log_f(va, weights), _log_f(vb, weights), _log_f(va, ones)[:, 0], _log_f(vb, ones)[:, 0])
    out = []
    for s in range(batch.om_turns.shape[0]):
        study = to_study(batch, s, turns=False)  # the drift page reads the batch's turn arrays (_drift_page)
        r: dict[str, Any] = {"discriminability_comparisons": {}, "romantic": {}, "drift_pages": {}, "humans": {}}
        for (a, b), (ba, bb, pa, pb) in discr.items():
            r["discriminability_comparisons"][(a, b)] = compare({a: ba[s], b: bb[s]}, a, b, {a: pa[s], b: pb[s]})
        if diagnosis is not None:
            r["diagnosis"] = diagnosis[s]
        for c in claims:
            params = c["params"]
            if c["test"] == "rank_independence":
                r["rank_pairs"] = _rank_pairs(
                    study,
                    [m for m in params["metrics"] if m in METRICS],
                    models,
                    weights,
                    rank_rngs[s],
                    params["margin"],
                )
            elif c["test"] == "turn_drift":
                if params["metric"] != "binary_om_acc":
                    raise ValueError(f"claim {c['id']}: the simulated studies have turns of binary_om_acc only")
                r["drift_pages"][params["metric"]] = _drift_page(
                    batch.om_turns[s], batch.rel, batch.turn_conversation, weights
                )
            elif c["test"] == "topic_hardest":
                r["romantic"][(params["metric"], params["category"])] = _romantic(
                    study, params["metric"], models, weights
                )
            elif c["test"] == "humans_vs_models" and humans:
                r["humans"][params["metric"]] = human_vs_models(study, params["metric"], humans, models, weights, alpha)
        out.append(r)
    return out


def planted_makes_true(claim: dict[str, Any], g: Generator, truth: dict[str, float]) -> int:
    """1 when generator ``g`` makes the claim's prediction true (its estimand on the predicted
    side, the humans' planted shift in the claimed direction; independent abilities for a
    rank-independence claim), else 0 (nothing planted for it, or planted the other way)."""
    params = claim.get("params", {})
    if claim["test"] == "rank_independence":
        return int(g.ability_correlation == 0)
    if claim["test"] == "humans_vs_models":
        shift = g.effect("human_shift", METRICS[params["metric"]][0])
        return int(shift > 0 if params["direction"] == "humans_better" else shift < 0)
    if claim["id"] not in truth or claim["test"] == "discriminability_difference":
        return 0
    predicted = -1 if claim["test"] == "topic_hardest" or params.get("direction") == "negative" else 1
    return int(np.sign(truth[claim["id"]]) == predicted)


def noise_free(g: Generator) -> Generator:
    """The generator without random parts: its study's statistics are the planted estimands."""
    return replace(
        g,
        ability_sd=0.0,
        participant_sd=0.0,
        conversation_sd=0.0,
        noise_sd=0.0,
        turn_noise_sd=0.0,
        ability_correlation=0.0,
    )


#: Why a simulated claim has no power: the generator makes it true in no simulated study. A
#: discriminability difference is about the spreads of two capabilities' abilities, which the
#: generator draws alike (Generator.ability_sd): it plants no difference of spreads, not "no
#: effect" (a generator of another section may plant one).
NO_POWER = {
    "discriminability_difference": "this generator draws every capability's abilities with the same spread, "
    "so it plants no difference of spreads for this claim",
    "": "the generator plants no effect for this claim",
}

#: The tests whose estimate is signed and has an interval: the estimands operating_table covers.
INTERVAL_TESTS = ("diagnosis_effect", "turn_drift", "turn_flat", "topic_hardest")


def _adjusted_diagnosis(study, conv: np.ndarray) -> float:
    """The diagnosis coefficient of conv ~ diagnosed + C(category) + n_turns by least squares
    over the conversations with a value and a known participant: the fixed part of
    subgroups.mixed_model, which on a noise-free study (no participant variance) is what its
    estimate targets. NaN when one group is empty."""
    ok = np.isfinite(conv) & (study.participant >= 0) & study.diagnosis_recorded()
    diag = study.diagnosed[ok].astype(float)
    if not 0 < diag.sum() < len(diag):
        return float("nan")
    category = pd.Series(study.category[ok]).astype(str)
    dummies = pd.get_dummies(category, drop_first=True, dtype=float).to_numpy()
    x = np.column_stack([np.ones(len(diag)), diag, dummies, study.n_turns[ok].astype(float)])
    coef = np.linalg.lstsq(x, conv[ok], rcond=None)[0]
    return float(coef[1])


def _late_minus_early(study, metric: str, models: list[int]) -> float:
    """drift.turn_drift's pooled late - early contrast: the mean of the models' late-turn values
    (relative position above 2/3) minus that of their early ones (at most 1/3), over the turns
    with a value. NaN when the study has no such turn values."""
    turns = study.turns
    if turns is None or metric not in turns:
        return float("nan")
    t = turns[turns["em_model"].isin([study.models[i] for i in models]) & turns[metric].notna()]
    b, y = _bin(t["rel_position"].to_numpy(float)), t[metric].to_numpy(float)
    if not ((b == 0).any() and (b == 2).any()):
        return float("nan")
    return float(y[b == 2].mean() - y[b == 0].mean())


def study_estimands(study, claims: list[dict[str, Any]]) -> dict[str, float]:
    """Per claim, its estimate computed on a noise-free ``study`` (every value the expectation of
    the metric, no random part): the value the claim's estimate targets, in its own units
    (report.claim_units). A claim without a target here (a discriminability difference, which
    measures the noise itself; profile flips; a metric or turn table the study lacks; a rank
    independence whose models tie) is left out.

    - diagnosis_effect: the adjusted diagnosis effect on the metric (``_adjusted_diagnosis``);
    - turn_drift, turn_flat: the pooled late - early contrast of the metric's turn values;
    - topic_hardest: the romantic - rest contrast of the conversations' means over the models;
    - humans_vs_models: the share of models whose expected difference from the human raters'
      mean (on the raters' conversations) lies on the claimed side (0 to 1);
    - rank_independence: the median |Kendall tau-b| over the pairs of the claim's metrics that
      the study has, of the models' expected means;
    - profile_flips: the Kendall tau-b between the models' expected turn-level scores (the
      tracking and evaluation pillars, profiles.turn_level) and their expected holistic pillar
      (a pair of models flips order exactly when tau-b is below 1; no target when the study
      lacks a pillar or two models tie)."""
    models, humans = study.with_role("model"), study.with_role("human")
    ones = np.ones((1, study.n_conversations))
    out: dict[str, float] = {}
    for c in claims:
        test, params = c["test"], c.get("params", {})
        metric = params.get("metric")
        if metric is not None and metric not in study.values and test not in ("turn_drift", "turn_flat"):
            continue
        value = float("nan")
        if test == "diagnosis_effect":
            value = _adjusted_diagnosis(study, conversation_means(study, metric, models))
        elif test in ("turn_drift", "turn_flat"):
            value = _late_minus_early(study, metric, models)
        elif test == "topic_hardest":
            value = _romantic(study, metric, models, ones)["difference"]
        elif test == "humans_vs_models" and humans:
            diff = human_vs_models(study, metric, humans, models, ones)["human_minus_model"].to_numpy(float)
            value = share_on_claimed_side(diff, metric, params["direction"])
        elif test == "rank_independence":
            names = [m for m in params["metrics"] if study.defined(m, models)]
            means = oriented_means(study, names, models) if len(names) >= 2 else np.zeros((0, 0))
            if len(names) >= 2 and np.isfinite(means).all() and (np.ptp(means, axis=0) > 0).all():
                tau = tau_b_matrix(means)
                value = float(np.median(np.abs(tau[np.triu_indices(len(names), 1)])))
        elif test == "profile_flips" and all(k in study.values for k in ("tracking", "evaluation", "holistic")):
            pair = np.stack(
                [np.nanmean(turn_level(study)[models], axis=1), np.nanmean(study.values["holistic"][models], axis=1)],
                axis=-1,
            )
            if len(models) >= 2 and np.isfinite(pair).all() and (np.ptp(pair, axis=0) > 0).all():
                value = float(tau_b_matrix(pair)[0, 1])
        if np.isfinite(value):
            out[c["id"]] = value
    return out


def hardest_gaps(study, claims: list[dict[str, Any]]) -> dict[str, float]:
    """Per topic_hardest claim, how far its category is from being the hardest on a noise-free
    ``study``: the category's mean of the models' conversation means minus the worst mean of the
    other categories (the lowest when higher is better, else the highest), so that the gap has
    the sign of the claim's contrast when the category is the hardest (negative when higher is
    better). With the contrast's sign it is the claim's truth: "the hardest topic" needs both.
    A claim whose metric the study lacks, or whose category or complement has no value, is
    left out."""
    models = study.with_role("model")
    out: dict[str, float] = {}
    for c in claims:
        params = c.get("params", {})
        if c["test"] != "topic_hardest" or params.get("metric") not in study.values:
            continue
        conv = conversation_means(study, params["metric"], models)
        categories = sorted({x for x in study.category if isinstance(x, str)})
        means = _weighted_group_means(conv, study.category, categories, np.ones((1, len(conv))))[0]
        by = dict(zip(categories, means))
        others = np.array([v for k, v in by.items() if k != params["category"] and np.isfinite(v)])
        own = by.get(params["category"], np.nan)
        if not np.isfinite(own) or not len(others):
            continue
        worst = others.min() if BY_NAME[params["metric"]].higher_is_better else others.max()
        out[c["id"]] = float(own - worst)
    return out


def estimands(g: Generator, claims: list[dict[str, Any]], design: tuple) -> dict[str, float]:
    """Per claim with a signed estimate and an interval (INTERVAL_TESTS), the value its estimate
    targets under ``g``: study_estimands on the noise-free study of the design (for the
    diagnosis effect, the planted effect on the metric's capability, up to rounding). A
    discriminability difference has none here: its interval resamples the conversations of the
    study's own models, so its target depends on each study's drawn abilities (the generator
    gives every capability the same spread, so the claim is false at the level of the design,
    which its false-positive rate measures)."""
    batch = draw(noise_free(g), [np.random.default_rng(0)], design=design)
    targets = study_estimands(to_study(batch, 0), [c for c in claims if c["test"] in INTERVAL_TESTS])
    return targets


def simulate_verdicts(
    g: Generator,
    claims: list[dict[str, Any]],
    rngs,
    rank_rngs,
    weights: np.ndarray,
    alpha: float,
    design: tuple | None = None,
    chunk: int = 25,
) -> pd.DataFrame:
    """Every simulated study through every claim's rule: one row per study and claim (study,
    id, estimate, lo, hi, p_adjusted, verdict), ``chunk`` studies drawn at a time."""
    columns = ["study", "id", "estimate", "lo", "hi", "p_adjusted", "verdict"]
    if not claims:
        return pd.DataFrame(columns=columns)
    design = design if design is not None else _design(g, np.random.default_rng(0))
    # One table of every study's rows: a table per study, then concatenated, gives the same
    # frame (tests/stats/test_operating.py) and took about 1 s of the 9 s of the default run's
    # operating curves.
    rows: list[dict[str, Any]] = []
    for start in range(0, len(rngs), chunk):
        part, rparts = rngs[start : start + chunk], rank_rngs[start : start + chunk]
        batch = draw(g, part, design=design)
        for k, results in enumerate(study_results(batch, claims, weights, alpha, part, rparts)):
            rows.extend(
                {"study": start + k, **{c: r[c] for c in columns[1:]}} for r in verdict_rows(claims, results, alpha)
            )
    return pd.DataFrame(rows, columns=columns)


def _rate(hits: int, n: int) -> tuple[float, float, float]:
    if n == 0:
        return (np.nan, np.nan, np.nan)
    ci = coverage_test(hits, n)
    return (hits / n, ci["coverage_lo"], ci["coverage_hi"])


def operating_table(
    claims: list[dict[str, Any]],
    null: pd.DataFrame,
    planted: pd.DataFrame,
    margin: pd.DataFrame | None,
    truth: dict[str, float],
    planted_sign: dict[str, int],
    skipped: dict[str, str],
    alpha: float = 0.05,
    family_left_out: dict[str, list[str]] | None = None,
) -> pd.DataFrame:
    """One row per claim: power, false-positive rate (each with its Clopper-Pearson interval),
    coverage with its interval and the one-sided binomial p-values against 0.95 below and above
    (``simulation.coverage_test`` at ``alpha``, the claims' level), sign recovery; a claim in
    ``skipped`` has its reason and no number. ``planted_sign``: per claim, +1 when the planted
    cohort makes its prediction true, 0 when the generator plants nothing for it.
    ``family_left_out``: per simulated claim, the ids :func:`family_left_out` gives (column
    ``family_left_out``, '; '-joined; empty when none or not given)."""
    rows = []
    for c in claims:
        cid = c["id"]
        row: dict[str, Any] = {
            "id": cid,
            "family": c["family"],
            "test": c["test"],
            "simulated": cid not in skipped,
            "note": ("not simulated: " + skipped[cid]) if cid in skipped else "",
            "family_left_out": "; ".join((family_left_out or {}).get(cid, [])),
        }
        if cid in skipped:
            rows.append(row)
            continue
        pl, nu = planted[planted["id"] == cid], null[null["id"] == cid]
        if c["test"] == "rank_independence":
            # Independent abilities in both cohorts: the claim is true there; false at its margin.
            true_rows = pd.concat([nu, pl])
            false_rows = margin[margin["id"] == cid] if margin is not None else nu.iloc[:0]
            dropped = dropped_metrics(c)
            if dropped:
                row["note"] = f"metric {', '.join(dropped)} not simulated: its pairs are left out"
        else:
            true_rows = pl if planted_sign.get(cid, 0) > 0 else pl.iloc[:0]
            false_rows = nu
            if planted_sign.get(cid, 0) <= 0:
                row["note"] = "power not simulated: " + NO_POWER.get(c["test"], NO_POWER[""])
        row["n_true"], row["n_false"] = len(true_rows), len(false_rows)
        row["power"], row["power_lo"], row["power_hi"] = _rate(
            int((true_rows["verdict"] == "supported").sum()), len(true_rows)
        )
        row["fpr"], row["fpr_lo"], row["fpr_hi"] = _rate(
            int((false_rows["verdict"] == "supported").sum()), len(false_rows)
        )
        if cid in truth and len(pl):
            t = truth[cid]
            ok = pl["lo"].notna() & pl["hi"].notna()
            covered = int(((pl["lo"] <= t) & (t <= pl["hi"]))[ok].sum())
            test = coverage_test(covered, int(ok.sum()), alpha=alpha)
            row.update(estimand=t, coverage=covered / ok.sum() if ok.sum() else np.nan, **test)
            row["sign_recovery"] = float((np.sign(pl["estimate"]) == np.sign(t)).mean()) if t != 0 else np.nan
        rows.append(row)
    columns = [
        "id",
        "family",
        "test",
        "simulated",
        "n_true",
        "n_false",
        "power",
        "power_lo",
        "power_hi",
        "fpr",
        "fpr_lo",
        "fpr_hi",
        "estimand",
        "coverage",
        "coverage_lo",
        "coverage_hi",
        "coverage_p",
        "coverage_p_above",
        "coverage_vs_nominal",
        "sign_recovery",
        "note",
        "family_left_out",
    ]
    return pd.DataFrame(rows).reindex(columns=columns)


def reliability_curve(
    g: Generator, metrics: list[str], conversations: list[int], rngs_for, design_rng_for
) -> pd.DataFrame:
    """Reliability and signal-to-noise ratio (discriminability._reliability_snr, after Heineman
    et al. 2025) of the models' mean of each metric, per number of conversations: the median over
    the simulated studies of a drawn design of that size. ``rngs_for(n)`` gives the studies'
    generators, ``design_rng_for(n)`` the design's. No metric: a table with no row."""
    rows = []
    for n in conversations if metrics else []:
        gn = g.drawn(n_conversations=n)
        batch = draw(gn, rngs_for(n), design_rng=design_rng_for(n))
        for metric in metrics:
            v = batch.values[metric][:, : g.n_models]  # [S, models, conversations]
            means = np.nanmean(v, axis=-1)
            cnt = np.isfinite(v).sum(axis=-1)
            se2 = np.nanvar(v, axis=-1, ddof=1) / cnt
            rel, snr = _reliability_snr(means, se2)
            rows.append(
                {
                    "n_conversations": n,
                    "metric": metric,
                    "n_studies": len(v),
                    "reliability": float(np.median(rel)),
                    "snr": float(np.median(snr)),
                }
            )
    return pd.DataFrame(rows, columns=["n_conversations", "metric", "n_studies", "reliability", "snr"])


__all__ = [
    "NOT_SIMULATED",
    "NO_POWER",
    "simulated_claims",
    "margin_correlation",
    "simulate_verdicts",
    "estimands",
    "study_estimands",
    "hardest_gaps",
    "INTERVAL_TESTS",
    "operating_table",
    "planted_makes_true",
    "reliability_curve",
    "verdict_curve",
    "first_reaching",
    "CURVE_COLUMNS",
    "curve_claim",
    "not_computed_curve",
]


def holm_family(claim: dict[str, Any], kept: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``claim`` and the claims of ``kept`` (the simulated ones) in its multiplicity family that
    have a p-value (``claims.P_VALUE_OF_TEST``), in the order of ``kept``: the family the
    pipeline adjusts the claim in, which :func:`verdict_curve` must simulate with it (a smaller
    Holm family gives a higher power, as Holm never lowers an adjusted p as the family grows;
    Benjamini-Hochberg's adjusted p can move either way)."""
    family = [c for c in kept if c["family"] == claim["family"] and c["test"] in P_VALUE_OF_TEST]
    return family if any(c["id"] == claim["id"] for c in family) else [claim, *family]


def family_left_out(
    claim: dict[str, Any],
    claims: list[dict[str, Any]],
    kept: list[dict[str, Any]],
    unmet: Callable[[dict[str, Any]], list[str]],
) -> list[str]:
    """The ids, in config order, of the claims the pipeline adjusts ``claim`` with that its
    simulated family (:func:`holm_family`) lacks: claims of its multiplicity family with a
    p-value that this cohort can test (``unmet(c)`` empty, testability.unmet_needs) but the
    simulated studies cannot draw (not in ``kept``). Empty when the simulated family is the
    pipeline's, and for a claim without a p-value (nothing adjusts it). Without them a headline
    claim's simulated power can only be too high (Holm never lowers an adjusted p as the family
    grows); an exploratory claim's can be off either way (Benjamini-Hochberg can lower it)."""
    if claim["test"] not in P_VALUE_OF_TEST:
        return []
    kept_ids = {c["id"] for c in kept}
    pipeline = holm_family(claim, claims)  # the family over every claim, not only the simulated
    return [c["id"] for c in pipeline if c["id"] != claim["id"] and c["id"] not in kept_ids and not unmet(c)]


def verdict_curve(
    claims: list[dict[str, Any]], target: str, points: list[tuple[Any, Generator]], rngs_for, weights_for, alpha: float
) -> pd.DataFrame:
    """The share of simulated studies in which claim ``target``'s rule says 'supported' (with its
    Clopper-Pearson interval) and 'not supported', per design point: ``points`` are (value,
    generator) pairs; ``rngs_for(value)`` gives (study generators, model-resampling generators,
    design generator), ``weights_for(value, generator)`` the shared bootstrap weights. ``claims``
    are the target and the claims of its multiplicity family with a p-value, so that the
    family's adjustment is the one the pipeline applies."""
    rows = []
    for value, g in points:
        rngs, rank_rngs, design_rng = rngs_for(value)
        design = _design(g, design_rng)
        table = simulate_verdicts(g, claims, rngs, rank_rngs, weights_for(value, g), alpha, design)
        v = table[table["id"] == target]["verdict"]
        share, lo, hi = _rate(int((v == "supported").sum()), len(v))
        rows.append(
            {
                "value": value,
                "n_studies": len(v),
                "supported": share,
                "supported_lo": lo,
                "supported_hi": hi,
                "not_supported": float((v == "not supported").mean()) if len(v) else np.nan,
                "note": "",
            }
        )
    return pd.DataFrame(rows, columns=CURVE_COLUMNS)


#: The columns of a design curve (verdict_curve), with ``note`` saying why a curve has no numbers.
CURVE_COLUMNS = ["value", "n_studies", "supported", "supported_lo", "supported_hi", "not_supported", "note"]


def not_computed_curve(reason: str) -> pd.DataFrame:
    """A design curve with no simulated number: one row whose values are missing and whose
    ``note`` is ``reason`` (the claim it follows is absent, not simulated or not testable)."""
    row: dict[str, float | str] = {c: np.nan for c in CURVE_COLUMNS}
    row["note"] = reason
    return pd.DataFrame([row], columns=CURVE_COLUMNS)


def curve_claim(
    key: str, claim_id: str | None, claims: list[dict[str, Any]], kept: list[dict[str, Any]], skipped: dict[str, str]
) -> tuple[dict[str, Any] | None, str]:
    """The claim a design curve follows (configuration key ``statistics.operating.<key>``) and,
    when the curve cannot be computed, why: none is named (``claim_id`` None), or the named claim
    is not simulated or not testable in this design (its reason from ``skipped``). A name that
    is not among ``claims`` is a configuration error (ValueError naming the key and the ids)."""
    if claim_id is None:
        return None, f"no claim is named by statistics.operating.{key}"
    ids = [c["id"] for c in claims]
    if claim_id not in ids:
        raise ValueError(
            f"statistics.operating.{key}: no claim {claim_id!r} in statistics.claims "
            f"(ids: {', '.join(ids)}); name one of them, or null for no curve"
        )
    claim = next(c for c in claims if c["id"] == claim_id)
    if claim not in kept:
        return claim, f"claim {claim_id} is not simulated: {skipped.get(claim_id, 'not simulated')}"
    return claim, ""


def first_reaching(curve: pd.DataFrame, column: str, level: float = 0.8) -> Any:
    """The smallest ``value`` of the curve whose ``column`` reaches ``level`` (None: none does)."""
    hit = curve[curve[column] >= level]
    return None if hit.empty else hit["value"].min()

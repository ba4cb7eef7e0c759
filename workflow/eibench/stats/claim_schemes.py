"""Every pre-registered claim under every resampling scheme (issue 15, item 5).

The claims' analyses (rules stats_ranks, stats_discriminability, stats_drift, stats_topics,
stats_profiles and stats_humans) take the shared bootstrap resamples as an argument, drawn by
:func:`eibench.stats.load.resamples` under ``statistics.cluster``. :func:`claim_results` reruns
the parts of them that the claims read, with the resamples of one scheme; :func:`claims_by_scheme`
applies the claims' own verdict rules (:func:`eibench.stats.claims.verdicts`, with Holm and
Benjamini-Hochberg within each family of that scheme) to each scheme's results. Under the scheme
of ``statistics.cluster`` the rows are those of rule stats_claims (results/stats/claims.csv).

Not every claim has a resampling interval (:data:`INTERVAL`): the diagnosis claims' estimate and
interval come from a mixed model and their p-value from permuting the participants' labels, so
they are the same under every scheme; the claims about "most" of a set (rank independence,
humans against models) have an estimate without an interval (a median over metric pairs, a
share of the models), though their verdict reads p-values that each scheme resamples.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..metrics.registry import BY_NAME
from .claims import verdicts
from .discriminability import compare, discriminability
from .drift import turn_drift
from .humans import human_vs_models
from .load import available
from .profiles import profiles
from .ranks import rank_independence
from .study import Study
from .topics import topic_effects

#: Per test: what its interval is, as the paper prints it: "resampled" (a percentile interval of
#: the scheme's resamples), or what the claim has instead. The verdicts of the two "none" tests
#: still read resampled p-values (the metric pairs' equivalence p, the models' paired p); the
#: mixed model's interval and the permutation p are the same under every scheme.
INTERVAL = {
    "rank_independence": "none: median over metric pairs",
    "discriminability_difference": "resampled",
    "diagnosis_effect": "mixed model, not resampled",
    "turn_drift": "resampled",
    "turn_flat": "resampled",
    "topic_hardest": "resampled",
    "profile_flips": "resampled",
    "humans_vs_models": "none: share of the models",
}
RESAMPLED = "resampled"

COLUMNS = ["scheme", "id", "family", "test", "estimate", "lo", "hi", "p_value", "p_adjusted", "verdict", "interval"]


def interval_kind(test: str) -> str:
    """What the interval of a claim of ``test`` is (:data:`INTERVAL`); ValueError for a test
    this module does not know, naming where to add it."""
    if test not in INTERVAL:
        raise ValueError(
            f"claim test {test!r} has no entry in eibench/stats/claim_schemes.py INTERVAL "
            f"(known: {', '.join(sorted(INTERVAL))}); say there whether its interval is resampled"
        )
    return INTERVAL[test]


def claim_results(
    study: Study,
    claims: list[dict[str, Any]],
    stats: dict[str, Any],
    weights: np.ndarray,
    ranks_rng: np.random.Generator,
    diagnosis: pd.DataFrame,
    pair_weights: np.ndarray | None = None,
) -> dict[str, Any]:
    """The results :func:`eibench.stats.claims.verdicts` reads, computed with the resamples
    ``weights`` [n_resamples, n_conversations], for the tests the ``claims`` name only; the
    profile flips' pairwise tests with ``pair_weights`` (more resamples of the same scheme, as
    rule stats_profiles draws them; default ``weights``).

    ``stats``: the config's ``statistics`` section (``principal_metrics``,
    ``independence_margin``, ``split_halves``, ``alpha``); ``ranks_rng``: the generator of rule
    stats_ranks (``rng_for(seed, "ranks")``, fresh for each scheme, so every scheme draws the
    same models); ``diagnosis``: rule stats_subgroups' table (not resampled). A test whose data
    the cohort lacks gets an empty result, as the analyses' rules write it; the claims' own
    testability check (``design``) then names the reason."""
    tests = {c["test"] for c in claims}
    models = study.with_role("model")
    alpha = stats["alpha"]
    out: dict[str, Any] = {
        "rank_pairs": pd.DataFrame(columns=["metric_a", "metric_b"]),
        "discriminability_comparisons": {},
        "diagnosis": diagnosis,
        "drift_pages": {},
        "romantic": {},
        "profiles": {},
        "humans": {},
    }
    if "rank_independence" in tests:
        metrics = available(study, stats["principal_metrics"], models)
        out["rank_pairs"], _, _ = rank_independence(
            study, metrics, models, weights, stats["independence_margin"], stats["split_halves"], ranks_rng, alpha
        )
    pairs = sorted(
        {(c["params"]["better"], c["params"]["worse"]) for c in claims if c["test"] == "discriminability_difference"}
    )
    if pairs:
        # The metrics rule stats_discriminability analyses, of those the claims compare (each
        # metric's resampled log F ratio is its own; the pairs of models are not needed).
        wanted = {m for pair in pairs for m in pair}
        metrics = [m for m in available(study, ["composite", *stats["principal_metrics"]], models) if m in wanted]
        table, snr = discriminability(study, metrics, models, weights, alpha, pairs=False)
        point = dict(zip(table["metric"], table["log_f"]))
        out["discriminability_comparisons"] = {
            (a, b): compare(snr, a, b, point) for a, b in pairs if a in snr and b in snr
        }
    for metric in sorted({c["params"]["metric"] for c in claims if c["test"] in ("turn_drift", "turn_flat")}):
        out["drift_pages"][metric] = turn_drift(study, metric, models, weights)[1]
    for metric, category in sorted(
        {(c["params"]["metric"], c["params"]["category"]) for c in claims if c["test"] == "topic_hardest"}
    ):
        if study.defined(metric, models):
            contrast = topic_effects(study, metric, models, weights, category, BY_NAME[metric].higher_is_better)[1]
            out["romantic"][(metric, category)] = contrast
    if "profile_flips" in tests:
        out["profiles"] = profiles(study, models, weights, alpha, pair_weights=pair_weights)[1]
    humans = study.with_role("human")
    if humans:
        for metric in sorted({c["params"]["metric"] for c in claims if c["test"] == "humans_vs_models"}):
            table = human_vs_models(study, metric, humans, models, weights, alpha)
            if len(table):  # as rule stats_claims groups rule stats_humans' rows by metric
                out["humans"][metric] = table
    return out


def claims_by_scheme(
    study: Study,
    claims: list[dict[str, Any]],
    stats: dict[str, Any],
    weights: dict[str, np.ndarray],
    ranks_rng: Any,
    diagnosis: pd.DataFrame,
    design: dict[str, Any],
    pair_weights: dict[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    """One row per scheme of ``weights`` (name -> resamples, in that order) and claim: the
    claim's estimate, interval (NaN where it has none), p-value, family-adjusted p-value and
    verdict under that scheme's resamples, and ``interval``: what its interval is
    (:data:`INTERVAL`). ``ranks_rng``: a callable giving a fresh generator of rule stats_ranks;
    ``design``: rule stats_design's record (a claim the cohort cannot test is 'not testable'
    under every scheme); ``pair_weights``: per scheme, the resamples of the profile flips'
    pairwise tests (:func:`claim_results`)."""
    for c in claims:
        interval_kind(c["test"])
    frames = []
    for scheme, w in weights.items():
        pw = (pair_weights or {}).get(scheme)
        results = claim_results(study, claims, stats, w, ranks_rng(), diagnosis, pair_weights=pw)
        table = verdicts(claims, results, stats["alpha"], design)
        table.insert(0, "scheme", scheme)
        table["interval"] = [interval_kind(t) for t in table["test"]]
        frames.append(table)
    if not frames:
        return pd.DataFrame(columns=COLUMNS + ["detail"])
    return pd.concat(frames, ignore_index=True)[COLUMNS + ["detail"]]

# The statistics: every claim of the paper tested by the right method on the scores of the
# evaluated models (mode and rule set from the config's statistics section). All the analyses
# draw the same cluster-bootstrap resamples.

STATS_INPUT = {
    "conversation_scores": "results/scores/conversation_scores.parquet",
    "turn_scores": "results/scores/turn_scores.parquet",
    "conversations": GOLD["conversations"],
    "participants": GOLD["participants"],
}


rule stats_design:
    """The cohort's design (groups, topics, turns, models, raters, metrics with values)."""
    input:
        **STATS_INPUT,
    output:
        design="results/stats/design.json",
    log:
        "logs/stats/design.log",
    benchmark:
        "logs/benchmarks/stats_design.tsv"
    # Short, but stats_operating_curves, one of the run's longest jobs, waits for it: as early as that one.
    priority: 3
    threads: 1
    resources:
        **measured("stats_design"),
    params:
        **stats_params(),
    script:
        "../scripts/stats_design.py"


rule stats_uncertainty:
    """Bootstrap intervals of every model x metric, paired differences, rank intervals."""
    input:
        **STATS_INPUT,
    output:
        intervals="results/stats/uncertainty/intervals.csv",
        paired="results/stats/uncertainty/paired_differences.csv",
        ranks="results/stats/uncertainty/rank_intervals.csv",
    log:
        "logs/stats/uncertainty.log",
    benchmark:
        "logs/benchmarks/stats_uncertainty.tsv"
    threads: 1
    resources:
        **measured("stats_uncertainty"),
    params:
        **stats_params(*RESAMPLING, "principal_metrics"),
    script:
        "../scripts/stats_uncertainty.py"


rule stats_ranks:
    """Rank independence: Kendall tau-b between the metrics' model rankings, W, reliability."""
    input:
        **STATS_INPUT,
    output:
        pairs="results/stats/ranks/rank_correlations.csv",
        reliability="results/stats/ranks/split_half_reliability.csv",
        summary="results/stats/ranks/summary.json",
    log:
        "logs/stats/ranks.log",
    benchmark:
        "logs/benchmarks/stats_ranks.tsv"
    threads: 1
    resources:
        **measured("stats_ranks"),
    params:
        **stats_params(*RESAMPLING, "alpha", "independence_margin", "principal_metrics", "split_halves"),
    script:
        "../scripts/stats_ranks.py"


rule stats_discriminability:
    """How well each metric separates the models, and the differences the claims compare."""
    input:
        **STATS_INPUT,
    output:
        table="results/stats/discriminability/discriminability.csv",
        comparisons="results/stats/discriminability/comparisons.csv",
    log:
        "logs/stats/discriminability.log",
    benchmark:
        "logs/benchmarks/stats_discriminability.tsv"
    threads: 1
    resources:
        **measured("stats_discriminability"),
    params:
        **stats_params(*RESAMPLING, "alpha", "claims", "principal_metrics"),
    script:
        "../scripts/stats_discriminability.py"


rule stats_subgroups:
    """Diagnosis vs none: participant-level permutation tests and mixed models."""
    input:
        **STATS_INPUT,
    output:
        table="results/stats/subgroups/diagnosis.csv",
    log:
        "logs/stats/subgroups.log",
    benchmark:
        "logs/benchmarks/stats_subgroups.tsv"
    threads: 1
    resources:
        **measured("stats_subgroups"),
    params:
        **stats_params("claims"),
    script:
        "../scripts/stats_subgroups.py"


rule stats_topics:
    """Topic effects, P(hardest), and the romantic-vs-rest contrast."""
    input:
        **STATS_INPUT,
    output:
        table="results/stats/topics/topics.csv",
        romantic="results/stats/topics/romantic_contrast.csv",
    log:
        "logs/stats/topics.log",
    benchmark:
        "logs/benchmarks/stats_topics.tsv"
    threads: 1
    resources:
        **measured("stats_topics"),
    params:
        **stats_params(*RESAMPLING, "claims"),
        categories=sorted(
            {c["params"]["category"] for c in config["statistics"]["claims"] if c["test"] == "topic_hardest"}
        ),
    script:
        "../scripts/stats_topics.py"


rule stats_drift:
    """Turn drift: slopes over relative position, early/middle/late contrasts, Page's test."""
    input:
        **STATS_INPUT,
    output:
        table="results/stats/drift/drift.csv",
        page="results/stats/drift/page_trend.csv",
    log:
        "logs/stats/drift.log",
    benchmark:
        "logs/benchmarks/stats_drift.tsv"
    threads: 1
    resources:
        **measured("stats_drift"),
    params:
        **stats_params(*RESAMPLING, "claims"),
    script:
        "../scripts/stats_drift.py"


rule stats_profiles:
    """Turn-level vs whole-conversation rankings and the models whose order flips."""
    input:
        **STATS_INPUT,
    output:
        flips="results/stats/profiles/flips.csv",
        summary="results/stats/profiles/summary.json",
    log:
        "logs/stats/profiles.log",
    benchmark:
        "logs/benchmarks/stats_profiles.tsv"
    threads: 1
    resources:
        **measured("stats_profiles"),
    params:
        **stats_params(*RESAMPLING, "alpha"),
    script:
        "../scripts/stats_profiles.py"


rule stats_humans:
    """The human raters vs the models, agreement among humans, the alternative-annotator test."""
    input:
        **STATS_INPUT,
        **{
            f"{model}/{name}": em_table(model, config["statistics"]["mode"], name)
            for model in MODELS
            for name in EM_TABLES
        },
    output:
        paired="results/stats/humans/humans_vs_models.csv",
        agreement="results/stats/humans/agreement.csv",
        alt_test="results/stats/humans/alt_test.csv",
    log:
        "logs/stats/humans.log",
    benchmark:
        "logs/benchmarks/stats_humans.tsv"
    threads: 1
    resources:
        **measured("stats_humans"),
    params:
        **stats_params(*RESAMPLING, "alpha", "alt_test_epsilon", "claims"),
    script:
        "../scripts/stats_humans.py"


rule stats_claims:
    """The verdict of every pre-registered claim, with multiplicity control per family."""
    input:
        rank_pairs="results/stats/ranks/rank_correlations.csv",
        discriminability_comparisons="results/stats/discriminability/comparisons.csv",
        subgroups="results/stats/subgroups/diagnosis.csv",
        drift_page="results/stats/drift/page_trend.csv",
        romantic="results/stats/topics/romantic_contrast.csv",
        profiles="results/stats/profiles/summary.json",
        humans_paired="results/stats/humans/humans_vs_models.csv",
        design="results/stats/design.json",
    output:
        table=report(
            "results/stats/claims.csv",
            caption="../report/stats_claims.rst",
            category="Claims",  # not "Statistics": the report reserves that name for run times
            subcategory="Verdicts",
            labels={"table": "claims", "rule": "stats_claims"},
        ),
    log:
        "logs/stats/claims.log",
    benchmark:
        "logs/benchmarks/stats_claims.tsv"
    threads: 1
    resources:
        **measured("stats_claims"),
    params:
        **stats_params("alpha", "claims", "n_bootstrap"),
    script:
        "../scripts/stats_claims.py"


SIM_PARTS = range(config["statistics"]["simulation"]["jobs"])


rule stats_simulate:
    """One part of the validation by simulation: simulated studies with this study's design
    through every test."""
    input:
        design="results/stats/design.json",
    output:
        results="results/stats/simulation/{kind}-{part}.parquet",
    log:
        "logs/stats/simulate-{kind}-{part}.log",
    benchmark:
        "logs/benchmarks/stats_simulate/{kind}/{part}.tsv"
    wildcard_constraints:
        kind="null|planted",
        part=r"\d+",
    threads: 1
    resources:
        **measured("stats_simulate"),
    params:
        # the claims: each simulated test validates the cohort's claims of its kind
        **stats_params("alpha", "claims", "simulation"),
        kind=lambda wc: wc.kind,
        part=lambda wc: int(wc.part),
    script:
        "../scripts/stats_simulate.py"


rule stats_simulation_summary:
    """False-positive rates under the null; sign recovery and coverage of planted effects."""
    input:
        null=expand("results/stats/simulation/null-{part}.parquet", part=SIM_PARTS),
        planted=expand("results/stats/simulation/planted-{part}.parquet", part=SIM_PARTS),
        design="results/stats/design.json",
    output:
        null="results/stats/simulation/null_rates.csv",
        planted="results/stats/simulation/planted_recovery.csv",
    log:
        "logs/stats/simulation_summary.log",
    benchmark:
        "logs/benchmarks/stats_simulation_summary.tsv"
    threads: 1
    resources:
        **measured("stats_simulation_summary"),
    params:
        **stats_params("alpha", "claims", "simulation"),
    script:
        "../scripts/stats_simulation_summary.py"

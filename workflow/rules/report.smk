# Figures, tables and the numbers file that the manuscript reads.


rule figure_leaderboard:
    """Forest plot of the composite per model."""
    input:
        leaderboard="results/scores/leaderboard.csv",
    output:
        figure="results/figures/leaderboard.svg",
    params:
        mode=MODES[0],
    log:
        "logs/report/figure_leaderboard.log",
    script:
        "../scripts/figure_leaderboard.py"



rule figure_rank_correlations:
    """Heatmap of Kendall tau-b between the model rankings of each pair of principal metrics."""
    input:
        pairs="results/stats/ranks/rank_correlations.csv",
    output:
        figure="results/figures/rank_correlations.svg",
    log:
        "logs/report/figure_rank_correlations.log",
    script:
        "../scripts/figure_rank_correlations.py"


rule figure_profiles:
    """Capability profiles: each model's principal metrics with 95% intervals."""
    input:
        intervals="results/stats/uncertainty/intervals.csv",
    output:
        figure="results/figures/profiles.svg",
    params:
        metrics=list(config["statistics"]["principal_metrics"]),
    log:
        "logs/report/figure_profiles.log",
    script:
        "../scripts/figure_profiles.py"


rule figure_discriminability:
    """Reliability, signal-to-noise ratio and share of model pairs separated, per metric."""
    input:
        discriminability="results/stats/discriminability/discriminability.csv",
    output:
        figure="results/figures/discriminability.svg",
    log:
        "logs/report/figure_discriminability.log",
    script:
        "../scripts/figure_discriminability.py"


rule figure_subgroups:
    """Adjusted diagnosis effects per metric; the composite per topic."""
    input:
        diagnosis="results/stats/subgroups/diagnosis.csv",
        topics="results/stats/topics/topics.csv",
    output:
        figure="results/figures/subgroups.svg",
    params:
        topic_metric="composite",
    log:
        "logs/report/figure_subgroups.log",
    script:
        "../scripts/figure_subgroups.py"


rule figure_drift:
    """Within-conversation slope of each metric per model, with 95% intervals."""
    input:
        drift="results/stats/drift/drift.csv",
    output:
        figure="results/figures/drift.svg",
    log:
        "logs/report/figure_drift.log",
    script:
        "../scripts/figure_drift.py"


rule figure_humans:
    """Human raters minus each model per metric, with 95% intervals and verdicts."""
    input:
        humans="results/stats/humans/humans_vs_models.csv",
    output:
        figure="results/figures/humans.svg",
    log:
        "logs/report/figure_humans.log",
    script:
        "../scripts/figure_humans.py"


rule figure_simulation:
    """False-positive rates under the null against their binomial band; coverage of planted effects."""
    input:
        null_rates="results/stats/simulation/null_rates.csv",
        planted="results/stats/simulation/planted_recovery.csv",
    output:
        figure="results/figures/simulation.svg",
    params:
        nominal_coverage=0.95,  # the level of every interval (fixed in the code, docs/statistics.md)
        coverage_bar=0.90,  # the acceptance bar drawn for the coverage of the planted effects
    log:
        "logs/report/figure_simulation.log",
    script:
        "../scripts/figure_simulation.py"


rule figure_rank_intervals:
    """Ranking diagram: each model's rank on the composite with its 95% bootstrap interval."""
    input:
        rank_intervals="results/stats/uncertainty/rank_intervals.csv",
    output:
        figure="results/figures/rank_intervals.svg",
    params:
        metric="composite",
    log:
        "logs/report/figure_rank_intervals.log",
    script:
        "../scripts/figure_rank_intervals.py"


STATS_FOR_PAPER = {
    "claims": "results/stats/claims.csv",
    "rank_summary": "results/stats/ranks/summary.json",
    "rank_pairs": "results/stats/ranks/rank_correlations.csv",
    "discriminability": "results/stats/discriminability/discriminability.csv",
    "comparisons": "results/stats/discriminability/comparisons.csv",
    "diagnosis": "results/stats/subgroups/diagnosis.csv",
    "romantic": "results/stats/topics/romantic_contrast.csv",
    "page": "results/stats/drift/page_trend.csv",
    "humans_paired": "results/stats/humans/humans_vs_models.csv",
    "agreement": "results/stats/humans/agreement.csv",
    "alt_test": "results/stats/humans/alt_test.csv",
    "profiles": "results/stats/profiles/summary.json",
    "null_rates": "results/stats/simulation/null_rates.csv",
    "planted": "results/stats/simulation/planted_recovery.csv",
    "rank_intervals": "results/stats/uncertainty/rank_intervals.csv",
}


rule paper_numbers:
    """Every number the manuscript prints (numbers.json) and its display tables."""
    input:
        leaderboard="results/scores/leaderboard.csv",
        rule_counts="results/scores/rule_counts.csv",
        invalid="results/scores/invalid_answers.csv",
        conversations=GOLD["conversations"],
        turns=GOLD["turns"],
        participants=GOLD["participants"],
        **STATS_FOR_PAPER,
    output:
        numbers="results/paper/numbers.json",
        claims_table="results/paper/tables/claims.csv",
        discriminability_table="results/paper/tables/discriminability.csv",
        null_rates_table="results/paper/tables/simulation_null.csv",
        planted_table="results/paper/tables/simulation_planted.csv",
        leaderboard_table="results/paper/tables/leaderboard.csv",
        rules_table="results/paper/tables/parity_rules.csv",
        invalid_table="results/paper/tables/invalid_answers.csv",
    params:
        cohort=config["cohort"],
        mode=MODES[0],
        config_digest=CONFIG_DIGEST,
    log:
        "logs/report/paper_numbers.log",
    script:
        "../scripts/paper_numbers.py"

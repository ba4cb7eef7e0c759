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

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


rule paper_numbers:
    """Every number the manuscript prints (numbers.json) and its display tables."""
    input:
        leaderboard="results/scores/leaderboard.csv",
        rule_counts="results/scores/rule_counts.csv",
        invalid="results/scores/invalid_answers.csv",
        conversations=GOLD["conversations"],
        turns=GOLD["turns"],
        participants=GOLD["participants"],
    output:
        numbers="results/paper/numbers.json",
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

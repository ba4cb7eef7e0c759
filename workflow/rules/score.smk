# Scoring: each model's EM output files validated into tidy tables, then every metric of
# every model and mode, under the parity and strict rule sets.


rule score_model:
    """Validate one model's EM output files for one mode into tidy tables (an invalid file
    stops the job before anything is written), then score them: per-turn and per-conversation
    tables, summary, rule counts. One job, so the files are read once."""
    input:
        **{f"gold_{name}": path for name, path in GOLD.items()},
        predictions=prediction_input,
    output:
        **{f"em_{name}": em_table("{model}", "{mode}", name) for name in EM_TABLES},
        **{part: f"results/scores/{{model}}/{{mode}}/{part}.parquet" for part in SCORE_PARTS},
    log:
        "logs/score/{model}/{mode}/score_model.log",
    benchmark:
        "logs/benchmarks/score_model/{model}/{mode}.tsv"
    threads: 1
    resources:
        **measured("score_model"),
    params:
        **({"listing": prediction_listing} if OUTPUT_LISTINGS else {}),
        model=lambda wc: wc.model,
        mode=lambda wc: wc.mode,
        va_matching=config["scoring"]["va_matching"],
        compat=config["scoring"]["compat"],
        report_all=config["ingest"]["report_all_errors"],
    script:
        "../scripts/score_model.py"


rule aggregate_scores:
    """Gather every model's scores; write the leaderboard and the data dictionary."""
    input:
        summary=scores_of("summary"),
        conversation=scores_of("conversation"),
        turn=scores_of("turn"),
        rule_counts=scores_of("rule_counts"),
        invalid=scores_of("invalid"),
    output:
        summary="results/scores/model_summary.parquet",
        conversation="results/scores/conversation_scores.parquet",
        turn="results/scores/turn_scores.parquet",
        rule_counts="results/scores/rule_counts.csv",
        invalid="results/scores/invalid_answers.csv",
        dictionary="results/scores/data_dictionary.csv",
        leaderboard="results/scores/leaderboard.csv",
    log:
        "logs/score/aggregate_scores.log",
    benchmark:
        "logs/benchmarks/aggregate_scores.tsv"
    threads: 1
    resources:
        **measured("aggregate_scores"),
    params:
        roles=model_roles(),
        ranked_roles=ANALYSED_ROLES,
        # the data dictionary's principal flags and the leaderboard's principal columns
        principal=list(config["statistics"]["principal_metrics"]),
        # the mode of the statistics: the data dictionary counts the conversations each metric
        # has a value in under it (and the strict rules, which fill no gap with a default)
        stats_mode=config["statistics"]["mode"],
    script:
        "../scripts/aggregate_scores.py"

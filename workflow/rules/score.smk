# Scoring: every metric of every model and mode, under the parity and strict rule sets.

rule score_model:
    """Score one model and mode: per-turn and per-conversation tables, summary, rule counts."""
    input:
        **{f"gold_{name}": path for name, path in GOLD.items()},
        **{f"em_{name}": em_table("{model}", "{mode}", name) for name in EM_TABLES},
    output:
        **{part: f"results/scores/{{model}}/{{mode}}/{part}.parquet" for part in SCORE_PARTS},
    params:
        model=lambda wc: wc.model,
        mode=lambda wc: wc.mode,
        va_matching=config["scoring"]["va_matching"],
    log:
        "logs/score/{model}/{mode}/score_model.log",
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
    params:
        roles=model_roles(),
    log:
        "logs/score/aggregate_scores.log",
    script:
        "../scripts/aggregate_scores.py"

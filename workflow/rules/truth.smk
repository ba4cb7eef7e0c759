# The null cohort of the truth section (paper/sections/truth.typ): the synthetic cohort's
# conversations with predictions drawn with every planted effect zero (eibench.synthetic.null),
# run through the same rules as the planted cohort (predictions -> scores -> statistics ->
# claims) under results/null/. Only the simulated models and raters are drawn again: the gold
# tables and the offline baselines' predictions do not depend on the planted effects, so the
# null cohort reads the planted cohort's files for them (the same bytes a second run would write).
# Built only for the synthetic cohort with simulated models.

from eibench.report.preregistration import preregistration_state, repo_config_files
from eibench.synthetic.null import null_simulation

# The pre-registration (eibench.report.preregistration): the frozen file's sha256, its freezing
# commit and the history of rule changes from git, and how the claims of this run differ from
# it; read at parse time like the reproducibility statement (common.smk), a param of paper_numbers.
try:
    PREREGISTRATION = preregistration_state(
        REPO, config["statistics"], repo_config_files(REPO, map(str, workflow.configfiles))
    )
except ValueError as _err:
    raise WorkflowError(str(_err)) from None

NULL_COHORT = config["cohort"] == "synthetic" and bool(SIMULATED)
NULL = "results/null"


# A simulated model's file in the null cohort (results/x -> results/null/x); any other model's
# in the planted cohort. (Lambdas: the linter wants functions in common.smk.)
null_or_planted = lambda model, path: f"{NULL}/{path.removeprefix('results/')}" if model in SIMULATED else path
null_scores_of = lambda part: [
    null_or_planted(m, f"results/scores/{m}/{mode}/{part}.parquet") for m in MODELS for mode in MODES
]


# What rule paper_numbers reads for the truth section (report.smk): the two cohorts' claims and
# the simulator's settings of each; nothing on another cohort.
TRUTH_FOR_PAPER = (
    {
        "null_claims": f"{NULL}/stats/claims.csv",
        "truth_models": "results/truth/expected_metrics.csv",
        "truth_estimands": "results/truth/estimands.csv",
    }
    if NULL_COHORT
    else {}
)
TRUTH_PARAMS = (
    {"truth_simulation": {"planted": config["simulation"], "null": null_simulation(config["simulation"])}}
    if NULL_COHORT
    else {}
)
# The printed truth tables: outputs of rule paper_numbers (in the audit report), inputs of rule
# paper (plain paths: a report() flag on an input would file the table under rule paper).
TRUTH_TABLES = (
    {
        "truth_table": "truth",
        "truth_detail_table": "truth_detail",
        "truth_metrics_table": "truth_metrics",
        "truth_models_table": "truth_models",
    }
    if NULL_COHORT
    else {}
)
TRUTH_OUTPUTS = {key: paper_table(name, "paper_numbers", "Validation") for key, name in TRUTH_TABLES.items()}
TRUTH_INPUTS = {key: f"results/paper/tables/{name}.csv" for key, name in TRUTH_TABLES.items()}

NULL_STATS_INPUT = {
    "conversation_scores": f"{NULL}/scores/conversation_scores.parquet",
    "turn_scores": f"{NULL}/scores/turn_scores.parquet",
    "conversations": GOLD["conversations"],
    "participants": GOLD["participants"],
}


if NULL_COHORT:

    rule truth_curves:
        """The expected value of each non-binary metric against the logit of its capability,
        per conversation and turn, by seeded Monte Carlo with the pipeline's scorer
        (eibench.synthetic.expected_mc); the simulated models' expectations are read from it."""
        input:
            **GOLD,
        output:
            curves="results/truth/curves.parquet",
        log:
            "logs/truth/truth_curves.log",
        benchmark:
            "logs/benchmarks/truth_curves.tsv"
        # One of the run's longest jobs: started first once its inputs exist, so that on a few
        # cores the short jobs fill in around it instead of delaying it to the end.
        priority: 2
        threads: 1
        resources:
            **measured("truth_curves"),
        params:
            truth=config["truth"],
            simulation=config["simulation"],
            seed=config["seed"],
            mode=config["statistics"]["mode"],
            romantic_category=config["cohorts"]["synthetic"]["romantic_category"],
            scoring=config["scoring"],
        script:
            "../scripts/truth_curves.py"

    rule truth_models:
        """Each simulated model's expected metrics from its abilities (exact binary accuracies,
        Monte-Carlo curves for the others) beside its estimate and 95% interval, and each claim's
        estimand on its own scale in the planted and the null cohort (eibench.synthetic.estimands)."""
        input:
            **GOLD,
            truth=[f"results/truth/models/{m}/{config['statistics']['mode']}.json" for m in SIMULATED],
            null_truth=[f"{NULL}/truth/models/{m}/{config['statistics']['mode']}.json" for m in SIMULATED],
            curves="results/truth/curves.parquet",
            intervals="results/stats/uncertainty/intervals.csv",
        output:
            table="results/truth/expected_metrics.csv",
            estimands="results/truth/estimands.csv",
        log:
            "logs/truth/truth_models.log",
        benchmark:
            "logs/benchmarks/truth_models.tsv"
        # One of the run's longest jobs: started first once its inputs exist, so that on a few
        # cores the short jobs fill in around it instead of delaying it to the end.
        priority: 1
        threads: 1
        resources:
            **measured("truth_models"),
        params:
            models=SIMULATED,
            profiles={m: MODELS[m].get("profile", "model") for m in SIMULATED},
            mode=config["statistics"]["mode"],
            simulation=config["simulation"],
            null_simulation=null_simulation(config["simulation"]),
            claims=config["statistics"]["claims"],
            seed=config["seed"],
            romantic_category=config["cohorts"]["synthetic"]["romantic_category"],
        script:
            "../scripts/truth_models.py"

    use rule predict_simulated as null_predict_simulated with:
        output:
            predictions=[directory(f"{NULL}/predictions/{m}/{{mode}}/shard-0") for m in SIMULATED],
            truth=[f"{NULL}/truth/models/{m}/{{mode}}.json" for m in SIMULATED],
        log:
            "logs/null/predict/{mode}/predict_simulated.log",
        benchmark:
            "logs/benchmarks/null/predict_simulated/{mode}.tsv"
        params:
            profiles={m: MODELS[m].get("profile", "model") for m in SIMULATED},
            mode=lambda wc: wc.mode,
            simulation=null_simulation(config["simulation"]),
            seed=config["seed"],
            romantic_category=config["cohorts"]["synthetic"]["romantic_category"],

    use rule score_model as null_score_model with:
        input:
            **{f"gold_{name}": path for name, path in GOLD.items()},
            predictions=f"{NULL}/predictions/{{model}}/{{mode}}/shard-0",
        output:
            **{
                f"em_{name}": f"{NULL}/{em_table('{model}', '{mode}', name).removeprefix('results/')}"
                for name in EM_TABLES
            },
            **{part: f"{NULL}/scores/{{model}}/{{mode}}/{part}.parquet" for part in SCORE_PARTS},
        log:
            "logs/null/score/{model}/{mode}/score_model.log",
        benchmark:
            "logs/benchmarks/null/score_model/{model}/{mode}.tsv"
        wildcard_constraints:
            model=one_of(SIMULATED),

    use rule aggregate_scores as null_aggregate_scores with:
        input:
            **{part: null_scores_of(part) for part in ("summary", "conversation", "turn", "rule_counts", "invalid")},
        output:
            **{
                key: f"{NULL}/scores/{name}"
                for key, name in (
                    ("summary", "model_summary.parquet"),
                    ("conversation", "conversation_scores.parquet"),
                    ("turn", "turn_scores.parquet"),
                    ("rule_counts", "rule_counts.csv"),
                    ("invalid", "invalid_answers.csv"),
                    ("dictionary", "data_dictionary.csv"),
                    ("leaderboard", "leaderboard.csv"),
                )
            },
        log:
            "logs/null/score/aggregate_scores.log",
        benchmark:
            "logs/benchmarks/null/aggregate_scores.tsv"

    # The statistics the claims read, each rule with the null cohort's scores.
    use rule stats_design as null_stats_design with:
        input:
            **NULL_STATS_INPUT,
        output:
            design=f"{NULL}/stats/design.json",
        log:
            "logs/null/stats/design.log",
        benchmark:
            "logs/benchmarks/null/stats_design.tsv"

    use rule stats_ranks as null_stats_ranks with:
        input:
            **NULL_STATS_INPUT,
        output:
            pairs=f"{NULL}/stats/ranks/rank_correlations.csv",
            reliability=f"{NULL}/stats/ranks/split_half_reliability.csv",
            summary=f"{NULL}/stats/ranks/summary.json",
        log:
            "logs/null/stats/ranks.log",
        benchmark:
            "logs/benchmarks/null/stats_ranks.tsv"

    use rule stats_discriminability as null_stats_discriminability with:
        input:
            **NULL_STATS_INPUT,
        output:
            table=f"{NULL}/stats/discriminability/discriminability.csv",
            comparisons=f"{NULL}/stats/discriminability/comparisons.csv",
        log:
            "logs/null/stats/discriminability.log",
        benchmark:
            "logs/benchmarks/null/stats_discriminability.tsv"

    use rule stats_subgroups as null_stats_subgroups with:
        input:
            **NULL_STATS_INPUT,
        output:
            table=f"{NULL}/stats/subgroups/diagnosis.csv",
        log:
            "logs/null/stats/subgroups.log",
        benchmark:
            "logs/benchmarks/null/stats_subgroups.tsv"

    use rule stats_topics as null_stats_topics with:
        input:
            **NULL_STATS_INPUT,
        output:
            table=f"{NULL}/stats/topics/topics.csv",
            romantic=f"{NULL}/stats/topics/romantic_contrast.csv",
        log:
            "logs/null/stats/topics.log",
        benchmark:
            "logs/benchmarks/null/stats_topics.tsv"

    use rule stats_drift as null_stats_drift with:
        input:
            **NULL_STATS_INPUT,
        output:
            table=f"{NULL}/stats/drift/drift.csv",
            page=f"{NULL}/stats/drift/page_trend.csv",
        log:
            "logs/null/stats/drift.log",
        benchmark:
            "logs/benchmarks/null/stats_drift.tsv"

    use rule stats_profiles as null_stats_profiles with:
        input:
            **NULL_STATS_INPUT,
        output:
            flips=f"{NULL}/stats/profiles/flips.csv",
            summary=f"{NULL}/stats/profiles/summary.json",
        log:
            "logs/null/stats/profiles.log",
        benchmark:
            "logs/benchmarks/null/stats_profiles.tsv"

    use rule stats_humans as null_stats_humans with:
        input:
            **NULL_STATS_INPUT,
            **{
                f"{model}/{name}": null_or_planted(model, em_table(model, config["statistics"]["mode"], name))
                for model in MODELS
                for name in EM_TABLES
            },
        output:
            paired=f"{NULL}/stats/humans/humans_vs_models.csv",
            agreement=f"{NULL}/stats/humans/agreement.csv",
            alt_test=f"{NULL}/stats/humans/alt_test.csv",
        log:
            "logs/null/stats/humans.log",
        benchmark:
            "logs/benchmarks/null/stats_humans.tsv"

    use rule stats_claims as null_stats_claims with:
        input:
            rank_pairs=f"{NULL}/stats/ranks/rank_correlations.csv",
            discriminability_comparisons=f"{NULL}/stats/discriminability/comparisons.csv",
            subgroups=f"{NULL}/stats/subgroups/diagnosis.csv",
            drift_page=f"{NULL}/stats/drift/page_trend.csv",
            romantic=f"{NULL}/stats/topics/romantic_contrast.csv",
            profiles=f"{NULL}/stats/profiles/summary.json",
            humans_paired=f"{NULL}/stats/humans/humans_vs_models.csv",
            design=f"{NULL}/stats/design.json",
        output:
            table=f"{NULL}/stats/claims.csv",
        log:
            "logs/null/stats/claims.log",
        benchmark:
            "logs/benchmarks/null/stats_claims.tsv"

# Figures, tables and the numbers file that the manuscript reads.


rule figure_leaderboard:
    """Forest plot of the composite per model."""
    input:
        leaderboard="results/scores/leaderboard.csv",
    output:
        figure=report(
            "results/figures/leaderboard.svg",
            caption="../report/figure_leaderboard.rst",
            category="Figures",
            subcategory="Models",
            labels={"figure": "leaderboard", "rule": "figure_leaderboard"},
        ),
    log:
        "logs/report/figure_leaderboard.log",
    benchmark:
        "logs/benchmarks/figure_leaderboard.tsv"
    threads: 1
    resources:
        **measured("figure_leaderboard"),
    params:
        mode=MODES[0],
    script:
        "../scripts/figure_leaderboard.py"


rule figure_rank_correlations:
    """Heatmap of Kendall tau-b between the model rankings of each pair of principal metrics."""
    input:
        pairs="results/stats/ranks/rank_correlations.csv",
    output:
        figure=report(
            "results/figures/rank_correlations.svg",
            caption="../report/figure_rank_correlations.rst",
            category="Figures",
            subcategory="Metrics",
            labels={"figure": "rank_correlations", "rule": "figure_rank_correlations"},
        ),
    log:
        "logs/report/figure_rank_correlations.log",
    benchmark:
        "logs/benchmarks/figure_rank_correlations.tsv"
    threads: 1
    resources:
        **measured("figure_rank_correlations"),
    script:
        "../scripts/figure_rank_correlations.py"


rule figure_profiles:
    """Capability profiles: each model's principal metrics with 95% intervals."""
    input:
        intervals="results/stats/uncertainty/intervals.csv",
    output:
        figure=report(
            "results/figures/profiles.svg",
            caption="../report/figure_profiles.rst",
            category="Figures",
            subcategory="Models",
            labels={"figure": "profiles", "rule": "figure_profiles"},
        ),
    log:
        "logs/report/figure_profiles.log",
    benchmark:
        "logs/benchmarks/figure_profiles.tsv"
    threads: 1
    resources:
        **measured("figure_profiles"),
    params:
        metrics=list(config["statistics"]["principal_metrics"]),
        # what each model is (common.smk): a baseline the analyses compare as a model
        # (statistics.baselines_as_models) is still drawn and named a baseline, as in the leaderboard
        roles=model_roles(),
    script:
        "../scripts/figure_profiles.py"


rule figure_discriminability:
    """Reliability, signal-to-noise ratio and share of model pairs separated, per metric."""
    input:
        discriminability="results/stats/discriminability/discriminability.csv",
    output:
        figure=report(
            "results/figures/discriminability.svg",
            caption="../report/figure_discriminability.rst",
            category="Figures",
            subcategory="Metrics",
            labels={"figure": "discriminability", "rule": "figure_discriminability"},
        ),
    log:
        "logs/report/figure_discriminability.log",
    benchmark:
        "logs/benchmarks/figure_discriminability.tsv"
    threads: 1
    resources:
        **measured("figure_discriminability"),
    script:
        "../scripts/figure_discriminability.py"


rule figure_subgroups:
    """Adjusted diagnosis effects per metric; the composite per topic."""
    input:
        diagnosis="results/stats/subgroups/diagnosis.csv",
        topics="results/stats/topics/topics.csv",
        claims="results/stats/claims.csv",
    output:
        figure=report(
            "results/figures/subgroups.svg",
            caption="../report/figure_subgroups.rst",
            category="Figures",
            subcategory="Subgroups and drift",
            labels={"figure": "subgroups", "rule": "figure_subgroups"},
        ),
    log:
        "logs/report/figure_subgroups.log",
    benchmark:
        "logs/benchmarks/figure_subgroups.tsv"
    threads: 1
    resources:
        **measured("figure_subgroups"),
    params:
        topic_metric="composite",
    script:
        "../scripts/figure_subgroups.py"


rule figure_drift:
    """Within-conversation slope of each metric per model, with 95% intervals."""
    input:
        drift="results/stats/drift/drift.csv",
    output:
        figure=report(
            "results/figures/drift.svg",
            caption="../report/figure_drift.rst",
            category="Figures",
            subcategory="Subgroups and drift",
            labels={"figure": "drift", "rule": "figure_drift"},
        ),
    log:
        "logs/report/figure_drift.log",
    benchmark:
        "logs/benchmarks/figure_drift.tsv"
    threads: 1
    resources:
        **measured("figure_drift"),
    script:
        "../scripts/figure_drift.py"


rule figure_humans:
    """Human raters minus each model per metric, with 95% intervals and verdicts."""
    input:
        humans="results/stats/humans/humans_vs_models.csv",
    output:
        figure=report(
            "results/figures/humans.svg",
            caption="../report/figure_humans.rst",
            category="Figures",
            subcategory="Humans",
            labels={"figure": "humans", "rule": "figure_humans"},
        ),
    log:
        "logs/report/figure_humans.log",
    benchmark:
        "logs/benchmarks/figure_humans.tsv"
    threads: 1
    resources:
        **measured("figure_humans"),
    script:
        "../scripts/figure_humans.py"


rule figure_simulation:
    """False-positive rates under the null against their binomial band; coverage of planted effects."""
    input:
        null_rates="results/stats/simulation/null_rates.csv",
        planted="results/stats/simulation/planted_recovery.csv",
    output:
        figure=report(
            "results/figures/simulation.svg",
            caption="../report/figure_simulation.rst",
            category="Figures",
            subcategory="Validation",
            labels={"figure": "simulation", "rule": "figure_simulation"},
        ),
    log:
        "logs/report/figure_simulation.log",
    benchmark:
        "logs/benchmarks/figure_simulation.tsv"
    threads: 1
    resources:
        **measured("figure_simulation"),
    params:
        nominal_coverage=0.95,  # the level of every interval (fixed in the code, docs/statistics.md)
    script:
        "../scripts/figure_simulation.py"


rule figure_rank_intervals:
    """Ranking diagram: each model's rank on the composite with its 95% bootstrap interval."""
    input:
        rank_intervals="results/stats/uncertainty/rank_intervals.csv",
    output:
        figure=report(
            "results/figures/rank_intervals.svg",
            caption="../report/figure_rank_intervals.rst",
            category="Figures",
            subcategory="Models",
            labels={"figure": "rank_intervals", "rule": "figure_rank_intervals"},
        ),
    log:
        "logs/report/figure_rank_intervals.log",
    benchmark:
        "logs/benchmarks/figure_rank_intervals.tsv"
    threads: 1
    resources:
        **measured("figure_rank_intervals"),
    params:
        metric="composite",
    script:
        "../scripts/figure_rank_intervals.py"


rule table_scaling:
    """The scaling study's measured record (committed; benchmarks/bench_scaling.py writes it),
    validated, as the table of the reproducibility section."""
    input:
        record="benchmarks/records/scaling.csv",
    output:
        table=report(
            "results/paper/tables/scaling.csv",
            caption="../report/table_scaling.rst",
            category="Tables",
            subcategory="Reproducibility",
            labels={"table": "scaling", "rule": "table_scaling"},
        ),
        provenance="results/paper/tables/scaling.json",
    log:
        "logs/report/table_scaling.log",
    benchmark:
        "logs/benchmarks/table_scaling.tsv"
    threads: 1
    resources:
        **measured("table_scaling"),
    script:
        "../scripts/table_scaling.py"


STATS_FOR_PAPER = {
    "claims": "results/stats/claims.csv",
    "rank_summary": "results/stats/ranks/summary.json",
    "rank_pairs": "results/stats/ranks/rank_correlations.csv",
    "discriminability": "results/stats/discriminability/discriminability.csv",
    "comparisons": "results/stats/discriminability/comparisons.csv",
    "diagnosis": "results/stats/subgroups/diagnosis.csv",
    "romantic": "results/stats/topics/romantic_contrast.csv",
    "topics": "results/stats/topics/topics.csv",
    "page": "results/stats/drift/page_trend.csv",
    "drift": "results/stats/drift/drift.csv",
    "humans_paired": "results/stats/humans/humans_vs_models.csv",
    "agreement": "results/stats/humans/agreement.csv",
    "alt_test": "results/stats/humans/alt_test.csv",
    "profiles": "results/stats/profiles/summary.json",
    "null_rates": "results/stats/simulation/null_rates.csv",
    "planted": "results/stats/simulation/planted_recovery.csv",
    "rank_intervals": "results/stats/uncertainty/rank_intervals.csv",
    **{
        f"operating_{k}": f"results/stats/operating/{k}.csv"
        for k in ("claims", "models", "margins", "participants", "conversations")
    },
}


# The paper's section on a real local model (paper/sections/local_model.typ): the first live model
# whose answers come from a committed response record, compared with the chance baseline.
LOCAL_MODEL = next(
    (
        {
            "name": n,
            "model_id": m["model_id"],
            "record": m["record"],
            "metric": config["statistics"]["principal_metrics"][0],
            "chance": next((b for b in BASELINES if MODELS[b]["method"] == "chance"), None),
        }
        for n, m in MODELS.items()
        if n in LIVE and m.get("record")
    ),
    None,
)

# Each live model's collection summaries ({model: {mode: [one per shard]}}, rule collect_live):
# where this build's answers came from (a committed record, the cache, calls made now).
LIVE_SUMMARIES = {
    m: {mode: [f"results/collection/{m}/{mode}/shard-{k}.json" for k in range(n_shards(m))] for mode in MODES}
    for m in LIVE
}


rule paper_numbers:
    """Every number the manuscript prints (numbers.json) and its display tables."""
    input:
        **STATS_FOR_PAPER,
        **{f"unc_{k}": v for k, v in UNCERTAINTY_STATS.items()},  # uncertainty.smk
        # checksummed for the reproducibility statement: the release-format input files
        **{f"replication_{name}": f"results/public/{name}/summary.json" for name in REPLICATION_ANALYSES},
        # the adapter's counts of an ESConv cohort (what was kept, dropped and mapped)
        # and its gold PANAS items, for the mean-drop reference predictor (docs/esconv.md, section 5)
        **(
            {"esconv_counts": "results/cohort/esconv/counts.json", "panas_items": GOLD["panas_items"]}
            if config["cohort"] == "esconv"
            else {}
        ),
        **({"local_record": LOCAL_MODEL["record"]} if LOCAL_MODEL else {}),
        # the null cohort's claims, beside the planted cohort's (truth.smk)
        **TRUTH_FOR_PAPER,
        # where each live model's answers came from (rule collect_live)
        live_summaries=[f for modes in LIVE_SUMMARIES.values() for fs in modes.values() for f in fs],
        leaderboard="results/scores/leaderboard.csv",
        # the scores the parity defaults set in the cohort's gaps (board_numbers.gap_defaults)
        conversation_scores="results/scores/conversation_scores.parquet",
        rule_counts="results/scores/rule_counts.csv",
        invalid="results/scores/invalid_answers.csv",
        conversations=GOLD["conversations"],
        turns=GOLD["turns"],
        participants=GOLD["participants"],
        mood_tags=GOLD["mood_tags"],
        binary_judgements=GOLD["binary_judgements"],
        survey_answers=GOLD["survey_answers"],
        four_branch=GOLD["four_branch"],
        panas_totals=GOLD["panas_totals"],
        post_chat_ratings=GOLD["post_chat_ratings"],
        cohort_files=cohort_input,
        predictions=lambda wildcards: sorted({p for ps in prediction_sets().values() for p in ps}),
        # the replications on public data that the paper reports (replications.include)
    output:
        **TRUTH_OUTPUTS,
        numbers=report(
            "results/paper/numbers.json",
            caption="../report/numbers.rst",
            category="Paper",
            subcategory="Numbers",
            labels={"file": "numbers.json", "rule": "paper_numbers"},
        ),
        claims_table=report(
            "results/paper/tables/claims.csv",
            caption="../report/table_claims.rst",
            category="Tables",
            subcategory="Claims",
            labels={"table": "claims", "rule": "paper_numbers"},
        ),
        discriminability_table=report(
            "results/paper/tables/discriminability.csv",
            caption="../report/table_discriminability.rst",
            category="Tables",
            subcategory="Metrics",
            labels={"table": "discriminability", "rule": "paper_numbers"},
        ),
        null_rates_table=report(
            "results/paper/tables/simulation_null.csv",
            caption="../report/table_simulation_null.rst",
            category="Tables",
            subcategory="Validation",
            labels={"table": "simulation_null", "rule": "paper_numbers"},
        ),
        operating_table=report(
            "results/paper/tables/operating.csv",
            caption="../report/table_operating.rst",
            category="Tables",
            subcategory="Validation",
            labels={"table": "operating", "rule": "paper_numbers"},
        ),
        planted_table=report(
            "results/paper/tables/simulation_planted.csv",
            caption="../report/table_simulation_planted.rst",
            category="Tables",
            subcategory="Validation",
            labels={"table": "simulation_planted", "rule": "paper_numbers"},
        ),
        leaderboard_table=report(
            "results/paper/tables/leaderboard.csv",
            caption="../report/table_leaderboard.rst",
            category="Tables",
            subcategory="Models",
            labels={"table": "leaderboard", "rule": "paper_numbers"},
        ),
        rules_table=report(
            "results/paper/tables/parity_rules.csv",
            caption="../report/table_parity_rules.rst",
            category="Tables",
            subcategory="Scoring",
            labels={"table": "parity_rules", "rule": "paper_numbers"},
        ),
        invalid_table=report(
            "results/paper/tables/invalid_answers.csv",
            caption="../report/table_invalid_answers.rst",
            category="Tables",
            subcategory="Scoring",
            labels={"table": "invalid_answers", "rule": "paper_numbers"},
        ),
        preregistration_table=paper_table("preregistration_history", "paper_numbers", "Claims"),
    log:
        "logs/report/paper_numbers.log",
    benchmark:
        "logs/benchmarks/paper_numbers.tsv"
    threads: 1
    resources:
        **measured("paper_numbers"),
    params:
        **TRUTH_PARAMS,
        cohort=config["cohort"],
        # the cohort as the paper names it, each model's kind, and what is simulated (eibench.cohorts)
        about=describe_cohort(config),
        model_kinds=model_kinds(config["models"]),
        baseline_methods=baseline_methods(config["models"]),
        # where each live model is served (a loopback endpoint: locally) and its summaries' paths
        live_served=live_served(config["models"]),
        live_summaries=LIVE_SUMMARIES,
        model_roles=model_roles(),
        simulated=simulated_parts(config),
        mode=MODES[0],
        config_digest=CONFIG_DIGEST,
        # The reproducibility statement (common.smk): a new commit, uncommitted changes, a package
        # upgrade or another command line rerun this rule and the paper, by design.
        git=GIT_STATE,
        versions=PACKAGE_VERSIONS,
        library_digest=LIBRARY_DIGEST,
        command=REBUILD_COMMAND,
        prediction_sets=prediction_sets(),
        replications=REPLICATION_ANALYSES,
        ranked_roles=ANALYSED_ROLES,
        # the leaderboard table's principal columns
        principal=list(config["statistics"]["principal_metrics"]),
        # the declared claims (the units of their estimates) and the level of the coverage tests
        claims=config["statistics"]["claims"],
        alpha=config["statistics"]["alpha"],
        uncertainty={
            **config["uncertainty"],
            "n_bootstrap": config["statistics"]["n_bootstrap"],
            "claims_scheme": config["statistics"]["cluster"],
            # the mode and rule set its schemes were computed on (the abstract pairs them with
            # the leaderboard's composites only when they are the leaderboard's)
            "mode": config["statistics"]["mode"],
            "rule_set": config["statistics"]["rule_set"],
        },
        local_model=LOCAL_MODEL,
        seed=config["seed"],
        n_bootstrap=config["statistics"]["n_bootstrap"],
        preregistration=PREREGISTRATION,
    script:
        "../scripts/paper_numbers.py"

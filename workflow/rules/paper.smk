# The manuscript: Typst reads results/paper/numbers.json, the tables and the figures.


rule paper:
    """Compile paper/main.typ into paper/build/paper.pdf."""
    input:
        **{f"table_{name}": f"results/paper/tables/{name}.csv" for name in UNCERTAINTY_TABLES},
        **TRUTH_INPUTS,
        **(
            {"cross_benchmark_table": "results/public/cross_benchmark/table.csv"}
            if "cross_benchmark" in REPLICATION_ANALYSES
            else {}
        ),
        main="paper/main.typ",
        sources=sorted(str(p) for p in Path("paper").rglob("*.typ") if "build" not in p.parts),
        bibliography="paper/references.bib",
        numbers="results/paper/numbers.json",
        leaderboard_table="results/paper/tables/leaderboard.csv",
        rules_table="results/paper/tables/parity_rules.csv",
        invalid_table="results/paper/tables/invalid_answers.csv",
        claims_table="results/paper/tables/claims.csv",
        discriminability_table="results/paper/tables/discriminability.csv",
        null_rates_table="results/paper/tables/simulation_null.csv",
        planted_table="results/paper/tables/simulation_planted.csv",
        scaling_table="results/paper/tables/scaling.csv",
        scaling_provenance="results/paper/tables/scaling.json",
        figure_leaderboard="results/figures/leaderboard.svg",
        figure_rank_correlations="results/figures/rank_correlations.svg",
        figure_profiles="results/figures/profiles.svg",
        figure_discriminability="results/figures/discriminability.svg",
        figure_subgroups="results/figures/subgroups.svg",
        figure_drift="results/figures/drift.svg",
        figure_humans="results/figures/humans.svg",
        figure_simulation="results/figures/simulation.svg",
        figure_rank_intervals="results/figures/rank_intervals.svg",
        figure_operating="results/figures/operating.svg",
        operating_table="results/paper/tables/operating.csv",
        figure_weight_sensitivity="results/figures/weight_sensitivity.svg",
        dictionary="results/scores/data_dictionary.csv",
        preregistration_table="results/paper/tables/preregistration_history.csv",
        # the cross-benchmark table, when the paper reports it (REPLICATION_ANALYSES)
    output:
        pdf=report(
            "paper/build/paper.pdf",
            caption="../report/paper.rst",
            category="Paper",
            subcategory="PDF",
            labels={"file": "paper.pdf", "rule": "paper"},
        ),
    log:
        "logs/paper/paper.log",
    benchmark:
        "logs/benchmarks/paper.tsv"
    threads: 1
    resources:
        **measured("paper"),
    params:
        timestamp=config["paper"]["timestamp"],
    script:
        "../scripts/build_paper.py"

# Uncertainty and sensitivity of the leaderboard (issue 15, items 5-7): the composite under
# conversation, participant and two-stage resampling, adjacent-pair differences with Holm,
# rank stability under perturbed pillar weights, the reliability-versus-conversations curve
# and per-topic / per-group breakdowns.


rule stats_resampling:
    """The composite under every resampling scheme, weight sensitivity, reliability curve, breakdowns."""
    input:
        **STATS_INPUT,
    output:
        schemes="results/stats/uncertainty/schemes.csv",
        adjacent="results/stats/uncertainty/adjacent_pairs.csv",
        weights="results/stats/uncertainty/weight_sensitivity.csv",
        weights_summary="results/stats/uncertainty/weight_sensitivity.json",
        reliability="results/stats/uncertainty/reliability_curve.csv",
        breakdowns="results/stats/uncertainty/breakdowns.csv",
    log:
        "logs/stats/resampling.log",
    benchmark:
        "logs/benchmarks/stats_resampling.tsv"
    # Short, but stats_seed_noise, one of the run's longest jobs, waits for it: as early as that one.
    priority: 2
    threads: 1
    resources:
        **measured("stats_resampling"),
    params:
        **stats_params("n_bootstrap", "alpha"),
        uncertainty=config["uncertainty"],
    script:
        "../scripts/stats_resampling.py"


rule figure_weight_sensitivity:
    """Probability of rank 1 per model under random pillar weights; ranks under equal weights."""
    input:
        weights="results/stats/uncertainty/weight_sensitivity.csv",
        summary="results/stats/uncertainty/weight_sensitivity.json",
    output:
        figure=report(
            "results/figures/weight_sensitivity.svg",
            caption="../report/figure_weight_sensitivity.rst",
            category="Figures",
            subcategory="Models",
            labels={"figure": "weight_sensitivity", "rule": "figure_weight_sensitivity"},
        ),
    log:
        "logs/report/figure_weight_sensitivity.log",
    benchmark:
        "logs/benchmarks/figure_weight_sensitivity.tsv"
    threads: 1
    resources:
        **measured("figure_weight_sensitivity"),
    script:
        "../scripts/figure_weight_sensitivity.py"


UNCERTAINTY_TABLES = [
    "uncertainty_leaderboard",
    "uncertainty_adjacent",
    "uncertainty_reliability",
    "uncertainty_topic",
    "uncertainty_group",
    "uncertainty_claims",
]
UNCERTAINTY_STATS = {
    "schemes": "results/stats/uncertainty/schemes.csv",
    "adjacent": "results/stats/uncertainty/adjacent_pairs.csv",
    "weights": "results/stats/uncertainty/weight_sensitivity.csv",
    "weights_summary": "results/stats/uncertainty/weight_sensitivity.json",
    "reliability": "results/stats/uncertainty/reliability_curve.csv",
    "breakdowns": "results/stats/uncertainty/breakdowns.csv",
    "seed_noise": "results/stats/uncertainty/seed_noise.csv",
    "claims": "results/stats/uncertainty/claim_schemes.csv",  # rule stats_claim_schemes
}


rule table_uncertainty:
    """The printed tables of the uncertainty section and its appendix (strings, as printed)."""
    input:
        **{k: v for k, v in UNCERTAINTY_STATS.items() if k != "seed_noise"},
    output:
        **{name: paper_table(name, "table_uncertainty", "Uncertainty") for name in UNCERTAINTY_TABLES},
    log:
        "logs/report/table_uncertainty.log",
    benchmark:
        "logs/benchmarks/table_uncertainty.tsv"
    threads: 1
    resources:
        **measured("table_uncertainty"),
    params:
        uncertainty=config["uncertainty"],
        # a ranked baseline is printed as a baseline, not as a model
        model_roles=model_roles(),
        # the resamples of the adjacent pairs' bootstrap p (a p of 0 is printed as its bound)
        n_bootstrap=config["statistics"]["n_bootstrap"],
    script:
        "../scripts/table_uncertainty.py"


rule stats_seed_noise:
    """Run-to-run noise: the simulated models' answers redrawn with other seeds, each draw's
    composite, its spread beside the bootstrap interval (none without simulated models)."""
    input:
        **GOLD,
        schemes="results/stats/uncertainty/schemes.csv",
    output:
        draws="results/stats/uncertainty/seed_noise_draws.csv",
        spread="results/stats/uncertainty/seed_noise.csv",
    log:
        "logs/stats/seed_noise.log",
    benchmark:
        "logs/benchmarks/stats_seed_noise.tsv"
    # One of the run's longest jobs: started first once its inputs exist, so that on a few
    # cores the short jobs fill in around it instead of delaying it to the end.
    priority: 2
    threads: 1
    resources:
        **measured("stats_seed_noise"),
    params:
        profiles={m: MODELS[m].get("profile", "model") for m in SIMULATED},
        mode=config["statistics"]["mode"],
        simulation=config["simulation"],
        seed=config["seed"],
        romantic_category=config["cohorts"]["synthetic"]["romantic_category"],
        scoring=config["scoring"],
        draws=config["uncertainty"]["seed_noise"]["draws"],
        primary=config["uncertainty"]["primary"],
    script:
        "../scripts/stats_seed_noise.py"


rule stats_claim_schemes:
    """Every claim's estimate, interval and verdict under every resampling scheme."""
    input:
        **STATS_INPUT,
        subgroups="results/stats/subgroups/diagnosis.csv",
        design="results/stats/design.json",
    output:
        table="results/stats/uncertainty/claim_schemes.csv",
    log:
        "logs/stats/claim_schemes.log",
    benchmark:
        "logs/benchmarks/stats_claim_schemes.tsv"
    threads: 1
    resources:
        **measured("stats_claim_schemes"),
    params:
        **stats_params("n_bootstrap", "alpha", "claims", "principal_metrics", "independence_margin", "split_halves"),
        schemes=config["uncertainty"]["schemes"],
    script:
        "../scripts/stats_claim_schemes.py"

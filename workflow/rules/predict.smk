# Prediction collection: every model's EM output files, in shard folders
# results/predictions/<model>/<mode>/shard-<k>/ (live models: collection.shards jobs each, run
# in parallel and resumed separately; the others: one job), then validated into tidy tables.


rule predict_simulated:
    """Draw a simulated model's (or human rater's) predictions around the gold."""
    input:
        **GOLD,
    output:
        predictions=directory("results/predictions/{model}/{mode}/shard-0"),
        truth="results/truth/models/{model}/{mode}.json",
    wildcard_constraints:
        model=one_of(SIMULATED),
    params:
        model=lambda wc: wc.model,
        mode=lambda wc: wc.mode,
        profile=lambda wc: MODELS[wc.model].get("profile", "model"),
        simulation=config["simulation"],
        seed=config["seed"],
        romantic_category=config["cohorts"]["synthetic"]["romantic_category"],
    log:
        "logs/predict/{model}/{mode}/predict_simulated.log",
    script:
        "../scripts/predict_simulated.py"


rule predict_baseline:
    """Run an offline baseline (chance, prior or lexicon) on every conversation."""
    input:
        **GOLD,
    output:
        predictions=directory("results/predictions/{model}/{mode}/shard-0"),
    wildcard_constraints:
        model=one_of(BASELINES),
    params:
        model=lambda wc: wc.model,
        mode=lambda wc: wc.mode,
        method=lambda wc: MODELS[wc.model]["method"],
        seed=config["seed"],
    log:
        "logs/predict/{model}/{mode}/predict_baseline.log",
    script:
        "../scripts/predict_baseline.py"


rule collect_live:
    """Ask a live model every question of the protocol for one shard of conversations,
    through the response cache (collection.cache_dir, deliberately not an output: a failed or
    killed job never deletes it, and a rerun only asks what is missing)."""
    input:
        **GOLD,
    output:
        predictions=directory("results/predictions/{model}/{mode}/shard-{shard}"),
    wildcard_constraints:
        model=one_of(LIVE),
        shard=r"\d+",
    params:
        model=lambda wc: MODELS[wc.model],
        mode=lambda wc: wc.mode,
        shard=lambda wc: int(wc.shard),
        n_shards=lambda wc: n_shards(wc.model),
        n_modes=len(MODES),
        collection=config["collection"],
        seed=config["seed"],
    log:
        "logs/predict/{model}/{mode}/collect_live_shard-{shard}.log",
    script:
        "../scripts/collect_live.py"


rule ingest_predictions:
    """Validate one model's EM output files for one mode into tidy tables."""
    input:
        predictions=prediction_input,
        conversations=GOLD["conversations"],
    output:
        **{name: em_table("{model}", "{mode}", name) for name in EM_TABLES},
    params:
        model=lambda wc: wc.model,
        mode=lambda wc: wc.mode,
        report_all=config["ingest"]["report_all_errors"],
    log:
        "logs/predict/{model}/{mode}/ingest_predictions.log",
    script:
        "../scripts/ingest_predictions.py"

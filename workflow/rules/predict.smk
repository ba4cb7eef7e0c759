# Prediction collection: every model's EM output files, in shard folders
# results/predictions/<model>/<mode>/shard-<k>/ (live models: collection.shards jobs each, run
# in parallel and resumed separately; the others: one job). The scoring rule validates them.


if SIMULATED:

    rule predict_simulated:
        """Draw every simulated model's (and human rater's) predictions around the gold, for one
        mode: one job for all of them (they are one seeded draw of the synthetic study, and one
        job each would spend most of its time starting Python)."""
        input:
            **GOLD,
        output:
            predictions=[directory(f"results/predictions/{m}/{{mode}}/shard-0") for m in SIMULATED],
            truth=[f"results/truth/models/{m}/{{mode}}.json" for m in SIMULATED],
        log:
            "logs/predict/simulated/{mode}/predict_simulated.log",
        benchmark:
            "logs/benchmarks/predict_simulated/{mode}.tsv"
        threads: 1
        resources:
            **measured("predict_simulated"),
        params:
            profiles={m: MODELS[m].get("profile", "model") for m in SIMULATED},
            mode=lambda wc: wc.mode,
            simulation=config["simulation"],
            seed=config["seed"],
            romantic_category=config["cohorts"]["synthetic"]["romantic_category"],
        script:
            "../scripts/predict_simulated.py"


rule predict_baseline:
    """Run an offline baseline (chance, prior or lexicon) on every conversation."""
    input:
        **GOLD,
    output:
        predictions=directory("results/predictions/{model}/{mode}/shard-0"),
    log:
        "logs/predict/{model}/{mode}/predict_baseline.log",
    benchmark:
        "logs/benchmarks/predict_baseline/{model}/{mode}.tsv"
    wildcard_constraints:
        model=one_of(BASELINES),
    threads: 1
    resources:
        **measured("predict_baseline"),
    params:
        model=lambda wc: wc.model,
        mode=lambda wc: wc.mode,
        method=lambda wc: MODELS[wc.model]["method"],
        seed=config["seed"],
    script:
        "../scripts/predict_baseline.py"


rule collect_live:
    """Ask a live model every question of the protocol for one shard of conversations,
    through the response cache (collection.cache_dir, deliberately not an output: a failed or
    killed job never deletes it, and a rerun only asks what is missing). A model with a committed
    response record (its config key record) reads its answers from it first: no server needed."""
    input:
        **GOLD,
        record=lambda wc: MODELS[wc.model].get("record") or [],
    output:
        predictions=directory("results/predictions/{model}/{mode}/shard-{shard}"),
        # where its answers came from (record, cache, calls now) and its invalid answers per task
        summary="results/collection/{model}/{mode}/shard-{shard}.json",
    log:
        "logs/predict/{model}/{mode}/collect_live_shard-{shard}.log",
    benchmark:
        "logs/benchmarks/collect_live/{model}/{mode}/{shard}.tsv"
    wildcard_constraints:
        model=one_of(LIVE),
        shard=r"\d+",
    threads: 1
    resources:
        **measured("collect_live"),
    params:
        model=lambda wc: MODELS[wc.model],
        mode=lambda wc: wc.mode,
        shard=lambda wc: int(wc.shard),
        n_shards=lambda wc: n_shards(wc.model),
        n_modes=len(MODES),
        collection=config["collection"],
        seed=config["seed"],
    script:
        "../scripts/collect_live.py"

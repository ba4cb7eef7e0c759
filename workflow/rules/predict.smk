# Prediction collection: one job per (model, mode) writes release-format EM output files;
# every model's outputs are then validated into tidy tables.


rule predict_simulated:
    """Draw a simulated model's (or human rater's) predictions around the gold."""
    input:
        **GOLD,
    output:
        predictions=directory("results/predictions/{model}/{mode}"),
        truth="results/truth/models/{model}/{mode}.json",
    wildcard_constraints:
        model="|".join(map(re.escape, SIMULATED)) or "^$",
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

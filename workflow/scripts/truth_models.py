"""Rule truth_models: each simulated model's exact expected binary accuracies from its abilities,
beside its estimate and 95% interval."""

import json

import pandas as pd
from eibench.release.tidy import GOLD_TABLES
from eibench.runlog import rule_log
from eibench.synthetic.expected import METRICS, expected_binary_accuracy
from eibench.synthetic.simulate import SimulatedModel
from eibench.tables import read_parquet, write_csv

with rule_log(snakemake) as log:  # noqa: F821
    p, i = snakemake.params, snakemake.input
    tables = {name: read_parquet(i[name], GOLD_TABLES[name]) for name in GOLD_TABLES}
    intervals = pd.read_csv(i.intervals).set_index(["em_model", "metric"])
    rows = []
    for name, path in zip(p.models, i.truth, strict=True):
        truth = json.load(open(path))
        model = SimulatedModel(truth["model"], truth["profile"], truth["ability_logit"])
        expected = expected_binary_accuracy(
            tables, model, p.mode, p.simulation, p.seed, p.romantic_category, truth["conversations"]
        )
        for metric, value in expected.items():
            est = intervals.loc[(name, metric)] if (name, metric) in intervals.index else None
            rows.append(
                {
                    "em_model": name,
                    "profile": truth["profile"],
                    "metric": metric,
                    "ability_logit": truth["ability_logit"][METRICS[metric][0]],
                    "expected": value,
                    "estimate": None if est is None else float(est["estimate"]),
                    "lo": None if est is None else float(est["lo"]),
                    "hi": None if est is None else float(est["hi"]),
                }
            )
    table = pd.DataFrame(rows)
    table["covered"] = (table["lo"] <= table["expected"]) & (table["expected"] <= table["hi"])
    write_csv(table, snakemake.output.table)
    log.info(
        "%d models: %d of %d intervals cover the expected value", len(p.models), int(table["covered"].sum()), len(table)
    )

"""Rule stats_discriminability: how well each metric separates the evaluated models."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import pandas as pd
from eibench.runlog import rule_log
from eibench.stats.discriminability import compare, discriminability, pairwise_resamples
from eibench.stats.load import available, load_study, resamples
from eibench.tables import write_csv

with rule_log(snakemake) as log:  # noqa: F821
    p, i = snakemake.params, snakemake.input
    study = load_study(i.conversation_scores, i.turn_scores, i.conversations, i.participants, p.roles, p.stats)
    models = study.with_role("model")
    metrics = available(study, ["composite", *p.stats["principal_metrics"]], models)
    weights = resamples(study, p.stats, p.seed)
    # The pairwise tests draw more resamples from the same seeded stream (pairwise_resamples).
    n_pairs = pairwise_resamples(len(models), p.stats["alpha"], p.stats["n_bootstrap"])
    pair_weights = weights if n_pairs == len(weights) else resamples(study, p.stats, p.seed, n=n_pairs)
    table, snr = discriminability(study, metrics, models, weights, p.stats["alpha"], pair_weights=pair_weights)
    pairs = {
        (c["params"]["better"], c["params"]["worse"])
        for c in p.stats["claims"]
        if c["test"] == "discriminability_difference"
    }
    point = dict(zip(table["metric"], table["log_f"]))
    comparisons = pd.DataFrame([compare(snr, a, b, point) for a, b in sorted(pairs) if a in snr and b in snr])
    write_csv(table, snakemake.output.table)
    write_csv(comparisons, snakemake.output.comparisons)
    log.info("%d metrics", len(metrics))

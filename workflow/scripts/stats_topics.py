"""Rule stats_topics: topic effects, the probability of being the hardest topic, and the
pre-specified romantic-vs-rest contrast."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import pandas as pd
from eibench.metrics.registry import BY_NAME
from eibench.runlog import rule_log
from eibench.stats.load import load_study, resamples
from eibench.stats.topics import topic_effects
from eibench.tables import write_csv

with rule_log(snakemake) as log:  # noqa: F821
    p, i = snakemake.params, snakemake.input
    study = load_study(i.conversation_scores, i.turn_scores, i.conversations, i.participants, p.roles, p.stats)
    weights = resamples(study, p.stats, p.seed)
    tables, contrasts = [], []
    claimed = {c["params"]["metric"] for c in p.stats["claims"] if c["test"] == "topic_hardest"}
    pillars = ["composite", "tracking", "evaluation", "holistic"]
    models = study.with_role("model")
    undefined = [m for m in pillars + sorted(claimed - set(pillars)) if not study.defined(m, models)]
    if undefined:
        log.info("not analysed, no value in this cohort: %s", ", ".join(undefined))
    for metric in [m for m in pillars + sorted(claimed - set(pillars)) if m not in undefined]:
        # The pre-specified contrasts: each category a claim names against the rest.
        for k, category in enumerate(p.categories or [None]):
            table, contrast = topic_effects(study, metric, models, weights, category, BY_NAME[metric].higher_is_better)
            if k == 0:
                tables.append(table)
            if category is not None:
                contrasts.append(contrast)
    write_csv(pd.concat(tables, ignore_index=True), snakemake.output.table)
    write_csv(pd.DataFrame(contrasts), snakemake.output.romantic)
    log.info("topic effects for %d categories", tables[0].shape[0])

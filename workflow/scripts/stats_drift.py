"""Rule stats_drift: per-model slopes over turn position, early/middle/late contrasts, Page's test."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import pandas as pd
from eibench.runlog import rule_log
from eibench.stats.drift import DRIFT_COLUMNS, PAGE_COLUMNS, turn_drift
from eibench.stats.load import load_study, resamples
from eibench.tables import write_csv

with rule_log(snakemake) as log:  # noqa: F821
    p, i = snakemake.params, snakemake.input
    study = load_study(i.conversation_scores, i.turn_scores, i.conversations, i.participants, p.roles, p.stats)
    weights = resamples(study, p.stats, p.seed)
    tables, pages = [], []
    claimed = {c["params"]["metric"] for c in p.stats["claims"] if c["test"] in ("turn_drift", "turn_flat")}
    models = study.with_role("model")
    for metric in sorted({"binary_om_acc", "binary_hp_acc", "emotion_f1", "emotion_va", "pairwise_acc"} | claimed):
        # a turn metric's conversation means are NaN exactly where it has no value at any turn
        if metric not in claimed and not study.defined(metric, models):
            log.info("%s: no value at any turn of the compared models (kind absent): no drift", metric)
            continue
        table, page = turn_drift(study, metric, models, weights)
        tables.append(table)
        pages.append(page)
    empty = pd.DataFrame(columns=list(DRIFT_COLUMNS))  # no metric with a value: the columns alone
    write_csv(pd.concat(tables, ignore_index=True) if tables else empty, snakemake.output.table)
    write_csv(pd.DataFrame(pages, columns=list(PAGE_COLUMNS)), snakemake.output.page)
    log.info("turn drift of %d metrics", len(pages))

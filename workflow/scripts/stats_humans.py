"""Rule stats_humans: the human raters against the models on the humans' items, agreement
among the humans, and the alternative-annotator test of each model."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import pandas as pd
from eibench.release.tidy import EM_TABLES
from eibench.runlog import rule_log
from eibench.stats.humans import ALT_TEST_TABLES, alt_tests, compared_metrics, human_agreement, human_vs_models
from eibench.stats.load import load_study, resamples
from eibench.tables import read_parquet, write_csv

with rule_log(snakemake) as log:  # noqa: F821
    p, i = snakemake.params, snakemake.input
    study = load_study(i.conversation_scores, i.turn_scores, i.conversations, i.participants, p.roles, p.stats)
    weights = resamples(study, p.stats, p.seed)
    humans, models = study.with_role("human"), study.with_role("model")
    paired = (
        pd.concat(
            [
                human_vs_models(study, m, humans, models, weights, p.stats["alpha"])
                for m in compared_metrics(p.stats["claims"])
            ],
            ignore_index=True,
        )
        if humans
        else pd.DataFrame()
    )
    write_csv(paired, snakemake.output.paired)

    def tables_of(model: str, names=tuple(EM_TABLES)) -> dict[str, pd.DataFrame]:
        """The model's tidy prediction tables ``names``, from the rule's inputs named ``model/table``."""
        return {name: read_parquet(i[f"{model}/{name}"], EM_TABLES[name]) for name in names}

    human_tables = {study.models[h]: tables_of(study.models[h]) for h in humans}
    write_csv(human_agreement(human_tables) if len(human_tables) > 1 else pd.DataFrame(), snakemake.output.agreement)
    # One model's tables at a time (read as the test asks for them): all at once held every
    # model's answers in memory, 3.1 GiB at 50x the published cohort (docs/scaling.md).
    model_tables = ((study.models[m], tables_of(study.models[m], ALT_TEST_TABLES)) for m in models)
    write_csv(
        alt_tests(human_tables, model_tables, p.stats["alt_test_epsilon"], p.stats["alpha"]), snakemake.output.alt_test
    )
    log.info("%d human raters, %d models", len(humans), len(models))

"""Rule stats_humans: the human raters against the models on the humans' items, agreement
among the humans, and the alternative-annotator test of each model."""

import pandas as pd
from eibench.release.tidy import EM_TABLES
from eibench.runlog import rule_log
from eibench.stats.humans import alt_test, human_agreement, human_vs_models
from eibench.stats.load import load_study, resamples
from eibench.tables import read_parquet, write_csv

with rule_log(snakemake) as log:  # noqa: F821
    p, i = snakemake.params, snakemake.input
    study = load_study(i.conversation_scores, i.turn_scores, i.conversations, i.participants, p.roles, p.stats)
    weights = resamples(study, p.stats, p.seed)
    humans, models = study.with_role("human"), study.with_role("model")
    metrics = ["binary_hp_acc", "pairwise_acc", "emotion_f1", "binary_om_acc", "cw_q1_f1", "conversation_wide",
               "composite"]
    metrics = sorted(set(metrics) | {c["params"]["metric"] for c in p.stats["claims"] if c["test"] == "humans_vs_models"})
    paired = pd.concat([human_vs_models(study, m, humans, models, weights, p.stats["alpha"]) for m in metrics],
                       ignore_index=True) if humans else pd.DataFrame()
    write_csv(paired, snakemake.output.paired)

    def tables_of(model: str) -> dict[str, pd.DataFrame]:
        """The model's tidy prediction tables, from the rule's inputs named ``model/table``."""
        return {name: read_parquet(i[f"{model}/{name}"], EM_TABLES[name]) for name in EM_TABLES}

    human_names = [study.models[h] for h in humans]
    human_tables = {h: tables_of(h) for h in human_names}
    write_csv(human_agreement(human_tables) if len(human_tables) > 1 else pd.DataFrame(), snakemake.output.agreement)

    def hp_answers(tables: dict[str, pd.DataFrame]) -> dict:
        b = tables["em_binary"]
        b = b[(b["target"] == "hp") & (b["wording"] == "observer") & b["value"].isin(["yes", "no", "na"])]
        return dict(zip(zip(b["conversation_id"].astype(str), b["turn_number"], b["question_id"].astype(str)),
                        b["value"].astype(str)))

    def picks(tables: dict[str, pd.DataFrame]) -> dict:
        t = tables["em_pairwise"]
        t = t[t["pick"].isin(["A", "B"])]
        return dict(zip(zip(t["conversation_id"].astype(str), t["turn_number"], t["key"].astype(str)), t["pick"].astype(str)))

    rows = []
    if len(human_tables) > 1:
        for task, extract in (("binary_hp", hp_answers), ("pairwise", picks)):
            annotations = {h: extract(t) for h, t in human_tables.items()}
            for m in models:
                result = alt_test(annotations, extract(tables_of(study.models[m])), p.stats["alt_test_epsilon"],
                                  alpha=p.stats["alpha"])
                rows.append({"answers": task, "em_model": study.models[m], **result})
    write_csv(pd.DataFrame(rows), snakemake.output.alt_test)
    log.info("%d human raters, %d models", len(humans), len(models))

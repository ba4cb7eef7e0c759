"""Rule score_model: every metric of one model and mode, under both rule sets."""

import pandas as pd
from eibench.metrics import RULE_SETS
from eibench.metrics.score import model_summary, score_rule_sets
from eibench.release.tidy import EM_TABLES, GOLD_TABLES
from eibench.report.invalid import invalid_answers
from eibench.runlog import rule_log
from eibench.tables import read_parquet, write_parquet

with rule_log(snakemake) as log:  # noqa: F821
    p = snakemake.params
    gold = {name: read_parquet(snakemake.input[f"gold_{name}"], GOLD_TABLES[name]) for name in GOLD_TABLES}
    em = {name: read_parquet(snakemake.input[f"em_{name}"], EM_TABLES[name]) for name in EM_TABLES}
    parts = {"turn": [], "conversation": [], "summary": [], "rule_counts": [], "missing": []}
    for rule_set, s in score_rule_sets(gold, em, RULE_SETS, p.va_matching).items():
        summary = model_summary(s.turn, s.conversation, len(gold["conversations"]))
        summary.insert(0, "rule_set", rule_set)
        for name, df in (("turn", s.turn), ("conversation", s.conversation), ("summary", summary),
                         ("rule_counts", s.rule_counts), ("missing", s.missing)):
            parts[name].append(df)
    parts["invalid"] = [invalid_answers(em)]
    for name, frames in parts.items():
        df = pd.concat(frames, ignore_index=True)
        df.insert(0, "mode", p.mode)
        df.insert(0, "em_model", p.model)
        write_parquet(df, snakemake.output[name])
    log.info("scored %s (%s): %d conversations", p.model, p.mode, len(parts["conversation"][0]))

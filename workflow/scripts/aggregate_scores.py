"""Rule aggregate_scores: every model's scores in one place, and the data dictionary."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import pandas as pd
from eibench.metrics.availability import conversations_with_values
from eibench.metrics.registry import ANALYSABLE, data_dictionary
from eibench.report.leaderboard import leaderboard
from eibench.runlog import rule_log
from eibench.tables import concat_parquet, write_csv, write_parquet

with rule_log(snakemake) as log:  # noqa: F821
    p = snakemake.params

    def gather(files):
        return pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)

    summary = gather(snakemake.input.summary)
    rule_counts = gather(snakemake.input.rule_counts)
    write_csv(gather(snakemake.input.invalid), snakemake.output.invalid)
    roles = pd.DataFrame([(name, role) for name, role in p.roles.items()], columns=["em_model", "role"])
    summary = summary.merge(roles, on="em_model", how="left")
    write_parquet(summary, snakemake.output.summary)
    # The two large tables are concatenated in Arrow, not in pandas: a fraction of the memory.
    concat_parquet(snakemake.input.conversation, snakemake.output.conversation)
    concat_parquet(snakemake.input.turn, snakemake.output.turn)
    write_csv(rule_counts, snakemake.output.rule_counts)
    # The cohort's principal metrics (statistics.principal_metrics), not the registry's: the
    # dictionary's principal flags (the paper's Table 1) and the leaderboard's extra columns.
    # Beside them, the conversations in which each metric has a value under the statistics'
    # mode and the strict rules (any model): what the cohort's annotations give, without the
    # parity defaults that fill a gap (a conversation without a survey is scored against empty
    # answers under parity). Table 1 marks the metrics this cohort cannot score.
    scores = pd.read_parquet(
        snakemake.output.conversation, columns=["conversation_id", "mode", "rule_set", *ANALYSABLE]
    )
    with_values = conversations_with_values(scores, ANALYSABLE, p.stats_mode, "strict")
    write_csv(data_dictionary(p.principal, with_values), snakemake.output.dictionary)
    board = leaderboard(summary, tuple(p.ranked_roles), p.principal)
    write_csv(board, snakemake.output.leaderboard)
    log.info("aggregated %d models x modes", summary[["em_model", "mode"]].drop_duplicates().shape[0])

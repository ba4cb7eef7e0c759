"""Rule figure_rank_intervals: each model's rank on the composite with its 95% bootstrap interval."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from eibench.report import stat_figures, style
from eibench.runlog import rule_log

with rule_log(snakemake) as log:  # noqa: F821
    table = stat_figures.read_table(snakemake.input.rank_intervals)
    fig = stat_figures.rank_intervals(table, stat_figures.provenance(snakemake), metric=snakemake.params.metric)
    style.save(fig, snakemake.output.figure)
    log.info("drew the ranks of %d models", (table["metric"] == snakemake.params.metric).sum() if len(table) else 0)

"""Rule figure_humans: human minus model per metric and model with 95% intervals."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from eibench.report import stat_figures, style
from eibench.runlog import rule_log

with rule_log(snakemake) as log:  # noqa: F821
    table = stat_figures.read_table(snakemake.input.humans)
    fig = stat_figures.humans_vs_models(table, stat_figures.provenance(snakemake))
    style.save(fig, snakemake.output.figure)
    log.info("drew %d comparisons", len(table))

"""Rule figure_drift: within-conversation slope per model and metric with 95% intervals."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from eibench.report import stat_figures, style
from eibench.runlog import rule_log

with rule_log(snakemake) as log:  # noqa: F821
    table = stat_figures.read_table(snakemake.input.drift)
    fig = stat_figures.drift(table, stat_figures.provenance(snakemake))
    style.save(fig, snakemake.output.figure)
    log.info("drew %d slopes", len(table))

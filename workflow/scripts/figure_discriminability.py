"""Rule figure_discriminability: reliability, signal-to-noise ratio and pairs separated per metric."""

from eibench.report import stat_figures, style
from eibench.runlog import rule_log

with rule_log(snakemake) as log:  # noqa: F821
    table = stat_figures.read_table(snakemake.input.discriminability)
    fig = stat_figures.discriminability(table, stat_figures.provenance(snakemake))
    style.save(fig, snakemake.output.figure)
    log.info("drew %d metrics", len(table))

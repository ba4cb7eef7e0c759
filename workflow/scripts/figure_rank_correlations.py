"""Rule figure_rank_correlations: heatmap of Kendall tau-b between the metrics' model rankings."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from eibench.report import stat_figures, style
from eibench.runlog import rule_log

with rule_log(snakemake) as log:  # noqa: F821
    pairs = stat_figures.read_table(snakemake.input.pairs)
    fig = stat_figures.rank_correlation_heatmap(pairs, stat_figures.provenance(snakemake))
    style.save(fig, snakemake.output.figure)
    log.info("drew %d metric pairs", len(pairs))

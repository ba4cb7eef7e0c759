"""Rule figure_profiles: each model's principal metrics with 95% intervals (small multiples)."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from eibench.report import stat_figures, style
from eibench.runlog import rule_log

with rule_log(snakemake) as log:  # noqa: F821
    intervals = stat_figures.with_roles(stat_figures.read_table(snakemake.input.intervals), snakemake.params.roles)
    fig = stat_figures.capability_profiles(
        intervals, stat_figures.provenance(snakemake), metrics=tuple(snakemake.params.metrics)
    )
    style.save(fig, snakemake.output.figure)
    log.info("drew %d rows of intervals", len(intervals))

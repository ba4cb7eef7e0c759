"""Rule figure_simulation: false-positive rates against their band and coverage of planted effects."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from eibench.report import stat_figures, style
from eibench.runlog import rule_log

with rule_log(snakemake) as log:  # noqa: F821
    null_rates = stat_figures.read_table(snakemake.input.null_rates)
    planted = stat_figures.read_table(snakemake.input.planted)
    fig = stat_figures.simulation_calibration(
        null_rates,
        planted,
        stat_figures.provenance(snakemake),
        nominal_coverage=snakemake.params.nominal_coverage,
    )
    style.save(fig, snakemake.output.figure)
    log.info("drew %d null tests and %d planted effects", len(null_rates), len(planted))

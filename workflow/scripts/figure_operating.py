"""Rule figure_operating: the design curves (power against models and participants, reliability
and signal-to-noise against conversations)."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import pandas as pd
from eibench.report import operating_figure, style
from eibench.runlog import rule_log

with rule_log(snakemake) as log:  # noqa: F821
    i = snakemake.input  # noqa: F821
    fig = operating_figure.design_curves(
        pd.read_csv(i.models), pd.read_csv(i.participants), pd.read_csv(i.conversations), snakemake.params.power_bar
    )  # noqa: F821
    style.save(fig, snakemake.output.figure)  # noqa: F821
    log.info("drew the design curves")

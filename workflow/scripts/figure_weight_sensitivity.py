"""Rule figure_weight_sensitivity: probability of rank 1 under random pillar weights, and the
ranks under published and equal weights."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import json

import pandas as pd
from eibench.report import style
from eibench.report.weight_figure import weight_sensitivity
from eibench.runlog import rule_log

with rule_log(snakemake) as log:  # noqa: F821
    table = pd.read_csv(snakemake.input.weights)
    summary = json.load(open(snakemake.input.summary))
    style.save(weight_sensitivity(table, summary["concentration"]), snakemake.output.figure)
    log.info("drew the weight sensitivity of %d models", len(table))

"""Rule figure_leaderboard: forest plot of the composite per model (default mode, parity), one
panel per block of the printed leaderboard (ranked models, baselines, human raters)."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import pandas as pd
from eibench.report import stat_figures, style
from eibench.runlog import rule_log

with rule_log(snakemake) as log:  # noqa: F821
    board = pd.read_csv(snakemake.input.leaderboard)
    board = board[(board["mode"] == snakemake.params.mode) & (board["rule_set"] == "parity")]
    fig = stat_figures.forest(board, "composite", stat_figures.provenance(snakemake))
    style.save(fig, snakemake.output.figure)
    log.info("drew %d models", len(board))

"""Rule figure_leaderboard: forest plot of the composite per model (default mode, parity)."""

import pandas as pd
from eibench.report import figures, style
from eibench.runlog import rule_log

with rule_log(snakemake) as log:  # noqa: F821
    board = pd.read_csv(snakemake.input.leaderboard)
    board = board[(board["mode"] == snakemake.params.mode) & (board["rule_set"] == "parity")]
    fig = figures.forest(board, "composite", "rule figure_leaderboard · workflow/scripts/figure_leaderboard.py")
    style.save(fig, snakemake.output.figure)
    log.info("drew %d models", len(board))

"""Rule truth_curves: the expected value of each non-binary metric against the logit of its
capability, per conversation and turn, by seeded Monte Carlo (eibench.synthetic.expected_mc)."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from eibench.release.tidy import GOLD_TABLES
from eibench.runlog import rule_log
from eibench.synthetic.expected_mc import accuracy_curves, curves_frame, grid_of
from eibench.tables import read_parquet, write_parquet

with rule_log(snakemake) as log:  # noqa: F821
    p, i = snakemake.params, snakemake.input
    gold = {name: read_parquet(i[name], GOLD_TABLES[name]) for name in GOLD_TABLES}
    grid = grid_of(p.truth["logit_grid"])
    curves = accuracy_curves(
        gold,
        p.simulation,
        p.seed,
        p.mode,
        p.romantic_category,
        grid,
        p.truth["draws"],
        p.scoring["va_matching"],
        p.scoring["compat"],
    )
    write_parquet(curves_frame(curves), snakemake.output.curves)
    log.info("%d logits x %d draws", len(grid), p.truth["draws"])

"""Rule stats_seed_noise: every simulated model's answers drawn again (uncertainty.seed_noise.draws
times), scored in memory, and the spread of its composite beside its bootstrap interval."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import pandas as pd
from eibench.release.tidy import GOLD_TABLES
from eibench.runlog import rule_log
from eibench.synthetic.redraw import SPREAD_COLUMNS, redrawn_composites, spread
from eibench.tables import read_parquet, write_csv

with rule_log(snakemake) as log:  # noqa: F821
    p, i, o = snakemake.params, snakemake.input, snakemake.output
    gold = {name: read_parquet(i[name], GOLD_TABLES[name]) for name in GOLD_TABLES}
    draws = redrawn_composites(
        gold,
        dict(p.profiles),
        p.simulation,
        p.seed,
        p.mode,
        p.romantic_category,
        p.draws,
        p.scoring["va_matching"],
        p.scoring["compat"],
    )
    schemes = pd.read_csv(i.schemes)
    published = schemes[schemes["scheme"] == p.primary][["em_model", "estimate", "width"]]
    write_csv(draws, o.draws)
    write_csv(
        spread(draws, published) if len(draws) else pd.DataFrame(columns=SPREAD_COLUMNS),
        o.spread,
    )
    log.info("%d simulated models, %d redraws each", len(p.profiles), p.draws)

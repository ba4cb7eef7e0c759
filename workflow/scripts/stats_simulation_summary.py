"""Rule stats_simulation_summary: false-positive rates under the null, and sign recovery and
coverage of the planted effects."""

import pandas as pd
from eibench.runlog import rule_log
from eibench.stats.simulation import planted_generator, summarise_null, summarise_planted
from eibench.tables import write_csv

with rule_log(snakemake) as log:  # noqa: F821
    p = snakemake.params
    null = pd.concat([pd.read_parquet(f) for f in snakemake.input.null], ignore_index=True).sort_values("simulation")
    planted = pd.concat([pd.read_parquet(f) for f in snakemake.input.planted], ignore_index=True).sort_values("simulation")
    write_csv(summarise_null(null, p.stats["alpha"]), snakemake.output.null)
    write_csv(summarise_planted(planted, planted_generator(p.stats["simulation"]["planted"])), snakemake.output.planted)
    log.info("%d null and %d planted studies", len(null), len(planted))

"""Rule stats_simulation_summary: false-positive rates under the null, and sign recovery and
coverage of the planted effects; the tests this cohort's design cannot support are listed with
their reason."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import json

import pandas as pd
from eibench.runlog import rule_log
from eibench.stats.simulation import generator_design, left_out, planted_generator, summarise_null, summarise_planted
from eibench.tables import write_csv

with rule_log(snakemake) as log:  # noqa: F821
    p = snakemake.params
    design = json.load(open(snakemake.input.design))
    left = left_out(design, p.stats["alpha"], p.stats["claims"])
    null = pd.concat([pd.read_parquet(f) for f in snakemake.input.null], ignore_index=True).sort_values("simulation")
    planted = pd.concat([pd.read_parquet(f) for f in snakemake.input.planted], ignore_index=True).sort_values(
        "simulation"
    )
    write_csv(summarise_null(null, p.stats["alpha"], left), snakemake.output.null)
    # The planted generator of this design: the planted effect on the composite is that of the
    # cohort's composite, from the parts of it the cohort has.
    generator = planted_generator(
        p.stats["simulation"]["planted"], generator_design(design, p.stats["alpha"], p.stats["claims"])
    )
    write_csv(summarise_planted(planted, generator, left, p.stats["alpha"]), snakemake.output.planted)
    log.info("%d null and %d planted studies; left out: %s", len(null), len(planted), left)

"""Rule stats_simulate: one part of the validation by simulation (null or planted studies)."""

import warnings

import pandas as pd
from eibench.runlog import rule_log
from eibench.seeding import rng_for
from eibench.stats.simulation import null_generator, planted_generator, simulate_and_test
from eibench.tables import write_parquet

with rule_log(snakemake) as log:  # noqa: F821
    p = snakemake.params
    sim = p.stats["simulation"]
    generator = null_generator() if p.kind == "null" else planted_generator(sim["planted"])
    n = sim["n_null"] if p.kind == "null" else sim["n_planted"]
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence chatter of mixed models on small random effects
        for i in range(p.part, n, sim["jobs"]):
            rng = rng_for(p.seed, "simulation", p.kind, str(i))
            rows.append({"simulation": i, **simulate_and_test(generator, sim["n_bootstrap"], rng, p.stats["alpha"])})
    write_parquet(pd.DataFrame(rows), snakemake.output.results)
    log.info("%s simulations: %d studies", p.kind, len(rows))

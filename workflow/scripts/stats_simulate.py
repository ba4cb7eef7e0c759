"""Rule stats_simulate: one part of the validation by simulation (null or planted studies)."""

import json
import warnings

import pandas as pd
from eibench.runlog import rule_log
from eibench.seeding import rng_for
from eibench.stats.simulation import generator_design, null_generator, planted_generator, simulate_and_test
from eibench.tables import write_parquet

with rule_log(snakemake) as log:  # noqa: F821
    p, i = snakemake.params, snakemake.input
    sim = p.stats["simulation"]
    # Simulated studies copy this one's design (results/stats/design.json); a test the design
    # cannot support is left out.
    design = generator_design(json.load(open(i.design)), p.stats["alpha"])
    log.info("design: %d conversations, %d participants (%d diagnosed), %d models, %d raters; left out: %s",
             design["n_conversations"], design["n_participants"], design["n_diagnosed"], design["n_models"],
             design["n_humans"], sorted(design["skip"]))
    generator = null_generator(design) if p.kind == "null" else planted_generator(sim["planted"], design)
    n = sim["n_null"] if p.kind == "null" else sim["n_planted"]
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence chatter of mixed models on small random effects
        for i in range(p.part, n, sim["jobs"]):
            rng = rng_for(p.seed, "simulation", p.kind, str(i))
            rows.append({"simulation": i, **simulate_and_test(generator, sim["n_bootstrap"], rng, p.stats["alpha"])})
    write_parquet(pd.DataFrame(rows), snakemake.output.results)
    log.info("%s simulations: %d studies", p.kind, len(rows))

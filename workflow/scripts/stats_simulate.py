"""Rule stats_simulate: one part of the validation by simulation (null or planted studies)."""

import warnings

import pandas as pd
from eibench.runlog import rule_log
from eibench.seeding import rng_for
from eibench.stats.load import load_study
from eibench.stats.simulation import design_of, null_generator, planted_generator, simulate_and_test
from eibench.tables import write_parquet

with rule_log(snakemake) as log:  # noqa: F821
    p, i = snakemake.params, snakemake.input
    sim = p.stats["simulation"]
    # Simulated studies have the design of this one (sizes, diagnosed share, raters).
    design = design_of(load_study(i.conversation_scores, i.turn_scores, i.conversations, i.participants, p.roles,
                                  p.stats))
    log.info("design: %s", design)
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

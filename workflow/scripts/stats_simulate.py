"""Rule stats_simulate: one part of the validation by simulation (null or planted studies)."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import json

from eibench.runlog import rule_log
from eibench.seeding import rng_for
from eibench.stats.simulation import generator_design, null_generator, planted_generator
from eibench.stats.simulation_batch import shared_weights, simulate_and_test_many
from eibench.tables import write_parquet

with rule_log(snakemake) as log:  # noqa: F821
    p, i = snakemake.params, snakemake.input
    sim = p.stats["simulation"]
    # Simulated studies copy this one's design (results/stats/design.json); a test the design
    # cannot support is left out.
    design = generator_design(json.load(open(i.design)), p.stats["alpha"], p.stats["claims"])
    log.info(
        "design: %d conversations, %d participants (%d diagnosed), %d models, %d raters; left out: %s",
        design["n_conversations"],
        design["n_participants"],
        design["n_diagnosed"],
        design["n_models"],
        design["n_humans"],
        sorted(design["skip"]),
    )
    generator = null_generator(design) if p.kind == "null" else planted_generator(sim["planted"], design)
    n = sim["n_null"] if p.kind == "null" else sim["n_planted"]
    # The studies of this part as one array dimension (simulation_batch.py); null and planted
    # studies share the bootstrap weights, and each study draws from its own generator.
    index = list(range(p.part, n, sim["jobs"]))
    rngs = [rng_for(p.seed, "simulation", p.kind, str(i)) for i in index]
    weights = shared_weights(generator, sim["n_bootstrap"], rng_for(p.seed, "simulation", "resampling"))
    results = simulate_and_test_many(
        generator, rngs, weights, p.stats["alpha"], design_rng=rng_for(p.seed, "simulation", "design")
    )
    results.insert(0, "simulation", index)
    write_parquet(results, snakemake.output.results)
    log.info("%s simulations: %d studies", p.kind, len(results))

"""Rule eqbench_replication: EQ-Bench scores recomputed and the ranking-reliability curve."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from eibench.public.replications import eqbench_replication
from eibench.runlog import rule_log
from eibench.seeding import rng_for
from eibench.tables import json_text, write_csv, write_text

with rule_log(snakemake) as log:  # noqa: F821
    s, o = snakemake.params.settings, snakemake.output
    tables, summary = eqbench_replication(
        snakemake.input.data,
        s["sizes"],
        s["draws"],
        rng_for(snakemake.params.seed, "eqbench", "curve"),
        s["target_tau"],
        s["items_in_question"],
    )
    write_csv(tables["scores"], o.scores)
    write_csv(tables["curve"], o.curve)
    write_text(json_text(summary), o.summary)
    log.info(
        "EQ-Bench: %d of %d stored scores recomputed within 0.02 (max |difference| %.4f)",
        summary["n_within"],
        summary["n_models"],
        summary["max_abs_difference"],
    )

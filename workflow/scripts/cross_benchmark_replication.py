"""Rule cross_benchmark_replication: rank agreement between EQ-Bench and EmoBench-M on the model
families both cover."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from eibench.public.replications import cross_benchmark_replication
from eibench.report.cross_benchmark_table import display_table
from eibench.runlog import rule_log
from eibench.seeding import rng_for
from eibench.tables import json_text, write_csv, write_text

with rule_log(snakemake) as log:  # noqa: F821
    s, o = snakemake.params.settings, snakemake.output
    tables, summary = cross_benchmark_replication(
        snakemake.input.eqbench,
        snakemake.input.emobench_m,
        s["n_bootstrap"],
        s["n_permutations"],
        rng_for(snakemake.params.seed, "cross_benchmark"),
        snakemake.input.mapping,
    )
    for name in ("pairs", "agreement", "units"):
        write_csv(tables[name], o[name])
    write_csv(display_table(tables["agreement"]), o.table)
    write_text(json_text(summary), o.summary)
    log.info(
        "cross-benchmark: %d family units (tau %.2f, p %.3f), %d developer units (tau %.2f, p %.3f)",
        summary["n_family_units"],
        summary["family_tau"],
        summary["family_p_permutation"],
        summary["n_developer_units"],
        summary["developer_tau"],
        summary["developer_p_permutation"],
    )

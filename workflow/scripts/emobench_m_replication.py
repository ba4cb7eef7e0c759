"""Rule emobench_m_replication: EmoBench-M averages, rank independence, discriminability, human gaps."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from eibench.public.replications import emobench_m_replication
from eibench.runlog import rule_log
from eibench.seeding import stable_int
from eibench.tables import json_text, write_csv, write_text

with rule_log(snakemake) as log:  # noqa: F821
    s, o = snakemake.params.settings, snakemake.output
    seed = stable_int(f"{snakemake.params.seed}/emobench_m/bootstrap")
    tables, summary = emobench_m_replication(snakemake.input.data, s["n_bootstrap"], seed)
    for name, df in tables.items():
        write_csv(df, o[name])
    write_text(json_text(summary), o.summary)
    log.info(
        "EmoBench-M: %d of %d averages within 0.05, %d known print errors, %d unexplained",
        summary["n_averages_within"],
        summary["n_averages"],
        summary["n_print_errors"],
        summary["n_unexplained"],
    )

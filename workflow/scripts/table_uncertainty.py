"""Rule table_uncertainty: the display tables of the uncertainty section and its appendix."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from eibench.report.claim_schemes_numbers import claim_schemes_table, read_claim_schemes
from eibench.report.uncertainty_numbers import display_tables
from eibench.runlog import rule_log
from eibench.tables import write_csv

with rule_log(snakemake) as log:  # noqa: F821
    tables = display_tables(
        {k: snakemake.input[k] for k in ("schemes", "adjacent", "reliability", "breakdowns")},
        snakemake.params.uncertainty,
        snakemake.params.model_roles,
        n_bootstrap=snakemake.params.n_bootstrap,
    )
    u = snakemake.params.uncertainty
    tables["uncertainty_claims"] = claim_schemes_table(
        read_claim_schemes(snakemake.input.claims, u["schemes"]), u["schemes"], u["primary"]
    )
    for name, table in tables.items():
        write_csv(table, snakemake.output[name])
    log.info("wrote %d tables", len(tables))

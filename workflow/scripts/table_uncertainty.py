"""Rule table_uncertainty: the display tables of the uncertainty section and its appendix."""

from eibench.report.uncertainty_numbers import display_tables
from eibench.runlog import rule_log
from eibench.tables import write_csv

with rule_log(snakemake) as log:  # noqa: F821
    tables = display_tables(
        {k: snakemake.input[k] for k in ("schemes", "adjacent", "reliability", "breakdowns")},
        snakemake.params.uncertainty,
    )
    for name, table in tables.items():
        write_csv(table, snakemake.output[name])
    log.info("wrote %d tables", len(tables))

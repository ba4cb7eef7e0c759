"""Rule table_scaling: the scaling study's measured record (benchmarks/records/scaling.csv),
validated, as the table of the paper's reproducibility section, with its provenance (machine,
commit, date) for the caption."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import json
import math

from eibench.report.scaling import exponents, paper_table, provenance, read_record
from eibench.runlog import rule_log
from eibench.tables import write_csv, write_text

with rule_log(snakemake) as log:  # noqa: F821
    record = read_record(snakemake.input.record)
    table = paper_table(record)
    # An exponent that needs a configuration the record lacks is null (JSON has no NaN).
    fitted = {
        col: {span: v if math.isfinite(v) else None for span, v in spans.items()}
        for col, spans in exponents(record).items()
    }
    meta = {**provenance(record), "exponents": fitted}
    write_csv(table, snakemake.output.table)
    write_text(json.dumps(meta, indent=2, sort_keys=True, allow_nan=False) + "\n", snakemake.output.provenance)
    log.info("scaling record of %s (commit %s): %d configurations", meta["machine"], meta["commit"], len(record))

"""Rule paper: compile the Typst manuscript into the PDF (fixed timestamp: identical bytes)."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import datetime
from pathlib import Path

import typst
from eibench.runlog import rule_log
from eibench.tables import atomic_path

with rule_log(snakemake) as log:  # noqa: F821
    out = Path(snakemake.output.pdf)
    out.parent.mkdir(parents=True, exist_ok=True)
    pdf = typst.compile(snakemake.input.main, root=".", timestamp=snakemake.params.timestamp)
    tmp = atomic_path(out)  # a unique sibling: nothing half-written under the output's name
    try:
        tmp.write_bytes(pdf)
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)
    log.info(
        "compiled %s (%d bytes, timestamp %s)",
        out,
        len(pdf),
        datetime.datetime.fromtimestamp(snakemake.params.timestamp, datetime.timezone.utc).isoformat(),
    )

"""Rule esconv_cohort: ESConv's split files -> one release-format conversation file each."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import json

from eibench.public.esconv import write_cohort
from eibench.runlog import rule_log
from eibench.tables import write_text

with rule_log(snakemake) as log:  # noqa: F821
    counts = write_cohort(
        snakemake.input[0],
        snakemake.output.conversations,
        limit=snakemake.params.limit,
        splits=snakemake.params.splits,
        max_turns=snakemake.params.max_turns,
    )
    write_text(json.dumps(counts, indent=1, sort_keys=True) + "\n", snakemake.output.counts)
    log.info(
        "adapted %d ESConv conversations (%d turns) into %s",
        counts["conversations"],
        counts["turns"],
        snakemake.output.conversations,
    )

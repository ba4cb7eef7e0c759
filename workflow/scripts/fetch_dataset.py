"""Rule fetch_dataset: a registered public dataset in results/data/<name>/, checksums verified."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from pathlib import Path

from eibench.public.fetch import fetch_dataset
from eibench.runlog import rule_log

with rule_log(snakemake) as log:  # noqa: F821
    p = snakemake.params
    for f in fetch_dataset(p.dataset, p.spec, Path(snakemake.output[0])):
        log.info("%s: %s (sha256 %s)", f.file, f.origin, f.sha256)
    log.info(
        "dataset %s: %d files (licence: %s; cite: %s)",
        p.dataset,
        len(p.spec["files"]),
        p.spec["licence"],
        p.spec["citation"],
    )

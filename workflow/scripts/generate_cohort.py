"""Rule synthetic_cohort: write the synthetic cohort's conversation files and planted truth."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

from dataclasses import asdict
from pathlib import Path

from eibench.release.write import write_json
from eibench.runlog import rule_log
from eibench.synthetic.cohort import generate_cohort

with rule_log(snakemake) as log:  # noqa: F821 (snakemake is injected by the script directive)
    files, truth = generate_cohort(snakemake.params.synthetic, snakemake.params.seed)
    outdir = Path(snakemake.output.conversations)
    outdir.mkdir(parents=True, exist_ok=True)
    for name, conversation in files.items():
        write_json(conversation, outdir / name)
    write_json(asdict(truth), snakemake.output.truth)
    log.info("wrote %d conversation files to %s", len(files), outdir)

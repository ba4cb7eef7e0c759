"""Rule manifest: every file of results/ and the paper with its sha256 and the job that wrote it."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import json
from pathlib import Path

from eibench.report.manifest import build_manifest, of_this_run, read_provenance, results_files
from eibench.runlog import rule_log
from eibench.tables import write_text

with rule_log(snakemake) as log:  # noqa: F821
    p, out = snakemake.params, snakemake.output.manifest
    root = Path(".")
    paths = results_files(root, p.folders, exclude=[out], exclude_folders=p.exclude_folders)
    # The manifest's own log is being written now; it is not a record of an earlier job.
    logs = [f for f in Path(p.logs).rglob("*.log") if f != Path(snakemake.log[0])]
    jobs = read_provenance(logs)
    # Only the files of this run: those whose job is upstream of the paper (results/ can hold
    # the files of other configurations, whose records no longer describe their inputs).
    paths, others = of_this_run(paths, jobs, snakemake.input)
    if others:
        log.warning(
            "%d files of results/ are not of this run (another configuration's, or written outside the "
            "workflow) and are not listed, e.g. %s",
            len(others),
            ", ".join(others[:5]),
        )
    manifest = build_manifest(root, paths, jobs)
    write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", out)
    log.info("manifest: %d files, %d jobs", len(manifest["files"]), len(manifest["jobs"]))

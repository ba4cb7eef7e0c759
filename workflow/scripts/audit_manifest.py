"""Rule manifest: every file of results/ and the paper with its sha256 and the job that wrote it."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import json
from pathlib import Path

from eibench.report.manifest import build_manifest, read_provenance, results_files
from eibench.runlog import rule_log
from eibench.tables import write_text

with rule_log(snakemake) as log:  # noqa: F821
    p, out = snakemake.params, snakemake.output.manifest
    root = Path(".")
    paths = results_files(root, p.folders, exclude=[out], exclude_folders=p.exclude_folders)
    # The manifest's own log is being written now; it is not a record of an earlier job.
    logs = [f for f in Path(p.logs).rglob("*.log") if f != Path(snakemake.log[0])]
    manifest = build_manifest(root, paths, read_provenance(logs))
    unowned = [e["path"] for e in manifest["files"] if e["job"] is None]
    if unowned:
        log.warning(
            "%d files have no job record (written outside this workflow or by an older version), e.g. %s",
            len(unowned),
            ", ".join(unowned[:5]),
        )
    write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", out)
    log.info("manifest: %d files, %d jobs", len(manifest["files"]), len(manifest["jobs"]))

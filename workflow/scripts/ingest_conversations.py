"""Rule ingest_conversations: validate the cohort's conversation files into tidy tables.

Every file is validated before anything is written; an invalid file stops the job with the
file name, JSON path and problem, and no table is written.
"""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import json
from pathlib import Path

from eibench.release.gold_report import ingest_report, ingest_warnings
from eibench.release.read import list_json_files, read_conversations
from eibench.release.tidy import GOLD_TABLES, gold_tables
from eibench.runlog import rule_log
from eibench.tables import write_parquet, write_text

with rule_log(snakemake) as log:  # noqa: F821
    cohort_dir = Path(snakemake.input[0])  # the cohort's folder (its files' digest is a param)
    files = list_json_files(cohort_dir)
    if not files:
        raise FileNotFoundError(f"no conversation files (*.json) in {cohort_dir}")
    parsed = read_conversations(files, report_all=snakemake.params.report_all)
    tables = gold_tables(parsed)
    for name, df in tables.items():
        write_parquet(df, snakemake.output[name], GOLD_TABLES[name])
    report = ingest_report(tables, len(files))
    write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", snakemake.output.report)
    log.info("validated %d conversation files: %s", len(files), report["rows"])
    for warning in ingest_warnings(report):
        log.warning("%s", warning)

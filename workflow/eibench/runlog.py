"""Logging for rule scripts: everything goes to the rule's ``log:`` file.

Use ``with rule_log(snakemake) as log:`` in a rule script. An exception is written to the log
with its full message and re-raised, so Snakemake stops the job, removes its partial outputs
and shows the message (an exception whose class sets ``for_people``, such as an invalid
release-format file, is printed once, from the log, without its traceback). A job that succeeds ends its log with one
provenance line (rule, script,
wildcards, inputs, outputs, params) that the manifest (rule manifest) reads back.

Inside the block the job has a temporary folder of its own (:func:`job_tmpdir`): jobs that share
a node of a cluster, or a machine, never see each other's temporary files.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from .tmpdirs import owned_tmpdir, sweep_stale

PROVENANCE_TAG = "PROVENANCE "


def _paths(files: Any) -> list[str]:
    return [str(f) for f in files]


def provenance(smk: Any, script: str | None) -> dict[str, Any]:
    """What made a job's outputs: its rule, script (relative to the working directory when
    inside it), wildcards, inputs, outputs and params (JSON-safe; other values as text)."""
    if script is not None and os.path.isabs(script):
        try:
            script = os.path.relpath(script)
        except ValueError:  # another drive (Windows)
            pass
    params = json.loads(json.dumps({k: v for k, v in smk.params.items()}, sort_keys=True, default=str))
    return {
        "rule": smk.rule,
        "script": script,
        "wildcards": dict(smk.wildcards.items()),
        "input": _paths(smk.input),
        "output": _paths(smk.output),
        "params": params,
    }


TMP_VARIABLES = ("TMPDIR", "TMP", "TEMP", "TEMPDIR")


@contextmanager
def job_tmpdir(smk: Any) -> Iterator[Path]:
    """A fresh folder inside the job's ``tmpdir`` resource (Snakemake's default: the system's
    temporary folder as the job sees it, on a cluster the node's scratch space), set as TMPDIR
    (and TMP, TEMP, TEMPDIR) for the job and what it starts, and as Python's ``tempfile``
    folder; removed with its contents when the block ends, whether or not it raised."""
    resources = getattr(smk, "resources", None)
    base = getattr(resources, "tmpdir", None) or tempfile.gettempdir()
    sweep_stale(base)  # the folders of killed jobs (eibench.tmpdirs)
    path = owned_tmpdir(smk.rule, base)
    saved_env = {name: os.environ.get(name) for name in TMP_VARIABLES}
    saved_tempdir = tempfile.tempdir
    os.environ.update({name: str(path) for name in TMP_VARIABLES})
    tempfile.tempdir = str(path)
    try:
        yield path
    finally:
        tempfile.tempdir = saved_tempdir
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(path, ignore_errors=True)


@contextmanager
def rule_log(smk: Any) -> Iterator[logging.Logger]:
    log_file = Path(smk.log[0])
    log_file.parent.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(
        filename=log_file,
        filemode="w",
        level=logging.INFO,
        force=True,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)  # not one line per HTTP request
    logging.getLogger("httpcore").setLevel(logging.WARNING)
    logger = logging.getLogger(smk.rule)
    try:
        with job_tmpdir(smk):
            yield logger
    except Exception as exc:
        logger.error("%s: %s", type(exc).__name__, exc)
        if getattr(exc, "for_people", False):
            # The message names the files and fields; Snakemake prints this log below the job's
            # error (profiles/default: show-failed-logs), so a traceback would only repeat it.
            print(f"{type(exc).__name__} (the problems are in {log_file}, printed below)", file=sys.stderr)
            raise SystemExit(1) from None
        raise
    # Snakemake runs a copy of the script and sets __file__ of __main__ to the original path.
    script = getattr(sys.modules.get("__main__"), "__file__", None)
    logger.info("%s%s", PROVENANCE_TAG, json.dumps(provenance(smk, script), sort_keys=True))

"""Logging for rule scripts: everything goes to the rule's ``log:`` file.

Use ``with rule_log(snakemake) as log:`` in a rule script. An exception is written to the log
with its full message and re-raised, so Snakemake stops the job, removes its partial outputs
and shows the message. A job that succeeds ends its log with one provenance line (rule, script,
wildcards, inputs, outputs, params) that the manifest (rule manifest) reads back.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

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
    return {"rule": smk.rule, "script": script, "wildcards": dict(smk.wildcards.items()),
            "input": _paths(smk.input), "output": _paths(smk.output), "params": params}


@contextmanager
def rule_log(smk: Any) -> Iterator[logging.Logger]:
    log_file = Path(smk.log[0])
    log_file.parent.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(
        filename=log_file, filemode="w", level=logging.INFO, force=True,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)  # not one line per HTTP request
    logging.getLogger("httpcore").setLevel(logging.WARNING)
    logger = logging.getLogger(smk.rule)
    try:
        yield logger
    except Exception as exc:
        logger.error("%s: %s", type(exc).__name__, exc)
        raise
    # Snakemake runs a copy of the script and sets __file__ of __main__ to the original path.
    script = getattr(sys.modules.get("__main__"), "__file__", None)
    logger.info("%s%s", PROVENANCE_TAG, json.dumps(provenance(smk, script), sort_keys=True))

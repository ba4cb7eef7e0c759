"""Logging for rule scripts: everything goes to the rule's ``log:`` file.

Use ``with rule_log(snakemake) as log:`` in a rule script. An exception is written to the log
with its full message and re-raised, so Snakemake stops the job, removes its partial outputs
and shows the message.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator


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

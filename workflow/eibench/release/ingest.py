"""One model's EM output files for one mode, validated into tidy tables.

The scoring rule calls this before it scores, in the same job: the files are read and checked
once, and an invalid file stops the job before any table or score is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import pandas as pd

from .read import list_json_files, read_em_outputs
from .tidy import em_tables

_POSITION_KEY = r"0|[1-9][0-9]*"


@dataclass(frozen=True)
class EMIngest:
    tables: dict[str, pd.DataFrame]  # the tidy EM tables (release.tidy.EM_TABLES)
    n_files: int
    off_position_keys: list[str]  # pairwise pick keys that are not a comparison position ('0', '1', ...)
    n_off_position: int


def em_files(sources: Iterable[str | Path]) -> list[Path]:
    """The EM output files of a model: every *.json of a folder (simulated, baseline and live
    shards) or the files themselves (an outputs_dir model), sorted."""
    return sorted(f for s in map(Path, sources) for f in (list_json_files(s) if s.is_dir() else [s]))


def ingest_em_outputs(
    sources: Iterable[str | Path], model: str, mode: str, known_conversations: set[str], report_all: bool = False
) -> EMIngest:
    """Validate a model's output files for one mode (``release.read.read_em_outputs``) and
    tidy them. Raises FileNotFoundError when there is no file, ReleaseFormatError (file, JSON
    path, problem) when a file is invalid."""
    sources = list(sources)
    files = em_files(sources)
    if not files:
        raise FileNotFoundError(
            f"model {model!r}, mode {mode!r}: no EM output files (*.json) in "
            f"{', '.join(map(str, sources)) or 'its folder (no file or folder was given)'}; "
            "collect predictions for this mode or remove the model/mode from the config"
        )
    tables = em_tables(read_em_outputs(files, model, mode, known_conversations, report_all=report_all))
    keys = tables["em_pairwise"]["key"].astype(str)
    off = ~keys.str.fullmatch(_POSITION_KEY)
    return EMIngest(tables, len(files), sorted(set(keys[off])), int(off.sum()))

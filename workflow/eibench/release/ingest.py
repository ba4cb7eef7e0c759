"""One model's EM output files for one mode, validated into tidy tables.

The scoring rule calls this before it scores, in the same job: the files are read and checked
once, and an invalid file stops the job before any table or score is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import pandas as pd

from .read import EMIdentity, em_cross_file_error, em_identities, list_json_files, read_em_files
from .tidy import em_tables

_POSITION_KEY = r"0|[1-9][0-9]*"


@dataclass(frozen=True)
class EMIngest:
    tables: dict[str, pd.DataFrame]  # the tidy EM tables (release.tidy.EM_TABLES)
    n_files: int
    off_position_keys: list[str]  # pairwise pick keys that are not a comparison position ('0', '1', ...)
    n_off_position: int


@dataclass(frozen=True)
class EMRead:
    """A model's output files for one mode, each valid on its own and tidied, before the
    checks across its files and against the cohort (``checked``). Needs no gold side, so it
    can be made while the conversation files are still being read (``metrics.cohort``)."""

    model: str
    mode: str
    tables: dict[str, pd.DataFrame]
    identities: list[EMIdentity]  # per file, in the order read


def em_files(sources: Iterable[str | Path]) -> list[Path]:
    """The EM output files of a model: every *.json of a folder (simulated, baseline and live
    shards) or the files themselves (an outputs_dir model), sorted."""
    return sorted(f for s in map(Path, sources) for f in (list_json_files(s) if s.is_dir() else [s]))


def read_em_tables(sources: Iterable[str | Path], model: str, mode: str, report_all: bool = False) -> EMRead:
    """Validate each of a model's output files for one mode (``release.read.read_em_files``)
    and tidy them. Raises FileNotFoundError when there is no file, ReleaseFormatError (file,
    JSON path, problem) when a file is invalid."""
    sources = list(sources)
    files = em_files(sources)
    if not files:
        raise FileNotFoundError(
            f"model {model!r}, mode {mode!r}: no EM output files (*.json) in "
            f"{', '.join(map(str, sources)) or 'its folder (no file or folder was given)'}; "
            "collect predictions for this mode or remove the model/mode from the config"
        )
    parsed = read_em_files(files, model, mode, report_all)
    return EMRead(model, mode, em_tables(parsed), em_identities(parsed))


def checked(read: EMRead, known_conversations: set[str]) -> EMIngest:
    """``read`` once its files pass the checks across them and against the cohort's
    conversations (``release.read.em_cross_file_error``, which it raises)."""
    error = em_cross_file_error(read.identities, read.model, read.mode, known_conversations)
    if error is not None:
        raise error
    keys = read.tables["em_pairwise"]["key"].astype(str)
    off = ~keys.str.fullmatch(_POSITION_KEY)
    return EMIngest(read.tables, len(read.identities), sorted(set(keys[off])), int(off.sum()))


def ingest_em_outputs(
    sources: Iterable[str | Path], model: str, mode: str, known_conversations: set[str], report_all: bool = False
) -> EMIngest:
    """Validate a model's output files for one mode (``release.read.read_em_outputs``: each
    file, then across them and against the cohort) and tidy them. Raises FileNotFoundError when
    there is no file, ReleaseFormatError (file, JSON path, problem) when a file is invalid."""
    return checked(read_em_tables(sources, model, mode, report_all), known_conversations)

"""What the ingest benchmarks (bench_ingest.py, bench_read_floor.py) read of a built run: its
folders, checked to exist, and each model's EM output sources. Standard library only, so that a
benchmark that imports it keeps its own import time."""

from __future__ import annotations

import sys
from pathlib import Path


def require_built(*folders: Path) -> None:
    """Exit with a message naming the first of ``folders`` that does not exist."""
    for folder in folders:
        if not folder.is_dir():
            sys.exit(
                f"{folder} does not exist: build the run first (snakemake --cores 2 results/scores/leaderboard.csv)"
            )


def model_sources(predictions: Path, mode: str) -> dict[str, list[Path]]:
    """Every model's sources for ``mode``, by model name (sorted): its shard folders, or its
    mode folder when it has none. A model without that mode folder is left out."""
    out = {}
    for model_dir in sorted(p for p in predictions.iterdir() if p.is_dir()):
        mode_dir = model_dir / mode
        if mode_dir.is_dir():
            shards = sorted(p for p in mode_dir.iterdir() if p.is_dir())
            out[model_dir.name] = shards or [mode_dir]
    return out

"""Merge a model's cache files into one verified file, ``<cache_dir>/<model>/merged.sqlite``.

    python -m eibench.predict.cache_merge <cache_dir> [--model NAME ...]

Run it when no collection job of the model runs (e.g. after a cluster run). It reads every
journal and every published SQLite file of the model (``cache.py``: snapshots, an earlier
``merged.sqlite``, files of the earlier format), never writes or deletes any of them, and
publishes the union atomically. Verification, before anything is published:

- a key stored twice with the same text is one entry (an identical duplicate: a journal and its
  snapshot, or an earlier merge); a key stored with two different texts is a **conflict**: the
  merge stops with a ``MergeConflict`` naming the key and both files, and writes nothing;
- after the build, every key of every source is read back from the new file with its text, and
  the file holds exactly the number of distinct keys read (each present once).

The earlier ``merged.sqlite`` is read first, so merging again without new answers gives the same
bytes (rows are stored in key order). Counts per file and in total are returned and printed.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from ..tmpdirs import owned_tmpdir
from .cache import (
    JOURNAL_SUFFIX,
    MERGED_NAME,
    SCHEMA,
    Record,
    open_published,
    publish_file,
    published_files,
    read_journal,
    read_sqlite,
    sort_into,
)


class MergeConflict(ValueError):
    """Two cache files hold different answers for the same key."""


@dataclass(frozen=True)
class Conflict:
    key: str
    file: str
    first_file: str

    def __str__(self) -> str:
        return f"key {self.key}: {self.file} has another text than {self.first_file}"


@dataclass
class MergeReport:
    """What one merge read and wrote. ``read``: entries per source file (name -> count);
    ``unreadable``: torn or damaged journal lines per file (not entries: never stored whole)."""

    directory: Path
    read: dict[str, int] = field(default_factory=dict)
    unreadable: dict[str, int] = field(default_factory=dict)
    entries: int = 0
    duplicates: int = 0
    conflicts: list[Conflict] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"{self.directory}:"]
        for name, n in self.read.items():
            torn = self.unreadable.get(name, 0)
            out.append(f"  {name}: {n} entries" + (f" ({torn} unreadable lines skipped)" if torn else ""))
        total = sum(self.read.values())
        out.append(
            f"  read {total} entries from {len(self.read)} files: {self.entries} distinct keys, "
            f"{self.duplicates} identical duplicates, {len(self.conflicts)} conflicts"
        )
        return out


def sources(directory: Path) -> list[Path]:
    """The files a merge reads: the earlier merged file first, then journals and published files by name."""
    directory = Path(directory)
    journals = [p for p in directory.glob(f"*{JOURNAL_SUFFIX}") if not p.name.startswith(".")]
    rest = sorted([*journals, *(p for p in published_files(directory) if p.name != MERGED_NAME)])
    merged = directory / MERGED_NAME
    return ([merged] if merged.exists() else []) + rest


def _records(path: Path, report: MergeReport) -> Iterator[Record]:
    if path.name.endswith(JOURNAL_SUFFIX):
        records, damaged = read_journal(path)
        if damaged:
            report.unreadable[path.name] = damaged
        yield from records
    else:
        yield from read_sqlite(path)


def merge_model(directory: str | Path) -> MergeReport:
    """Merge the cache files of one model folder into ``<directory>/merged.sqlite``.

    Raises ``MergeConflict`` (nothing written) when a key has two different texts, and
    ``RuntimeError`` when the written file fails its verification (then it is not published).
    """
    directory = Path(directory)
    files = sources(directory)
    if not files:
        raise FileNotFoundError(f"{directory}: no cache files (journals *.jsonl or *.sqlite) to merge")
    report = MergeReport(directory)
    scratch = owned_tmpdir("merge")
    try:
        staging = scratch / (MERGED_NAME + ".staging")
        db = sqlite3.connect(staging)
        db.execute(SCHEMA)
        first_file: dict[str, str] = {}  # key -> the file it was first read from
        with db:
            for path in files:
                n = 0
                for record in _records(path, report):
                    n += 1
                    row = db.execute("SELECT text FROM responses WHERE key = ?", (record.key,)).fetchone()
                    if row is None:
                        db.execute("INSERT INTO responses VALUES (?, ?, ?, ?, ?, ?, ?)", record.row())
                        first_file[record.key] = path.name
                    elif row[0] == record.entry.text:
                        report.duplicates += 1
                    else:
                        report.conflicts.append(Conflict(record.key, path.name, first_file[record.key]))
                report.read[path.name] = n
        db.close()
        if report.conflicts:
            listed = "\n  ".join(f"{directory / c.file}: {c}" for c in report.conflicts[:20])
            raise MergeConflict(
                f"{directory}: {len(report.conflicts)} key(s) with different answers in different files, "
                f"nothing merged:\n  {listed}\nKeep the file whose answers your predictions used and move the "
                f"other out of {directory} (or delete the prediction shard that used it, so that it is collected "
                f"afresh), then merge again"
            )
        built = scratch / MERGED_NAME
        report.entries = sort_into(staging, built)
        _verify(built, files, report)
        target = directory / MERGED_NAME
        publish_file(built, target)
        if _sha256(target) != _sha256(built):
            raise RuntimeError(f"{target}: the published copy differs from the verified file; merge again")
        return report
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _verify(built: Path, files: list[Path], report: MergeReport) -> None:
    """Every key of every source is in ``built`` with its text; ``built`` holds each key once."""
    db = open_published(built)
    try:
        n = int(db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])
        distinct = int(db.execute("SELECT COUNT(DISTINCT key) FROM responses").fetchone()[0])
        if n != distinct or n != report.entries:
            raise RuntimeError(f"{built}: {n} rows for {distinct} keys, expected {report.entries}")
        for path in files:
            for record in _records(path, MergeReport(report.directory)):
                row = db.execute("SELECT text FROM responses WHERE key = ?", (record.key,)).fetchone()
                if row is None or row[0] != record.entry.text:
                    raise RuntimeError(
                        f"{path}: key {record.key} is {'missing' if row is None else 'changed'} in the merged file"
                    )
    finally:
        db.close()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eibench.predict.cache_merge", description=__doc__.split("\n\n")[0])
    parser.add_argument("cache_dir", type=Path, help="the collection.cache_dir of the config (default cache/)")
    parser.add_argument("--model", action="append", help="merge only this model (repeatable); default: every model")
    args = parser.parse_args(argv)
    if not args.cache_dir.is_dir():
        print(f"{args.cache_dir}: no such cache folder (collection.cache_dir of the config)", file=sys.stderr)
        return 2
    folders = (
        [args.cache_dir / m for m in args.model]
        if args.model
        else sorted(p for p in args.cache_dir.iterdir() if p.is_dir())
    )
    status = 0
    for folder in folders:
        try:
            report = merge_model(folder)
        except (MergeConflict, FileNotFoundError, RuntimeError) as e:
            print(f"error: {e}", file=sys.stderr)
            status = 1
            continue
        print("\n".join(report.lines()))
        print(f"  wrote {folder / MERGED_NAME}: {report.entries} entries")
    return status


if __name__ == "__main__":
    sys.exit(main())

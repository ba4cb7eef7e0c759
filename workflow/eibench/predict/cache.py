"""The response cache: every model answer, keyed by the full request; safe on a network file system.

Files of a model, in ``<cache_dir>/<model>/`` (``<shard>`` is ``<mode>-shard-<k>``):

- ``<shard>.jsonl``: the **journal** of one collection job, the only file it writes while it
  runs. One JSON line per answer, appended with a single ``write`` and never rewritten; each line
  carries the sha256 of its own content. Appends by one process need no locks, no shared memory
  and no in-place rewrite, so they are valid on NFS, Lustre or GPFS as on a local disk. A job
  killed at any moment (even SIGKILL) leaves every answer it stored on complete lines, and its
  restart reads them back and asks only what is missing; a torn last line fails its checksum and
  is skipped (it is closed with a newline, never deleted).
- ``<shard>.snapshot.sqlite``: the journal's **snapshot**, published when the job ends (also on an
  error): built with SQLite on the job's temporary directory (``TMPDIR``, node-local on a
  cluster), copied next to its final name and renamed onto it, so it appears whole or not at all.
  Never written after that, so other jobs open it ``immutable``: no locks, no journal, nothing
  SQLite cannot do on a network file system.
- ``merged.sqlite``: the consolidated file of ``python -m eibench.predict.cache_merge``
  (``cache_merge.py``), published the same way.
- ``<shard>.sqlite``: a shard of the earlier WAL format; read, never written.

A job looks a key up in its own journal (in memory), then in the model's published SQLite files
(snapshots, merged, earlier format). It never opens another job's journal: that file may be
growing on another node, and a network file system promises nothing to a reader of a file that
another client has open for writing. Entries are never overwritten: a key already stored keeps
its first answer.

The key is the sha256 of the canonical JSON of everything that determines the answer: the API
kind, the model id and revision, the decoding parameters, the prompt-set version, the messages
and the sample index. A model is never served another model's answer. API keys are never part
of the key or of the stored request.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import sqlite3
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    request TEXT NOT NULL,
    text TEXT NOT NULL,
    input_tokens INTEGER,
    output_tokens INTEGER,
    latency_seconds REAL NOT NULL,
    created_at TEXT NOT NULL
)
"""
COLUMNS = ("key", "request", "text", "input_tokens", "output_tokens", "latency_seconds", "created_at")
JOURNAL_SUFFIX = ".jsonl"
SNAPSHOT_SUFFIX = ".snapshot.sqlite"
MERGED_NAME = "merged.sqlite"


def request_key(identity: dict[str, Any], prompt_version: str, messages: list[dict[str, str]], sample: int) -> str:
    """sha256 of the canonical request. ``identity``: kind, model id, revision, decoding params."""
    payload = {"identity": identity, "prompt_version": prompt_version, "messages": messages, "sample": sample}
    return hashlib.sha256(_canonical(payload).encode()).hexdigest()


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Entry:
    """A stored answer; token counts None when the endpoint gave no usable count (files written
    before unknown counts existed hold integers only, and read the same)."""

    text: str
    input_tokens: int | None
    output_tokens: int | None
    latency_seconds: float
    created_at: str


@dataclass(frozen=True)
class Record:
    """One stored answer with its key and request (the request as canonical JSON text)."""

    key: str
    request: str
    entry: Entry

    def row(self) -> tuple:
        e = self.entry
        return (self.key, self.request, e.text, e.input_tokens, e.output_tokens, e.latency_seconds, e.created_at)


def _journal_line(record: Record) -> bytes:
    body = dict(zip(COLUMNS, record.row()))
    body["sha256"] = hashlib.sha256(_canonical(body).encode()).hexdigest()
    return (_canonical(body) + "\n").encode()


def _parse_line(line: bytes) -> Record | None:
    """The record of one journal line, or None when the line is torn or damaged."""
    try:
        body = json.loads(line)
        check = body.pop("sha256")
        if hashlib.sha256(_canonical(body).encode()).hexdigest() != check:
            return None
        return Record(
            body["key"],
            body["request"],
            Entry(
                body["text"],
                _count_or_none(body["input_tokens"]),
                _count_or_none(body["output_tokens"]),
                float(body["latency_seconds"]),
                body["created_at"],
            ),
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _count_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


def read_journal(path: str | Path) -> tuple[list[Record], int]:
    """The complete records of a journal, in order, and the number of unreadable lines (a torn
    last line of a killed job, or damage). Only complete lines with a valid checksum count."""
    records, damaged = [], 0
    with open(path, "rb") as fh:
        for line in fh:
            if not line.strip():
                continue
            record = _parse_line(line)
            if record is None:
                damaged += 1
            else:
                records.append(record)
    return records, damaged


def read_sqlite(path: str | Path) -> Iterator[Record]:
    """Every record of a published SQLite cache file (snapshot, merged or earlier format), by key."""
    db = open_published(Path(path))
    try:
        for row in db.execute(f"SELECT {', '.join(COLUMNS)} FROM responses ORDER BY key"):
            yield Record(row[0], row[1], Entry(*row[2:]))
    finally:
        db.close()


def open_published(path: Path) -> sqlite3.Connection:
    """A read-only connection to a published cache file. Snapshots and merged files are never
    written after their rename, so they are opened ``immutable`` (no locking: valid on a network
    file system). A file of the earlier WAL format with its ``-wal`` beside it is opened read-only
    the ordinary way, so the answers still in its WAL are seen (such files live on a local disk)."""
    uri = path.resolve().as_uri()
    if Path(f"{path}-wal").exists():
        return sqlite3.connect(uri + "?mode=ro", uri=True)
    return sqlite3.connect(uri + "?immutable=1", uri=True)


def build_sqlite(records: Iterable[Record], path: Path) -> int:
    """Write ``records`` as a new SQLite cache file at ``path`` (a local path: SQLite writes it).
    The first record of each key is kept; rows are stored in key order, so the same entries
    give the same bytes whatever their order. Returns the number of entries."""
    staging = path.with_name(path.name + ".staging")
    db = sqlite3.connect(staging)
    db.execute(SCHEMA)
    with db:
        db.executemany("INSERT OR IGNORE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?)", (r.row() for r in records))
    db.close()
    return sort_into(staging, path)


def sort_into(staging: Path, path: Path) -> int:
    """Copy the responses of the SQLite file ``staging`` into a new file ``path`` in key order
    (then delete ``staging``, a scratch file). Returns the number of entries."""
    db = sqlite3.connect(path)
    db.execute(SCHEMA)
    db.execute("ATTACH DATABASE ? AS staging", (str(staging),))
    with db:
        db.execute("INSERT INTO responses SELECT * FROM staging.responses ORDER BY key")
    db.execute("DETACH DATABASE staging")
    n = int(db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])
    db.close()
    staging.unlink()
    return n


def publish_file(built: Path, target: Path) -> None:
    """Copy ``built`` to a temporary sibling of ``target``, flush it to disk and rename it onto
    ``target``: readers see the old file or the new one, never a part (also over NFS, where a
    rename within a directory is atomic)."""
    sibling = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(built, "rb") as src, open(sibling, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
            dst.flush()
            os.fsync(dst.fileno())
        os.replace(sibling, target)
    finally:
        sibling.unlink(missing_ok=True)


def publish_sqlite(records: Iterable[Record], target: Path) -> int:
    """Publish ``records`` as the SQLite cache file ``target``: built in a fresh temporary
    directory (``TMPDIR``, which Snakemake points at the job's ``resources.tmpdir``: node-local
    on a cluster), then ``publish_file``. Returns the number of entries."""
    scratch = Path(tempfile.mkdtemp(prefix="eibench-cache-"))
    try:
        built = scratch / Path(target).name
        n = build_sqlite(records, built)
        publish_file(built, Path(target))
        return n
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def published_files(directory: Path) -> list[Path]:
    """The published SQLite files of a model's cache folder (snapshots, merged, earlier format)."""
    return sorted(p for p in Path(directory).glob("*.sqlite") if not p.name.startswith("."))


class ResponseCache:
    """The journal ``<directory>/<shard>.jsonl`` (this job's, appended) and the model's
    published SQLite files (read-only). ``close`` publishes the journal's snapshot."""

    def __init__(self, directory: str | Path, shard: str, record: dict[str, Entry] | None = None):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.shard = shard
        self.path = self.directory / f"{shard}{JOURNAL_SUFFIX}"
        self.snapshot = self.directory / f"{shard}{SNAPSHOT_SUFFIX}"
        self._own: dict[str, Entry] = {}
        self.damaged = 0
        if self.path.exists():
            records, self.damaged = read_journal(self.path)
            for r in records:
                self._own.setdefault(r.key, r.entry)
            if self.damaged:
                log.warning(
                    "%s: %d unreadable line(s) skipped (a torn last line is what a killed job leaves)",
                    self.path,
                    self.damaged,
                )
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        if os.fstat(self._fd).st_size and not _ends_with_newline(self.path):
            self._append(b"\n")  # close a torn last line, so the next record starts on its own line
        self._others: list[sqlite3.Connection] = []
        for other in published_files(self.directory):
            if other == self.snapshot:
                continue  # this job's own snapshot holds nothing its journal does not
            try:
                self._others.append(open_published(other))
            except sqlite3.Error:
                continue  # an unreadable file only costs cache hits, never correctness
        self.hits = 0
        self.stores = 0
        self._record = record or {}  # a committed response record (record.py): read-only, looked up last
        self.record_hits = 0

    def _append(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]

    def get(self, key: str, count: bool = True) -> Entry | None:
        """The stored answer for ``key`` (this job's journal first, then the published files), or None."""
        entry = self._own.get(key)
        if entry is None:
            for db in self._others:
                try:
                    row = db.execute(
                        "SELECT text, input_tokens, output_tokens, latency_seconds, created_at FROM responses "
                        "WHERE key = ?",
                        (key,),
                    ).fetchone()
                except sqlite3.Error:
                    continue
                if row is not None:
                    entry = Entry(*row)
                    break
        if entry is None and key in self._record:
            entry = self._record[key]
            self.record_hits += count
        if entry is not None:
            self.hits += count
        return entry

    def put(self, key: str, request: dict[str, Any], entry: Entry) -> None:
        """Store an answer (one appended line); an existing entry for ``key`` is kept as it is."""
        if self.get(key, count=False) is not None:
            return
        self._append(_journal_line(Record(key, _canonical(request), entry)))
        self._own[key] = entry
        self.stores += 1

    def __len__(self) -> int:
        return len(self._own)

    def close(self) -> None:
        """Flush the journal and publish its snapshot (when it changed or was never published)."""
        for db in self._others:
            db.close()
        self._others = []
        if self._fd < 0:
            return
        os.fsync(self._fd)
        os.close(self._fd)
        self._fd = -1
        if self._own and (self.stores or _count(self.snapshot) != len(self._own)):
            try:
                records, _ = read_journal(self.path)
                publish_sqlite(records, self.snapshot)
            except (OSError, sqlite3.Error) as e:  # the journal keeps every answer: only other jobs' hits wait
                log.warning("%s: snapshot not published (%s); the next run of this job publishes it", self.snapshot, e)


def _count(path: Path) -> int | None:
    """The number of entries of a published file, or None when it is missing or unreadable."""
    if not path.exists():
        return None
    try:
        db = open_published(path)
        try:
            return int(db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return None


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as fh:
        fh.seek(-1, os.SEEK_END)
        return fh.read(1) == b"\n"

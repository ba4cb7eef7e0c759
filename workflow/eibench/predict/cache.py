"""The response cache: every model answer, keyed by the full request, in SQLite.

One SQLite file per collection job (``<cache_dir>/<model>/<mode>-shard-<k>.sqlite``), written
by that job only: no two processes ever write the same file. Lookups also read the model's
other files, read-only, so changing the number of shards or adding a mode never loses an answer.
WAL journaling needs a local disk: on a network file system SQLite's WAL is unsupported (see
docs/collection.md for running on a cluster). WAL journaling and one transaction per answer mean a job
killed at any moment leaves every answer it stored readable, and a restart asks only what is
missing. Entries are never overwritten (INSERT OR IGNORE).

The key is the sha256 of the canonical JSON of everything that determines the answer: the
API kind, the model id and revision, the decoding parameters, the prompt-set version, the
messages and the sample index. A model is never served another model's answer. API keys are
never part of the key or of the stored request.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    request TEXT NOT NULL,
    text TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    latency_seconds REAL NOT NULL,
    created_at TEXT NOT NULL
)
"""


def request_key(identity: dict[str, Any], prompt_version: str, messages: list[dict[str, str]], sample: int) -> str:
    """sha256 of the canonical request. ``identity``: kind, model id, revision, decoding params."""
    payload = {"identity": identity, "prompt_version": prompt_version, "messages": messages, "sample": sample}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()).hexdigest()


@dataclass(frozen=True)
class Entry:
    text: str
    input_tokens: int
    output_tokens: int
    latency_seconds: float
    created_at: str


class ResponseCache:
    """The cache shard ``<directory>/<shard>.sqlite`` (read-write) and its siblings (read-only)."""

    def __init__(self, directory: str | Path, shard: str):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / f"{shard}.sqlite"
        self._db = sqlite3.connect(self.path, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(SCHEMA)
        self._others = []
        for other in sorted(self.directory.glob("*.sqlite")):
            if other != self.path:
                try:
                    self._others.append(sqlite3.connect(other.resolve().as_uri() + "?mode=ro", uri=True))
                except sqlite3.Error:
                    continue  # an unreadable sibling only costs cache hits, never correctness
        self.hits = 0
        self.stores = 0

    def get(self, key: str, count: bool = True) -> Entry | None:
        """The stored answer for ``key`` (this shard first, then the others), or None."""
        for db in (self._db, *self._others):
            try:
                row = db.execute(
                    "SELECT text, input_tokens, output_tokens, latency_seconds, created_at FROM responses WHERE key = ?",
                    (key,)).fetchone()
            except sqlite3.Error:
                continue
            if row is not None:
                self.hits += count
                return Entry(*row)
        return None

    def put(self, key: str, request: dict[str, Any], entry: Entry) -> None:
        """Store an answer (one transaction); an existing entry for ``key`` is kept as it is."""
        self._db.execute(
            "INSERT OR IGNORE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?)",
            (key, json.dumps(request, sort_keys=True, ensure_ascii=False), entry.text, entry.input_tokens,
             entry.output_tokens, entry.latency_seconds, entry.created_at))
        self.stores += 1

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        for db in (self._db, *self._others):
            db.close()

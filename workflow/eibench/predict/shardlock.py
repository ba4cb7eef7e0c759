"""One collector per shard: a lock file ``<cache_dir>/<model>/<shard>.lock`` that outlives the
run that started its owner.

Snakemake's own lock guards a working directory, not the cache, and ``--unlock`` removes it
without asking whether the jobs of the killed run still live. Two collectors appending to one
journal would ask the same requests twice (paid calls). So a collector owns its shard:

- **created atomically**: ``O_CREAT | O_EXCL``, with one JSON record ``{"host", "pid",
  "pid_start", "started", "token"}`` (``pid_start``: the process start time in clock ticks from
  ``/proc`` on Linux, so a reused PID is not taken for the owner; null elsewhere);
- **heartbeat**: a thread refreshes the file's modification time every ``stale_seconds / 10``
  seconds (``os.utime``: atomic, the record is never rewritten); before each refresh it checks the
  token, and a collector that finds another token (its lock was taken over while it hung) sets
  ``lost`` and stops sending;
- **refusal**: a second collector on a live shard waits up to ``wait_seconds`` (an orphan of an
  interrupted run stores its requests in flight, then lets go), then refuses with ``ShardLocked``
  naming the owner;
- **takeover of a stale lock**, with a log line: its process is gone (same host, dead or reused
  PID), or its heartbeat is older than ``stale_seconds`` (any host: a crashed node). The stale
  file is renamed away (atomic), checked to be the one judged stale, and removed; a fresh lock
  renamed by mistake in a race is linked back.

What it guarantees: on one host, at most one live collector per shard, always; across hosts
(a shared file system), the same as long as clocks agree to well within ``stale_seconds`` and
no owner hangs longer than that (one that does finds its lock lost at its next heartbeat and
stops sending). A lock whose record cannot be read (being written, or damaged) counts as live
until its modification time is ``stale_seconds`` old.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

log = logging.getLogger(__name__)

LOCK_SUFFIX = ".lock"


class ShardLocked(RuntimeError):
    """Another live collector owns the shard."""


def process_start(pid: int) -> str | None:
    """The start time of process ``pid`` in clock ticks since boot (Linux ``/proc``), or None
    where ``/proc`` is not there or the process is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    return fields[19] if len(fields) > 19 else None


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists on this host (a zombie counts as gone)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except (OSError, IndexError):
        return True
    return state != "Z"


@dataclass(frozen=True)
class Owner:
    """The record of a lock file, with the file's modification time (the last heartbeat)."""

    host: str
    pid: int
    pid_start: str | None
    started: str
    token: str
    heartbeat: float  # seconds since the epoch

    def describe(self, now: float | None = None) -> str:
        age = (now if now is not None else time.time()) - self.heartbeat
        return f"PID {self.pid} on host {self.host}, started {self.started}, last heartbeat {max(age, 0.0):.0f} s ago"


def read_owner(path: Path) -> Owner | None:
    """The owner recorded in the lock file ``path``; None when the file is gone or its record
    cannot be read (being written, or damaged)."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(4096)
            mtime = os.fstat(fh.fileno()).st_mtime
        body = json.loads(raw)
        return Owner(
            str(body["host"]), int(body["pid"]), body.get("pid_start"), str(body["started"]), str(body["token"]), mtime
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def stale_reason(owner: Owner, stale_seconds: float, host: str, now: float) -> str | None:
    """Why the lock of ``owner`` is stale, or None when its owner may still be collecting."""
    if owner.host == host:
        if not pid_alive(owner.pid):
            return f"its process {owner.pid} is gone"
        start = process_start(owner.pid)
        if owner.pid_start is not None and start is not None and start != owner.pid_start:
            return f"PID {owner.pid} now belongs to another process"
    age = now - owner.heartbeat
    if age > stale_seconds:
        return f"no heartbeat for {age:.0f} s (collection.lock_stale_seconds: {stale_seconds:g})"
    return None


class ShardLock:
    """The lock of one shard (see the module docstring). ``acquire`` then ``release``, or a
    ``with`` block. ``on_lost`` is called (from the heartbeat thread) if the lock is taken over."""

    def __init__(
        self,
        path: str | Path,
        stale_seconds: float,
        wait_seconds: float = 0.0,
        poll_seconds: float = 0.5,
        on_lost: Callable[[], None] | None = None,
    ):
        self.path = Path(path)
        self.stale_seconds = float(stale_seconds)
        self.wait_seconds = float(wait_seconds)
        self.poll_seconds = poll_seconds
        self.on_lost = on_lost
        self.host = socket.gethostname()
        self.token = uuid.uuid4().hex
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "ShardLock":
        self.acquire()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()

    def _record(self) -> bytes:
        started = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        return (
            json.dumps(
                {
                    "host": self.host,
                    "pid": os.getpid(),
                    "pid_start": process_start(os.getpid()),
                    "started": started,
                    "token": self.token,
                },
                sort_keys=True,
            ).encode()
            + b"\n"
        )

    def _create(self) -> bool:
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return False
        try:
            os.write(fd, self._record())
            os.fsync(fd)
        finally:
            os.close(fd)
        return True

    def _take_over(self, seen: Owner | None, reason: str) -> None:
        """Move the stale lock away; remove it if it is the one judged stale, else put it back."""
        moved = self.path.with_name(f".{self.path.name}.{uuid.uuid4().hex}.stale")
        try:
            os.rename(self.path, moved)
        except FileNotFoundError:
            return  # released or taken over meanwhile: try again
        now_there = read_owner(moved)
        same = (now_there is None and seen is None) or (
            now_there is not None and seen is not None and now_there.token == seen.token
        )
        if not same:  # a fresh lock, created since we looked: give it back
            try:
                os.link(moved, self.path)
            except FileExistsError:
                pass
            moved.unlink(missing_ok=True)
            return
        moved.unlink(missing_ok=True)
        who = seen.describe() if seen else "an unreadable record"
        log.warning("%s: taking over a stale shard lock (%s): %s", self.path, who, reason)

    def acquire(self, cancel: threading.Event | None = None) -> None:
        """Own the shard, or raise ``ShardLocked`` naming the owner after ``wait_seconds`` (or as
        soon as ``cancel`` is set while waiting: e.g. the waiting collector's parent died)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        start = time.monotonic()
        waiting_logged = False
        while not self._create():
            seen = read_owner(self.path)
            now = time.time()
            if seen is not None:
                reason = stale_reason(seen, self.stale_seconds, self.host, now)
            else:
                try:
                    age = now - self.path.stat().st_mtime
                except FileNotFoundError:
                    continue
                reason = f"an unreadable record {age:.0f} s old" if age > self.stale_seconds else None
            if reason is not None:
                self._take_over(seen, reason)
                continue
            owner = seen.describe(now) if seen else "an owner whose record cannot be read yet"
            if time.monotonic() - start >= self.wait_seconds or (cancel is not None and cancel.is_set()):
                raise ShardLocked(
                    f"{self.path}: this shard is being collected by another collector ({owner}). Two collectors "
                    f"on one shard would send the same requests twice. Wait for it to finish (or stop it: kill "
                    f"{seen.pid if seen else '<its PID>'} on {seen.host if seen else 'its host'}), then run again; "
                    f"a lock without heartbeat for collection.lock_stale_seconds ({self.stale_seconds:g} s) is "
                    "taken over by itself."
                )
            if not waiting_logged:
                log.warning(
                    "%s: held by %s; waiting up to %g s (collection.lock_wait_seconds)",
                    self.path,
                    owner,
                    self.wait_seconds,
                )
                waiting_logged = True
            time.sleep(self.poll_seconds)
        self._stop.clear()
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat {self.path.name}", daemon=True)
        self._thread.start()

    def _beat(self) -> None:
        interval = max(self.stale_seconds / 10, 0.05)
        while not self._stop.wait(interval):
            owner = read_owner(self.path)
            if owner is None or owner.token != self.token:
                who = owner.describe() if owner else "nobody (the file is gone)"
                log.error("%s: this collector's shard lock was taken over; now held by %s", self.path, who)
                self.lost.set()
                if self.on_lost is not None:
                    self.on_lost()
                return
            try:
                os.utime(self.path)
            except OSError as e:  # a transient NFS error: the next beat tries again
                log.warning("%s: heartbeat not written (%s)", self.path, e)

    def release(self) -> None:
        """Stop the heartbeat and remove the lock file if it is still this collector's."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        owner = read_owner(self.path)
        if owner is not None and owner.token == self.token:
            self.path.unlink(missing_ok=True)

"""The response cache on a cluster: per-job journals, published immutable snapshots, torn lines
of killed jobs, concurrent writers in separate processes and the verified merge."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import random
import sqlite3
from pathlib import Path

import pytest
from eibench.predict.cache import MERGED_NAME, Entry, ResponseCache, read_journal, read_sqlite, request_key
from eibench.predict.cache_merge import MergeConflict, main, merge_model


def _key(text: str) -> str:
    return request_key({"model_id": "m"}, "v1", [{"role": "user", "content": text}], 0)


def _entry(text: str) -> Entry:
    return Entry(text, 3, 5, 0.25, "2026-01-01T00:00:00+00:00")


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_entries_are_never_overwritten_and_published_snapshots_are_read_immutable(tmp_path):
    key = _key("hi")
    a = ResponseCache(tmp_path, "default-shard-0")
    a.put(key, {"x": 1}, _entry("first"))
    a.put(key, {"x": 1}, _entry("second"))
    assert a.get(key).text == "first" and len(a) == 1 and a.stores == 1
    # while job a runs, its journal is its own: another job does not read it
    b = ResponseCache(tmp_path, "default-shard-1")
    assert b.get(key) is None
    b.close()
    a.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "default-shard-0.jsonl",
        "default-shard-0.snapshot.sqlite",
        "default-shard-1.jsonl",
    ]
    c = ResponseCache(tmp_path, "default-shard-1")  # a's published snapshot, read-only
    assert c.get(key).text == "first"
    with pytest.raises(sqlite3.OperationalError):
        c._others[0].execute("DELETE FROM responses")
    assert c._others[0].execute("PRAGMA journal_mode").fetchone()[0] != "wal"
    c.close()
    assert request_key({"model_id": "m"}, "v2", [{"role": "user", "content": "hi"}], 0) != key
    assert request_key({"model_id": "m"}, "v1", [{"role": "user", "content": "hi"}], 1) != key


def test_a_torn_last_line_is_skipped_and_the_journal_goes_on(tmp_path):
    a = ResponseCache(tmp_path, "s")
    a.put(_key("one"), {"n": 1}, _entry("answer one"))
    a.put(_key("two"), {"n": 2}, _entry("answer two"))
    journal = a.path
    os.close(a._fd)  # killed: no close(), no snapshot
    whole = journal.read_bytes()
    journal.write_bytes(whole + whole.splitlines(keepends=True)[1][:40])  # a line cut by the kill
    again = ResponseCache(tmp_path, "s")
    assert again.damaged == 1 and len(again) == 2
    assert again.get(_key("two")).text == "answer two"
    again.put(_key("three"), {"n": 3}, _entry("answer three"))
    again.close()
    records, damaged = read_journal(journal)
    assert [r.entry.text for r in records] == ["answer one", "answer two", "answer three"] and damaged == 1
    assert journal.read_bytes().startswith(whole)  # nothing the killed job wrote was removed
    assert {r.key for r in read_sqlite(tmp_path / "s.snapshot.sqlite")} == {_key(t) for t in ("one", "two", "three")}


def test_a_changed_line_is_not_served(tmp_path):
    a = ResponseCache(tmp_path, "s")
    a.put(_key("one"), {"n": 1}, _entry("answer one"))
    os.close(a._fd)
    a.path.write_bytes(a.path.read_bytes().replace(b"answer one", b"answer 1!!"))
    again = ResponseCache(tmp_path, "s")
    assert again.get(_key("one")) is None and again.damaged == 1
    again.close()


def test_a_restart_that_asks_nothing_still_publishes_what_the_killed_run_stored(tmp_path):
    a = ResponseCache(tmp_path, "s")
    a.put(_key("one"), {"n": 1}, _entry("answer one"))
    a.close()
    b = ResponseCache(tmp_path, "s")
    b.put(_key("two"), {"n": 2}, _entry("answer two"))
    os.close(b._fd)  # killed before publishing: the snapshot lacks "two"
    assert len(list(read_sqlite(tmp_path / "s.snapshot.sqlite"))) == 1
    c = ResponseCache(tmp_path, "s")
    assert c.get(_key("two")) is not None and c.stores == 0
    c.close()
    assert len(list(read_sqlite(tmp_path / "s.snapshot.sqlite"))) == 2


def test_files_of_the_earlier_wal_format_are_read_and_merged(tmp_path):
    legacy = sqlite3.connect(tmp_path / "default-shard-0.sqlite", isolation_level=None)
    legacy.execute("PRAGMA journal_mode=WAL")
    legacy.execute(
        "CREATE TABLE responses (key TEXT PRIMARY KEY, request TEXT NOT NULL, text TEXT NOT NULL, "
        "input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, latency_seconds REAL NOT NULL, "
        "created_at TEXT NOT NULL)"
    )
    legacy.execute("INSERT INTO responses VALUES (?, '{}', 'old answer', 1, 1, 0.1, 't')", (_key("old"),))
    assert (tmp_path / "default-shard-0.sqlite-wal").exists()  # the answer is still in the WAL
    cache = ResponseCache(tmp_path, "default-shard-0")
    assert cache.get(_key("old")).text == "old answer"
    cache.put(_key("new"), {}, _entry("new answer"))
    cache.close()
    legacy.close()
    report = merge_model(tmp_path)
    assert report.entries == 2 and report.read["default-shard-0.sqlite"] == 1


def _writer(directory: str, shard: int, n_own: int, n_shared: int, die_after: int | None, barrier) -> None:
    """One collection job: its own keys and keys every job asks (same answer), in an order of its
    own; ``die_after``: killed (no close) after that many answers."""
    cache = ResponseCache(directory, f"default-shard-{shard}")
    barrier.wait()
    work = [f"own-{shard}-{i}" for i in range(n_own)] + [f"shared-{i}" for i in range(n_shared)]
    random.Random(shard).shuffle(work)
    for i, name in enumerate(work):
        if die_after is not None and i == die_after:
            os._exit(0)
        if cache.get(_key(name)) is None:
            cache.put(_key(name), {"name": name}, _entry(f"answer to {name}"))
    cache.close()


def test_concurrent_writers_in_separate_processes_then_merge_lose_and_duplicate_nothing(tmp_path):
    n_jobs, n_own, n_shared = 4, 150, 40
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(n_jobs)
    dies = {1: 90}  # job 1 is killed mid-way, then restarted
    jobs = [
        context.Process(target=_writer, args=(str(tmp_path), s, n_own, n_shared, dies.get(s), barrier))
        for s in range(n_jobs)
    ]
    for job in jobs:
        job.start()
    for job in jobs:
        job.join(timeout=120)
        assert job.exitcode == 0
    alone = context.Barrier(1)
    restart = context.Process(target=_writer, args=(str(tmp_path), 1, n_own, n_shared, None, alone))
    restart.start()
    restart.join(timeout=120)
    assert restart.exitcode == 0
    sources = _digests(tmp_path)

    report = merge_model(tmp_path)
    assert _digests(tmp_path) == {**sources, MERGED_NAME: _digests(tmp_path)[MERGED_NAME]}  # sources untouched
    expected = {_key(f"own-{s}-{i}"): f"answer to own-{s}-{i}" for s in range(n_jobs) for i in range(n_own)}
    expected |= {_key(f"shared-{i}"): f"answer to shared-{i}" for i in range(n_shared)}
    merged = list(read_sqlite(tmp_path / MERGED_NAME))
    assert len(merged) == len({r.key for r in merged}) == len(expected) == report.entries
    assert {r.key: r.entry.text for r in merged} == expected
    assert sum(report.read.values()) == report.entries + report.duplicates and not report.conflicts
    # each job's journal and snapshot hold the same entries; the shared keys may be in several
    journals = {name: n for name, n in report.read.items() if name.endswith(".jsonl")}
    assert journals.keys() == {f"default-shard-{s}.jsonl" for s in range(n_jobs)}
    assert all(report.read[name.replace(".jsonl", ".snapshot.sqlite")] == n for name, n in journals.items())


def test_merge_is_idempotent(tmp_path):
    for shard, names in enumerate((["a", "b"], ["b", "c", "d"])):
        cache = ResponseCache(tmp_path, f"default-shard-{shard}")
        for name in names:
            cache.put(_key(name), {"name": name}, _entry(f"answer {name}"))
        cache.close()
    first = merge_model(tmp_path)
    once = (tmp_path / MERGED_NAME).read_bytes()
    second = merge_model(tmp_path)
    assert (tmp_path / MERGED_NAME).read_bytes() == once
    assert first.entries == second.entries == 4
    assert second.read[MERGED_NAME] == 4 and second.duplicates == first.duplicates + 4
    # the merged file is read by later jobs, and survives the shards it came from
    for path in tmp_path.glob("default-shard-*"):
        path.unlink()
    cache = ResponseCache(tmp_path, "verbose-shard-0")
    assert cache.get(_key("d")).text == "answer d"
    cache.close()
    assert merge_model(tmp_path).entries == 4


def test_a_conflicting_entry_stops_the_merge_naming_the_file_and_the_key(tmp_path, capsys):
    # two jobs running at once asked the same request (e.g. one shard run twice) and got two answers
    caches = [ResponseCache(tmp_path, f"default-shard-{shard}") for shard in (0, 1)]
    for shard, (cache, text) in enumerate(zip(caches, ("one answer", "another answer"))):
        cache.put(_key("same"), {"name": "same"}, _entry(text))
        cache.put(_key(f"only-{shard}"), {}, _entry("x"))
        cache.close()
    before = _digests(tmp_path)
    with pytest.raises(MergeConflict) as caught:
        merge_model(tmp_path)
    message = str(caught.value)
    assert _key("same") in message and "default-shard-1.jsonl" in message and "default-shard-0" in message
    assert _digests(tmp_path) == before  # nothing written, nothing removed

    assert main([str(tmp_path.parent), "--model", tmp_path.name]) == 1
    assert _key("same") in capsys.readouterr().err


def test_the_command_prints_the_counts(tmp_path, capsys):
    for model in ("m1", "m2"):
        cache = ResponseCache(tmp_path / model, "default-shard-0")
        cache.put(_key(model), {}, _entry(model))
        cache.close()
    assert main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "default-shard-0.jsonl: 1 entries" in out and "1 distinct keys, 1 identical duplicates, 0 conflicts" in out
    assert f"wrote {tmp_path / 'm2' / MERGED_NAME}: 1 entries" in out
    assert main([str(tmp_path / "absent")]) == 2

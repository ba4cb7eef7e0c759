"""The shard lock (eibench.predict.shardlock) and the collector's exit when its parent dies
(eibench.predict.lifeline): one collector per shard, stale locks taken over, a lock taken over
from a hung owner noticed, and an orphaned collector that stores what it sent and stops."""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from eibench.predict.adapters import LiveModel
from eibench.predict.collect import collect_shard
from eibench.predict.shardlock import ShardLock, ShardLocked, pid_alive, process_start, read_owner
from eibench.release.tidy import GOLD_TABLES
from eibench.tables import write_parquet

from .fake_llm import FakeLLM

RUNNER = Path(__file__).with_name("run_collect.py")


def _write_lock(path: Path, host: str, pid: int, pid_start=None, age: float = 0.0, token: str = "other") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {"host": host, "pid": pid, "pid_start": pid_start, "started": "2026-01-01T00:00:00Z", "token": token}
        )
    )
    then = time.time() - age
    os.utime(path, (then, then))


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def test_a_second_collector_on_a_live_shard_refuses_naming_the_owner(tmp_path):
    path = tmp_path / "default-shard-0.lock"
    with ShardLock(path, stale_seconds=60):
        owner = read_owner(path)
        assert owner.pid == os.getpid() and owner.host == socket.gethostname()
        with pytest.raises(ShardLocked) as caught:
            ShardLock(path, stale_seconds=60).acquire()
    message = str(caught.value)
    assert f"PID {os.getpid()} on host {socket.gethostname()}" in message and str(path) in message
    assert "lock_stale_seconds" in message
    assert not path.exists()  # released by its owner


def test_a_lock_of_a_dead_process_on_this_host_is_taken_over_with_a_log_line(tmp_path, caplog):
    path = tmp_path / "s.lock"
    dead = _dead_pid()
    _write_lock(path, socket.gethostname(), dead)
    with caplog.at_level(logging.WARNING), ShardLock(path, stale_seconds=600) as lock:
        assert read_owner(path).token == lock.token
    assert f"its process {dead} is gone" in caplog.text and "taking over a stale shard lock" in caplog.text


def test_a_reused_pid_does_not_keep_a_lock(tmp_path, caplog):
    if process_start(os.getpid()) is None:
        pytest.skip("no /proc: process start times are not available")
    path = tmp_path / "s.lock"
    _write_lock(path, socket.gethostname(), os.getpid(), pid_start="1")
    with caplog.at_level(logging.WARNING), ShardLock(path, stale_seconds=600):
        pass
    assert "now belongs to another process" in caplog.text


def test_a_lock_without_heartbeat_is_taken_over_from_any_host(tmp_path, caplog):
    path = tmp_path / "s.lock"
    _write_lock(path, "another-node", 4242, age=30.0)
    with caplog.at_level(logging.WARNING), ShardLock(path, stale_seconds=10) as lock:
        assert read_owner(path).token == lock.token
    assert "no heartbeat for 30 s" in caplog.text


def test_a_fresh_lock_of_another_host_is_respected(tmp_path):
    path = tmp_path / "s.lock"
    _write_lock(path, "another-node", 4242, age=2.0)
    with pytest.raises(ShardLocked, match="PID 4242 on host another-node"):
        ShardLock(path, stale_seconds=10).acquire()
    assert read_owner(path).token == "other"


def test_an_unreadable_lock_is_live_until_it_is_stale(tmp_path):
    path = tmp_path / "s.lock"
    path.write_text("")
    with pytest.raises(ShardLocked, match="cannot be read"):
        ShardLock(path, stale_seconds=10).acquire()
    then = time.time() - 20
    os.utime(path, (then, then))
    with ShardLock(path, stale_seconds=10) as lock:
        assert read_owner(path).token == lock.token


def test_the_heartbeat_keeps_the_lock_fresh(tmp_path):
    path = tmp_path / "s.lock"
    with ShardLock(path, stale_seconds=1.0):
        first = path.stat().st_mtime
        time.sleep(0.6)
        assert path.stat().st_mtime > first
        time.sleep(1.0)  # longer than the stale age: a live owner's lock stays live
        with pytest.raises(ShardLocked):
            ShardLock(path, stale_seconds=1.0).acquire()


def test_a_waiting_collector_gets_the_shard_when_the_owner_lets_go(tmp_path):
    path = tmp_path / "s.lock"
    first = ShardLock(path, stale_seconds=60)
    first.acquire()
    threading.Timer(0.5, first.release).start()
    start = time.monotonic()
    with ShardLock(path, stale_seconds=60, wait_seconds=10, poll_seconds=0.05) as second:
        assert read_owner(path).token == second.token
    assert 0.4 < time.monotonic() - start < 5


def test_an_owner_whose_lock_was_taken_over_notices_and_stops(tmp_path):
    path = tmp_path / "s.lock"
    noticed = threading.Event()
    lock = ShardLock(path, stale_seconds=0.5, on_lost=noticed.set)
    lock.acquire()
    try:
        _write_lock(path, "another-node", 99, token="thief")  # as a takeover while this owner hung
        assert noticed.wait(2.0) and lock.lost.is_set()
    finally:
        lock.release()
    assert read_owner(path).token == "thief"  # release never removes another collector's lock


def test_pid_alive():
    assert pid_alive(os.getpid()) and not pid_alive(_dead_pid()) and not pid_alive(0)


def _gold(small_gold, tmp_path: Path) -> Path:
    gold = tmp_path / "gold"
    gold.mkdir()
    for name, df in small_gold.items():
        write_parquet(df, gold / f"{name}.parquet", GOLD_TABLES[name])
    return gold


def test_collect_shard_refuses_a_shard_a_live_collector_owns_and_writes_nothing(small_views, tmp_path):
    lock_path = tmp_path / "cache" / "fake-model" / "shard-0.lock"
    model = LiveModel.from_config(
        {"name": "fake-model", "kind": "openai_compatible", "model_id": "fake-1", "endpoint": "http://127.0.0.1:9/v1"}
    )
    with ShardLock(lock_path, stale_seconds=60):
        with pytest.raises(ShardLocked, match=f"PID {os.getpid()}"):
            collect_shard(
                small_views,
                model,
                "default",
                "absolute",
                "v1",
                tmp_path / "cache",
                "shard-0",
                tmp_path / "out",
                show_progress=False,
            )
    assert sorted(p.name for p in lock_path.parent.iterdir()) == []
    assert not any((tmp_path / "out").glob("*.json"))


def test_an_orphaned_collector_stores_what_it_sent_and_exits_then_a_rerun_repeats_nothing(small_gold, tmp_path):
    """The parent of a collector is SIGKILLed: the collector sends nothing more, stores its
    answers in flight and exits; the rerun then sends every request at most once in all."""
    gold = _gold(small_gold, tmp_path)
    with FakeLLM(latency=0.2) as llm:
        args = [
            sys.executable,
            str(RUNNER),
            str(gold),
            llm.base_url + "/v1",
            str(tmp_path / "cache"),
            str(tmp_path / "out"),
        ]
        parent = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import subprocess, sys, time\n"
                "child = subprocess.Popen(sys.argv[1:])\nprint(child.pid, flush=True)\n"
                "time.sleep(600)",
                *args,
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        child = int(parent.stdout.readline())
        deadline = time.monotonic() + 120
        while llm.count < 12 and time.monotonic() < deadline:
            time.sleep(0.02)
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=30)
        killed_at, sent_at_kill = time.monotonic(), llm.count
        while pid_alive(child) and time.monotonic() - killed_at < 30:
            time.sleep(0.05)
        exited_after = time.monotonic() - killed_at
        assert not pid_alive(child), "the orphaned collector is still running 30 s after its parent died"
        sent_by_orphan = llm.count
        lock = tmp_path / "cache" / "fake-model" / "shard-0.lock"
        assert not lock.exists()
        rerun = subprocess.run(args, capture_output=True, text=True, timeout=300)
        assert rerun.returncode == 0, rerun.stderr[-2000:]
        counts = llm.counts_by_request()
    print(
        f"orphan exited {exited_after:.2f} s after its parent's kill, having sent {sent_by_orphan - sent_at_kill} "
        f"more requests; {llm.count} requests in all, {len(counts)} distinct"
    )
    assert exited_after < 5, f"the orphan took {exited_after:.1f} s to exit"
    assert sent_by_orphan - sent_at_kill <= 8  # at most the requests in flight (concurrency 4) and their races
    twice = {k: n for k, n in counts.items() if n > 1}
    assert not twice, f"{len(twice)} requests were sent more than once"
    assert len(counts) == llm.count and sent_by_orphan < llm.count


def test_a_waiting_collector_gives_up_when_cancelled(tmp_path):
    path = tmp_path / "s.lock"
    cancel = threading.Event()
    with ShardLock(path, stale_seconds=60):
        threading.Timer(0.3, cancel.set).start()
        start = time.monotonic()
        with pytest.raises(ShardLocked):
            ShardLock(path, stale_seconds=60, wait_seconds=30, poll_seconds=0.05).acquire(cancel=cancel)
    assert time.monotonic() - start < 5


def test_a_stopping_collector_cuts_its_wait_between_attempts_short():
    """A Retry-After of 100 s does not keep a stopping collector (its parent died) alive."""
    import asyncio

    import httpx
    from eibench.predict.adapters import ADAPTERS, Stopped

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, headers={"retry-after": "100"})

    model = LiveModel.from_config(
        {
            "name": "m",
            "kind": "openai_compatible",
            "model_id": "x",
            "endpoint": "http://loopback.invalid/v1",
            "max_retries": 3,
        }
    )
    stopping = threading.Event()

    async def run():
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            adapter = ADAPTERS["openai_compatible"](model, client, stopping=stopping)
            asyncio.get_running_loop().call_later(0.3, stopping.set)
            await adapter.complete([{"role": "user", "content": "hi"}])

    start = time.monotonic()
    with pytest.raises(Stopped):
        asyncio.run(run())
    assert time.monotonic() - start < 3

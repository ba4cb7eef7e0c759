"""A collection killed with SIGKILL mid-way and restarted asks the server nothing it had
already stored, and ends with the same bytes as an uninterrupted run."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from eibench.predict.cache import read_journal, read_sqlite, request_key
from eibench.release.tidy import GOLD_TABLES
from eibench.tables import write_parquet

from .fake_llm import FakeLLM

RUNNER = Path(__file__).with_name("run_collect.py")
IDENTITY = {
    "kind": "openai_compatible",
    "model_id": "fake-1",
    "revision": "",
    "temperature": 0.0,
    "max_tokens": 1024,
    "params": {},
}


def _run(gold: Path, endpoint: str, cache: Path, out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(RUNNER), str(gold), endpoint, str(cache), str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _stored_keys(cache: Path) -> set[str]:
    """Every key stored whole: the journals' complete lines and the published files."""
    keys = set()
    for path in cache.rglob("*.jsonl"):
        keys |= {r.key for r in read_journal(path)[0]}
    for path in cache.rglob("*.sqlite"):
        keys |= {r.key for r in read_sqlite(path)}
    return keys


def _key_of(body: dict) -> str:
    return request_key(IDENTITY, "v1", body["messages"], 0)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.json"))}


def test_killed_collection_resumes_without_repeating_answered_requests(small_gold, tmp_path):
    gold = tmp_path / "gold"
    gold.mkdir()
    for name, df in small_gold.items():
        write_parquet(df, gold / f"{name}.parquet", GOLD_TABLES[name])

    with FakeLLM() as reference_llm:
        done = _run(gold, reference_llm.base_url + "/v1", tmp_path / "ref-cache", tmp_path / "ref-out")
        assert done.wait(timeout=300) == 0, done.stderr.read().decode()[-2000:]
        total = reference_llm.count

    with FakeLLM(latency=0.01) as llm:
        first = _run(gold, llm.base_url + "/v1", tmp_path / "cache", tmp_path / "out")
        deadline = time.time() + 120
        while llm.count < total // 2 and time.time() < deadline:
            time.sleep(0.01)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
        assert first.returncode == -signal.SIGKILL
        stored = _stored_keys(tmp_path / "cache")
        asked_before = llm.count
        assert 0 < len(stored) < total

        second = _run(gold, llm.base_url + "/v1", tmp_path / "cache", tmp_path / "out")
        assert second.wait(timeout=300) == 0, second.stderr.read().decode()[-2000:]
        after = [r["body"] for r in llm.requests[asked_before:]]

    repeated = [b for b in after if _key_of(b) in stored]
    assert not repeated, f"{len(repeated)} stored requests were asked again"
    assert len(after) == total - len(stored)
    assert _files(tmp_path / "out") == _files(tmp_path / "ref-out")
    assert json.loads(next(iter(_files(tmp_path / "out").values())))["run_timestamp"] is None

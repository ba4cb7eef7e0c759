"""The bar of issue 17: kill only the main snakemake process in the middle of a live collection
(its collect_live jobs are orphaned), restart as docs/collection.md says (``--unlock``, then the
same command with ``--rerun-incomplete``), and count the requests at the fake server: not one
is sent twice."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from eibench.predict.shardlock import pid_alive

from ..predict.fake_llm import FakeLLM
from .conftest import copy_repo, snakemake, write_live_config

pytestmark = pytest.mark.workflow
KEY_ENV = "EIBENCH_TEST_KEY"
SHARDS = 2


def _config(work: Path, llm: FakeLLM) -> str:
    models = [
        {"name": "sim-01", "kind": "simulated"},
        {
            "name": "fake-live",
            "kind": "openai_compatible",
            "model_id": "fake-1",
            "endpoint": llm.base_url + "/v1",
            "api_key_env": KEY_ENV,
            "concurrency": 4,
            "shards": SHARDS,
        },
    ]
    return write_live_config(work, "live-interrupted.yaml", models)


def _children(pid: int) -> list[int]:
    """The PIDs of the processes whose parent is ``pid`` (Linux /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def test_killing_only_the_main_snakemake_process_sends_no_request_twice(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test-123")
    work = copy_repo(tmp_path / "repo")
    targets = [f"results/predictions/fake-live/default/shard-{k}" for k in range(SHARDS)]
    exe = str(Path(sys.executable).with_name("snakemake"))
    with FakeLLM(require_key="sk-test-123", latency=0.25) as llm:
        config = _config(work, llm)
        command = [*targets, "--cores", "2", "--configfile", config]  # targets first: --configfile takes a list
        main = subprocess.Popen([exe, *command], cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        locks = work / "cache" / "fake-live"
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and main.poll() is None and llm.count < 40:
            time.sleep(0.05)
        assert main.poll() is None, "the run ended before it could be interrupted"
        orphans = _children(main.pid)
        assert orphans, "no collection job was running at the kill"
        main.send_signal(signal.SIGKILL)  # only the main process: its jobs live on as orphans
        main.wait(timeout=30)
        sent_at_kill = llm.count

        unlock = snakemake(work, "--unlock", *command)  # as the docs say, straight away
        assert unlock.returncode == 0, unlock.stderr[-3000:]
        rerun = snakemake(work, "--rerun-incomplete", *command)
        assert rerun.returncode == 0, rerun.stderr[-3000:]
        counts = llm.counts_by_request()
        total = llm.count

    assert all(not pid_alive(pid) for pid in orphans), "an orphaned collector is still running"
    twice = {key: n for key, n in counts.items() if n > 1}
    assert not twice, f"{len(twice)} of {len(counts)} requests were sent more than once ({sum(twice.values())} sends)"
    assert sent_at_kill < total == len(counts)
    for target in targets:
        assert any((work / target).glob("*.json"))
    assert not list(locks.glob("*.lock"))
    print(f"requests: {sent_at_kill} before the kill, {total} in all, {len(counts)} distinct, 0 sent twice")

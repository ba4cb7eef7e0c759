"""Live models in the workflow, against the loopback fake server: sharded collection jobs, a
rerun that costs no request, and a model with a missing key failing alone (--keep-going)."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

from ..predict.fake_llm import FakeLLM
from .conftest import copy_repo, snakemake, write_live_config

pytestmark = pytest.mark.workflow
KEY_ENV, MISSING_ENV = "EIBENCH_TEST_KEY", "EIBENCH_MISSING_KEY"


def _config(work, llm: FakeLLM, with_missing_key: bool) -> str:
    models = [
        {"name": "sim-01", "kind": "simulated"},
        {"name": "chance", "kind": "baseline", "method": "chance"},
        {
            "name": "fake-live",
            "kind": "openai_compatible",
            "model_id": "fake-1",
            "endpoint": llm.base_url + "/v1",
            "api_key_env": KEY_ENV,
            "concurrency": 8,
            "shards": 2,
            "price_input_per_million": 1.0,
        },
    ]
    if with_missing_key:
        models.append(
            {
                "name": "no-key",
                "kind": "anthropic",
                "model_id": "claude-x",
                "endpoint": llm.base_url,
                "api_key_env": MISSING_ENV,
            }
        )
    return write_live_config(work, "live-test.yaml", models)


def test_live_model_runs_through_the_workflow_and_reruns_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test-123")
    work = copy_repo(tmp_path / "repo")
    with FakeLLM(require_key="sk-test-123") as llm:
        config = _config(work, llm, with_missing_key=False)
        run = snakemake(work, "--cores", "2", "--configfile", config)
        assert run.returncode == 0, run.stderr[-3000:]
        calls = llm.count
        assert calls > 0
        board = pd.read_csv(work / "results" / "scores" / "leaderboard.csv")
        assert "fake-live" in set(board["em_model"])
        assert (work / "results" / "predictions" / "fake-live" / "default" / "shard-1").is_dir()
        assert (work / "paper" / "build" / "paper.pdf").exists()
        # Predictions deleted: the rerun is answered by the cache, not the server.
        shutil.rmtree(work / "results" / "predictions" / "fake-live")
        rerun = snakemake(work, "--cores", "2", "--configfile", config)
        assert rerun.returncode == 0, rerun.stderr[-3000:]
        assert llm.count == calls


def test_a_missing_key_fails_that_model_only(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test-123")
    monkeypatch.delenv(MISSING_ENV, raising=False)
    work = copy_repo(tmp_path / "repo")
    with FakeLLM(require_key="sk-test-123") as llm:
        config = _config(work, llm, with_missing_key=True)
        run = snakemake(work, "--cores", "2", "--keep-going", "--configfile", config)
    assert run.returncode != 0
    out = run.stdout + run.stderr
    assert f"environment variable {MISSING_ENV} is not set" in out
    assert (work / "results" / "scores" / "fake-live" / "default" / "summary.parquet").exists()
    assert (work / "results" / "scores" / "sim-01" / "default" / "summary.parquet").exists()
    assert not (work / "results" / "predictions" / "no-key" / "default" / "shard-0").exists()

"""Live models in the workflow, against the loopback fake server: sharded collection jobs, a
rerun that costs no request, and a model with a missing key failing alone (--keep-going). And the
real local model of config/local-llm.yaml replayed by its collection job from a response record
with no server listening, a changed revision stopping the job."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
import yaml
from eibench.predict.local_server import free_port
from eibench.predict.record import cache_records, write_record
from eibench.release.read import list_json_files, read_em_outputs

from ..conftest import REPO
from ..paper.manuscript import pdf_text
from ..predict.fake_llm import FakeLLM
from .conftest import copy_repo, digests, snakemake, write_live_config

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


def test_the_local_model_replays_from_a_record_in_the_workflow_without_a_server(tmp_path):
    """The real local model's entry of config/local-llm.yaml on its ESConv sample: collected once
    (from the fake server, standing in for llama.cpp), exported as a response record, then
    collected again from the record with nothing listening (same EM files, no call), and refused
    with the field named when the configured revision is not the record's."""
    mirror = REPO.parent / "shared" / "data" / "esconv"
    if not mirror.is_dir():
        pytest.skip(f"no ESConv mirror at {mirror}")
    work = copy_repo(tmp_path / "repo")
    local = yaml.safe_load((work / "config" / "local-llm.yaml").read_text())
    entry = next(m for m in local["models"] if m["kind"] == "openai_compatible")
    target = f"results/predictions/{entry['name']}/default/shard-0"
    log = work / "logs" / "predict" / entry["name"] / "default" / "collect_live_shard-0.log"

    def run(goal: str = target, **changes):
        models = [{**m, **changes} if m is entry else m for m in local["models"]]
        overlay = {
            "datasets": {"esconv": {"mirror": str(mirror)}},
            "collection": {"show_progress": False, "cache_dir": "cache"},
            "models": models,
        }
        (work / "config" / "overlay.yaml").write_text(yaml.safe_dump(overlay))
        shutil.rmtree(work / "results" / "predictions", ignore_errors=True)
        configs = ("config/esconv.yaml", "config/local-llm.yaml", "config/overlay.yaml")
        return snakemake(work, "--cores", "1", "--configfile", *configs, "--", goal)

    def stats() -> dict:
        text = log.read_text()
        return json.loads(text[text.index("; {") + 2 :].splitlines()[0])

    with FakeLLM() as llm:
        live = run(endpoint=llm.base_url + "/v1", record=None)
        assert live.returncode == 0, live.stderr[-3000:]
        asked = stats()
        # The paper of a live model without a record: its abstract counted it among "4 offline
        # baselines"; the section on a local model needs a record, so it is left out.
        paper = run("paper/build/paper.pdf", endpoint=llm.base_url + "/v1", record=None)
        assert paper.returncode == 0, paper.stderr[-3000:]
    text = " ".join(pdf_text((work / "paper" / "build" / "paper.pdf").read_bytes()).split())
    assert "predictions of 1 locally served language model (answers asked live) and 3 offline baselines." in text
    assert "offline baselines are compared" not in text and "4 offline baselines" not in text
    assert "A real language model" not in text
    assert asked["calls"] >= asked["requests"] > 0
    collected = digests(work, target)
    record = write_record(cache_records(work / "cache" / entry["name"]), entry["name"], work / "records" / "m.jsonl")
    shutil.rmtree(work / "cache")

    nowhere = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens: a request would fail the job
    replay = run(endpoint=nowhere, record="records/m.jsonl")
    assert replay.returncode == 0, replay.stderr[-3000:]
    again = stats()
    assert again["calls"] == 0 and again["record_hits"] == len(record.entries), again
    assert digests(work, target) == collected
    runs = read_em_outputs(list_json_files(work / target), entry["name"], "default")
    assert len(runs) == local["cohorts"]["esconv"]["limit"] * len(local["cohorts"]["esconv"]["splits"])

    changed = run(endpoint=nowhere, record="records/m.jsonl", revision=entry["revision"] + "-other")
    assert changed.returncode != 0
    assert "header field identity differs from the configured model in revision (" in changed.stderr

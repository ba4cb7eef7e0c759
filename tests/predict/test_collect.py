"""Collection against a real HTTP server on loopback (tests/predict/fake_llm.py): both
protocols, the cache, retries on every fault, repairs, invalid answers, keys and limits."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time

import httpx
import pytest
from eibench.predict.adapters import Anthropic, CollectionError, LiveModel, RateLimiter, retry_after_seconds
from eibench.predict.collect import collect_shard
from eibench.predict.prompts import PromptSet
from eibench.release.read import list_json_files, read_em_outputs
from eibench.release.tidy import em_tables

from .fake_llm import FakeLLM

KEY_ENV = "EIBENCH_TEST_KEY"
SECRET = "sk-SECRET-5f3a9c"


def _model(llm: FakeLLM, kind: str = "openai_compatible", **overrides) -> LiveModel:
    endpoint = llm.base_url + ("/v1" if kind == "openai_compatible" else "")
    entry = {
        "name": "fake-model",
        "kind": kind,
        "model_id": "fake-1",
        "endpoint": endpoint,
        "api_key_env": KEY_ENV,
        "concurrency": 8,
        "timeout_seconds": 2.0,
        "max_retries": 6,
        "max_repairs": 2,
        **overrides,
    }
    return LiveModel.from_config(entry)


def _collect(views, model, tmp_path, name="out", **kw):
    stats = collect_shard(
        views,
        model,
        "default",
        "absolute",
        "v1",
        tmp_path / "cache",
        "shard-0",
        tmp_path / name,
        show_progress=False,
        **kw,
    )
    return stats, {p.name: p.read_bytes() for p in sorted((tmp_path / name).iterdir())}


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)


@pytest.fixture
def fast_backoff(monkeypatch):
    """Retries without the real exponential waits (the schedule itself is tested apart)."""
    from eibench.predict import adapters

    original = adapters.Adapter.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.backoff_base, self.backoff_max = 0.001, 0.01

    monkeypatch.setattr(adapters.Adapter, "__init__", init)


def test_outputs_are_valid_and_a_rerun_is_served_from_the_cache(small_views, tmp_path):
    with FakeLLM(require_key=SECRET) as llm:
        stats, first = _collect(small_views, _model(llm), tmp_path)
        calls = llm.count
        n_requests = sum(len(PromptSet.load("v1").conversation_requests(v, "default", "absolute")) for v in small_views)
        assert stats["requests"] == n_requests and stats["calls"] == calls == n_requests
        assert stats["invalid"] == {} and stats["cost_usd"] == 0.0
        again, second = _collect(small_views, _model(llm), tmp_path, name="again")
        assert llm.count == calls  # no new request reached the server
        assert again["cache_hits"] == n_requests and again["calls"] == 0
    assert first == second
    parsed = read_em_outputs(list_json_files(tmp_path / "out"), "fake-model", "default")
    tables = em_tables(parsed)
    assert len(tables["em_runs"]) == len(small_views)
    assert (tables["em_binary"]["status"] == "ok").all()
    assert set(tables["em_runs"]["prompt_version"]) == {"v1"}


def test_post_chat_ratings_are_collected_for_a_cohort_that_has_them(small_views, tmp_path):
    views = [dataclasses.replace(v, rating_items=("empathy", "relevance")) for v in small_views[:2]]
    with FakeLLM(require_key=SECRET) as llm:
        stats, _ = _collect(views, _model(llm), tmp_path)
        asked = [r for r in llm.requests if "TASK: post_chat_ratings" in json.dumps(r["body"])]
    assert stats["requests"] == sum(PromptSet.count_requests(v) for v in views) and stats["invalid"] == {}
    assert len(asked) == len(views)
    ratings = em_tables(read_em_outputs(list_json_files(tmp_path / "out"), "fake-model", "default"))[
        "em_post_chat_ratings"
    ]
    assert len(ratings) == 2 * len(views) and ratings["rating"].between(1, 5).all()


def test_the_anthropic_protocol(small_views, tmp_path):
    with FakeLLM(require_key=SECRET) as llm:
        stats, files = _collect(small_views[:1], _model(llm, "anthropic"), tmp_path)
        assert all(r["path"] == "/v1/messages" for r in llm.requests)
        assert all(r["headers"].get("x-api-key") == SECRET for r in llm.requests)
        assert all(r["body"]["system"].startswith("TASK: ") for r in llm.requests)
    assert stats["invalid"] == {} and len(files) == 1


def test_cost_is_accounted_from_token_usage(small_views, tmp_path):
    priced = {"price_input_per_million": 2.0, "price_output_per_million": 8.0}
    with FakeLLM() as llm:
        stats, files = _collect(small_views[:1], _model(llm, **priced), tmp_path)
        again, _ = _collect(small_views[:1], _model(llm, **priced), tmp_path, name="again")
    expected = (stats["input_tokens"] * 2.0 + stats["output_tokens"] * 8.0) / 1e6
    assert stats["cost_usd"] == pytest.approx(expected) == pytest.approx(stats["cost_usd_spent"])
    assert again["cost_usd"] == pytest.approx(expected) and again["cost_usd_spent"] == 0.0
    output = json.loads(next(iter(files.values())))
    assert output["api_cost"] == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("fault", ["429", "500", "503", "timeout", "truncated", "disconnect"])
def test_transient_faults_are_retried_to_the_same_outputs(small_views, tmp_path, fast_backoff, fault):
    with FakeLLM() as clean:
        _, reference = _collect(small_views[:1], _model(clean), tmp_path / "ref")
    with FakeLLM() as llm:
        llm.timeout_delay = 3.0
        llm.inject(fault, fault, fault)
        stats, files = _collect(small_views[:1], _model(llm), tmp_path / "faulty")
        assert llm.count == stats["requests"] + 3
    assert files == reference


def test_an_empty_answer_goes_to_the_repair_loop(small_views, tmp_path):
    with FakeLLM() as llm:
        llm.inject("empty", task="emotions")
        stats, files = _collect(small_views[:1], _model(llm), tmp_path)
    assert stats["repairs"] == 1 and stats["invalid"] == {}
    assert stats["requests"] + 1 == stats["calls"]


def test_a_request_refused_for_good_is_recorded_invalid_and_the_rest_goes_on(small_views, tmp_path):
    view = small_views[0]
    with FakeLLM() as llm:
        llm.always("400", task="post_panas_absolute")
        stats, files = _collect([view], _model(llm), tmp_path)
    assert stats["refused"] == 1 and stats["invalid"] == {"post_panas_absolute": 1}
    post = json.loads(next(iter(files.values())))["post_conversation"]
    assert post["predicted_post_panas"] is None
    assert post["em_invalid_answers"]["post_panas_absolute"].startswith("[refused: HTTP 400")
    assert post["predicted_conversation_wide"] is not None


def test_identical_requests_in_flight_share_one_call(small_views, tmp_path):
    view = small_views[0]
    twin = dataclasses.replace(view, conversation_id=view.conversation_id + "-twin")
    with FakeLLM() as llm:
        stats, files = _collect([view, twin], _model(llm), tmp_path)
        per_request = llm.counts_by_request()
    assert max(per_request.values()) == 1  # the twin's identical requests were not sent again
    assert stats["calls"] == len(per_request) and stats["requests"] == 2 * stats["calls"]


def test_retry_after_is_honoured(small_views, tmp_path):
    with FakeLLM() as llm:
        llm.retry_after = "1"
        llm.inject("429")
        start = time.perf_counter()
        _collect(small_views[:1], _model(llm), tmp_path)
        assert time.perf_counter() - start >= 1.0


def test_retry_after_parsing():
    assert retry_after_seconds("2.5") == 2.5
    assert retry_after_seconds(None) is None and retry_after_seconds("soon") is None
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a date in the past


def test_malformed_answers_are_repaired_then_marked_invalid(small_views, tmp_path):
    view = small_views[0]
    with FakeLLM() as llm:
        llm.always("malformed", task="emotions")
        llm.always("malformed", task="binary_hp_observer")
        stats, files = _collect([view], _model(llm, max_repairs=2), tmp_path)
        asked = [r for r in llm.requests if r["task"] == "emotions"]
        assert len(asked) == 3 * len(view.turns)  # the question and two repairs per turn
        repairs = [r for r in asked if r["body"]["messages"][-1]["content"].startswith("Your answer could not be used")]
        assert len(repairs) == 2 * len(view.turns)
        assert repairs[0]["body"]["messages"][-2] == {"role": "assistant", "content": "this is not json {"}
    assert stats["invalid"] == {"emotions": len(view.turns), "binary_hp_observer": len(view.turns)}
    # per task: the first answers and both repairs invalid, each holding no JSON object
    emotions = stats["tasks"]["emotions"]
    assert emotions["requests"] == emotions["first_invalid"] == len(view.turns)
    assert emotions["repairs"] == 2 * len(view.turns)
    assert emotions["repair_invalid"] == 2 * len(view.turns) and emotions["problems"] == {
        "not_json": 3 * len(view.turns)
    }
    assert stats["tasks"]["draft"]["problems"] == {} and stats["tasks"]["draft"]["first_invalid"] == 0
    output = json.loads(next(iter(files.values())))
    turn = output["turns"][0]
    assert turn["em_emotion_tags"] == [] and turn["em_emotion_tags_invalid"] is True
    assert set(turn["em_binary_human_prediction"].values()) == {"invalid"}
    assert turn["em_invalid_answers"]["emotions"] == "this is not json {"
    tables = em_tables(read_em_outputs(list_json_files(tmp_path / "out"), "fake-model", "default"))
    hp = tables["em_binary"].query("target == 'hp' and wording == 'observer'")
    assert (hp["status"] == "invalid").all() and not hp["value"].notna().any()
    assert tables["em_turns"]["emotion_tags_invalid"].all()
    assert tables["extra_fields"]["json_path"].str.contains("em_invalid_answers").any()


def test_a_refused_key_stops_with_a_clear_message_without_the_key(small_views, tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET + "-wrong")
    with FakeLLM(require_key=SECRET) as llm:
        with pytest.raises(CollectionError) as err:
            _collect(small_views[:1], _model(llm), tmp_path)
    message = str(err.value)
    assert "HTTP 401" in message and KEY_ENV in message and SECRET not in message


def test_a_missing_key_names_the_variable(small_views, tmp_path, monkeypatch):
    monkeypatch.delenv(KEY_ENV)
    with FakeLLM() as llm:
        with pytest.raises(CollectionError, match=f"environment variable {KEY_ENV} is not set"):
            _collect(small_views[:1], _model(llm), tmp_path)
        assert llm.count == 0


def test_an_unreachable_endpoint_fails_after_the_retries(small_views, tmp_path, fast_backoff):
    model = LiveModel.from_config(
        {
            "name": "nowhere",
            "kind": "openai_compatible",
            "model_id": "x",
            "endpoint": "http://127.0.0.1:9/v1",
            "api_key_env": None,
            "max_retries": 2,
            "timeout_seconds": 1.0,
        }
    )
    with pytest.raises(CollectionError, match="failed 3 times"):
        _collect(small_views[:1], model, tmp_path)


def test_the_key_never_reaches_outputs_cache_or_statistics(small_views, tmp_path, caplog):
    with FakeLLM(require_key=SECRET) as llm:
        stats, files = _collect(small_views[:2], _model(llm), tmp_path)
        assert all(r["headers"].get("authorization") == f"Bearer {SECRET}" for r in llm.requests)
    assert SECRET not in json.dumps(stats)
    assert all(SECRET.encode() not in content for content in files.values())
    for path in (tmp_path / "cache").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    assert SECRET not in caplog.text


def test_the_cache_key_holds_the_model_identity(small_views, tmp_path):
    with FakeLLM() as llm:
        _collect(small_views[:1], _model(llm), tmp_path, name="a")
        before = llm.count
        _collect(small_views[:1], _model(llm, model_id="fake-2"), tmp_path, name="b")  # another model id
        assert llm.count == 2 * before
        _collect(small_views[:1], _model(llm, revision="2025-01"), tmp_path, name="c")  # another revision
        _collect(small_views[:1], _model(llm, temperature=0.7), tmp_path, name="d")  # other decoding
        assert llm.count == 4 * before


def test_rate_limit_spaces_requests():
    async def run() -> float:
        limiter = RateLimiter(per_minute=600)  # one every 0.1 s
        start = time.perf_counter()
        for _ in range(6):
            await limiter.wait()
        return time.perf_counter() - start

    assert asyncio.run(run()) >= 0.45


def test_concurrency_limit(small_views, tmp_path):
    with FakeLLM(latency=0.05) as llm:
        start = time.perf_counter()
        stats, _ = _collect(small_views[:1], _model(llm, concurrency=1), tmp_path)
        serial = time.perf_counter() - start
    assert serial >= stats["calls"] * 0.05


def test_anthropic_payload_moves_the_system_text():
    model = LiveModel.from_config({"name": "a", "kind": "anthropic", "model_id": "claude-x", "api_key_env": None})
    adapter = Anthropic(model, httpx.AsyncClient())
    body = adapter.payload([{"role": "system", "content": "S"}, {"role": "user", "content": "U"}])
    assert body["system"] == "S" and body["messages"] == [{"role": "user", "content": "U"}]
    assert model.endpoint == "https://api.anthropic.com"

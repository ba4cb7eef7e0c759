"""Requests bounded against a misbehaving loopback server (tests/predict/fake_llm.py): a whole-
request deadline, a response size cap, token usage read defensively, and the key redacted from
every body before anything is cut from it (issue 17: live collection and secrets)."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest
from eibench.predict.adapters import ADAPTERS, CollectionError, LiveModel, RequestRefused, token_count
from eibench.predict.cache import read_journal
from eibench.predict.collect import collect_shard

from .fake_llm import FakeLLM

KEY_ENV = "EIBENCH_TEST_KEY"
SECRET = "sk-Q7vXw2LpM9nR4tYb8KcZ"  # 22 characters, no run of 4 repeated elsewhere in a body
MESSAGES = [{"role": "system", "content": "TASK: draft\nWrite the reply."}, {"role": "user", "content": "Hello."}]


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)


def _model(llm: FakeLLM, kind: str = "openai_compatible", **overrides) -> LiveModel:
    endpoint = llm.base_url + ("/v1" if kind == "openai_compatible" else "")
    entry = {
        "name": "fake-model",
        "kind": kind,
        "model_id": "fake-1",
        "endpoint": endpoint,
        "api_key_env": KEY_ENV,
        "timeout_seconds": 2.0,
        "max_retries": 0,
        "price_input_per_million": 1.0,
        "price_output_per_million": 2.0,
        **overrides,
    }
    return LiveModel.from_config(entry)


async def _complete(model: LiveModel, messages=MESSAGES):
    async with httpx.AsyncClient() as client:
        return await ADAPTERS[model.kind](model, client).complete(messages)


def _fragments(key: str, size: int = 4) -> set[str]:
    return {key[i : i + size] for i in range(len(key) - size + 1)}


def _leaks(text: str) -> list[str]:
    return sorted(f for f in _fragments(SECRET) if f in text)


def test_a_dripped_body_is_cut_by_the_whole_request_deadline():
    with FakeLLM() as llm:
        llm.drip_interval = 0.5
        llm.inject("drip")
        model = _model(llm, timeout_seconds=2.0, request_deadline_seconds=1.5)
        start = time.monotonic()
        with pytest.raises(Exception) as caught:
            asyncio.run(_complete(model))
        took = time.monotonic() - start
    assert "request_deadline_seconds (1.5 s)" in str(caught.value)
    assert took < 3.0, f"the attempt took {took:.1f} s with a 1.5 s deadline"


def test_a_dripped_attempt_is_retried_and_the_retry_answers():
    with FakeLLM() as llm:
        llm.inject("drip")
        model = _model(llm, request_deadline_seconds=0.8, max_retries=1)
        done = asyncio.run(_complete(model))
    assert done.text and llm.count == 2


def test_an_endpoint_nobody_listens_on_is_named_as_such():
    with FakeLLM() as llm:
        model = _model(llm)
    with pytest.raises(
        CollectionError,
        match=r"chat/completions failed 1 time; .*could not connect \(ConnectError: .*is the server at the model's",
    ):
        asyncio.run(_complete(model))  # the fake server has stopped: its port refuses connections


@pytest.mark.parametrize("kind", ["openai_compatible", "anthropic"])
def test_a_huge_reply_is_refused_while_it_streams(kind):
    with FakeLLM(require_key=SECRET) as llm:
        llm.inject("huge")
        model = _model(llm, kind, max_response_bytes=65536)
        with pytest.raises(RequestRefused, match=r"max_response_bytes \(65536 bytes"):
            asyncio.run(_complete(model))
        normal = asyncio.run(_complete(model))  # the same limit lets a normal answer through
    assert normal.text


@pytest.mark.parametrize("kind", ["openai_compatible", "anthropic"])
@pytest.mark.parametrize(
    "raw", ['"lots"', "1e400", "-5", "12345678901234567890", "3.5", "true", "null", "[1]", "{}", '"12"', "NaN"]
)
def test_an_unusable_usage_count_is_unknown_not_a_crash(kind, raw):
    with FakeLLM(require_key=SECRET) as llm:
        llm.bad_usage = raw
        llm.inject("bad_usage")
        done = asyncio.run(_complete(_model(llm, kind)))
    assert done.text and done.input_tokens is None and isinstance(done.output_tokens, int)


@pytest.mark.parametrize(
    "value, expected",
    [
        (0, 0),
        (17, 17),
        (17.0, 17),
        (10**9, 10**9),
        (10**9 + 1, None),
        (-1, None),
        (1.5, None),
        (float("inf"), None),
        (float("nan"), None),
        (True, None),
        ("17", None),
        (None, None),
        ([3], None),
    ],
)
def test_token_count(value, expected):
    assert token_count(value) == expected


def test_unknown_usage_makes_the_cost_unknown_and_is_cached_and_counted(small_views, tmp_path):
    view = small_views[0]
    with FakeLLM(require_key=SECRET) as llm:
        llm.bad_usage = "1e400"
        llm.always("bad_usage", task="draft")
        model = _model(llm, max_retries=2)
        stats = collect_shard(
            [view],
            model,
            "default",
            "absolute",
            "v1",
            tmp_path / "cache",
            "shard-0",
            tmp_path / "out",
            show_progress=False,
        )
        again = collect_shard(
            [view],
            model,
            "default",
            "absolute",
            "v1",
            tmp_path / "cache",
            "shard-0",
            tmp_path / "again",
            show_progress=False,
        )
    drafts = sum(1 for t in view.turns)
    assert stats["usage_unknown"] == drafts and again["usage_unknown"] == drafts and again["calls"] == 0
    output = json.loads((tmp_path / "out" / f"{view.conversation_id}.json").read_text())
    assert output["api_cost"] is None
    assert all(t["em_drafted_response"] for t in output["turns"])
    records, damaged = read_journal(tmp_path / "cache" / "fake-model" / "shard-0.jsonl")
    assert damaged == 0 and sum(r.entry.input_tokens is None for r in records) == drafts


def test_a_model_priced_at_zero_has_a_known_cost_of_zero_without_usage():
    model = LiveModel.from_config({"name": "m", "kind": "openai_compatible", "model_id": "x"})
    assert model.cost(None, None) == 0.0
    priced = LiveModel.from_config(
        {"name": "m", "kind": "openai_compatible", "model_id": "x", "price_output_per_million": 2.0}
    )
    assert priced.cost(None, 1000) == 0.002 and priced.cost(5, None) is None


@pytest.mark.parametrize("kind", ["openai_compatible", "anthropic"])
def test_a_key_echoed_across_the_cut_of_an_error_body_never_leaks(kind):
    """The key starts at every offset from len(key) before the 300-character cut to just after it."""
    messages = []
    with FakeLLM(require_key=SECRET) as llm:
        model = _model(llm, kind)
        for start in range(300 - len(SECRET) - 1, 302):
            llm.echo_at = start
            llm.inject("echo_key")
            with pytest.raises(RequestRefused) as caught:
                asyncio.run(_complete(model))
            messages.append((start, str(caught.value)))
    assert len(messages) == len(SECRET) + 3
    leaked = {start: _leaks(text) for start, text in messages if _leaks(text)}
    assert not leaked, f"key fragments in the error text at offsets {sorted(leaked)}"
    assert all("[redacted]" in text for start, text in messages if start <= 300 - len("[redacted]"))


def test_an_echoed_key_reaches_no_output_cache_or_log(small_views, tmp_path, caplog):
    view = small_views[0]
    with FakeLLM(require_key=SECRET) as llm:
        llm.echo_at = 290
        llm.always("echo_key", task="draft")
        stats = collect_shard(
            [view],
            _model(llm),
            "default",
            "absolute",
            "v1",
            tmp_path / "cache",
            "shard-0",
            tmp_path / "out",
            show_progress=False,
        )
    assert stats["refused"] == sum(1 for _ in view.turns)
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written
    for path in written:
        assert not _leaks(path.read_bytes().decode("utf-8", errors="replace")), path
    assert not _leaks(caplog.text + json.dumps(stats))


def test_a_key_in_an_answer_even_json_escaped_is_redacted():
    escaped = "".join(f"\\u{ord(c):04x}" for c in SECRET)

    def handler(request: httpx.Request) -> httpx.Response:
        body = '{"choices": [{"message": {"content": "plain %s and escaped %s"}}], "usage": {}}' % (SECRET, escaped)
        return httpx.Response(200, content=body.encode(), headers={"content-type": "application/json"})

    model = LiveModel.from_config(
        {
            "name": "m",
            "kind": "openai_compatible",
            "model_id": "x",
            "endpoint": "http://loopback.invalid/v1",
            "api_key_env": KEY_ENV,
        }
    )

    async def run():
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            return await ADAPTERS["openai_compatible"](model, client).complete(MESSAGES)

    done = asyncio.run(run())
    assert done.text == "plain [redacted] and escaped [redacted]"
    assert done.input_tokens is None and done.output_tokens is None


def test_a_body_without_content_length_is_cut_as_it_streams():
    """No Content-Length (chunked): the cap is enforced on the bytes received, before the rest."""
    sent = []

    async def chunks():
        yield b'{"choices": [{"message": {"content": "'
        for _ in range(1000):
            sent.append(1)
            yield b"a" * 1024
        yield b'"}}]}'

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=chunks())

    model = LiveModel.from_config(
        {
            "name": "m",
            "kind": "openai_compatible",
            "model_id": "x",
            "endpoint": "http://loopback.invalid/v1",
            "max_response_bytes": 65536,
        }
    )

    async def run():
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            return await ADAPTERS["openai_compatible"](model, client).complete(MESSAGES)

    with pytest.raises(RequestRefused, match="max_response_bytes"):
        asyncio.run(run())
    assert len(sent) < 100  # stopped reading near the cap, not after the whole megabyte

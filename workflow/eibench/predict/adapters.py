"""HTTP adapters for live models: OpenAI-compatible chat completions and Anthropic Messages.

One interface (``Adapter.complete(messages) -> Completion``) with, for every provider:
retries with exponential backoff and jitter on 429, 5xx, timeouts, broken connections and
unparseable bodies, honouring Retry-After; a concurrency limit and a requests-per-minute limit
per model; token accounting. Messages may carry images and audio as content parts
(``eibench.predict.media``): a request with a modality the model's config does not accept stops
with a clear error before any call. API keys are read from the environment only (the config names
the variable), sent in headers only, and never appear in errors, logs, caches or outputs.
"""

from __future__ import annotations

import asyncio
import email.utils
import os
import random
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import httpx

from . import media

#: Statuses worth retrying: request timeout, too many requests, and every server error.
RETRY_STATUS = {408, 429} | set(range(500, 600))
#: Statuses that stop the whole model: the key or the model id is wrong for every request.
FATAL_STATUS = {401, 403, 404}
#: The longest wait between two attempts, whatever a Retry-After header asks.
MAX_WAIT_SECONDS = 120.0
DEFAULT_ENDPOINTS = {"openai_compatible": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}
ANTHROPIC_VERSION = "2023-06-01"


class CollectionError(RuntimeError):
    """A model cannot be queried (missing key, refused request, unreachable endpoint)."""


class RequestRefused(Exception):
    """The endpoint refused this one request for good (e.g. HTTP 400: context too long, content
    policy). The request's answer is recorded as invalid; the collection goes on."""


class _Transient(Exception):
    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class LiveModel:
    """A live model of the registry (config ``models`` entry of kind openai_compatible/anthropic)."""

    name: str
    kind: str
    model_id: str
    endpoint: str
    api_key_env: str | None = None
    revision: str = ""
    temperature: float = 0.0
    max_tokens: int = 1024
    samples: int = 1
    concurrency: int = 4
    requests_per_minute: float | None = None
    price_input_per_million: float = 0.0
    price_output_per_million: float = 0.0
    timeout_seconds: float = 60.0
    max_retries: int = 5
    max_repairs: int = 2
    params: dict[str, Any] = field(default_factory=dict)  # extra decoding parameters, passed through
    modalities: tuple[str, ...] = ("text",)  # what the endpoint accepts (text, image, audio)
    max_media_bytes: int | None = None  # largest image/audio part; None: the provider's limit

    @classmethod
    def from_config(cls, entry: dict[str, Any]) -> "LiveModel":
        values = {k: v for k, v in entry.items() if k in cls.__dataclass_fields__ and k != "endpoint"}
        if "modalities" in values:
            values["modalities"] = tuple(dict.fromkeys(["text", *values["modalities"]]))
        return cls(endpoint=(entry.get("endpoint") or DEFAULT_ENDPOINTS[entry["kind"]]).rstrip("/"), **values)

    def identity(self) -> dict[str, Any]:
        """What makes two answers comparable: part of every cache key (the endpoint is not, so
        moving a model to another server keeps its cache; its id and revision are). Numbers are
        normalised so that temperature 0 and 0.0 give the same key."""
        return {"kind": self.kind, "model_id": self.model_id, "revision": self.revision,
                "temperature": float(self.temperature), "max_tokens": int(self.max_tokens), "params": self.params}

    def share(self, jobs: int) -> "LiveModel":
        """This model's limits split evenly over ``jobs`` concurrent jobs (shards x modes), so
        the configured concurrency and requests per minute hold for the model as a whole."""
        from dataclasses import replace
        from math import ceil

        rpm = self.requests_per_minute / jobs if self.requests_per_minute else None
        return replace(self, concurrency=max(1, ceil(self.concurrency / jobs)), requests_per_minute=rpm)

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """USD for one call."""
        return (input_tokens * self.price_input_per_million + output_tokens * self.price_output_per_million) / 1e6


@dataclass(frozen=True)
class Completion:
    text: str
    input_tokens: int
    output_tokens: int
    latency_seconds: float
    created_at: str


class RateLimiter:
    """At most ``per_minute`` request starts per minute, evenly spaced (None: no limit)."""

    def __init__(self, per_minute: float | None):
        self.interval = 60.0 / per_minute if per_minute else 0.0
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        if not self.interval:
            return
        async with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        await asyncio.sleep(start - now)


def retry_after_seconds(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (seconds or an HTTP date); None if absent/bad."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


class Adapter:
    """Base: retries, limits and the HTTP call; subclasses build payloads and read answers."""

    path = ""

    def __init__(self, model: LiveModel, client: httpx.AsyncClient, seed: int = 0,
                 backoff_base: float = 0.5, backoff_max: float = 30.0):
        self.model = model
        self.client = client
        self._key = self._read_key(model)
        self._semaphore = asyncio.Semaphore(model.concurrency)
        self._limiter = RateLimiter(model.requests_per_minute)
        self._jitter = random.Random(seed)
        self.backoff_base, self.backoff_max = backoff_base, backoff_max
        self.calls = 0
        self.retries = 0

    @staticmethod
    def _read_key(model: LiveModel) -> str | None:
        if not model.api_key_env:
            return None
        key = (os.environ.get(model.api_key_env) or "").strip()
        if not key:
            raise CollectionError(
                f"model {model.name!r}: the environment variable {model.api_key_env} is not set. API keys are read "
                f"from the environment only: export {model.api_key_env}=... before running, or remove the model."
            )
        if not (key.isascii() and key.isprintable()):
            raise CollectionError(f"model {model.name!r}: the value of {model.api_key_env} has characters an HTTP "
                                  "header cannot carry (spaces inside, line breaks, non-ASCII); check it")
        return key

    def _redact(self, text: str) -> str:
        return text.replace(self._key, "[redacted]") if self._key else text

    def headers(self) -> dict[str, str]:
        raise NotImplementedError

    def payload(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        raise NotImplementedError

    def read(self, body: Any) -> tuple[str, int, int]:
        raise NotImplementedError

    async def complete(self, messages: list[dict[str, Any]], where: str = "the request") -> Completion:
        """One answer, retried on transient failures; CollectionError when it cannot be had.
        A content may be a list of text and media parts; ``media.ModalityError`` (before any
        call) when the model does not accept one of them (``where`` names the request in it)."""
        media.check_request(self.model, messages, where)
        url = self.model.endpoint + self.path
        last = ""
        for attempt in range(self.model.max_retries + 1):
            if attempt:
                self.retries += 1
            try:
                async with self._semaphore:
                    await self._limiter.wait()
                    return await self._once(url, messages)
            except _Transient as e:
                last = str(e)
                if attempt == self.model.max_retries:
                    break
                delay = min(self.backoff_max, self.backoff_base * 2**attempt) * (0.5 + self._jitter.random())
                await asyncio.sleep(min(MAX_WAIT_SECONDS, max(delay, e.retry_after or 0.0)))
        raise CollectionError(f"model {self.model.name!r}: {url} failed {self.model.max_retries + 1} times; last: {last}")

    async def _once(self, url: str, messages: list[dict[str, Any]]) -> Completion:
        start = time.perf_counter()
        self.calls += 1
        try:
            response = await self.client.post(url, json=self.payload(messages), headers=self.headers(),
                                              timeout=self.model.timeout_seconds)
        except httpx.TimeoutException:
            raise _Transient(f"timed out after {self.model.timeout_seconds:g} s") from None
        except httpx.TransportError as e:
            raise _Transient(f"connection problem ({type(e).__name__})") from None
        if response.status_code in RETRY_STATUS:
            raise _Transient(f"HTTP {response.status_code}", retry_after_seconds(response.headers.get("retry-after")))
        if response.status_code >= 400:
            detail = self._redact(response.text[:300])
            if response.status_code in FATAL_STATUS:
                hint = f" (check the key in {self.model.api_key_env})" if response.status_code in (401, 403) else \
                    f" (check model_id {self.model.model_id!r} and the endpoint)"
                raise CollectionError(
                    f"model {self.model.name!r}: {url} refused the request with HTTP {response.status_code}: {detail}{hint}")
            raise RequestRefused(f"HTTP {response.status_code}: {detail}")
        try:
            body = response.json()
        except ValueError:
            raise _Transient("the response body is not JSON (truncated?)") from None
        try:
            text, tokens_in, tokens_out = self.read(body)
        except (KeyError, IndexError, TypeError, AttributeError):
            raise _Transient("the response JSON lacks the expected fields") from None
        created = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        return Completion(text, tokens_in, tokens_out, time.perf_counter() - start, created)


class OpenAICompatible(Adapter):
    """POST <endpoint>/chat/completions (OpenAI, vLLM, llama.cpp server, Ollama, ...)."""

    path = "/chat/completions"

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._key}"} if self._key else {}

    def payload(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        messages = [{**m, "content": media.openai_content(m["content"])} for m in messages]
        return {"model": self.model.model_id, "messages": messages, "temperature": self.model.temperature,
                "max_tokens": self.model.max_tokens, **self.model.params}

    def read(self, body: Any) -> tuple[str, int, int]:
        choices = body["choices"]
        # No choice, or a null content (a refusal or a content filter), is an empty answer: the
        # parser rejects it and the repair loop takes over, as for any unusable answer.
        text = (choices[0].get("message") or {}).get("content") if choices else None
        usage = body.get("usage") or {}
        return text if isinstance(text, str) else "", int(usage.get("prompt_tokens") or 0), \
            int(usage.get("completion_tokens") or 0)


class Anthropic(Adapter):
    """POST <endpoint>/v1/messages (the Anthropic Messages API)."""

    path = "/v1/messages"

    def headers(self) -> dict[str, str]:
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if self._key:
            headers["x-api-key"] = self._key
        return headers

    def payload(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        system = "\n".join(media.text_of(m["content"]) for m in messages if m["role"] == "system")
        rest = [{**m, "content": media.anthropic_content(m["content"])} for m in messages if m["role"] != "system"]
        return {"model": self.model.model_id, "system": system, "messages": rest,
                "max_tokens": self.model.max_tokens, "temperature": self.model.temperature, **self.model.params}

    def read(self, body: Any) -> tuple[str, int, int]:
        blocks = [b.get("text") or "" for b in body["content"] if isinstance(b, dict) and b.get("type") == "text"]
        usage = body.get("usage") or {}
        return "".join(blocks), int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)


ADAPTERS = {"openai_compatible": OpenAICompatible, "anthropic": Anthropic}

"""HTTP adapters for live models: OpenAI-compatible chat completions and Anthropic Messages.

One interface (``Adapter.complete(messages) -> Completion``) with, for every provider:
retries with exponential backoff and jitter on 429, 5xx, timeouts, broken connections and
unparseable bodies, honouring Retry-After; a concurrency limit and a requests-per-minute limit
per model; token accounting. Messages may carry images and audio as content parts
(``eibench.predict.media``): a request with a modality the model's config does not accept stops
with a clear error before any call. API keys are read from the environment only (the config names
the variable), sent in headers only, and never appear in errors, logs, caches or outputs.

Every request is bounded: ``request_deadline_seconds`` bounds the whole attempt (connect, headers
and body, however slowly the server drips it), ``max_response_bytes`` the body, counted while it
streams in. Token counts are read defensively: a usage field that is not a plausible count
(missing, a string, negative, a float like 1e400) is recorded as unknown (None), never a crash.
The key is redacted from a body before anything is cut from it or read out of it.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import random
import threading
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
#: A usage count above this is not a count of one call's tokens (guards against 1e400 and the like).
MAX_TOKEN_COUNT = 10**9
#: Characters of an error body kept in a message (after the key is redacted).
ERROR_DETAIL_CHARS = 300
REDACTED = "[redacted]"
DEFAULT_ENDPOINTS = {"openai_compatible": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}
ANTHROPIC_VERSION = "2023-06-01"


class CollectionError(RuntimeError):
    """A model cannot be queried (missing key, refused request, unreachable endpoint)."""


class RequestRefused(Exception):
    """The endpoint refused this one request for good (e.g. HTTP 400: context too long, content
    policy). The request's answer is recorded as invalid; the collection goes on."""


class Stopped(Exception):
    """The collection is stopping (its parent process died): no new request is sent."""


class _TooLarge(Exception):
    pass


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
    request_deadline_seconds: float = 120.0  # one whole attempt: connect, headers and body (collection.*)
    max_response_bytes: int = 4 * 1024 * 1024  # largest body accepted, decoded (collection.*)
    # Send each task's answer schema (schemas.answer_schema) as response_format, so the endpoint
    # constrains decoding to it (llama.cpp server, vLLM); openai_compatible only.
    structured_output: bool = False

    @classmethod
    def from_config(cls, entry: dict[str, Any], bounds: dict[str, Any] | None = None) -> "LiveModel":
        """The model of a config ``models`` entry; ``bounds``: the request bounds of the
        ``collection`` section (``request_deadline_seconds``, ``max_response_bytes``), when set."""
        entry = {**(bounds or {}), **entry}
        values = {k: v for k, v in entry.items() if k in cls.__dataclass_fields__ and k != "endpoint"}
        if "modalities" in values:
            values["modalities"] = tuple(dict.fromkeys(["text", *values["modalities"]]))
        if values.get("structured_output") and entry["kind"] != "openai_compatible":
            raise CollectionError(
                f"model {entry.get('name')!r}: structured_output is offered for kind "
                f"openai_compatible only, not {entry['kind']!r}; remove the key"
            )
        return cls(endpoint=(entry.get("endpoint") or DEFAULT_ENDPOINTS[entry["kind"]]).rstrip("/"), **values)

    def identity(self) -> dict[str, Any]:
        """What makes two answers comparable: part of every cache key (the endpoint is not, so
        moving a model to another server keeps its cache; its id and revision are). Numbers are
        normalised so that temperature 0 and 0.0 give the same key. ``structured_output`` enters
        only when set, so the keys of models without it are those of earlier runs."""
        identity = {
            "kind": self.kind,
            "model_id": self.model_id,
            "revision": self.revision,
            "temperature": float(self.temperature),
            "max_tokens": int(self.max_tokens),
            "params": self.params,
        }
        if self.structured_output:
            identity["structured_output"] = True
        return identity

    def share(self, jobs: int) -> "LiveModel":
        """This model's limits split evenly over ``jobs`` concurrent jobs (shards x modes), so
        the configured concurrency and requests per minute hold for the model as a whole."""
        from dataclasses import replace
        from math import ceil

        rpm = self.requests_per_minute / jobs if self.requests_per_minute else None
        return replace(self, concurrency=max(1, ceil(self.concurrency / jobs)), requests_per_minute=rpm)

    def cost(self, input_tokens: int | None, output_tokens: int | None) -> float | None:
        """USD for one call; None (unknown) when a count the price needs is unknown (a count of
        a side priced at 0 is not needed)."""
        total = 0.0
        for tokens, price in (
            (input_tokens, self.price_input_per_million),
            (output_tokens, self.price_output_per_million),
        ):
            if price:
                if tokens is None:
                    return None
                total += tokens * price
        return total / 1e6


def token_count(value: Any) -> int | None:
    """A usage field as a token count: an integer (or integral float) in 0..MAX_TOKEN_COUNT;
    None (unknown) for anything else: missing, null, a boolean, a string, negative, huge,
    fractional, infinite or NaN (JSON 1e400 reads as infinity)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value <= MAX_TOKEN_COUNT else None
    if isinstance(value, float) and value.is_integer() and 0 <= value <= MAX_TOKEN_COUNT:
        return int(value)
    return None


@dataclass(frozen=True)
class Completion:
    """One answer. Token counts are None when the response did not give a usable count."""

    text: str
    input_tokens: int | None
    output_tokens: int | None
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

    def __init__(
        self,
        model: LiveModel,
        client: httpx.AsyncClient,
        seed: int = 0,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        stopping: threading.Event | None = None,
    ):
        self.model = model
        self.stopping = stopping or threading.Event()  # set: send nothing more (Stopped)
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
            raise CollectionError(
                f"model {model.name!r}: the value of {model.api_key_env} has characters an HTTP "
                "header cannot carry (spaces inside, line breaks, non-ASCII); check it"
            )
        return key

    def _redact(self, text: str) -> str:
        """``text`` without the key. Applied to a whole body before it is cut or parsed, so a key
        straddling the cut of an error message cannot leave a part of itself behind."""
        return text.replace(self._key, REDACTED) if self._key else text

    def headers(self) -> dict[str, str]:
        raise NotImplementedError

    def payload(self, messages: list[dict[str, Any]], schema: dict[str, Any] | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def read(self, body: Any) -> tuple[str, int | None, int | None]:
        raise NotImplementedError

    async def complete(
        self, messages: list[dict[str, Any]], where: str = "the request", schema: dict[str, Any] | None = None
    ) -> Completion:
        """One answer, retried on transient failures; CollectionError when it cannot be had.
        A content may be a list of text and media parts; ``media.ModalityError`` (before any
        call) when the model does not accept one of them (``where`` names the request in it).
        ``schema``: the answer's JSON schema, sent when the model has ``structured_output``."""
        media.check_request(self.model, messages, where)
        url = self.model.endpoint + self.path
        last = ""
        for attempt in range(self.model.max_retries + 1):
            if attempt:
                self.retries += 1
            try:
                async with self._semaphore:
                    await self._limiter.wait()
                    if self.stopping.is_set():
                        raise Stopped(f"model {self.model.name!r}: stopping, {url} not asked")
                    return await self._once(url, messages, schema)
            except _Transient as e:
                last = str(e)
                if attempt == self.model.max_retries:
                    break
                delay = min(self.backoff_max, self.backoff_base * 2**attempt) * (0.5 + self._jitter.random())
                await self._pause(min(MAX_WAIT_SECONDS, max(delay, e.retry_after or 0.0)))
        attempts = self.model.max_retries + 1
        raise CollectionError(
            f"model {self.model.name!r}: {url} failed {attempts} time{'s' if attempts > 1 else ''}; last: {last}"
        )

    async def _pause(self, seconds: float) -> None:
        """Sleep ``seconds`` between attempts, cut short when the collection is stopping (a stopping
        collector must let go of its shard soon, not after a Retry-After of two minutes)."""
        end = time.monotonic() + seconds
        while not self.stopping.is_set() and (left := end - time.monotonic()) > 0:
            await asyncio.sleep(min(left, 0.25))

    async def _post(
        self, url: str, messages: list[dict[str, Any]], schema: dict[str, Any] | None = None
    ) -> tuple[int, httpx.Headers, bytes]:
        """Status, headers and body of one POST, the body read in chunks and refused (_TooLarge)
        as soon as it exceeds ``max_response_bytes`` (a larger Content-Length: before any byte)."""
        cap = self.model.max_response_bytes
        async with self.client.stream(
            "POST", url, json=self.payload(messages, schema), headers=self.headers(), timeout=self.model.timeout_seconds
        ) as response:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and (len(declared) > 18 or int(declared) > cap):
                raise _TooLarge(declared if len(declared) <= 18 else "a Content-Length of 19+ digits")
            chunks, size = [], 0
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > cap:
                    raise _TooLarge(size)
                chunks.append(chunk)
            return response.status_code, response.headers, b"".join(chunks)

    async def _once(self, url: str, messages: list[dict[str, Any]], schema: dict[str, Any] | None = None) -> Completion:
        start = time.perf_counter()
        self.calls += 1
        deadline = self.model.request_deadline_seconds
        try:
            async with asyncio.timeout(deadline):
                status, headers, raw = await self._post(url, messages, schema)
        except TimeoutError:
            raise _Transient(f"no whole answer within collection.request_deadline_seconds ({deadline:g} s)") from None
        except httpx.TimeoutException:
            raise _Transient(f"timed out after {self.model.timeout_seconds:g} s") from None
        except httpx.ConnectError as e:
            raise _Transient(
                f"could not connect ({type(e).__name__}: {e}): is the server at the model's endpoint "
                "running? (a local server's log says whether it stopped)"
            ) from None
        except httpx.TransportError as e:
            raise _Transient(f"connection problem ({type(e).__name__})") from None
        except _TooLarge as e:
            raise RequestRefused(
                f"the response has more than collection.max_response_bytes "
                f"({self.model.max_response_bytes} bytes; at least {e.args[0]}); "
                "raise that limit if such answers are expected"
            ) from None
        if status in RETRY_STATUS:
            raise _Transient(f"HTTP {status}", retry_after_seconds(headers.get("retry-after")))
        text = self._redact(raw.decode("utf-8", errors="replace"))
        if status >= 400:
            detail = text[:ERROR_DETAIL_CHARS]
            if status in FATAL_STATUS:
                hint = (
                    f" (check the key in {self.model.api_key_env})"
                    if status in (401, 403)
                    else f" (check model_id {self.model.model_id!r} and the endpoint)"
                )
                raise CollectionError(
                    f"model {self.model.name!r}: {url} refused the request with HTTP {status}: {detail}{hint}"
                )
            raise RequestRefused(f"HTTP {status}: {detail}")
        try:
            body = json.loads(text)
        except ValueError:
            raise _Transient("the response body is not JSON (truncated?)") from None
        try:
            answer, tokens_in, tokens_out = self.read(body)
        except (KeyError, IndexError, TypeError, AttributeError):
            raise _Transient("the response JSON lacks the expected fields") from None
        created = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        # Redacted again: an answer may hold the key JSON-escaped (\u0073k-...), unseen in the raw body.
        return Completion(self._redact(answer), tokens_in, tokens_out, time.perf_counter() - start, created)


class OpenAICompatible(Adapter):
    """POST <endpoint>/chat/completions (OpenAI, vLLM, llama.cpp server, Ollama, ...)."""

    path = "/chat/completions"

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._key}"} if self._key else {}

    def payload(self, messages: list[dict[str, Any]], schema: dict[str, Any] | None = None) -> dict[str, Any]:
        messages = [{**m, "content": media.openai_content(m["content"])} for m in messages]
        body = {
            "model": self.model.model_id,
            "messages": messages,
            "temperature": self.model.temperature,
            "max_tokens": self.model.max_tokens,
            **self.model.params,
        }
        if self.model.structured_output and schema is not None:
            # llama.cpp's server and vLLM constrain decoding to the schema in this form.
            body["response_format"] = {"type": "json_object", "schema": schema}
        return body

    def read(self, body: Any) -> tuple[str, int | None, int | None]:
        choices = body["choices"]
        # No choice, or a null content (a refusal or a content filter), is an empty answer: the
        # parser rejects it and the repair loop takes over, as for any unusable answer.
        text = (choices[0].get("message") or {}).get("content") if choices else None
        usage = body.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        return (
            text if isinstance(text, str) else "",
            token_count(usage.get("prompt_tokens")),
            token_count(usage.get("completion_tokens")),
        )


class Anthropic(Adapter):
    """POST <endpoint>/v1/messages (the Anthropic Messages API)."""

    path = "/v1/messages"

    def headers(self) -> dict[str, str]:
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if self._key:
            headers["x-api-key"] = self._key
        return headers

    def payload(self, messages: list[dict[str, Any]], schema: dict[str, Any] | None = None) -> dict[str, Any]:
        system = "\n".join(media.text_of(m["content"]) for m in messages if m["role"] == "system")
        rest = [{**m, "content": media.anthropic_content(m["content"])} for m in messages if m["role"] != "system"]
        return {
            "model": self.model.model_id,
            "system": system,
            "messages": rest,
            "max_tokens": self.model.max_tokens,
            "temperature": self.model.temperature,
            **self.model.params,
        }

    def read(self, body: Any) -> tuple[str, int | None, int | None]:
        blocks = [b.get("text") or "" for b in body["content"] if isinstance(b, dict) and b.get("type") == "text"]
        usage = body.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        return "".join(blocks), token_count(usage.get("input_tokens")), token_count(usage.get("output_tokens"))


ADAPTERS = {"openai_compatible": OpenAICompatible, "anthropic": Anthropic}

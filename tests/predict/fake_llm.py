"""A deterministic fake LLM HTTP server for tests and benchmarks (standard library only).

It speaks two protocols on 127.0.0.1:

* OpenAI chat completions: ``POST /v1/chat/completions`` (clients use ``base_url + "/v1"``);
* Anthropic Messages: ``POST /v1/messages``.

Every request of the evaluation protocol (``workflow/eibench/predict/prompts/v1.yaml``) gets a
valid answer: the task comes from the first line ``TASK: <task>`` of the system text and the
machine-readable lines (``ANSWER KEYS``, ``COMPARISONS``, ``ITEMS``, the PANAS list, the
``q1_``/``q2_``/``q3_`` option lines) from the most recent user message that has them. Two
more kinds of request are answered (``workflow/eibench/public/emobench_m_live.py``): the
EmoBench-M judge (``TASK: emobench_m_judge``; the reply is the line ``<name>: <score>`` that the
last user message asks for, the score drawn within "an integer from <low> to <high>" of the
system text), and EmoBench-M items (no TASK line; a user message whose text offers "labels as
your final answer: a, b, c.", "Choose one emotion: ... Choose one intent: ...", or asks to start
with 'The audience laughed because '; image and audio parts are ignored for the text but, as
every byte of the request, seed the answer). Every
choice comes from a PRNG seeded with sha256 of (path, model, messages and system as JSON with
sorted keys), so the same request always gets the same bytes, in any process. Requests that do
not match the protocol get the answer ``"I cannot help with that."`` (status 200).

Usage::

    with FakeLLM() as llm:
        httpx.post(llm.base_url + "/v1/chat/completions", json={...})
        llm.inject("429", "500", task="pairwise")   # the next two pairwise requests fail
        llm.always("malformed", task="emotions")     # every emotions request is malformed
        llm.count, llm.requests, llm.counts_by_request()

Fault kinds (``FAULTS``): ``"400"`` (a request refused for good), ``"429"`` (with
``Retry-After: <retry_after>``), ``"500"``, ``"503"``,
``"timeout"`` (waits ``timeout_delay`` seconds, then answers normally), ``"disconnect"`` (closes
the connection without a response), ``"truncated"`` (200, the first half of the normal body),
``"malformed"`` (200, valid API JSON whose text is not JSON), ``"empty"`` (200, no choices /
no content blocks), and four hostile ones: ``"drip"`` (200, the normal body sent one byte every
``drip_interval`` seconds), ``"huge"`` (200, a valid answer padded to ``huge_bytes`` more
bytes), ``"bad_usage"`` (200, a valid answer whose prompt/input token count is the raw JSON
``bad_usage``, e.g. ``'"lots"'`` or ``'1e400'``) and ``"echo_key"`` (400, a body echoing the
request's key header value so that the key starts at character ``echo_at`` of the body).
Queued faults (``inject``) are consumed first, one per matching request, in
order; then ``always`` rules apply. Requests refused for authentication, bad JSON or an
unknown path never consume a fault.
"""

from __future__ import annotations

import collections
import hashlib
import http
import json
import random
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "ANTHROPIC_PATH",
    "FAULTS",
    "JUDGE_TASK",
    "MALFORMED_TEXT",
    "OPENAI_PATH",
    "REFUSAL",
    "TASKS",
    "FakeLLM",
    "answer_text",
    "request_key",
    "task_of",
]

OPENAI_PATH = "/v1/chat/completions"
ANTHROPIC_PATH = "/v1/messages"
TASKS: tuple[str, ...] = (
    "draft",
    "emotions",
    "binary_om_observer",
    "binary_om_participant",
    "binary_hp_observer",
    "binary_hp_participant",
    "pairwise",
    "post_panas_absolute",
    "post_panas_delta",
    "post_panas_blind_delta",
    "conversation_wide",
    "post_chat_ratings",
)
FAULTS: tuple[str, ...] = (
    "400",
    "429",
    "500",
    "503",
    "timeout",
    "disconnect",
    "truncated",
    "malformed",
    "empty",
    "drip",
    "huge",
    "bad_usage",
    "echo_key",
)
REFUSAL = "I cannot help with that."
MALFORMED_TEXT = "this is not json {"

# ----------------------------------------------------------------------------------------------
# Reading requests


def _text(content: Any) -> str:
    """The text of a message content: a string, or a list of text blocks / parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and isinstance(block.get("text"), str):
                parts.append(block["text"])
        return "\n".join(parts)
    return ""


def _messages(body: dict[str, Any]) -> list[tuple[str, str]]:
    messages = body.get("messages")
    if not isinstance(messages, list):
        return []
    return [(str(m.get("role")), _text(m.get("content"))) for m in messages if isinstance(m, dict)]


def _system(path: str, body: dict[str, Any]) -> str | None:
    """The system text: the top-level field (Anthropic) or the first message if it is a system one."""
    if path == ANTHROPIC_PATH:
        return _text(body["system"]) if "system" in body else None
    msgs = _messages(body)
    if msgs and msgs[0][0] in ("system", "developer"):
        return msgs[0][1]
    return None


_TASK_LINE = re.compile(r"TASK:[ \t]*([A-Za-z0-9_\-]+)[ \t]*")


def task_of(path: str, body: Any) -> str | None:
    """The task named on the first line of the system text (``TASK: <task>``), or None."""
    if not isinstance(body, dict):
        return None
    system = _system(path, body)
    if not system:
        return None
    first = system.lstrip().split("\n", 1)[0].rstrip("\r")
    m = _TASK_LINE.fullmatch(first.strip())
    return m.group(1) if m else None


def _split(items: str, sep: str = ",") -> list[str]:
    """Split a list, drop empty entries and repeats, keep the order."""
    return list(dict.fromkeys(s.strip() for s in items.split(sep) if s.strip()))


def _last_line(label: str, text: str) -> str | None:
    """The value of the last line ``<label>: value`` in text, or None."""
    found = re.findall(r"^[ \t]*" + re.escape(label) + r"[ \t]*:[ \t]*(.*?)[ \t]*\r?$", text, re.M)
    return found[-1] if found else None


_PANAS_LIST = re.compile(r"\(PANAS-SF\):\s*([^()]*?)\s*,\s*each with")


def _parse_emotions(text: str) -> dict[str, Any] | None:
    found = _PANAS_LIST.findall(" ".join(text.split()))
    if not found:
        return None
    return {"words": _split(found[-1])}


def _parse_keys(label: str) -> Any:
    def parse(text: str) -> dict[str, Any] | None:
        value = _last_line(label, text)
        keys = _split(value) if value is not None else []
        return {"keys": keys} if keys else None

    return parse


_WIDE_LINES = (
    ("q1_lookingFor", "q1_lookingFor (one or more of)"),
    ("q2_emotionClarity", "q2_emotionClarity (one of)"),
    ("q3_modelFit", "q3_modelFit (one of)"),
)


def _parse_wide(text: str) -> dict[str, Any] | None:
    spec = {}
    for key, label in _WIDE_LINES:
        value = _last_line(label, text)
        options = _split(value, "|") if value is not None else []
        if not options:
            return None
        spec[key] = options
    return spec


_SCALE_LINE = re.compile(r"^([A-Za-z_]+) \((\d+)\.\.(\d+)\):", re.MULTILINE)


def _parse_ratings(text: str) -> dict[str, Any] | None:
    """Post-chat ratings: the ITEMS line and each item's scale from its ``name (low..high):`` line."""
    keys = _parse_keys("ITEMS")(text)
    scales = {name: (int(lo), int(hi)) for name, lo, hi in _SCALE_LINE.findall(text)}
    if keys is None or not set(keys["keys"]) <= set(scales):
        return None
    return {"scales": {k: scales[k] for k in keys["keys"]}}


_PARSERS = {
    "emotions": _parse_emotions,
    "binary_om_observer": _parse_keys("ANSWER KEYS"),
    "binary_om_participant": _parse_keys("ANSWER KEYS"),
    "binary_hp_observer": _parse_keys("ANSWER KEYS"),
    "binary_hp_participant": _parse_keys("ANSWER KEYS"),
    "pairwise": _parse_keys("COMPARISONS"),
    "post_panas_absolute": _parse_keys("ITEMS"),
    "post_panas_delta": _parse_keys("ITEMS"),
    "post_panas_blind_delta": _parse_keys("ITEMS"),
    "conversation_wide": _parse_wide,
    "post_chat_ratings": _parse_ratings,
}

# ----------------------------------------------------------------------------------------------
# Answering

_DRAFT_SENTENCES = (
    "That sounds really hard, and it makes sense that you feel this way.",
    "Thank you for telling me about this; I can hear how much it matters to you.",
    "It is okay to take this one step at a time.",
    "Would it help to talk through what feels most pressing right now?",
    "You have already done a lot by putting this into words.",
    "I am here to listen for as long as you need.",
    "What would feel like a small win for you today?",
    "It sounds like part of you is worried and part of you is hopeful.",
)
_RATIONALES = (
    "The person's wording suggests a shift in how they feel.",
    "The reply addresses the feelings the person expressed.",
    "The conversation stays calm and supportive throughout.",
    "The person seems to want understanding more than advice.",
)
_FELT_OFF = ("too generic", "moved on too quickly", "missed how I felt", "too much advice", "felt scripted")
_BRANCHES = ("perceiving", "facilitating", "understanding", "managing")


def _seed(path: str, body: dict[str, Any]) -> bytes:
    payload: dict[str, Any] = {"messages": body.get("messages")}
    if path == ANTHROPIC_PATH:
        payload["system"] = body.get("system")
    material = path + "\n" + json.dumps(body.get("model"), ensure_ascii=False) + "\n"
    material += json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(material.encode("utf-8")).digest()


def _yes_no_na(rng: random.Random) -> str:
    r = rng.random()
    return "na" if r < 0.1 else ("yes" if r < 0.55 else "no")


def _build(task: str, spec: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    if task == "emotions":
        words = spec["words"]
        n = min(len(words), rng.choice((0, 1, 1, 1, 2, 2)))
        return {"emotions": [{"emotion": w, "intensity": rng.randint(1, 7)} for w in rng.sample(words, n)]}
    if task.startswith("binary_"):
        return {k: _yes_no_na(rng) for k in spec["keys"]}
    if task == "pairwise":
        return {k: rng.choice("AB") for k in spec["keys"]}
    if task == "post_panas_absolute":
        return {"items": {k: rng.randint(1, 7) for k in spec["keys"]}}
    if task in ("post_panas_delta", "post_panas_blind_delta"):
        return {"items": {k: rng.randint(-2, 2) for k in spec["keys"]}}
    if task == "conversation_wide":
        q1 = spec["q1_lookingFor"]
        return {
            "q1_lookingFor": rng.sample(q1, min(len(q1), rng.choice((1, 1, 2)))),
            "q2_emotionClarity": rng.choice(spec["q2_emotionClarity"]),
            "q3_modelFit": rng.choice(spec["q3_modelFit"]),
            "q3_followUp_whatFeltOff": [rng.choice(_FELT_OFF)] if rng.random() < 0.3 else [],
            "fourBranchScores": {b: rng.randint(1, 7) for b in _BRANCHES},
        }
    if task == "post_chat_ratings":
        return {"ratings": {k: rng.randint(lo, hi) for k, (lo, hi) in spec["scales"].items()}}
    raise ValueError(task)  # pragma: no cover


JUDGE_TASK = "emobench_m_judge"
_LABELS = re.compile(r"labels? as your final answer\s*:\s*([^.]+)\.", re.I)
_CHOOSE = re.compile(r"choose one (emotion|intent)\s*:\s*([^.]+)\.", re.I)
_LAUGH = "The audience laughed because "


def _emobench_options(text: str) -> list[str]:
    return [o for o in (x.strip(" '\"") for x in re.split(r",|\band\b|\bor\b", text)) if o]


def _answer_emobench(path: str, body: dict[str, Any], task: str | None, rng: random.Random) -> str | None:
    """The answer to an EmoBench-M judge or item request, or None if the request is neither."""
    users = [text for role, text in _messages(body) if role == "user"]
    if not users:
        return None
    last = " ".join(users[-1].split())
    if task == JUDGE_TASK:
        wanted = re.findall(r"(\S[^:]*?): <score>", users[-1])
        scale = re.search(r"integer from (\d+) to (\d+)", _system(path, body) or "")
        if not wanted or not scale:
            return None
        return f"{wanted[-1].strip()}: {rng.randint(int(scale.group(1)), int(scale.group(2)))}"
    if task is not None:
        return None
    choose = dict((k.lower(), _emobench_options(v)) for k, v in _CHOOSE.findall(last))
    if "emotion" in choose and "intent" in choose:
        return str({"emotion label": rng.choice(choose["emotion"]), "intent label": rng.choice(choose["intent"])})
    labels = _LABELS.search(last)
    if labels:
        return str({"emotion": rng.choice(_emobench_options(labels.group(1)))})
    if _LAUGH.strip() in last:
        return _LAUGH + rng.choice(_DRAFT_SENTENCES).lower()
    return None


def _answer(path: str, body: dict[str, Any], wrap_json: bool) -> tuple[str, bytes]:
    """(answer text, seed digest) for a parsed request body."""
    digest = _seed(path, body)
    task = task_of(path, body)
    if task not in TASKS:
        text = _answer_emobench(path, body, task, random.Random(int.from_bytes(digest, "big")))
        if text is not None:
            return text, digest
        return REFUSAL, digest
    rng = random.Random(int.from_bytes(digest, "big"))
    if task == "draft":
        return " ".join(rng.sample(_DRAFT_SENTENCES, rng.choice((1, 2)))), digest
    spec = None
    for role, text in reversed(_messages(body)):
        if role == "user":
            spec = _PARSERS[task](text)
            if spec is not None:
                break
    if spec is None:
        return REFUSAL, digest
    obj = _build(task, spec, rng)
    if re.search(r"\brationale\b", _system(path, body) or ""):
        obj = {"rationale": rng.choice(_RATIONALES), **obj}
    text = json.dumps(obj, ensure_ascii=False)
    return ("```json\n" + text + "\n```" if wrap_json else text), digest


def answer_text(path: str, body: dict[str, Any], wrap_json: bool = False) -> str:
    """The answer text the server gives for a request body (no faults), without HTTP."""
    return _answer(path, body, wrap_json)[0]


def request_key(path: str, body: Any) -> str:
    """The key of ``FakeLLM.counts_by_request``: sha256 of path + body as JSON with sorted keys."""
    return hashlib.sha256((path + json.dumps(body, sort_keys=True, ensure_ascii=False)).encode("utf-8")).hexdigest()


def _tokens(text: str) -> int:
    return len(text.split())


def _prompt_tokens(path: str, body: dict[str, Any]) -> int:
    n = sum(_tokens(text) for _, text in _messages(body))
    if path == ANTHROPIC_PATH and "system" in body:
        n += _tokens(_text(body["system"]))
    return n


def _completion(path: str, body: dict[str, Any], text: str | None, digest: bytes) -> dict[str, Any]:
    """The API response for an answer text; text None gives an empty choices / content list."""
    n = _prompt_tokens(path, body)
    m = _tokens(text) if text is not None else 0
    if path == OPENAI_PATH:
        choices = (
            []
            if text is None
            else [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]
        )
        return {
            "id": "chatcmpl-" + digest.hex()[:24],
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model"),
            "choices": choices,
            "usage": {"prompt_tokens": n, "completion_tokens": m, "total_tokens": n + m},
        }
    return {
        "id": "msg_" + digest.hex()[:24],
        "type": "message",
        "role": "assistant",
        "model": body.get("model"),
        "content": [] if text is None else [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": n, "output_tokens": m},
    }


def _error(path: str, kind: str, message: str) -> dict[str, Any]:
    if path == ANTHROPIC_PATH:
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": kind}}


_FAULT_ERRORS = {
    "400": ("invalid_request_error", "prompt is too long: maximum context length exceeded"),
    "429": ("rate_limit_error", "rate limit exceeded"),
    "500": ("api_error", "internal server error"),
    "503": ("overloaded_error", "service unavailable"),
}


def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode("utf-8")


# ----------------------------------------------------------------------------------------------
# HTTP


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server_version = "FakeLLM/1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.thread = threading.current_thread()
        self.server.fake._register(self)

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass
        finally:
            self.server.fake._unregister(self)

    def handle(self) -> None:
        try:
            super().handle()
        except OSError:  # the client went away (timeouts, resets, shutdown)
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:  # no per-request logging
        pass

    def do_POST(self) -> None:
        self.server.fake._handle(self, "POST")

    def do_GET(self) -> None:
        self.server.fake._handle(self, "GET")

    def read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline(65537).split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(65537).strip():  # trailers
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline(65537)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
        """Write the whole response in one write (status line, headers, body)."""
        lines = [
            f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}",
            "Content-Type: application/json",
            f"Content-Length: {len(payload)}",
        ]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        if self.close_connection:
            lines.append("Connection: close")
        elif self.request_version == "HTTP/1.0":
            lines.append("Connection: keep-alive")
        self.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + payload)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # FakeLLM joins its handler threads itself, after closing their sockets
    request_queue_size = 256

    def __init__(self, fake: FakeLLM) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)


class FakeLLM:
    """A deterministic fake LLM server on 127.0.0.1 (see the module docstring).

    ``requests`` lists every request received: ``{"path", "headers" (lower-case names),
    "body" (parsed JSON or None), "task", "fault"}``; ``count`` is its length.
    """

    def __init__(self, require_key: str | None = None, wrap_json: bool = False, latency: float = 0.0) -> None:
        self.require_key = require_key
        self.wrap_json = wrap_json
        self.latency = latency
        self.timeout_delay = 3.0
        self.retry_after = "0"
        self.drip_interval = 0.5
        self.huge_bytes = 20_000_000
        self.bad_usage = '"lots"'
        self.echo_at = 300
        self.requests: list[dict[str, Any]] = []
        self._queue: list[tuple[str, str | None]] = []
        self._always: dict[str, str] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._handlers: set[_Handler] = set()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._base_url: str | None = None

    # -- lifecycle --------------------------------------------------------------------------

    def __enter__(self) -> FakeLLM:
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def start(self) -> FakeLLM:
        if self._server is not None:
            raise RuntimeError("FakeLLM is already running")
        self._stop.clear()
        self._server = _Server(self)
        host, port = self._server.server_address[:2]
        self._base_url = f"http://{host}:{port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="FakeLLM", daemon=True
        )
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        server, thread = self._server, self._thread
        if server is None:
            return
        self._stop.set()  # wakes latency / timeout sleeps
        server.shutdown()
        server.server_close()
        with self._lock:
            handlers = list(self._handlers)
        for h in handlers:  # wakes handlers waiting for the next keep-alive request
            try:
                h.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if thread is not None:
            thread.join(timeout)
        for h in handlers:
            h.thread.join(timeout)
        self._server = self._thread = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>`` (no trailing slash); OpenAI clients use ``base_url + "/v1"``."""
        if self._base_url is None:
            raise RuntimeError("FakeLLM is not started (use it as a context manager)")
        return self._base_url

    # -- faults and bookkeeping ---------------------------------------------------------------

    def inject(self, *faults: str, task: str | None = None) -> None:
        """Queue faults, consumed one per matching request in order (task None: any request)."""
        for fault in faults:
            _check_fault(fault)
        with self._lock:
            self._queue.extend((f, task) for f in faults)

    def always(self, fault: str, task: str) -> None:
        """Give every request of ``task`` the fault (after queued faults are used up)."""
        _check_fault(fault)
        with self._lock:
            self._always[task] = fault

    def reset(self) -> None:
        """Forget the requests received, the queued faults and the ``always`` rules."""
        with self._lock:
            self.requests.clear()
            self._queue.clear()
            self._always.clear()

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    def counts_by_request(self) -> collections.Counter[str]:
        """``request_key(path, body)`` -> times received."""
        with self._lock:
            recorded = [(r["path"], r["body"]) for r in self.requests]
        return collections.Counter(request_key(path, body) for path, body in recorded)

    def _register(self, handler: _Handler) -> None:
        with self._lock:
            self._handlers.add(handler)

    def _unregister(self, handler: _Handler) -> None:
        with self._lock:
            self._handlers.discard(handler)

    def _record(self, path: str, headers: dict[str, str], body: Any, task: str | None, faultable: bool) -> str | None:
        """Record a request; take its fault (queued first, then ``always``) if it can have one."""
        with self._lock:
            fault = None
            if faultable:
                for i, (f, t) in enumerate(self._queue):
                    if t is None or t == task:
                        fault = f
                        del self._queue[i]
                        break
                else:
                    fault = self._always.get(task) if task is not None else None
            self.requests.append({"path": path, "headers": headers, "body": body, "task": task, "fault": fault})
            return fault

    # -- serving ------------------------------------------------------------------------------

    def _handle(self, h: _Handler, method: str) -> None:
        raw = h.read_body()
        headers = {k.lower(): v for k, v in h.headers.items()}
        path = h.path.split("?", 1)[0]
        if self._stop.is_set():
            h.close_connection = True
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        if method != "POST" or path not in (OPENAI_PATH, ANTHROPIC_PATH):
            self._record(path, headers, body, None, False)
            h.send(404, _dumps(_error(path, "not_found_error", f"no route for {method} {path}")))
            return
        refusal = self._check_request(path, headers, body)
        if refusal is not None:
            self._record(path, headers, body, None, False)
            h.send(refusal[0], _dumps(refusal[1]))
            return
        task = task_of(path, body)
        fault = self._record(path, headers, body, task, True)
        if self.latency > 0:
            self._stop.wait(self.latency)
        self._respond(h, path, body, fault)

    def _check_request(self, path: str, headers: dict[str, str], body: Any) -> tuple[int, dict[str, Any]] | None:
        """(status, error JSON) when the request is refused, else None. Never echoes a key."""
        if path == OPENAI_PATH:
            if self.require_key is not None and headers.get("authorization", "") != f"Bearer {self.require_key}":
                return 401, _error(path, "invalid_request_error", "invalid api key")
        else:
            key = headers.get("x-api-key")
            if not key:
                return 401, _error(path, "authentication_error", "missing x-api-key header")
            if self.require_key is not None and key != self.require_key:
                return 401, _error(path, "authentication_error", "invalid x-api-key")
            if not headers.get("anthropic-version"):
                return 400, _error(path, "invalid_request_error", "missing anthropic-version header")
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return 400, _error(path, "invalid_request_error", "the body must be a JSON object with a messages list")
        return None

    def _respond(self, h: _Handler, path: str, body: dict[str, Any], fault: str | None) -> None:
        if fault in _FAULT_ERRORS:
            kind, message = _FAULT_ERRORS[fault]
            extra = {"Retry-After": self.retry_after} if fault == "429" else None
            h.send(int(fault), _dumps(_error(path, kind, message)), extra)
            return
        if fault == "disconnect":
            h.close_connection = True
            try:
                h.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if fault == "timeout":
            self._stop.wait(self.timeout_delay)
        if fault == "echo_key":
            h.send(400, self._echo(path, h))
            return
        text, digest = _answer(path, body, self.wrap_json)
        if fault == "malformed":
            text = MALFORMED_TEXT
        if fault == "huge":
            text += " " + "a" * self.huge_bytes
        completion = _completion(path, body, None if fault == "empty" else text, digest)
        if fault == "bad_usage":
            completion["usage"]["prompt_tokens" if path == OPENAI_PATH else "input_tokens"] = "@BAD@"
        payload = _dumps(completion)
        if fault == "bad_usage":
            payload = payload.replace(b'"@BAD@"', self.bad_usage.encode())
        if fault == "truncated":
            payload = payload[: len(payload) // 2]
        if fault == "drip":
            self._drip(h, payload)
            return
        h.send(200, payload)

    def _echo(self, path: str, h: _Handler) -> bytes:
        """An error body echoing the key header's value, the key from character ``echo_at``."""
        if path == OPENAI_PATH:
            value = h.headers.get("Authorization", "")
            key_at = len("Bearer ") if value.startswith("Bearer ") else 0
        else:
            value, key_at = h.headers.get("x-api-key", ""), 0
        head = '{"error": {"type": "invalid_request_error", "message": "'
        pad = max(0, self.echo_at - len(head) - key_at)
        return (head + "e" * pad + value + ' is not allowed here"}}').encode()

    def _drip(self, h: _Handler, payload: bytes) -> None:
        """The status line and headers at once, then the body one byte per ``drip_interval``."""
        h.wfile.write(
            (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n").encode(
                "latin-1"
            )
        )
        for i in range(len(payload)):
            if self._stop.wait(self.drip_interval):
                break
            h.wfile.write(payload[i : i + 1])


def _check_fault(fault: str) -> None:
    if fault not in FAULTS:
        raise ValueError(f"unknown fault {fault!r}; known: {', '.join(FAULTS)}")

"""Tests of the deterministic fake LLM server (tests/predict/fake_llm.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from string import Template
from typing import Any

import httpx
import pytest
import yaml

from tests.predict.fake_llm import (
    ANTHROPIC_PATH,
    FAULTS,
    MALFORMED_TEXT,
    OPENAI_PATH,
    REFUSAL,
    TASKS,
    FakeLLM,
    answer_text,
    request_key,
    task_of,
)

REPO = Path(__file__).resolve().parents[2]
PROMPTS = REPO / "workflow" / "eibench" / "predict" / "prompts" / "v1.yaml"
ANTHROPIC_HEADERS = {"x-api-key": "test-key", "anthropic-version": "2023-06-01"}

PANAS = [
    "Afraid",
    "Scared",
    "Nervous",
    "Jittery",
    "Distressed",
    "Upset",
    "Guilty",
    "Ashamed",
    "Hostile",
    "Irritable",
    "Interested",
    "Excited",
    "Strong",
    "Enthusiastic",
    "Proud",
    "Alert",
    "Inspired",
    "Determined",
    "Attentive",
    "Active",
]
Q1 = [
    "To just listen or let me vent",
    "To help me understand or sort out my feelings",
    "To help with something urgent, risky, or high-stakes",
    "Other",
]
Q2 = ["Clear and explicitly stated", "Implied or indirect", "Unclear / evolving as I talked"]
Q3 = ["Very well-matched and adaptive", "Mostly well-matched", "Mixed, some good moments, some misses"]
KEYS = ["B1", "B13", "B408"]
COMPARISONS = ["0", "1", "2"]

# Small hand-built user messages holding the machine-readable lines of each task.
SMALL_USER = {
    "draft": "The conversation so far:\n[Turn 1] Person: hi\n\nWrite your reply to the person's last message.",
    "emotions": "At turn 2, did the person's feelings shift? If so, name the feelings with words from\n"
    "this list (PANAS-SF): " + ", ".join(PANAS[:6]) + ",\n  " + ", ".join(PANAS[6:]) + ", each with an "
    "intensity from 1 (very mild) to 7 (very\nintense).",
    "binary": "About the reply:\nB1. Did it?\nANSWER KEYS: " + ", ".join(KEYS) + "\nANSWER FORMAT: {...}",
    "pairwise": "Which reply?\nCOMPARISONS: " + ", ".join(COMPARISONS) + "\nANSWER FORMAT: {...}",
    "post_panas": "Predict.\nITEMS: " + ", ".join(PANAS) + "\nANSWER FORMAT: {...}",
    "conversation_wide": "Predict their answers.\n"
    "q1_lookingFor (one or more of): " + " | ".join(Q1) + "\n"
    "q2_emotionClarity (one of): " + " | ".join(Q2) + "\n"
    "q3_modelFit (one of): " + " | ".join(Q3) + "\n"
    "q3_followUp_whatFeltOff: a list of short phrases\n",
    "post_chat_ratings": "Predict their ratings.\nempathy (1..5): How empathetic?\nrelevance (1..5): How relevant?\n"
    "ITEMS: empathy, relevance\nANSWER FORMAT: {...}",
}


def small_user(task: str) -> str:
    if task.startswith("binary_"):
        return SMALL_USER["binary"]
    if task.startswith("post_panas"):
        return SMALL_USER["post_panas"]
    return SMALL_USER[task]


def openai_body(system: str | None, *users: str, model: str = "gpt-test", extra: list | None = None) -> dict:
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system is not None else []
    messages += [{"role": "user", "content": u} for u in users]
    messages += extra or []
    return {"model": model, "messages": messages, "temperature": 0, "max_tokens": 200, "seed": 1}


def anthropic_body(system: str | None, *users: str, model: str = "claude-test") -> dict:
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": 200,
        "messages": [{"role": "user", "content": u} for u in users],
    }
    if system is not None:
        body["system"] = system
    return body


def post(client: httpx.Client, llm: FakeLLM, path: str, body: dict, **kw: Any) -> httpx.Response:
    headers = ANTHROPIC_HEADERS if path == ANTHROPIC_PATH else {}
    return client.post(llm.base_url + path, json=body, headers=kw.pop("headers", headers), **kw)


def content_of(path: str, response: httpx.Response) -> str:
    data = response.json()
    if path == OPENAI_PATH:
        return data["choices"][0]["message"]["content"]
    return data["content"][0]["text"]


def strip_fences(text: str) -> str:
    text = text.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1].rsplit("```", 1)[0]
    return text


def check_answer(
    task: str,
    text: str,
    keys: list[str] | None = None,
    words: list[str] | None = None,
    options: dict[str, list[str]] | None = None,
) -> dict:
    """Assert that the answer is valid for the task and the machine lines of the request."""
    if task == "draft":
        assert text and not text.lstrip().startswith("{")
        assert 1 <= text.count(".") + text.count("?") <= 2
        return {}
    obj = json.loads(strip_fences(text))
    assert isinstance(obj, dict)
    obj.pop("rationale", None)
    if task == "emotions":
        assert set(obj) == {"emotions"}
        assert 0 <= len(obj["emotions"]) <= 2
        named = [e["emotion"] for e in obj["emotions"]]
        assert len(set(named)) == len(named)
        for e in obj["emotions"]:
            assert set(e) == {"emotion", "intensity"}
            assert e["emotion"] in (words or PANAS)
            assert isinstance(e["intensity"], int) and 1 <= e["intensity"] <= 7
    elif task.startswith("binary_"):
        assert list(obj) == (keys or KEYS)
        assert set(obj.values()) <= {"yes", "no", "na"}
    elif task == "pairwise":
        assert list(obj) == (keys or COMPARISONS)
        assert set(obj.values()) <= {"A", "B"}
    elif task.startswith("post_panas"):
        assert set(obj) == {"items"}
        assert list(obj["items"]) == (keys or PANAS)
        low, high = (1, 7) if task == "post_panas_absolute" else (-2, 2)
        assert all(isinstance(v, int) and low <= v <= high for v in obj["items"].values())
    elif task == "post_chat_ratings":
        assert set(obj) == {"ratings"}
        assert list(obj["ratings"]) == (keys or ["empathy", "relevance"])
        assert all(isinstance(v, int) and 1 <= v <= 5 for v in obj["ratings"].values())
    elif task == "conversation_wide":
        opts = options or {"q1_lookingFor": Q1, "q2_emotionClarity": Q2, "q3_modelFit": Q3}
        assert set(obj) == {
            "q1_lookingFor",
            "q2_emotionClarity",
            "q3_modelFit",
            "q3_followUp_whatFeltOff",
            "fourBranchScores",
        }
        assert 1 <= len(obj["q1_lookingFor"]) <= 2 and set(obj["q1_lookingFor"]) <= set(opts["q1_lookingFor"])
        assert obj["q2_emotionClarity"] in opts["q2_emotionClarity"]
        assert obj["q3_modelFit"] in opts["q3_modelFit"]
        felt_off = obj["q3_followUp_whatFeltOff"]
        assert isinstance(felt_off, list) and len(felt_off) <= 1 and all(isinstance(p, str) and p for p in felt_off)
        scores = obj["fourBranchScores"]
        assert list(scores) == ["perceiving", "facilitating", "understanding", "managing"]
        assert all(isinstance(v, int) and 1 <= v <= 7 for v in scores.values())
    else:  # pragma: no cover
        raise AssertionError(task)
    return obj


@pytest.fixture(scope="module")
def llm():
    with FakeLLM() as server:
        yield server


@pytest.fixture
def fresh():
    with FakeLLM() as server:
        yield server


@pytest.fixture(scope="module")
def client():
    with httpx.Client(timeout=10) as c:
        yield c


# ------------------------------------------------------------------------------------------------
# Answers


@pytest.mark.parametrize("path", [OPENAI_PATH, ANTHROPIC_PATH])
@pytest.mark.parametrize("task", TASKS)
def test_each_task_small_request(llm, client, path, task):
    make = openai_body if path == OPENAI_PATH else anthropic_body
    for variant in range(5):  # a few requests so several PRNG draws are checked
        body = make(f"TASK: {task}\nYou are a test.", f"context {variant}\n\n" + small_user(task))
        r = post(client, llm, path, body)
        assert r.status_code == 200
        check_answer(task, content_of(path, r))
    assert llm.requests[-1]["task"] == task


def load_prompts() -> dict:
    with open(PROMPTS, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def render(prompts: dict, task: str, mode: str, seed: int) -> tuple[str, str, dict[str, Any]]:
    """(system, user, expectations) for a task rendered from prompts/v1.yaml with dummy values."""
    from eibench import instrument

    turn = {"turn": 1, "user": f"I feel lost today ({seed}).", "assistant": "I'm sorry to hear that."}
    transcript = Template(prompts["transcript_turn"]).substitute(turn)
    panas = [i.name for i in instrument.panas_items()]
    opts = {k: list(v) for k, v in instrument.survey_options().items()}
    qids = list(instrument.binary_question_ids())[seed % 5 : seed % 5 + 7]
    comparisons = [str(i) for i in range(seed % 4 + 1)]
    words = panas[seed % 3 :]
    values = {
        "task": task,
        "mode_instructions": prompts["mode_instructions"][mode],
        "turn": 2,
        "user": "Thanks, that helps a bit.",
        "history": transcript.rstrip(),
        "transcript": transcript.rstrip(),
        "panas_words": ", ".join(words),
        "questions": "\n".join(f"{q}. Question {q}?" for q in qids),
        "keys": ", ".join(qids if task.startswith("binary_") else comparisons if task == "pairwise" else panas),
        "comparisons": "\n".join(f"{c}: reply A vs reply B (general)" for c in comparisons),
        "items": ", ".join(panas),
        "pre_items": "\n".join(f"{p}: 3" for p in panas),
        "q1_options": " | ".join(opts["q1_lookingFor"]),
        "q2_options": " | ".join(opts["q2_emotionClarity"]),
        "q3_options": " | ".join(opts["q3_modelFit"]),
    }
    if task == "post_chat_ratings":
        ratings = instrument.post_chat_ratings()
        values["questions"] = "\n".join(f"{r.name} ({r.low}..{r.high}): {r.question}" for r in ratings)
        values["items"] = ", ".join(r.name for r in ratings)
    spec = prompts["tasks"]["binary_" + task.split("_")[1] if task.startswith("binary_") else task]
    system = Template(spec.get("system") or prompts["system"]).substitute(values)
    user = Template(spec["user"]).substitute(values)
    expect = {
        "keys": (
            qids
            if task.startswith("binary_")
            else comparisons
            if task == "pairwise"
            else [r.name for r in instrument.post_chat_ratings()]
            if task == "post_chat_ratings"
            else panas
        ),
        "words": words,
        "options": opts,
    }
    return system, user, expect


@pytest.mark.parametrize("mode", ["default", "verbose_omniscient"])
@pytest.mark.parametrize("path", [OPENAI_PATH, ANTHROPIC_PATH])
def test_real_prompt_texts(llm, client, path, mode):
    prompts = load_prompts()
    make = openai_body if path == OPENAI_PATH else anthropic_body
    for task in TASKS:
        for seed in range(3):
            system, user, expect = render(prompts, task, mode, seed)
            assert task_of(path, make(system, user)) == task
            r = post(client, llm, path, make(system, user))
            assert r.status_code == 200
            text = content_of(path, r)
            check_answer(task, text, keys=expect["keys"], words=expect["words"], options=expect["options"])
            if task != "draft":
                assert ("rationale" in json.loads(text)) == (mode != "default")


@pytest.mark.parametrize("path", [OPENAI_PATH, ANTHROPIC_PATH])
def test_repair_follow_up_uses_latest_machine_lines(llm, client, path):
    system = "TASK: binary_hp_participant\nYou are a test."
    first = "Questions.\nANSWER KEYS: B1, B2\n"
    repair = "Your answer could not be used: missing key B2. Answer again with one JSON object."
    extra = [{"role": "assistant", "content": '{"B1": "yes"}'}, {"role": "user", "content": repair}]
    if path == OPENAI_PATH:
        body = openai_body(system, first, extra=extra)
    else:
        body = anthropic_body(system, first)
        body["messages"] += extra
    check_answer("binary_hp_participant", content_of(path, post(client, llm, path, body)), keys=["B1", "B2"])
    # A repair message that repeats the machine lines wins over the original message.
    body["messages"][-1]["content"] = repair + "\nANSWER KEYS: B7, B8, B9"
    check_answer("binary_hp_participant", content_of(path, post(client, llm, path, body)), keys=["B7", "B8", "B9"])


@pytest.mark.parametrize("path", [OPENAI_PATH, ANTHROPIC_PATH])
def test_unmatched_requests_get_refusal(llm, client, path):
    make = openai_body if path == OPENAI_PATH else anthropic_body
    cases = [
        make(None, SMALL_USER["pairwise"]),  # no system text
        make("You are helpful.\nTASK: pairwise", SMALL_USER["pairwise"]),  # TASK not on the first line
        make("TASK: horoscope\nx", SMALL_USER["pairwise"]),  # unknown task
        make("TASK: pairwise\nx", "no machine lines here"),  # known task, no COMPARISONS line
        make("TASK: emotions\nx", SMALL_USER["binary"]),  # lines of another task
    ]
    for body in cases:
        r = post(client, llm, path, body)
        assert r.status_code == 200
        assert content_of(path, r) == REFUSAL


def test_content_blocks_and_system_blocks(llm, client):
    body = {
        "model": "claude-test",
        "max_tokens": 100,
        "system": [{"type": "text", "text": "TASK: pairwise\nYou are a test."}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "COMPARISONS: 5, 6"}]}],
    }
    check_answer("pairwise", content_of(ANTHROPIC_PATH, post(client, llm, ANTHROPIC_PATH, body)), keys=["5", "6"])
    body = openai_body("TASK: pairwise\nx")
    body["messages"].append({"role": "user", "content": [{"type": "text", "text": "COMPARISONS: 5, 6"}]})
    check_answer("pairwise", content_of(OPENAI_PATH, post(client, llm, OPENAI_PATH, body)), keys=["5", "6"])


def test_wrap_json(client):
    with FakeLLM(wrap_json=True) as llm:
        body = openai_body("TASK: pairwise\nx", SMALL_USER["pairwise"])
        text = content_of(OPENAI_PATH, post(client, llm, OPENAI_PATH, body))
        assert text.startswith("```json\n") and text.endswith("\n```")
        check_answer("pairwise", text)
        with pytest.raises(json.JSONDecodeError):
            json.loads(text)
        draft = content_of(OPENAI_PATH, post(client, llm, OPENAI_PATH, openai_body("TASK: draft", "hi")))
        assert "```" not in draft
        assert (
            text
            == "```json\n"
            + answer_text(OPENAI_PATH, openai_body("TASK: pairwise\nx", SMALL_USER["pairwise"]))
            + "\n```"
        )


@pytest.mark.parametrize("path", [OPENAI_PATH, ANTHROPIC_PATH])
def test_response_shape(llm, client, path):
    make = openai_body if path == OPENAI_PATH else anthropic_body
    system, user = "TASK: pairwise\nYou are  a test.", SMALL_USER["pairwise"]
    r = post(client, llm, path, make(system, user))
    assert r.headers["content-type"] == "application/json"
    assert int(r.headers["content-length"]) == len(r.content)
    data = r.json()
    answer = content_of(path, r)
    n, m = len(system.split()) + len(user.split()), len(answer.split())
    if path == OPENAI_PATH:
        assert data["id"].startswith("chatcmpl-") and len(data["id"]) > len("chatcmpl-")
        assert data["object"] == "chat.completion" and data["created"] == 0 and data["model"] == "gpt-test"
        assert data["choices"][0]["index"] == 0 and data["choices"][0]["finish_reason"] == "stop"
        assert data["choices"][0]["message"]["role"] == "assistant"
        assert data["usage"] == {"prompt_tokens": n, "completion_tokens": m, "total_tokens": n + m}
    else:
        assert data["id"].startswith("msg_") and data["type"] == "message" and data["role"] == "assistant"
        assert data["model"] == "claude-test" and data["stop_reason"] == "end_turn"
        assert data["content"][0]["type"] == "text"
        assert data["usage"] == {"input_tokens": n, "output_tokens": m}


def test_not_found_and_bad_requests(llm, client):
    assert client.get(llm.base_url + OPENAI_PATH).status_code == 404
    assert client.post(llm.base_url + "/v1/completions", json={}).status_code == 404
    assert client.post(llm.base_url + "/", json={}).status_code == 404
    r = client.post(llm.base_url + OPENAI_PATH, content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "error" in r.json()
    assert client.post(llm.base_url + OPENAI_PATH, json={"model": "m"}).status_code == 400
    # The connection is still usable after error answers (keep-alive, Content-Length on every response).
    r = post(client, llm, OPENAI_PATH, openai_body("TASK: pairwise", SMALL_USER["pairwise"]))
    assert r.status_code == 200


def test_anthropic_headers_required(llm, client):
    body = anthropic_body("TASK: pairwise", SMALL_USER["pairwise"])
    r = post(client, llm, ANTHROPIC_PATH, body, headers={"anthropic-version": "2023-06-01"})
    assert r.status_code == 401 and r.json()["type"] == "error"
    r = post(client, llm, ANTHROPIC_PATH, body, headers={"x-api-key": "k"})
    assert r.status_code == 400 and r.json()["error"]["type"] == "invalid_request_error"
    assert post(client, llm, ANTHROPIC_PATH, body).status_code == 200


# ------------------------------------------------------------------------------------------------
# Determinism


def test_same_request_same_bytes(client):
    with FakeLLM() as a, FakeLLM() as b:
        for path in (OPENAI_PATH, ANTHROPIC_PATH):
            make = openai_body if path == OPENAI_PATH else anthropic_body
            for task in TASKS:
                body = make(f"TASK: {task}\nx", small_user(task))
                first = post(client, a, path, body).content
                assert post(client, a, path, body).content == first
                assert post(client, b, path, body).content == first  # another server instance
                assert json.loads(first)  # and it is a real answer


def test_same_bytes_in_another_process(llm, client):
    bodies = [openai_body(f"TASK: {t}\nx", small_user(t)) for t in TASKS]
    here = [post(client, llm, OPENAI_PATH, b).text for b in bodies]
    script = (
        "import json, sys, httpx\n"
        "from tests.predict.fake_llm import FakeLLM, OPENAI_PATH\n"
        "bodies = json.load(sys.stdin)\n"
        "with FakeLLM() as llm:\n"
        "    out = [httpx.post(llm.base_url + OPENAI_PATH, json=b).text for b in bodies]\n"
        "print(json.dumps(out))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps(bodies),
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        env={"PYTHONHASHSEED": "123", "PATH": ""},
        check=True,
    )
    assert json.loads(proc.stdout) == here


def test_pinned_answer():
    # Pins the PRNG and the answer format: cached predictions made against the fake stay valid.
    # Update only on purpose.
    body = openai_body("TASK: binary_om_observer\nx", "ANSWER KEYS: B1, B2, B3, B4, B5, B6", model="pinned")
    assert answer_text(OPENAI_PATH, body) == answer_text(OPENAI_PATH, json.loads(json.dumps(body)))
    assert answer_text(OPENAI_PATH, body) == PINNED


PINNED = '{"B1": "no", "B2": "no", "B3": "no", "B4": "na", "B5": "yes", "B6": "yes"}'


def test_different_requests_usually_differ(llm, client):
    answers = set()
    for i in range(30):
        body = openai_body("TASK: binary_om_participant\nx", f"turn {i}\n" + SMALL_USER["binary"])
        answers.add(content_of(OPENAI_PATH, post(client, llm, OPENAI_PATH, body)))
    assert len(answers) >= 10  # 3 keys -> 27 possible answers
    # The model name is part of the seed too.
    body = openai_body("TASK: post_panas_absolute\nx", SMALL_USER["post_panas"])
    by_model = {answer_text(OPENAI_PATH, {**body, "model": f"m{i}"}) for i in range(5)}
    assert len(by_model) == 5
    # temperature / max_tokens / seed are not.
    assert answer_text(OPENAI_PATH, {**body, "temperature": 1.0, "seed": 9}) == answer_text(OPENAI_PATH, body)


# ------------------------------------------------------------------------------------------------
# Faults


@pytest.mark.parametrize("path", [OPENAI_PATH, ANTHROPIC_PATH])
def test_error_status_faults(fresh, client, path):
    make = openai_body if path == OPENAI_PATH else anthropic_body
    body = make("TASK: pairwise\nx", SMALL_USER["pairwise"])
    fresh.inject("429", "500", "503")
    r = post(client, fresh, path, body)
    assert r.status_code == 429 and r.headers["retry-after"] == "0" and "error" in r.json()
    assert post(client, fresh, path, body).status_code == 500
    assert post(client, fresh, path, body).status_code == 503
    assert post(client, fresh, path, body).status_code == 200  # queue used up
    fresh.retry_after = "7"
    fresh.inject("429")
    assert post(client, fresh, path, body).headers["retry-after"] == "7"
    assert [r["fault"] for r in fresh.requests] == ["429", "500", "503", None, "429"]
    assert fresh.count == 5


def test_timeout_fault(fresh):
    fresh.timeout_delay = 1.0
    fresh.inject("timeout")
    body = openai_body("TASK: pairwise\nx", SMALL_USER["pairwise"])
    with httpx.Client(timeout=0.5) as c:
        start = time.monotonic()
        with pytest.raises(httpx.TimeoutException):
            post(c, fresh, OPENAI_PATH, body)
        assert time.monotonic() - start < 0.9
        assert post(c, fresh, OPENAI_PATH, body).status_code == 200  # the retry is answered
    with httpx.Client(timeout=5) as c:  # a patient client gets the normal answer, late
        fresh.inject("timeout")
        start = time.monotonic()
        r = post(c, fresh, OPENAI_PATH, body)
        assert time.monotonic() - start >= 1.0
        check_answer("pairwise", content_of(OPENAI_PATH, r))


@pytest.mark.parametrize("path", [OPENAI_PATH, ANTHROPIC_PATH])
def test_disconnect_fault(fresh, client, path):
    make = openai_body if path == OPENAI_PATH else anthropic_body
    body = make("TASK: pairwise\nx", SMALL_USER["pairwise"])
    assert post(client, fresh, path, body).status_code == 200  # a kept-alive connection is open
    fresh.inject("disconnect")
    with pytest.raises(httpx.TransportError):
        post(client, fresh, path, body)
    assert post(client, fresh, path, body).status_code == 200
    assert [r["fault"] for r in fresh.requests] == [None, "disconnect", None]


@pytest.mark.parametrize("path", [OPENAI_PATH, ANTHROPIC_PATH])
def test_body_faults(fresh, client, path):
    make = openai_body if path == OPENAI_PATH else anthropic_body
    body = make("TASK: pairwise\nx", SMALL_USER["pairwise"])
    normal = post(client, fresh, path, body).content
    fresh.inject("truncated", "malformed", "empty")
    r = post(client, fresh, path, body)
    assert r.status_code == 200 and r.content == normal[: len(normal) // 2]
    with pytest.raises(json.JSONDecodeError):
        r.json()
    r = post(client, fresh, path, body)
    assert r.status_code == 200 and content_of(path, r) == MALFORMED_TEXT
    with pytest.raises(json.JSONDecodeError):
        json.loads(content_of(path, r))
    r = post(client, fresh, path, body)
    assert r.status_code == 200
    assert r.json()["choices" if path == OPENAI_PATH else "content"] == []
    assert post(client, fresh, path, body).content == normal


def test_inject_for_one_task(fresh, client):
    pairwise = openai_body("TASK: pairwise\nx", SMALL_USER["pairwise"])
    emotions = openai_body("TASK: emotions\nx", SMALL_USER["emotions"])
    fresh.inject("500", "503", task="pairwise")
    assert post(client, fresh, OPENAI_PATH, emotions).status_code == 200
    assert post(client, fresh, OPENAI_PATH, pairwise).status_code == 500
    assert post(client, fresh, OPENAI_PATH, emotions).status_code == 200
    assert post(client, fresh, OPENAI_PATH, pairwise).status_code == 503
    assert post(client, fresh, OPENAI_PATH, pairwise).status_code == 200
    assert [(r["task"], r["fault"]) for r in fresh.requests] == [
        ("emotions", None),
        ("pairwise", "500"),
        ("emotions", None),
        ("pairwise", "503"),
        ("pairwise", None),
    ]
    # Requests without a task only take faults queued for any task.
    fresh.inject("429", task="pairwise")
    assert post(client, fresh, OPENAI_PATH, openai_body(None, "hi")).status_code == 200
    fresh.inject("500")
    assert post(client, fresh, OPENAI_PATH, openai_body(None, "hi")).status_code == 500
    assert post(client, fresh, OPENAI_PATH, pairwise).status_code == 429


def test_always(fresh, client):
    fresh.always("malformed", task="emotions")
    emotions = openai_body("TASK: emotions\nx", SMALL_USER["emotions"])
    pairwise = openai_body("TASK: pairwise\nx", SMALL_USER["pairwise"])
    for _ in range(5):
        assert content_of(OPENAI_PATH, post(client, fresh, OPENAI_PATH, emotions)) == MALFORMED_TEXT
        check_answer("pairwise", content_of(OPENAI_PATH, post(client, fresh, OPENAI_PATH, pairwise)))
    fresh.inject("500", task="emotions")  # queued faults come first
    assert post(client, fresh, OPENAI_PATH, emotions).status_code == 500
    assert content_of(OPENAI_PATH, post(client, fresh, OPENAI_PATH, emotions)) == MALFORMED_TEXT
    fresh.reset()
    assert fresh.count == 0
    check_answer("emotions", content_of(OPENAI_PATH, post(client, fresh, OPENAI_PATH, emotions)))


def test_unknown_fault_rejected(fresh):
    with pytest.raises(ValueError):
        fresh.inject("teapot")
    with pytest.raises(ValueError):
        fresh.always("418", task="pairwise")
    assert set(FAULTS) == {
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
    }


def test_reset_clears_queue(fresh, client):
    fresh.inject("500", "500")
    fresh.reset()
    assert post(client, fresh, OPENAI_PATH, openai_body("TASK: draft", "hi")).status_code == 200
    assert fresh.count == 1


def test_latency(client):
    with FakeLLM(latency=0.2) as llm:
        start = time.monotonic()
        assert post(client, llm, OPENAI_PATH, openai_body("TASK: draft", "hi")).status_code == 200
        assert time.monotonic() - start >= 0.2


# ------------------------------------------------------------------------------------------------
# Keys


def test_require_key(client):
    secret = "sk-very-secret-123"
    with FakeLLM(require_key=secret) as llm:
        body = openai_body("TASK: pairwise\nx", SMALL_USER["pairwise"])
        responses = [
            post(client, llm, OPENAI_PATH, body),
            post(client, llm, OPENAI_PATH, body, headers={"Authorization": "Bearer wrong"}),
            post(client, llm, OPENAI_PATH, body, headers={"Authorization": secret}),  # no "Bearer"
        ]
        for r in responses:
            assert r.status_code == 401
            assert r.json() == {"error": {"message": "invalid api key", "type": "invalid_request_error"}}
        ok = post(client, llm, OPENAI_PATH, body, headers={"Authorization": f"Bearer {secret}"})
        assert ok.status_code == 200
        responses.append(ok)
        # Anthropic: the key goes in x-api-key.
        abody = anthropic_body("TASK: pairwise\nx", SMALL_USER["pairwise"])
        bad = post(client, llm, ANTHROPIC_PATH, abody)  # ANTHROPIC_HEADERS carry another key
        assert bad.status_code == 401
        good = post(
            client, llm, ANTHROPIC_PATH, abody, headers={"x-api-key": secret, "anthropic-version": "2023-06-01"}
        )
        assert good.status_code == 200
        responses += [bad, good]
        for r in responses:
            assert secret not in r.text and "wrong" not in r.text and "test-key" not in r.text
            assert all(secret not in v for v in r.headers.values())
        assert [r["fault"] for r in llm.requests] == [None] * 6
        assert llm.count == 6


# ------------------------------------------------------------------------------------------------
# Concurrency and throughput


def test_counts_under_concurrency(fresh):
    distinct = [openai_body("TASK: pairwise\nx", f"q{i}\n" + SMALL_USER["pairwise"]) for i in range(40)]
    distinct += [anthropic_body("TASK: emotions\nx", f"q{i}\n" + SMALL_USER["emotions"]) for i in range(40)]
    repeats = 5
    local = threading.local()

    def send(i: int) -> tuple[int, bytes]:
        if not hasattr(local, "client"):
            local.client = httpx.Client(timeout=10)
        body = distinct[i % len(distinct)]
        path = OPENAI_PATH if "system" not in body else ANTHROPIC_PATH
        return i % len(distinct), post(local.client, fresh, path, body).content

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(send, range(len(distinct) * repeats)))
    assert fresh.count == len(distinct) * repeats
    counts = fresh.counts_by_request()
    assert len(counts) == len(distinct)
    for body in distinct:
        path = OPENAI_PATH if "system" not in body else ANTHROPIC_PATH
        assert counts[request_key(path, body)] == repeats
    by_request: dict[int, set[bytes]] = {}
    for i, content in results:
        by_request.setdefault(i, set()).add(content)
    assert all(len(v) == 1 for v in by_request.values())  # deterministic under concurrency too


def test_throughput(fresh):
    body = openai_body("TASK: pairwise\nx", SMALL_USER["pairwise"])
    per_client, clients = 60, 16
    barrier = threading.Barrier(clients + 1)
    errors: list[BaseException] = []

    def run() -> None:
        with httpx.Client(timeout=10) as c:
            post(c, fresh, OPENAI_PATH, body)  # open the keep-alive connection
            barrier.wait()
            try:
                for _ in range(per_client):
                    assert post(c, fresh, OPENAI_PATH, body).status_code == 200
            except BaseException as exc:  # reported below
                errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(clients)]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    rate = per_client * clients / (time.perf_counter() - start)
    print(f"fake LLM throughput: {rate:.0f} requests/s ({clients} keep-alive clients, client in the same process)")
    assert not errors
    assert fresh.count == clients * (per_client + 1)
    assert rate >= 200


def test_exit_with_open_keep_alive_connections():
    llm = FakeLLM(latency=0.0)
    llm.start()
    c = httpx.Client(timeout=5)
    assert post(c, llm, OPENAI_PATH, openai_body("TASK: draft", "hi")).status_code == 200
    start = time.monotonic()
    llm.stop()  # the client still holds its connection open
    assert time.monotonic() - start < 2
    with pytest.raises(httpx.TransportError):
        post(c, llm, OPENAI_PATH, openai_body("TASK: draft", "hi"))
    c.close()
    with pytest.raises(RuntimeError):
        _ = FakeLLM().base_url

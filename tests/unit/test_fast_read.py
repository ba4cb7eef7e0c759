"""The fast read path (orjson, then validation) gives what the reference path (json, the full
value walk, then validation) gives: the same objects for every file it takes, and every file it
does not take is handed to the reference path, so every problem is named exactly as before."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from eibench.release import read
from eibench.release.json_bytes import has_long_digit_run
from eibench.release.read import (
    MAX_DEPTH,
    _load_fast,
    _max_depth,
    parse_file,
    parse_file_reference,
)
from eibench.release.schema import ConversationFile, EMOutputFile

from ..conftest import RELEASE

COHORTS = Path(__file__).resolve().parents[1] / "data" / "cohorts"
FIXTURES = sorted([*RELEASE.rglob("*.json"), *COHORTS.rglob("*.json")])


def _model_of(path: Path) -> type:
    return (
        EMOutputFile
        if "em_" in path.parent.name or "em_model" in path.read_text("utf-8", "replace")
        else ConversationFile
    )


def _same(a, b) -> None:
    (obj_a, problems_a), (obj_b, problems_b) = a, b
    assert problems_a == problems_b
    if obj_a is None or obj_b is None:
        assert obj_a is obj_b is None
        return
    assert obj_a.model_dump() == obj_b.model_dump()
    assert obj_a.model_extra == obj_b.model_extra


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_fixture_reads_the_same_on_both_paths(path):
    model = _model_of(path)
    _same(parse_file(path, model), parse_file_reference(path, model))


def test_the_fast_path_takes_the_valid_fixtures(monkeypatch):
    """The valid fixtures are read by the fast path alone (the reference path is not called)."""

    def refuse(*args, **kwargs):
        raise AssertionError("the reference path was taken")

    monkeypatch.setattr(read, "parse_file_reference", refuse)
    for path in sorted((RELEASE / "valid").glob("*.json")):
        obj, problems = parse_file(path, ConversationFile)
        assert problems == [] and obj is not None


VALID = (RELEASE / "valid" / "conversation_5.json").read_text(encoding="utf-8")


def _with_field(text: str) -> str:
    return VALID.rstrip().removesuffix("}") + f', "zz": {text}}}\n'


@pytest.mark.parametrize(
    "text",
    [
        _with_field("123456789012345678901234567890"),  # beyond 64 bits: orjson would read a float
        _with_field("-9223372036854775809"),
        _with_field("18446744073709551615"),
        _with_field("[" * MAX_DEPTH + "]" * MAX_DEPTH),  # nesting at the limit (the field is one level)
        _with_field("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)),
        _with_field('"' + "[" * 200 + '"'),  # brackets inside a string are no nesting
        _with_field('["\\\\", "\\"[[[", {"a\\"{": [[]]}]'),
        _with_field("NaN"),
        _with_field("1e400"),
        _with_field('"\\ud800"'),
        _with_field('"\\ud83d\\ude00"'),
        "\ufeff" + VALID,
        VALID.replace('"turnNumber": 1', '"turnNumber": 1.0', 1),
        VALID.replace('"turnNumber": 1', '"turnNumber": 1, "turnNumber": 2', 1),  # a key twice: the last wins
        "[1, 2]",
        "",
    ],
)
def test_edge_cases_read_the_same_on_both_paths(text, tmp_path):
    file = tmp_path / "conversation_1.json"
    file.write_text(text, encoding="utf-8")
    _same(parse_file(file, ConversationFile), parse_file_reference(file, ConversationFile))


def _depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def _random_value(rng: random.Random, level: int):
    kind = rng.random()
    if level > 12 or kind < 0.3:
        return rng.choice(["[", "]{", '\\"}', "\\", "plain", '"', "\\\\["]) * rng.randint(0, 3)
    if kind < 0.4:
        return rng.randint(-5, 5)
    if kind < 0.7:
        return [_random_value(rng, level + 1) for _ in range(rng.randint(0, 3))]
    return {_random_value(rng, 99): _random_value(rng, level + 1) for _ in range(rng.randint(0, 3))}


def test_max_depth_counts_nesting_as_the_parsed_value_has_it():
    rng = random.Random(19)
    for _ in range(500):
        value = {"root": _random_value(rng, 0)}
        data = json.dumps(value, indent=rng.choice([None, 1])).encode()
        assert _max_depth(data) == _depth(value), data


def test_load_fast_refuses_what_it_would_read_differently():
    assert _load_fast(b'{"a": 12345678901234567890}') is None
    assert _load_fast(b'{"a": NaN}') is None
    assert _load_fast(b"[1]") is None
    assert _load_fast(b'{"a": [1, {"b": "x"}]}') == {"a": [1, {"b": "x"}]}


def test_long_digit_runs_are_found_as_a_regular_expression_finds_them():
    rng = random.Random(19)
    pattern = re.compile(rb"[0-9]{19}")
    alphabet = [*b"0123456789", *b'a."-e/:', 0xB2, 0xB9, 0x660 % 256, 0xFF]  # 0xB2, 0xB9: superscript digits in Latin-1
    weights = [9] * 10 + [1] * (len(alphabet) - 10)
    found = 0
    for _ in range(3000):
        data = bytes(rng.choices(alphabet, weights, k=rng.randint(0, 60)))
        assert has_long_digit_run(data) == bool(pattern.search(data)), data
        found += has_long_digit_run(data)
    assert 300 < found < 2700  # both outcomes are exercised

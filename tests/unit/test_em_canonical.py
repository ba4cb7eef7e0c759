"""The canonical decoder (release.em_canonical) reads what the pydantic path reads, or declines.

For every file: either ``decode`` declines it (None), or pydantic accepts it too and every
attribute of the decoded structs equals, value and type, the pydantic object's, and
``em_tables`` gives the same tables from both. A file pydantic refuses is always declined, so
every error still comes from the reference path. Checked on simulated outputs, on the valid
fixture, on named mutations (each with the decision it must get) and on seeded random ones.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pandas as pd
import pytest
from eibench.release import em_canonical
from eibench.release.read import list_json_files, parse_file_reference, read_conversations, read_em_outputs
from eibench.release.schema import EMOutputFile
from eibench.release.tidy import em_tables, gold_tables
from eibench.synthetic.cohort import generate_cohort
from eibench.synthetic.simulate import draw_ability, simulate_outputs
from pydantic import BaseModel, ValidationError

from ..conftest import RELEASE
from ..conftest import write_files as _write


def _difference(fast: Any, ref: Any, where: str = "$") -> str | None:
    """Where the decoded value ``fast`` differs from the pydantic value ``ref`` (value or
    type), over the fields of the structs; None when equal."""
    if isinstance(fast, msgspec.Struct):
        if not isinstance(ref, BaseModel):
            return f"{where}: a struct against {type(ref).__name__}"
        for name in fast.__struct_fields__:
            found = _difference(getattr(fast, name), getattr(ref, name), f"{where}.{name}")
            if found:
                return found
        return None
    if isinstance(fast, list) or isinstance(ref, list):
        if type(fast) is not type(ref) or len(fast) != len(ref):
            return f"{where}: {fast!r} against {ref!r}"
        return next((d for i, (a, b) in enumerate(zip(fast, ref)) if (d := _difference(a, b, f"{where}[{i}]"))), None)
    if isinstance(fast, dict) or isinstance(ref, dict):
        if type(fast) is not type(ref) or list(fast) != list(ref):
            return f"{where}: keys {fast!r} against {ref!r}"
        return next((d for k in fast if (d := _difference(fast[k], ref[k], f"{where}[{k!r}]"))), None)
    if type(fast) is not type(ref) or repr(fast) != repr(ref):  # repr: -0.0 is not 0.0
        return f"{where}: {fast!r} ({type(fast).__name__}) against {ref!r} ({type(ref).__name__})"
    return None


def _check_convert(obj: Any) -> None:
    """``convert`` of a JSON object in memory: None, or what pydantic reads from it; None
    whenever pydantic refuses it; ``obj`` unchanged."""
    before = json.dumps(obj)
    fast = em_canonical.convert(obj)
    assert json.dumps(obj) == before
    try:
        ref = EMOutputFile.model_validate(obj)
    except ValidationError:
        assert fast is None
        return
    if fast is not None:
        assert _difference(fast, ref) is None, _difference(fast, ref)
        assert type(em_canonical.validate(obj)) is em_canonical.EMFile
    else:
        assert type(em_canonical.validate(obj)) is EMOutputFile


def _check(data: bytes, tmp_path: Path, name: str = "conversation_1.json") -> str:
    """'accepted' (both paths, equal), 'declined' (pydantic accepts) or 'invalid' (pydantic
    refuses, and so declined); fails on any disagreement. ``convert`` is checked on the same
    JSON object."""
    try:
        obj = json.loads(data)
    except ValueError:
        obj = None
    if isinstance(obj, dict):
        _check_convert(obj)
    path = tmp_path / name
    path.write_bytes(data)
    fast = em_canonical.decode(data)
    ref, problems = parse_file_reference(path, EMOutputFile)
    if ref is None:
        assert fast is None, f"decoded a file pydantic refuses: {problems}"
        return "invalid"
    if fast is None:
        return "declined"
    assert _difference(fast, ref) is None, _difference(fast, ref)
    got, expected = em_tables([(path, fast)]), em_tables([(path, ref)])
    for table in expected:
        pd.testing.assert_frame_equal(got[table], expected[table], check_exact=True, obj=table)
    return "accepted"


@pytest.fixture(scope="module")
def simulated(default_config, tmp_path_factory) -> list[dict]:
    """The EM output files of two simulated models on a small cohort (as JSON objects)."""
    params = copy.deepcopy(default_config["cohorts"]["synthetic"]) | {"n_conversations": 24}
    seed, sim = default_config["seed"], default_config["simulation"]
    files, _ = generate_cohort(params, seed)
    gold = gold_tables(read_conversations(_write(files, tmp_path_factory.mktemp("conv"))))
    outs = []
    for name in ("sim-01", "sim-02"):
        model = draw_ability(name, "model", sim, seed)
        outs += simulate_outputs(gold, model, "default", sim, seed, params["romantic_category"]).values()
    return [json.loads(json.dumps(o)) for o in outs]


def test_simulated_outputs_are_decoded_as_pydantic_reads_them(simulated, tmp_path):
    assert [_check(json.dumps(o).encode(), tmp_path) for o in simulated] == ["accepted"] * len(simulated)


def test_a_folder_reads_the_same_tables_either_way(simulated, tmp_path, monkeypatch):
    paths = _write({f"conversation_{i}.json": o for i, o in enumerate(simulated[:24])}, tmp_path)
    fast = read_em_outputs(paths, "sim-01", "default")
    assert all(isinstance(obj, em_canonical.EMFile) for _, obj in fast)
    monkeypatch.setattr(em_canonical, "parse_file", lambda path: None)
    ref = read_em_outputs(paths, "sim-01", "default")
    assert all(isinstance(obj, EMOutputFile) for _, obj in ref)
    for name, table in em_tables(ref).items():
        pd.testing.assert_frame_equal(em_tables(fast)[name], table, check_exact=True, obj=name)


def test_the_valid_fixture_is_declined_and_read_by_pydantic(tmp_path):
    # It spells fields the other ways (judge_scores, PA, intensity words) and has an unknown field.
    for path in list_json_files(RELEASE / "em_valid"):
        assert _check(path.read_bytes(), tmp_path) == "declined"


def test_every_invalid_fixture_is_left_to_pydantic(tmp_path):
    for path in list_json_files(RELEASE / "em_invalid"):
        assert em_canonical.decode(path.read_bytes()) is None
        assert _check(path.read_bytes(), tmp_path) == "invalid"


def _set(obj: dict, path: tuple, value: Any) -> dict:
    """A copy of ``obj`` with ``value`` at ``path`` (a missing last key is added; the value
    ``_DROP`` removes it)."""
    out = copy.deepcopy(obj)
    node = out
    for key in path[:-1]:
        node = node[key]
    if value is _DROP:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


_DROP = object()
T0, POST = ("turns", 0), ("post_conversation",)
#: (path, value, decision): the decision the canonical decoder must reach.
MUTATIONS = [
    # taken by both, read the same
    (("conversationId",), 17, "accepted"),
    (("api_cost",), 3, "accepted"),
    (("api_cost",), -0.0, "accepted"),
    (("mode",), _DROP, "accepted"),
    (("post_conversation",), None, "accepted"),
    (("post_conversation",), _DROP, "accepted"),
    (("turns",), [], "accepted"),
    ((*T0, "em_emotion_tags"), None, "accepted"),
    ((*T0, "em_emotion_tags"), [{"emotion": " Upset ", "intensity": None}], "accepted"),
    ((*T0, "em_emotion_tags"), [{"emotion": "upset"}], "accepted"),
    ((*T0, "em_binary_om_assessment"), None, "accepted"),
    ((*T0, "em_binary_om_assessment"), {"B1": True, "B2": 0, "B3": None, "B4": "perhaps"}, "accepted"),
    ((*T0, "em_pairwise_selections"), _DROP, "accepted"),
    ((*T0, "em_drafted_response"), "nul \u0000 and é ✓", "accepted"),
    ((*T0, "em_four_branch_scores"), None, "accepted"),
    ((*T0, "em_emotion_tags_invalid"), True, "accepted"),
    ((*POST, "predicted_conversation_wide", "q1_lookingFor"), "a bare string", "accepted"),
    ((*POST, "predicted_conversation_wide", "fourBranchScores"), {"perceiving": 9, "managing": None}, "accepted"),
    ((*POST, "predicted_post_chat_ratings"), {"empathy": 99, "relevance": None}, "accepted"),
    ((*POST, "predicted_post_panas", "totals"), {"totalPositiveAffect": 12}, "accepted"),
    ((*POST, "predicted_panas_delta"), {"items": {"Active": -2}, "totals": None}, "accepted"),
    ((*POST, "predicted_post_panas"), {"items": {"Active": 2}, "totalPositiveAffect": 31}, "accepted"),
    ((*POST, "predicted_post_panas"), {"totals": {"totalNegativeAffect": 12}, "totalNegativeAffect": 12}, "accepted"),
    # taken by pydantic only (other spellings, other types, values it normalises)
    (("harness",), {"name": "x"}, "declined"),
    ((*T0, "judge_scores"), {"overall_score": 5}, "declined"),
    ((*T0, "em_draft_judge"), {"overall_score": 5}, "declined"),
    ((*T0, "em_four_branch_scores"), {"perceiving": 3}, "declined"),
    ((*T0, "turnNumber"), 1.0, "declined"),
    ((*T0, "turnNumber"), True, "declined"),  # pydantic (lax) reads true as 1
    ((*T0, "em_emotion_tags"), [{"emotion": "upset", "intensity": "mild"}], "declined"),
    ((*T0, "em_emotion_tags"), [{"emotion": "upset", "intensity": 9}], "declined"),
    ((*T0, "em_emotion_tags"), [{"emotion": "upset", "intensity": 3.0}], "declined"),
    ((*T0, "em_emotion_tags"), [{"emotion": "upset", "extra": 1}], "declined"),
    ((*T0, "em_binary_om_assessment"), {"B1": 1.0}, "declined"),
    ((*T0, "em_emotion_tags_invalid"), 1, "declined"),
    ((*POST, "predicted_post_panas", "totals"), {"PA": 20}, "declined"),
    ((*POST, "predicted_post_panas", "items"), {"active": 2}, "declined"),
    ((*POST, "predicted_post_panas", "responses"), {"Active": 2}, "declined"),
    ((*POST, "predicted_conversation_wide", "Q1"), ["x"], "declined"),
    ((*POST, "predicted_conversation_wide", "fourBranchScores"), {"Perceiving": 3}, "declined"),
    ((*POST, "predicted_post_chat_ratings"), {"Empathy": 3}, "declined"),
    ((*POST, "notes"), "kept for the audit", "declined"),
    (("duration_seconds",), 12345678901234567890, "declined"),
    # refused by pydantic
    (("em_model",), "../x", "invalid"),
    (("mode",), "loud", "invalid"),
    (("mode",), None, "invalid"),
    (("turns",), None, "invalid"),
    ((*T0, "turnNumber"), 0, "invalid"),
    ((*T0, "em_emotion_tags"), [{"emotion": "  "}], "invalid"),
    ((*T0, "em_emotion_tags"), [{"emotion": "x", "intensity": True}], "invalid"),
    ((*T0, "em_binary_om_assessment"), ["yes"], "invalid"),
    ((*T0, "em_binary_om_assessment"), {"B1": ["yes"]}, "invalid"),
    ((*POST, "panas_strategy"), "guess", "invalid"),
    ((*POST, "pre_panas_shown"), "maybe", "invalid"),
    ((*POST, "predicted_post_panas", "items"), {"Calm": 2}, "invalid"),
    ((*POST, "predicted_post_panas", "items"), {"Active": True}, "invalid"),
    ((*POST, "predicted_post_panas"), {"totals": {"totalPositiveAffect": 30}, "totalPositiveAffect": 31}, "invalid"),
    ((*POST, "predicted_post_panas"), {"totalNegativeAffect": True}, "invalid"),
    ((*POST, "predicted_conversation_wide", "fourBranchScores"), {"perceiving": "high"}, "invalid"),
    ((*POST, "predicted_post_chat_ratings"), {"stars": 3}, "invalid"),
    ((*POST,), 5, "invalid"),
]


@pytest.mark.parametrize("path, value, decision", MUTATIONS, ids=lambda x: repr(x)[:40])
def test_a_mutated_file_gets_its_decision(simulated, tmp_path, path, value, decision):
    assert _check(json.dumps(_set(simulated[0], path, value)).encode(), tmp_path) == decision


@pytest.mark.parametrize(
    "text, decision",
    [
        ('"turns": [{"turnNumber": 1}, {"turnNumber": 1}]', "invalid"),  # a turn number twice
        ('"api_cost": 1e400', "invalid"),  # infinity
        ('"api_cost": NaN', "invalid"),
        ('"em_model": "m", "em_model": "sim-01"', "accepted"),  # a key twice: the last one, as json reads it
        ('"run_timestamp": "\\ud800"', "invalid"),  # a lone surrogate
    ],
)
def test_raw_json_gets_its_decision(simulated, tmp_path, text, decision):
    base = {k: v for k, v in simulated[0].items() if k not in ("turns", "api_cost", "em_model", "run_timestamp")}
    data = json.dumps(base)[:-1] + ", " + text + "}"
    if '"em_model"' not in text:
        data = data[:-1] + ', "em_model": "sim-01"}'
    assert _check(data.encode(), tmp_path) == decision


def _paths(value: Any, at: tuple = ()) -> list[tuple]:
    """Every JSON path in ``value`` (objects' keys and arrays' indexes)."""
    out = [at]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*at, i))
    return out


_VALUES = [None, True, False, 0, 1, 7, -3, 2.5, 1.0, "", " ", "yes", "B", "Active", "mild", [], {}, ["x"], {"a": 1}]


def test_random_mutations_never_disagree(simulated, tmp_path):
    """600 seeded mutations: a value anywhere replaced by a JSON value of any type."""
    rng = random.Random(20261203)
    decisions = []
    for _ in range(600):
        base = rng.choice(simulated[:8])
        path = rng.choice(_paths(base)[1:])
        decisions.append(_check(json.dumps(_set(base, path, rng.choice(_VALUES))).encode(), tmp_path))
    # The draw reaches all three outcomes (the check is not vacuous).
    assert {"accepted", "declined", "invalid"} <= set(decisions)


@pytest.mark.parametrize(
    "path, value",
    [
        (("api_cost",), float("nan")),
        (("duration_seconds",), float("inf")),
        ((*POST, "predicted_post_panas", "items", "Active"), float("nan")),
        ((*POST, "predicted_post_panas", "totals", "totalPositiveAffect"), float("-inf")),
        ((*POST, "predicted_conversation_wide", "fourBranchScores", "perceiving"), float("nan")),
        ((*POST, "predicted_post_chat_ratings"), {"empathy": float("inf")}),
    ],
)
def test_convert_declines_a_float_no_json_file_can_hold(simulated, path, value):
    """Python floats can be NaN or infinite (JSON numbers cannot): pydantic refuses them."""
    obj = _set(simulated[0], path, value)
    assert em_canonical.convert(obj) is None
    with pytest.raises(ValidationError):
        em_canonical.validate(obj)
    _check_convert(obj)

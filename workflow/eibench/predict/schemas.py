"""JSON schemas of the answers of each task, for endpoints that constrain decoding to a schema.

``answer_schema(task, expect, mode)`` is the JSON schema (draft 2020-12 subset: object,
properties, required, enum, integer/number bounds, arrays) of a valid answer to one request
of the protocol, derived from the same instrument data that ``answers.parse`` checks against
(the 36 behaviour questions asked, the PANAS words, the survey options, the post-chat rating
scales). ``draft`` answers are free text: no schema (None).

A schema-valid answer is always accepted by ``answers.parse`` (a test checks it on every task),
but the reverse does not hold: the parser is lenient (``"Yes."``, ``"n/a"``, numbers as floats),
the schema is strict, so constrained decoding produces the canonical form. In the verbose modes
a ``rationale`` string is allowed (the prompt asks for it there) but not required.

Where the schema is sent: ``LiveModel.structured_output`` (config key ``structured_output`` of a
model entry) makes the OpenAI-compatible adapter send it as ``response_format: {"type":
"json_object", "schema": ...}`` (the form of llama.cpp's server and vLLM); the schema is then part
of the request's cache key, so answers with and without it are never mixed.
"""

from __future__ import annotations

from typing import Any

from .. import instrument

VERBOSE = ("verbose", "verbose_omniscient")
_YES_NO_NA = ["yes", "no", "na"]


def _object(properties: dict[str, Any], mode: str, required: list[str] | None = None) -> dict[str, Any]:
    props = dict(properties)
    if mode in VERBOSE:
        props["rationale"] = {"type": "string"}
    return {
        "type": "object",
        "properties": props,
        "required": list(properties) if required is None else required,
        "additionalProperties": False,
    }


def _integer(low: int, high: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": low, "maximum": high}


def answer_schema(task: str, expect: tuple[str, ...] = (), mode: str = "default") -> dict[str, Any] | None:
    """The JSON schema of a valid answer to ``task`` (None for ``draft``: free text).

    ``expect``: the keys asked (question ids, comparison positions, PANAS items, rating items),
    as in ``prompts.Request.expect``. ValueError for an unknown task."""
    if task == "draft":
        return None
    if task == "emotions":
        words = [item.name for item in instrument.panas_items()]
        tag = {
            "type": "object",
            "properties": {"emotion": {"enum": words}, "intensity": _integer(1, 7)},
            "required": ["emotion", "intensity"],
            "additionalProperties": False,
        }
        return _object({"emotions": {"type": "array", "items": tag, "maxItems": len(words)}}, mode)
    if task.startswith("binary_"):
        return _object({k: {"enum": _YES_NO_NA} for k in expect}, mode)
    if task == "pairwise":
        return _object({k: {"enum": ["A", "B"]} for k in expect}, mode)
    if task in ("post_panas_absolute", "post_panas_delta", "post_panas_blind_delta"):
        low, high = (1, 7) if task == "post_panas_absolute" else (-6, 6)
        items = {
            "type": "object",
            "properties": {k: _integer(low, high) for k in expect},
            "required": list(expect),
            "additionalProperties": False,
        }
        return _object({"items": items}, mode)
    if task == "conversation_wide":
        options = instrument.survey_options()
        four = {
            "type": "object",
            "properties": {b: _integer(1, 7) for b in instrument.FOUR_BRANCHES},
            "required": list(instrument.FOUR_BRANCHES),
            "additionalProperties": False,
        }
        return _object(
            {
                "q1_lookingFor": {
                    "type": "array",
                    "items": {"enum": list(options["q1_lookingFor"])},
                    "minItems": 1,
                    "maxItems": len(options["q1_lookingFor"]),
                },
                "q2_emotionClarity": {"enum": list(options["q2_emotionClarity"])},
                "q3_modelFit": {"enum": list(options["q3_modelFit"])},
                "q3_followUp_whatFeltOff": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
                "fourBranchScores": four,
            },
            mode,
        )
    if task == "post_chat_ratings":
        scales = instrument.rating_items()
        ratings = {
            "type": "object",
            "properties": {k: _integer(scales[k].low, scales[k].high) for k in expect},
            "required": list(expect),
            "additionalProperties": False,
        }
        return _object({"ratings": ratings}, mode)
    raise ValueError(f"unknown task {task!r}")


def violations(value: Any, schema: dict[str, Any], path: str = "$") -> list[tuple[str, str, Any]]:
    """How ``value`` breaks ``schema`` (the subset ``answer_schema`` writes), as (kind, path,
    value) triples: kind ``bounds`` for a number outside the schema's ``minimum``/``maximum``,
    ``structure`` for anything else (a type, an enum, a missing or extra key, an array's
    length). An empty list: the value is schema-valid. Separating the two kinds shows what a
    constrained decoder enforced: a grammar can force every key and type yet not a number's range."""
    out: list[tuple[str, str, Any]] = []
    if "enum" in schema:
        return [] if value in schema["enum"] else [("structure", path, value)]
    kind = schema.get("type")
    if kind == "object":
        if not isinstance(value, dict):
            return [("structure", path, value)]
        props = schema.get("properties", {})
        out += [("structure", f"{path}.{k}", None) for k in schema.get("required", []) if k not in value]
        if schema.get("additionalProperties") is False:
            out += [("structure", f"{path}.{k}", value[k]) for k in value if k not in props]
        for k, sub in props.items():
            if k in value:
                out += violations(value[k], sub, f"{path}.{k}")
    elif kind == "array":
        if not isinstance(value, list):
            return [("structure", path, value)]
        if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", len(value)):
            out.append(("structure", path, len(value)))
        for i, item in enumerate(value):
            out += violations(item, schema.get("items", {}), f"{path}[{i}]")
    elif kind in ("integer", "number"):
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not number or (kind == "integer" and not float(value).is_integer()):
            return [("structure", path, value)]
        if not schema.get("minimum", value) <= value <= schema.get("maximum", value):
            out.append(("bounds", path, value))
    elif kind == "string" and not isinstance(value, str):
        out.append(("structure", path, value))
    return out


def bounded_values(value: Any, schema: dict[str, Any]) -> list[tuple[float, float, float]]:
    """(value, minimum, maximum) of every number of ``value`` at a place where ``schema`` bounds
    a number (in order): the values a bounds violation is read among."""
    if schema.get("type") == "object" and isinstance(value, dict):
        return [
            x for k, sub in schema.get("properties", {}).items() if k in value for x in bounded_values(value[k], sub)
        ]
    if schema.get("type") == "array" and isinstance(value, list):
        return [x for item in value for x in bounded_values(item, schema.get("items", {}))]
    if (
        schema.get("type") in ("integer", "number")
        and "minimum" in schema
        and isinstance(value, (int, float))
        and not isinstance(value, bool)
    ):
        return [(value, schema["minimum"], schema["maximum"])]
    return []

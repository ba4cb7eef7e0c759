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

"""Parsing and validating a model's answer to each task of the protocol.

``parse(task, text, expect)`` returns ``Parsed(value, problem)``: ``value`` is the validated
answer (normalised), or None with ``problem`` saying what is wrong in words a model can act on
(it is sent back in a repair message). Answers may come wrapped in Markdown code fences or
with text around the JSON object; the first JSON object in the text is used.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .. import instrument
from ..release import normalize

REPAIR_MESSAGE = (
    "Your answer could not be used: {problem}. Answer again with only the JSON object in the required format."
)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class Parsed:
    value: Any
    problem: str = ""

    @property
    def ok(self) -> bool:
        return not self.problem


def extract_json(text: str) -> tuple[Any, str]:
    """The first JSON object in ``text`` (code fences allowed): (object, '') or (None, problem)."""
    if not isinstance(text, str) or not text.strip():
        return None, "the answer is empty"
    fenced = _FENCE.search(text)
    candidate = fenced.group(1) if fenced else text
    decoder = json.JSONDecoder()
    problem = "the answer contains no JSON object"
    start = candidate.find("{")
    while start >= 0:  # the first '{' that starts a valid object ('I weighed {tone} first. {...}')
        try:
            obj, _ = decoder.raw_decode(candidate[start:])
            if isinstance(obj, dict):
                return obj, ""
        except json.JSONDecodeError as e:
            if problem == "the answer contains no JSON object":
                problem = f"the JSON is not valid ({e.msg} at position {e.pos})"
        start = candidate.find("{", start + 1)
    return None, problem


def _emotions(obj: dict[str, Any]) -> Parsed:
    tags = obj.get("emotions")
    if not isinstance(tags, list):
        return Parsed(None, 'the object needs an "emotions" list')
    words = instrument.panas_by_word()
    out = []
    for i, tag in enumerate(tags):
        word = tag.get("emotion") if isinstance(tag, dict) else None
        if not isinstance(word, str) or normalize.emotion_word(word) not in words:
            allowed = ", ".join(item.name for item in instrument.panas_items())
            return Parsed(None, f"emotions[{i}] needs a word from the PANAS list ({allowed})")
        level = tag.get("intensity")
        if isinstance(level, str) and level.strip().lower() in normalize.INTENSITY_WORDS:
            level = normalize.INTENSITY_WORDS[level.strip().lower()]
        if isinstance(level, bool) or not isinstance(level, (int, float)) or not 1 <= level <= 7:
            return Parsed(None, f"emotions[{i}] needs an intensity from 1 to 7")
        out.append({"emotion": normalize.emotion_word(word), "intensity": normalize.intensity(level)})
    return Parsed(out)


def _choices(obj: dict[str, Any], expect: tuple[str, ...], allowed: dict[str, str], what: str) -> Parsed:
    missing = [k for k in expect if k not in obj]
    if missing:
        return Parsed(None, f"keys missing: {', '.join(missing)}")
    out = {}
    for key in expect:
        value = obj[key]
        if isinstance(value, bool) and "yes" in allowed:
            value = "yes" if value else "no"
        norm = allowed.get(value.strip().strip(".!").lower()) if isinstance(value, str) else None
        if norm is None:
            return Parsed(None, f"{key!r} must be {what}, not {value!r}")
        out[key] = norm
    return Parsed(out)


def _panas(obj: dict[str, Any], expect: tuple[str, ...], low: int, high: int) -> Parsed:
    items = obj.get("items")
    if not isinstance(items, dict):
        return Parsed(None, 'the object needs an "items" object')
    by_word = {k.strip().lower(): v for k, v in items.items() if isinstance(k, str)}
    out = {}
    for name in expect:
        value = by_word.get(name.lower())
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            return Parsed(None, f"item {name!r} needs a number from {low} to {high}")
        out[name] = int(round(value))
    return Parsed(out)


def _one_of(value: Any, options: tuple[str, ...]) -> str | None:
    if not isinstance(value, str):
        return None
    lookup = {o.strip().lower(): o for o in options}
    return lookup.get(value.strip().lower())


def _conversation_wide(obj: dict[str, Any]) -> Parsed:
    options = instrument.survey_options()
    q1 = obj.get("q1_lookingFor")
    q1 = [q1] if isinstance(q1, str) else q1
    if not isinstance(q1, list) or not q1:
        return Parsed(None, '"q1_lookingFor" must be a list of one or more options')
    q1_norm = [_one_of(x, options["q1_lookingFor"]) for x in q1]
    if None in q1_norm:
        return Parsed(None, f'"q1_lookingFor" options must come from the list given, not {q1!r}')
    q2 = _one_of(obj.get("q2_emotionClarity"), options["q2_emotionClarity"])
    if q2 is None:
        return Parsed(None, '"q2_emotionClarity" must be one of the options given')
    q3 = _one_of(obj.get("q3_modelFit"), options["q3_modelFit"])
    if q3 is None:
        return Parsed(None, '"q3_modelFit" must be one of the options given')
    follow = obj.get("q3_followUp_whatFeltOff", [])
    follow = [follow] if isinstance(follow, str) else follow
    if not isinstance(follow, list) or not all(isinstance(x, str) for x in follow):
        return Parsed(None, '"q3_followUp_whatFeltOff" must be a list of short phrases')
    four = obj.get("fourBranchScores")
    if not isinstance(four, dict):
        return Parsed(None, '"fourBranchScores" must be an object')
    ratings = {}
    for branch in instrument.FOUR_BRANCHES:
        value = four.get(branch)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 1 <= value <= 7:
            return Parsed(None, f'"fourBranchScores.{branch}" must be a number from 1 to 7')
        ratings[branch] = value
    return Parsed(
        {
            "q1_lookingFor": list(dict.fromkeys(q1_norm)),
            "q2_emotionClarity": q2,
            "q3_modelFit": q3,
            "q3_followUp_whatFeltOff": [x.strip() for x in follow if x.strip()],
            "fourBranchScores": ratings,
        }
    )


def _ratings(obj: dict[str, Any], expect: tuple[str, ...]) -> Parsed:
    """Post-chat ratings: a number on each asked item's scale, rounded to a whole number."""
    ratings = obj.get("ratings")
    if not isinstance(ratings, dict):
        return Parsed(None, 'the object needs a "ratings" object')
    by_name = {k.strip().lower(): v for k, v in ratings.items() if isinstance(k, str)}
    items = instrument.rating_items()
    out = {}
    for name in expect:
        value, item = by_name.get(name), items[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not item.low <= value <= item.high:
            return Parsed(None, f'"ratings.{name}" needs a number from {item.low} to {item.high}')
        out[name] = int(round(value))  # as PANAS items: Python's round
    return Parsed(out)


_YES_NO_NA = {"yes": "yes", "no": "no", "na": "na", "n/a": "na"}
_AB = {"a": "A", "b": "B"}


def parse(task: str, text: str, expect: tuple[str, ...] = ()) -> Parsed:
    """Validate a model's answer to ``task``; ``expect`` lists the keys or items asked for."""
    if task == "draft":
        return Parsed(text.strip()) if isinstance(text, str) and text.strip() else Parsed(None, "the reply is empty")
    obj, problem = extract_json(text)
    if obj is None:
        return Parsed(None, problem)
    if task == "emotions":
        return _emotions(obj)
    if task.startswith("binary_"):
        return _choices(obj, expect, _YES_NO_NA, '"yes", "no" or "na"')
    if task == "pairwise":
        return _choices(obj, expect, _AB, '"A" or "B"')
    if task == "post_panas_absolute":
        return _panas(obj, expect, 1, 7)
    if task in ("post_panas_delta", "post_panas_blind_delta"):
        return _panas(obj, expect, -6, 6)
    if task == "conversation_wide":
        return _conversation_wide(obj)
    if task == "post_chat_ratings":
        return _ratings(obj, expect)
    raise ValueError(f"unknown task {task!r}")

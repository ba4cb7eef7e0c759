"""EM output files in the canonical shape, decoded from bytes in one pass (msgspec, in C).

The files our collectors, baselines and simulator write spell every field one way, hold plain
values and no unknown field. ``decode`` reads such a file straight from its bytes into structs
whose attributes are those of ``schema.EMOutputFile`` that ``tidy.em_tables`` and
``read.read_em_outputs`` read, with the same values and types. It returns None for every other
file, and the caller then validates that file with pydantic (``schema.EMOutputFile``), which
takes every documented alias and names every problem with its JSON path.

So this path accepts a subset of what the reference accepts and never produces an error of its
own: a file it declines costs one decode attempt more. It declines, among others:
- any unknown field, and any spelling but the first (``judge_scores``, ``PA``, ``responses``,
  ``Q1``...); per-turn four-branch scores or judge scores (only null is taken for them);
- a value of another JSON type than the field's (a turn number 1.0, a boolean "true", a
  float answer), an intensity that is a word, a float or outside 1..7, a PANAS item, branch or
  rating name not spelled as the instrument spells it (pydantic normalises all of these);
- a run of 19 or more digits anywhere (``json_bytes.has_long_digit_run``: integers beyond 64 bits and
  beyond Python's digit limit read differently), an unsafe id, a blank emotion word, a turn
  number given twice, text that is not JSON or not UTF-8, a lone surrogate escape.

Nesting is bounded by the structs, so no depth check is needed.

tests/unit/test_em_canonical.py checks the equality attribute by attribute and table by table,
on every valid fixture, on simulated and baseline outputs and on mutated files.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any, Literal, Optional

import msgspec

from .. import instrument
from .json_bytes import has_long_digit_run
from .schema import MAX_TURN_NUMBER, EMOutputFile, _four_branch, _ratings, _safe_id, totals_given

#: Answers as ``schema.Answers`` passes them through unchanged; a float answer is declined.
_Answers = Optional[dict[str, str | bool | int | None]]


class Tag(msgspec.Struct, forbid_unknown_fields=True):
    """``schema.MoodTag`` with a numeric intensity already in 1..7 (normalisation is a no-op)."""

    emotion: str
    intensity: Optional[Annotated[int, msgspec.Meta(ge=1, le=7)]] = None


class Turn(msgspec.Struct, forbid_unknown_fields=True):
    """``schema.EMTurn`` under its canonical field names."""

    turnNumber: Annotated[int, msgspec.Meta(ge=1, le=MAX_TURN_NUMBER)]
    em_emotion_tags: Optional[list[Tag]] = None  # null -> [] in decode, as pydantic does
    em_drafted_response: Optional[str] = None
    em_binary_om_assessment: _Answers = None  # every null answers object -> {} in decode
    em_binary_human_prediction: _Answers = None
    em_binary_om_assessment_hp: _Answers = None
    em_binary_human_prediction_hp: _Answers = None
    em_pairwise_selections: _Answers = None
    em_four_branch_scores: None = None
    em_draft_judge: None = None
    em_emotion_tags_invalid: bool = False

    @property
    def tags_clamped(self) -> tuple[int, ...]:
        """No tag: a canonical intensity is an integer in 1..7 (``schema.EMTurn.tags_clamped``)."""
        return ()


_PANAS_NAMES = frozenset(item.name for item in instrument.panas_items())
_RATINGS = instrument.rating_items()
#: A number as ``schema.Number`` gives it: a float (an integer converted), finite, not a boolean.
_Number = float


class PanasTotals(msgspec.Struct, forbid_unknown_fields=True):
    """``schema.PanasTotals`` under its first spellings."""

    positive: Optional[_Number] = msgspec.field(default=None, name="totalPositiveAffect")
    negative: Optional[_Number] = msgspec.field(default=None, name="totalNegativeAffect")


class PanasPrediction(msgspec.Struct, forbid_unknown_fields=True):
    """``schema.PanasPrediction`` with its items under ``items`` and named as the instrument
    names them ('Active', ...); its totals under ``totals``, beside the items, or both."""

    items: Optional[dict[str, _Number]] = None
    totals: Optional[PanasTotals] = None
    totalPositiveAffect: Optional[_Number] = None  # the public port's layout: beside the items
    totalNegativeAffect: Optional[_Number] = None


class ConversationWide(msgspec.Struct, forbid_unknown_fields=True):
    """``schema.ConversationWide`` under its canonical field names (a bare string of a
    multi-select becomes a one-element list in ``decode``)."""

    q1_lookingFor: str | list[str] | None = None
    q2_emotionClarity: Optional[str] = None
    q3_modelFit: Optional[str] = None
    q3_followUp_whatFeltOff: str | list[str] | None = None
    fourBranchScores: Optional[dict[str, Optional[_Number]]] = None


class PostConversation(msgspec.Struct, forbid_unknown_fields=True):
    """``schema.PostConversation``; ratings are clamped to their scales in ``decode``."""

    panas_strategy: Optional[Literal["absolute", "delta", "blind_delta"]] = None
    pre_panas_shown: Optional[bool] = None
    predicted_post_panas: Optional[PanasPrediction] = None
    predicted_panas_delta: Optional[PanasPrediction] = None
    predicted_conversation_wide: Optional[ConversationWide] = None
    predicted_post_chat_ratings: Optional[dict[str, Optional[_Number]]] = None


class EMFile(msgspec.Struct, forbid_unknown_fields=True):
    """``schema.EMOutputFile`` under its canonical field names."""

    conversationId: str | int  # a number becomes its string in decode, as pydantic does
    em_model: str | int
    source_file: Optional[str] = None
    run_timestamp: Optional[str] = None
    mode: Literal["default", "verbose", "omniscient", "verbose_omniscient"] = "default"
    prompt_version: Optional[str] = None
    turns: list[Turn] = []
    post_conversation: Optional[PostConversation] = None
    api_cost: Optional[float] = None
    duration_seconds: Optional[float] = None


_ANSWER_FIELDS = (
    "em_binary_om_assessment",
    "em_binary_human_prediction",
    "em_binary_om_assessment_hp",
    "em_binary_human_prediction_hp",
    "em_pairwise_selections",
)
_DECODER = msgspec.json.Decoder(EMFile, strict=True)


def decode(data: bytes) -> EMFile | None:
    """The canonical EM output file of ``data`` (the bytes of one file), or None when the file
    is not in the canonical shape or not valid: the caller then takes the pydantic path."""
    if has_long_digit_run(data):
        return None
    try:
        return _normalised(_DECODER.decode(data))
    except (msgspec.DecodeError, UnicodeDecodeError):
        return None


def convert(obj: Any) -> EMFile | None:
    """``decode`` for a JSON object in memory (what the simulator builds): the canonical file,
    or None. ``obj`` is not changed. Unlike JSON text, Python floats can be NaN or infinite:
    such a file is declined (pydantic refuses it)."""
    try:
        return _normalised(msgspec.convert(obj, EMFile, strict=True))
    except msgspec.ValidationError:
        return None


def validate(obj: Any) -> EMFile | EMOutputFile:
    """A JSON object in memory as an EM output file: ``convert``'s, else pydantic's
    (``EMOutputFile.model_validate``, which raises ``pydantic.ValidationError``)."""
    return convert(obj) or EMOutputFile.model_validate(obj)


def _normalised(out: EMFile) -> EMFile | None:
    """``out`` normalised in place as pydantic normalises it, or None when pydantic would
    refuse it or read it otherwise."""
    try:
        out.conversationId, out.em_model = _safe_id(out.conversationId), _safe_id(out.em_model)
    except ValueError:
        return None
    if not _finite(out.api_cost, out.duration_seconds):
        return None
    seen: set[int] = set()
    for turn in out.turns:
        if turn.turnNumber in seen:
            return None
        seen.add(turn.turnNumber)
        if turn.em_emotion_tags is None:
            turn.em_emotion_tags = []
        elif not all(tag.emotion.strip() for tag in turn.em_emotion_tags):
            return None
        for field in _ANSWER_FIELDS:
            if getattr(turn, field) is None:
                setattr(turn, field, {})
    post = out.post_conversation
    if post is not None and not _normalise_post(post):
        return None
    return out


def _finite(*values: float | None) -> bool:
    """Whether every number is finite (None counts as finite)."""
    return all(v is None or math.isfinite(v) for v in values)


def _normalise_post(post: PostConversation) -> bool:
    """Normalise ``post`` in place as pydantic does; False when pydantic would refuse it or
    read it otherwise (then the file is declined)."""
    for panas in (post.predicted_post_panas, post.predicted_panas_delta):
        if panas is None:
            continue
        if panas.items is not None and not (_PANAS_NAMES.issuperset(panas.items) and _finite(*panas.items.values())):
            return False
        if panas.totals is not None and not _finite(panas.totals.positive, panas.totals.negative):
            return False
        if not _finite(panas.totalPositiveAffect, panas.totalNegativeAffect):
            return False
        if any(given.contradicts for _, given in totals_given(panas)):
            return False  # a total given twice with two values: pydantic names the error
    cw = post.predicted_conversation_wide
    if cw is not None:
        if isinstance(cw.q1_lookingFor, str):
            cw.q1_lookingFor = [cw.q1_lookingFor]
        if isinstance(cw.q3_followUp_whatFeltOff, str):
            cw.q3_followUp_whatFeltOff = [cw.q3_followUp_whatFeltOff]
        if cw.fourBranchScores is not None and not _BRANCHES.issuperset(cw.fourBranchScores):
            return False
    ratings = post.predicted_post_chat_ratings
    if ratings is not None and not _RATINGS.keys() >= ratings.keys():
        return False
    try:  # the schema's own checks and clamps (a value that is not finite raises)
        if cw is not None:
            cw.fourBranchScores = _four_branch(cw.fourBranchScores)  # type: ignore[assignment]
        post.predicted_post_chat_ratings = _ratings(ratings, gold=False)  # type: ignore[assignment]
    except ValueError:
        return False
    return True


_BRANCHES = frozenset(instrument.FOUR_BRANCHES)


def parse_file(path: Path) -> EMFile | None:
    """``decode`` of the file at ``path``; None also when it cannot be read (the pydantic path
    then names why)."""
    try:
        return decode(path.read_bytes())
    except OSError:
        return None

"""Validation models of the two file shapes of the release format.

``ConversationFile`` is one ``conversation_<N>.json``; ``EMOutputFile`` is one evaluated-model
output file (one per conversation x EM x mode). Every documented alias is accepted here and
mapped to one canonical attribute; values are normalised with ``release.normalize``. Unknown
extra fields are kept (``model_extra``) so the raw layer can list them in an audit table.

Validation errors carry pydantic ``loc`` tuples; ``release.read`` turns them into JSON paths.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal, NamedTuple, Optional

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    field_validator,
    model_validator,
)

from .. import instrument
from ..ids import check_safe_id
from . import normalize


def _scalar(value: Any) -> Any:
    if type(value) is str:  # the common case first: this runs once per answer
        return value
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{value} is not a valid answer (NaN and Infinity are not JSON numbers)")
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    raise ValueError(f"must be a string (yes/no/na), a boolean, a number or null, got a {type(value).__name__}")


Scalar = Annotated[Any, BeforeValidator(_scalar)]
MODES = ("default", "verbose", "omniscient", "verbose_omniscient")
PANAS_STRATEGIES = ("absolute", "delta", "blind_delta")


class _Node(BaseModel):
    """Base of every object of the format: extra fields are kept, aliases accepted."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, frozen=False, allow_inf_nan=False)


class _SpelledNode(_Node):
    """Base of the objects with a field of several spellings (validation aliases).

    When a field is given under several spellings, the first non-null one is read (a null
    spelling falls back to the next, as the format's fallbacks do); the others stay visible
    as extra fields of the audit table. Only these classes run the check (the others have no
    spellings to reconcile): it is a Python call per object, and objects such as mood tags
    number thousands per model (tests/unit/test_schema_spellings.py keeps the split right).
    """

    @model_validator(mode="before")
    @classmethod
    def _null_spellings_give_way(cls, data: Any) -> Any:
        if not isinstance(data, dict) or data.keys().isdisjoint(_later_spellings(cls)):
            return data  # one spelling at most of each field: nothing to reconcile
        for choices in _spellings(cls):
            present = [c for c in choices if c in data]
            if len(present) > 1 and data[present[0]] is None:
                non_null = [c for c in present if data[c] is not None]
                if non_null:
                    data = {k: v for k, v in data.items() if not (k in present and data[k] is None)}
        return data


_SPELLINGS: dict[type, tuple[tuple[str, ...], ...]] = {}


def _spellings(cls: type[BaseModel]) -> tuple[tuple[str, ...], ...]:
    """The string spellings of each field of ``cls`` that has several (validation aliases),
    computed once per class: reading ``model_fields`` for every object costs more than the
    validation itself."""
    found = _SPELLINGS.get(cls)
    if found is None:
        found = tuple(
            tuple(c for c in alias.choices if isinstance(c, str))
            for alias in (info.validation_alias for info in cls.model_fields.values())
            if isinstance(alias, AliasChoices)
        )
        _SPELLINGS[cls] = found
    return found


_LATER: dict[type, frozenset[str]] = {}


def _later_spellings(cls: type[BaseModel]) -> frozenset[str]:
    """Every spelling of ``cls`` but the first of its field: a field is given twice only when one
    of these is present (computed once per class)."""
    found = _LATER.get(cls)
    if found is None:
        found = _LATER[cls] = frozenset(c for choices in _spellings(cls) for c in choices[1:])
    return found


def _number(value: Any) -> Any:
    """A JSON number (not a boolean, not a string of digits, finite)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"must be a number, got {value!r}")
    try:
        finite = math.isfinite(value)
    except OverflowError:  # an integer beyond a float's range (JSON allows any number of digits)
        raise ValueError(
            f"must be a number a 64-bit float can hold (at most about 1.8e308), got an integer of "
            f"{int(value).bit_length()} bits"
        ) from None
    if not finite:
        raise ValueError(f"must be a finite number (NaN and Infinity are not JSON numbers), got {value!r}")
    return value


Number = Annotated[float, BeforeValidator(_number)]
_STR = frozenset((str,))
_NUMBER_TYPES = frozenset((int, float))


def _plain_numbers(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """An object of numbers (PANAS items) whose keys are strings and whose values are integers
    or finite floats (not booleans) as ``dict[str, Number]`` gives it, floats, checked in one
    pass without a call of ``_number`` per value; anything else (a boolean, a string, NaN, an
    integer too large for a float, not an object) is validated value by value by ``handler``,
    which names each bad value."""
    if (
        type(value) is dict
        and _STR.issuperset(map(type, value))
        and _NUMBER_TYPES.issuperset(map(type, value.values()))
    ):
        try:
            out = {k: float(v) for k, v in value.items()}
        except OverflowError:
            return handler(value)
        if all(map(math.isfinite, out.values())):
            return out
    return handler(value)


#: PANAS items: name -> number (plain objects at once, others value by value).
Numbers = Annotated[dict[str, Number], WrapValidator(_plain_numbers)]


def _safe_id(value: Any) -> Any:
    # Numbers are accepted as ids (e.g. conversationId 17) and turned into strings.
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, str):
        return check_safe_id(value, "identifier")
    return value


SafeId = Annotated[str, BeforeValidator(_safe_id)]
Intensity = Annotated[Optional[int], BeforeValidator(normalize.intensity)]


def _as_list(value: Any) -> Any:
    # A multi-select answered with one bare string is read as a one-element list.
    return [value] if isinstance(value, str) else value


StrList = Annotated[list[str], BeforeValidator(_as_list)]


# --------------------------------------------------------------------------- conversation file
class MoodTag(_Node):
    """A mood-shift tag: a PANAS word and an intensity 1..7 (words mild/moderate/intense)."""

    emotion: str
    intensity: Intensity = None

    @field_validator("emotion")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("an emotion tag needs a word; this one is empty")
        return v


def _clamped(intensity: Any) -> bool:
    """``normalize.intensity_clamped``, with the common case (an integer in 1..7) taken at once."""
    return not (type(intensity) is int and 1 <= intensity <= 7) and normalize.intensity_clamped(intensity)


class GoldMoodTag(MoodTag):
    """A participant's mood-shift tag (``moodShiftTags``), which also notes whether the intensity
    given was clamped (``intensity_clamped``: a number whose rounding lay outside 1..7), for the
    audit (the gold mood_tags table, ingest_report.json). Predicted tags are audited by their turn
    (``EMTurn.tags_clamped``): a call per turn, not per tag, for a model's thousands of tags.

    The flag is set when the tag is validated from its raw value: ``model_construct``,
    ``model_copy(update=...)`` and a tag validated again from its ``model_dump()`` do not set it
    anew, and it takes part in ``==`` (pydantic compares private attributes)."""

    _intensity_clamped: bool = PrivateAttr(default=False)

    @model_validator(mode="wrap")
    @classmethod
    def _note_clamp(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        # The intensity's own validator normalises it and keeps no state: the raw value is
        # looked at here.
        tag = handler(data)
        if isinstance(data, dict) and normalize.intensity_clamped(data.get("intensity")):
            tag._intensity_clamped = True
        return tag

    @property
    def intensity_clamped(self) -> bool:
        return self._intensity_clamped


class BinaryJudgement(_SpelledNode):
    """One yes/no behaviour judgement of the OM's reply by the HP."""

    questionId: str
    llmValue: Scalar = None
    observedBehavior: Scalar = Field(
        None,
        validation_alias=AliasChoices("observedBehavior", "did_occur", "humanValue", "actualValue"),
    )
    preferredBehavior: Scalar = Field(
        None, validation_alias=AliasChoices("preferredBehavior", "should_occur", "humanPreference")
    )


class AlternateResponses(_SpelledNode):
    llmImproved: Optional[str] = Field(None, validation_alias=AliasChoices("llmImproved", "alternate1"))
    humanEdited: Optional[str] = Field(None, validation_alias=AliasChoices("humanEdited", "alternate2"))


_RESPONSE_SYNONYMS = {
    "original": "original",
    "alternate": "alternate",
    "human": "human",
    "llmimproved": "alternate",
    "humanedited": "human",
}


def _response_label(value: Any) -> Any:
    if isinstance(value, str) and value.strip().lower() in _RESPONSE_SYNONYMS:
        return _RESPONSE_SYNONYMS[value.strip().lower()]
    return value


def _winner(value: Any) -> Any:
    if isinstance(value, str) and value.strip().upper() in ("A", "B"):
        return value.strip().upper()
    if isinstance(value, str) and value.strip().lower() in ("", "null", "none", "tie"):
        return None
    return value


ResponseLabel = Annotated[Literal["original", "alternate", "human"], BeforeValidator(_response_label)]
Winner = Annotated[Optional[Literal["A", "B"]], BeforeValidator(_winner)]


class PairwiseComparison(_SpelledNode):
    questionId: str
    responseA: ResponseLabel = Field(validation_alias=AliasChoices("responseA", "response_1"))
    responseB: ResponseLabel = Field(validation_alias=AliasChoices("responseB", "response_2"))
    winner: Winner = None

    @model_validator(mode="after")
    def _distinct(self) -> "PairwiseComparison":
        if self.responseA == self.responseB:
            raise ValueError(
                f"responseA and responseB are both {self.responseA!r}; a comparison needs two different responses"
            )
        return self


class TurnAnnotations(_Node):
    binaryJudgements: list[BinaryJudgement] = Field(default_factory=list)
    alternateResponses: Optional[AlternateResponses] = None
    pairwiseComparisons: list[PairwiseComparison] = Field(default_factory=list)
    selectedPairwiseQuestions: StrList = Field(default_factory=list)

    @field_validator("binaryJudgements", "pairwiseComparisons", "selectedPairwiseQuestions", mode="before")
    @classmethod
    def _null_is_empty(cls, v: Any) -> Any:
        return [] if v is None else v


#: Turn numbers must be below this bound (the scorer packs them into integer keys).
MAX_TURN_NUMBER = (1 << 20) - 1


class Turn(_Node):
    turnNumber: int = Field(ge=1, le=MAX_TURN_NUMBER)
    userMessage: str
    llmResponse: str
    moodShiftTags: list[GoldMoodTag] = Field(default_factory=list)
    annotations: Optional[TurnAnnotations] = None

    @field_validator("moodShiftTags", mode="before")
    @classmethod
    def _null_is_empty(cls, v: Any) -> Any:
        return [] if v is None else v


def _panas_item_name(name: str) -> str:
    by_word = instrument.panas_by_word()
    key = name.strip().lower()
    if key not in by_word:
        allowed = ", ".join(i.name for i in instrument.panas_items())
        raise ValueError(f"unknown PANAS item {name!r}; the 20 PANAS-SF items are: {allowed}")
    return by_word[key].name


class Panas(_SpelledNode):
    """PANAS-SF answers: items 1..7 (under ``items`` or ``responses``) and optional totals.

    Missing totals are derived from the items in ``release.tidy`` (all ten items of an affect
    must be present); totals are rounded and clamped to 10..70.
    """

    items: Optional[Numbers] = Field(None, validation_alias=AliasChoices("items", "responses"))
    totalPositiveAffect: Optional[Number] = None
    totalNegativeAffect: Optional[Number] = None
    #: Which spelling held the items ('items' or 'responses'; None without items): the public
    #: port's reader reads 'responses' only (docs/metrics.md, divergence D4).
    _items_block: Optional[str] = PrivateAttr(None)

    @model_validator(mode="wrap")
    @classmethod
    def _items_spelling(cls, data: Any, handler: Any) -> "Panas":
        obj = handler(data)
        if isinstance(data, dict) and obj.items is not None:
            obj._items_block = "items" if data.get("items") is not None else "responses"
        return obj

    @field_validator("items")
    @classmethod
    def _known_items(cls, v: Optional[dict[str, float]]) -> Optional[dict[str, float]]:
        if v is None:
            return v
        out: dict[str, float] = {}
        for name, value in v.items():
            canonical = _panas_item_name(name)
            if not 1 <= value <= 7:
                raise ValueError(f"PANAS item {name!r} is {value}; items are rated 1..7")
            if canonical in out:
                raise ValueError(f"PANAS item {canonical!r} is given twice")
            out[canonical] = float(value)
        return out


def _four_branch(v: Optional[dict[str, Any]]) -> Optional[dict[str, float]]:
    """Check branch names and clamp ratings to 1..7; a null rating is left out."""
    if v is None:
        return None
    out: dict[str, float] = {}
    for branch, value in v.items():
        key = branch.strip().lower()
        if key not in instrument.FOUR_BRANCHES:
            raise ValueError(f"unknown four-branch key {branch!r}; allowed: {', '.join(instrument.FOUR_BRANCHES)}")
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"four-branch rating {branch!r} must be a number 1..7, got {value!r}")
        out[key] = normalize.four_branch_rating(value)
    return out


FourBranch = Annotated[Optional[dict[str, Any]], AfterValidator(_four_branch)]


def _ratings(v: Optional[dict[str, Any]], *, gold: bool) -> Optional[dict[str, float]]:
    """Check post-chat rating names and values (instrument/post_chat_ratings.csv); a null
    rating is left out. A gold rating outside its scale is an error; a predicted one is clamped
    to the scale (as four-branch ratings)."""
    if v is None:
        return None
    items = instrument.rating_items()
    out: dict[str, float] = {}
    seen: set[str] = set()
    for name, value in v.items():
        key = name.strip().lower() if isinstance(name, str) else name
        if key not in items:
            raise ValueError(f"unknown post-chat rating {name!r}; allowed: {', '.join(items)}")
        if key in seen:
            raise ValueError(f"post-chat rating {key!r} is given twice")
        seen.add(key)
        if value is None:
            continue
        item = items[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"post-chat rating {name!r} must be a number {item.low}..{item.high}, got {value!r}")
        if gold and not item.low <= value <= item.high:
            raise ValueError(f"post-chat rating {name!r} is {value}; it is rated {item.low}..{item.high}")
        out[key] = float(min(item.high, max(item.low, value)))
    return out


GoldRatings = Annotated[Optional[dict[str, Any]], AfterValidator(lambda v: _ratings(v, gold=True))]
PredictedRatings = Annotated[Optional[dict[str, Any]], AfterValidator(lambda v: _ratings(v, gold=False))]


class ConversationWide(_SpelledNode):
    """Post-chat survey answers (older files use Q1, Q2, Q3)."""

    q1_lookingFor: Optional[StrList] = Field(None, validation_alias=AliasChoices("q1_lookingFor", "Q1"))
    q2_emotionClarity: Optional[str] = Field(None, validation_alias=AliasChoices("q2_emotionClarity", "Q2"))
    q3_modelFit: Optional[str] = Field(None, validation_alias=AliasChoices("q3_modelFit", "Q3"))
    q3_followUp_whatFeltOff: Optional[StrList] = None
    fourBranchScores: FourBranch = None


class Metadata(_Node):
    conversationId: Optional[SafeId] = None
    model: Optional[str] = None
    provider: Optional[str] = None
    model_version: Optional[str] = None
    timestamp: Optional[str] = None
    category: Optional[str] = None
    subtopic: Optional[str] = None
    text: Optional[str] = None
    conversation_visibility: Optional[str] = None
    turnCount: Optional[int] = None


class ParticipantProfile(_Node):
    schema_version: Optional[str | int] = None
    participant_id: Optional[SafeId] = None
    age: Annotated[Optional[str], BeforeValidator(lambda v: None if v is None else str(_scalar(v)))] = None
    # None: the profile does not give traits (no diagnosis recorded); [] gives none of them
    traits: Optional[StrList] = None
    goals: StrList = Field(default_factory=list)
    responses: dict[str, Any] = Field(default_factory=dict)
    extra: dict[str, Any] = Field(default_factory=dict)

    @field_validator("goals", "responses", "extra", mode="before")
    @classmethod
    def _null_is_empty(cls, v: Any, info: Any) -> Any:
        if v is None:
            return {} if info.field_name in ("responses", "extra") else []
        return v

    @field_validator("traits", mode="before")
    @classmethod
    def _traits_are_a_list(cls, v: Any) -> Any:
        if v is None or isinstance(v, str) or (isinstance(v, list) and all(isinstance(t, str) for t in v)):
            return v
        raise ValueError(
            f"traits must be a list of strings or one string ([] when the participant has none; absent or null "
            f"when not recorded), got {v!r}"
        )


def _unique_turn_numbers(turns: list[Any]) -> list[Any]:
    seen: set[int] = set()
    for turn in turns:
        if turn.turnNumber in seen:
            raise ValueError(f"turnNumber {turn.turnNumber} occurs twice; turn numbers must be unique")
        seen.add(turn.turnNumber)
    return turns


UniqueTurns = AfterValidator(_unique_turn_numbers)


class ConversationFile(_Node):
    conversationId: SafeId
    metadata: Optional[Metadata] = None

    @model_validator(mode="after")
    def _ids_agree(self) -> "ConversationFile":
        if self.metadata is not None and self.metadata.conversationId not in (None, self.conversationId):
            raise ValueError(
                f"metadata.conversationId {self.metadata.conversationId!r} differs from conversationId "
                f"{self.conversationId!r}; they must name the same conversation"
            )
        return self

    participant_profile: Optional[ParticipantProfile] = None
    prePanas: Optional[Panas] = None
    postPanas: Optional[Panas] = None
    conversationWideQuestions: Optional[ConversationWide] = None
    #: Extension (docs/release-format.md): the person's post-chat ratings of the assistant.
    postChatRatings: GoldRatings = None
    turns: Annotated[list[Turn], UniqueTurns]


# --------------------------------------------------------------------------- EM output file
#: Answer types ``_scalar`` passes unchanged without a check (a float must also be finite).
_PLAIN_ANSWER = frozenset((str, bool, int, type(None)))


def _plain_answers(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """An answers object: null as no answers ({}); an object whose keys are strings and whose
    values are strings, booleans, integers or nulls as a copy, checked by type in one pass (what
    ``dict[str, Scalar]`` gives it, without a call of ``_scalar`` per answer); anything else (a
    float, another type, not an object) is validated value by value by ``handler``, which names
    each bad answer."""
    if value is None:
        return {}
    if (
        type(value) is dict
        and _STR.issuperset(map(type, value))
        and _PLAIN_ANSWER.issuperset(map(type, value.values()))
    ):
        return dict(value)
    return handler(value)


#: Validated in the order _plain_answers (null -> {}, plain answers at once), then per value.
Answers = Annotated[dict[str, Scalar], WrapValidator(_plain_answers)]


class EMTurn(_SpelledNode):
    turnNumber: int = Field(ge=1, le=MAX_TURN_NUMBER)
    em_emotion_tags: list[MoodTag] = Field(default_factory=list)
    em_drafted_response: Optional[str] = None
    em_binary_om_assessment: Answers = Field(default_factory=dict)
    em_binary_human_prediction: Answers = Field(default_factory=dict)
    em_binary_om_assessment_hp: Answers = Field(default_factory=dict)
    em_binary_human_prediction_hp: Answers = Field(default_factory=dict)
    em_pairwise_selections: Answers = Field(default_factory=dict)
    em_four_branch_scores: FourBranch = None
    em_draft_judge: Optional[dict[str, Optional[Number]]] = Field(
        None, validation_alias=AliasChoices("em_draft_judge", "judge_scores", "draft_judge_scores")
    )
    #: Set by our collection stage when the EM's emotion-tag answer could not be parsed.
    em_emotion_tags_invalid: bool = False

    #: Positions in ``em_emotion_tags`` of the tags whose intensity was clamped (a number whose
    #: rounding lay outside 1..7), noted from the raw tags once per turn: the scorer counts them
    #: (rule ``emotion_intensity_clamped``). Set when the turn is validated from its raw value.
    _tags_clamped: tuple[int, ...] = PrivateAttr(default=())

    @field_validator("em_emotion_tags", mode="before")
    @classmethod
    def _null_is_empty(cls, v: Any) -> Any:
        return [] if v is None else v

    @model_validator(mode="wrap")
    @classmethod
    def _note_clamps(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        turn = handler(data)
        tags = data.get("em_emotion_tags") if isinstance(data, dict) else None
        if type(tags) is list:
            turn._tags_clamped = tuple(
                k for k, tag in enumerate(tags) if isinstance(tag, dict) and _clamped(tag.get("intensity"))
            )
        return turn

    @property
    def tags_clamped(self) -> tuple[int, ...]:
        return self._tags_clamped


class PanasTotals(_SpelledNode):
    positive: Optional[Number] = Field(
        None, validation_alias=AliasChoices("totalPositiveAffect", "positive", "PA", "pa")
    )
    negative: Optional[Number] = Field(
        None, validation_alias=AliasChoices("totalNegativeAffect", "negative", "NA", "na")
    )


class PanasPrediction(_SpelledNode):
    """A predicted PANAS (absolute post values, or a delta from pre).

    A total may sit under ``totals`` (this format's layout) or beside the items as
    ``totalPositiveAffect`` / ``totalNegativeAffect`` (the public port's ``PanasScores``
    layout, as in the gold PANAS objects); both are read (``totals_given``). The same total
    given in both places with two values is an error: which one the model meant is unknown."""

    items: Optional[Numbers] = Field(None, validation_alias=AliasChoices("items", "responses"))
    totals: Optional[PanasTotals] = None
    totalPositiveAffect: Optional[Number] = None
    totalNegativeAffect: Optional[Number] = None

    @model_validator(mode="after")
    def _each_total_once(self) -> "PanasPrediction":
        for name, top in totals_given(self):
            if top.contradicts:
                raise ValueError(
                    f"the {name} affect total is given twice with two values: {top.beside:g} as "
                    f"{_TOTAL_BESIDE[name]} and {top.nested:g} under totals; give it once (or the same value)"
                )
        return self

    @field_validator("items")
    @classmethod
    def _known_items(cls, v: Optional[dict[str, float]]) -> Optional[dict[str, float]]:
        if v is None:
            return v
        out: dict[str, float] = {}
        for name, value in v.items():
            canonical = _panas_item_name(name)
            if canonical in out:
                raise ValueError(f"PANAS item {canonical!r} is given twice")
            out[canonical] = float(value)
        return out


#: The key of each affect's total beside the items (the public port's layout).
_TOTAL_BESIDE = {"positive": "totalPositiveAffect", "negative": "totalNegativeAffect"}


class GivenTotal(NamedTuple):
    """One affect's predicted total as a file gives it: under ``totals`` and beside the items
    (None where absent or null)."""

    nested: Optional[float]
    beside: Optional[float]

    @property
    def contradicts(self) -> bool:
        """Given in both places with two values (an error: which one was meant is unknown)."""
        return self.nested is not None and self.beside is not None and self.nested != self.beside


def totals_given(pred: Any) -> tuple[tuple[str, GivenTotal], ...]:
    """('positive', ...), ('negative', ...) of a ``PanasPrediction`` (or the canonical decoder's
    struct of the same attributes): where and with which value each total was given."""
    nested = pred.totals
    return tuple(
        (name, GivenTotal(None if nested is None else getattr(nested, name), getattr(pred, beside)))
        for name, beside in _TOTAL_BESIDE.items()
    )


class PostConversation(_Node):
    panas_strategy: Optional[Literal["absolute", "delta", "blind_delta"]] = None
    pre_panas_shown: Optional[bool] = None
    predicted_post_panas: Optional[PanasPrediction] = None
    predicted_panas_delta: Optional[PanasPrediction] = None
    predicted_conversation_wide: Optional[ConversationWide] = None
    #: Extension: the predicted post-chat ratings (instrument/post_chat_ratings.csv).
    predicted_post_chat_ratings: PredictedRatings = None


class EMOutputFile(_Node):
    conversationId: SafeId
    source_file: Optional[str] = None
    em_model: SafeId
    run_timestamp: Optional[str] = None
    mode: Literal["default", "verbose", "omniscient", "verbose_omniscient"] = "default"
    prompt_version: Optional[str] = None
    turns: Annotated[list[EMTurn], UniqueTurns] = Field(default_factory=list)
    post_conversation: Optional[PostConversation] = None
    api_cost: Optional[float] = None
    duration_seconds: Optional[float] = None

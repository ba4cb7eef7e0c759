"""The lexicon baseline: an offline, deterministic evaluated model built from two word lists.

It answers every question of the EM output format from surface features of the texts only,
with the NRC Emotion Lexicon (EmoLex, the file ``nrclex/data/nrc_en.json`` shipped in the
``nrclex`` package, read directly) and VADER (``vaderSentiment.SentimentIntensityAnalyzer``
with its bundled ``vader_lexicon.txt``). Nothing is learned, nothing is random and nothing is
downloaded. It gives the benchmark a floor that any language model should beat.

Honesty and causality
    Predictions for turn t read only the participant's message at t, the OM reply at t (for the
    behaviour questions) and the three candidate replies at t (original ``llm_response``,
    ``llm_improved``, ``human_edited``, for the pairwise picks). From the gold annotations the
    baseline reads only *which* binary questions are judged at a turn (``question_id``) and the
    position and response labels of each pairwise comparison, and which post-chat rating items the
    cohort has (the same for every conversation); never mood tags, judgement values, winners,
    survey answers, four-branch or post-chat ratings. The pre-chat PANAS is read only in the
    omniscient modes. The post-conversation block uses all the participant's messages (it is
    predicted after the last turn).

Definitions used below
    tokens      lower-cased words ``[a-z]+('[a-z]+)?`` after mapping curly apostrophes to '.
    compound    VADER's compound score of a text, in [-1, 1] (0 for an empty or missing text).
    valence v   (compound + 1) / 2, in [0, 1], comparable with the PANAS valence column of
                ``instrument/panas_items.csv``.
    round       round half up (2.5 -> 3), then clamp to the stated range.

Rule 1, emotion tags at turn t (from the participant's message at t)
    a. Direct cues: a token in ``DIRECT_CUES`` (a PANAS word, a simple form of it, or a close
       everyday synonym, e.g. scared/terrified -> scared, anxious/worried -> nervous, angry ->
       hostile, frustrated -> irritable) names its PANAS word directly.
    b. NRC cues: each token (or, if absent from EmoLex, the token without one of the suffixes
       's, s, ed, d, ing, ly) contributes its EmoLex emotions among anger, fear, sadness, joy,
       trust, anticipation, surprise, disgust; each emotion proposes the PANAS words of
       ``NRC_TO_PANAS`` (fear -> afraid/scared/nervous, anger -> hostile/irritable, sadness ->
       upset/distressed, disgust -> hostile, joy -> enthusiastic/excited/proud, trust -> strong,
       anticipation -> interested/alert/determined, surprise -> alert).
    c. No emotion signal -> no tag: the message has a signal when it has a direct cue, or an NRC
       cue and |compound| >= 0.05 (VADER's conventional neutral band), so that everyday words
       EmoLex happens to list ("deal", "talk") do not tag a neutral message.
    d. Choice: if there are direct cues, the tags are those PANAS words (deduplicated), the 3
       closest in valence to v when there are more than 3. Otherwise the tag is the single NRC
       candidate whose PANAS valence is closest to v (ties: more supporting NRC hits, then
       instrument order). One inferred tag only, because a guess from EmoLex is weak evidence.
    e. Intensity of every tag = round(2 + 5 x |compound|) in 1..7: neutral wording 2 (the
       format's "mild"), |compound| 0.4 -> 4 ("moderate"), 0.8 -> 6 ("intense"), 1.0 -> 7.
    Negation ("not scared") is not handled.

Rule 2, binary answers at turn t (from the OM reply at t), for exactly the judged question ids
    ``CUES`` lists named surface cues (regular expressions on the lower-cased reply; the cue
    "emotion_words" is a token test: a ``DIRECT_CUES`` word or feel/feeling/felt/emotion...).
    ``BINARY_RULES`` is the one table of rules: question id -> (cues, default, HP policy).
    - OM assessment ("did the OM show it?"): 'yes' if any of the question's cues is present,
      else the fixed default: 'no' for the "did it do X" behaviours, 'yes' for the
      appropriateness questions (B2, B8, B9, B10, B108, B109: a reply is taken as fitting unless
      shown otherwise). A prior from the question wording, not from any gold data.
    - HP prediction ("what would the person want?"): 'no' for clearly undesirable behaviours
      (B14, B20, B206, B207, B310, B311, B315, B408), 'yes' for clearly desirable ones (B1, B3,
      B8, B9, B10, B15, B19), otherwise the OM answer.
    - The participant-facing wording (the ``_hp`` fields) gets the same answers.
    - A question id outside the instrument: OM answer 'no', HP prediction = OM answer.

Rule 3, pairwise picks at turn t
    For each comparison (key = its position "0", "1", ...) the pick is the response whose text
    has the higher compound; ties go to the longer text (in characters), then to 'A'. A missing
    text counts as "" (compound 0, length 0).

Rule 4, post conversation
    - ``panas_strategy`` 'absolute'; ``pre_panas_shown`` true in the omniscient modes;
      ``predicted_panas_delta`` null.
    - PANAS items, non-omniscient: V = mean valence of all the participant's messages (0.5 if
      none); positive item = round(1 + 6 V), negative item = round(7 - 6 V), both 1..7 (V = 0.5
      gives the scale midpoint 4 for every item).
    - PANAS items, omniscient: D = mean valence of the last third of the messages minus that of
      the first third (k = max(1, n // 3) messages each; D = 0 with fewer than 2 messages);
      positive item = round(pre + 6 D), negative item = round(pre - 6 D), where pre is the
      pre-chat item, else the pre-chat total of its affect / 10, else the non-omniscient value.
    - totals: sums of the 10 predicted positive / negative items (``totalPositiveAffect`` /
      ``totalNegativeAffect``, 10..70).
    - q1_lookingFor, one option, first match over all the participant's messages: "vent" or
      "listen" -> "To just listen or let me vent"; "decide"/"decision"/"option(s)" -> "To help me
      think through options or make a decision"; a "?" or "what should I" or "advice" -> "To get
      specific information or advice"; otherwise "To help me understand or sort out my feelings".
    - q2_emotionClarity: "Clear and explicitly stated" when rule 1 tagged more than half of the
      turns, else "Implied or indirect".
    - q3_modelFit "Mostly well-matched"; q3_followUp_whatFeltOff []; fourBranchScores 5 for each
      branch: constant priors (most chats are rated as fairly good), not learned.
    - post-chat ratings (only for a cohort whose instrument has them, e.g. ESConv's empathy and
      relevance 1..5): E = mean valence of the last third of the participant's messages
      (k = max(1, n // 3); 0.5 if none), each item = round(low + (high - low) E): a person who
      ends the chat in better spirits is taken to rate the assistant higher (E = 0.5 gives the
      scale midpoint).

Rule 5, file
    conversationId, source_file (conversations table), em_model, run_timestamp null, mode,
    prompt_version "lexicon-v1", one turn per gold turn in turn order, post_conversation,
    api_cost 0.0, duration_seconds null (as every output of this repository: no timings). ``em_drafted_response`` is a
    template: "It sounds like you feel <first tag>. What feels hardest right now?", or "Thank you
    for telling me about this. What feels hardest right now?" when there is no tag.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from functools import cache, lru_cache
from importlib import resources
from typing import Any, Iterable, NamedTuple

import pandas as pd
from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

from ... import instrument
from ...tables import with_none
from ..conversation import cohort_rating_items

PROMPT_VERSION = "lexicon-v1"
MODES = ("default", "verbose", "omniscient", "verbose_omniscient")
OMNISCIENT_MODES = ("omniscient", "verbose_omniscient")

MAX_TAGS = 3
NEUTRAL_BAND = 0.05  # |compound| below this is neutral (VADER's documented threshold)
FOUR_BRANCH_PRIOR = 5
NRC_SUFFIXES = ("'s", "s", "ed", "d", "ing", "ly")

#: Token -> the PANAS word it names (PANAS words, simple forms, close everyday synonyms).
DIRECT_CUES: dict[str, str] = {
    **dict.fromkeys(("afraid", "fear", "fearful"), "afraid"),
    **dict.fromkeys(("scared", "scare", "scary", "terrified", "frightened"), "scared"),
    **dict.fromkeys(
        ("nervous", "nervously", "nerves", "anxious", "anxiety", "worried", "worry", "worrying"), "nervous"
    ),
    **dict.fromkeys(("jittery", "jitters", "jumpy", "restless"), "jittery"),
    **dict.fromkeys(("distressed", "distress", "distressing", "overwhelmed", "panic", "panicked"), "distressed"),
    **dict.fromkeys(("upset", "upsetting", "sad", "unhappy", "miserable", "heartbroken"), "upset"),
    **dict.fromkeys(("guilty", "guilt"), "guilty"),
    **dict.fromkeys(("ashamed", "shame", "shameful", "embarrassed"), "ashamed"),
    **dict.fromkeys(("hostile", "hostility", "angry", "anger", "furious", "resentful"), "hostile"),
    **dict.fromkeys(
        ("irritable", "irritated", "irritating", "annoyed", "frustrated", "frustrating", "frustration"), "irritable"
    ),
    **dict.fromkeys(("interested", "curious"), "interested"),
    **dict.fromkeys(("excited", "exciting", "excitement", "thrilled"), "excited"),
    **dict.fromkeys(("strong", "stronger", "confident"), "strong"),
    **dict.fromkeys(("enthusiastic", "enthusiasm", "eager"), "enthusiastic"),
    **dict.fromkeys(("proud", "pride"), "proud"),
    **dict.fromkeys(("alert", "alertness"), "alert"),
    **dict.fromkeys(("inspired", "inspiring", "inspiration", "motivated"), "inspired"),
    **dict.fromkeys(("determined", "determination"), "determined"),
    **dict.fromkeys(("attentive", "focused"), "attentive"),
    **dict.fromkeys(("active", "energetic", "energized"), "active"),
}

#: EmoLex emotion -> the PANAS words it proposes (EmoLex's 'positive'/'negative' are not used).
NRC_TO_PANAS: dict[str, tuple[str, ...]] = {
    "fear": ("afraid", "scared", "nervous"),
    "anger": ("hostile", "irritable"),
    "sadness": ("upset", "distressed"),
    "disgust": ("hostile",),
    "joy": ("enthusiastic", "excited", "proud"),
    "trust": ("strong",),
    "anticipation": ("interested", "alert", "determined"),
    "surprise": ("alert",),
}

#: Words that acknowledge feelings in a reply (with DIRECT_CUES: the "emotion_words" cue).
FEELING_WORDS = frozenset(("feel", "feels", "feeling", "feelings", "felt", "emotion", "emotions", "emotional"))

#: Named surface cues of an OM reply: regular expressions on the lower-cased reply.
CUES: dict[str, str] = {
    "question": r"\?",
    "advice": r"\b(you could|try|consider|you should|make sure|it might help|you might want to)\b",
    "validation": (
        r"\bmakes? (complete |total |perfect )?sense\b|\bunderstandable\b|\bit'?s (okay|ok|alright)\b|"
        r"\bvalid\b"
    ),
    "hedged_emotion": r"\bit sounds like\b|\bsounds like you\b|\byou (might|may) be feeling\b|\bit seems\b",
    "explanation": r"\bbecause\b|\boften\b|\bthis happens\b|\bthat'?s why\b|\bwhich is why\b",
    "safety": r"\bcrisis\b|\bhotline\b|\bhelpline\b|\bemergency\b|\bunsafe\b|\b(hurt|harm)(ing)? yourself\b|\bsuicid",
    "moral": r"\bwrong\b|\bshould not have\b|\bshouldn'?t have\b|\bfault\b",
    "reflection": r"\byou (mentioned|said|described|shared|wrote)\b",
    "catastrophising": r"\b(get|gets|getting) (much |even )?worse\b|\bdisaster|\bcatastroph|\bnever get better\b",
    "other_perspective": (
        r"\bother person\b|\btheir (side|perspective|point of view)\b|\bhow (they|he|she) (see|sees|"
        r"feel|feels)\b"
    ),
    "complexity": (
        r"\bcomplicated\b|\bcomplex\b|\bmany sides\b|\bmultifaceted\b|\bnot (always )?(simple|black and "
        r"white)\b"
    ),
    "own_perspective": r"\byour own\b|\bwhat do you make of\b|\breflect on\b|\bwhat do you think\b",
    "constraints": (
        r"\b(when|if) you feel ready\b|\bmight (be|feel) (hard|difficult)\b|\bnot easy\b|\bisn'?t easy\b|"
        r"\bcan be (hard|difficult)\b"
    ),
    "mixed": r"\bmixed (feelings|emotions)\b|\bpart of you\b|\bat the same time\b",
    "alternatives": r"\bor (maybe|perhaps)\b|\banother (possibility|way to see)\b|\bit could also be\b",
}
_CUE_RE = {name: re.compile(pattern) for name, pattern in CUES.items()}


class BinaryRule(NamedTuple):
    """How one behaviour question is answered: ``cues`` present -> OM 'yes', else ``default``;
    ``hp`` is 'yes' or 'no' (the person's preference, whatever the reply) or 'same' (= OM)."""

    cues: tuple[str, ...]
    default: str
    hp: str


_NO, _YES, _SAME = "no", "yes", "same"

#: The rule table: question id -> (cues, OM default, HP policy).
BINARY_RULES: dict[str, BinaryRule] = {
    "B1": BinaryRule(("hedged_emotion", "emotion_words"), _NO, _YES),
    "B2": BinaryRule((), _YES, _SAME),
    "B3": BinaryRule(("reflection",), _NO, _YES),
    "B4": BinaryRule(("mixed",), _NO, _SAME),
    "B5": BinaryRule((), _NO, _SAME),
    "B6": BinaryRule((), _NO, _SAME),
    "B7": BinaryRule(("hedged_emotion",), _NO, _SAME),
    "B8": BinaryRule((), _YES, _YES),
    "B9": BinaryRule((), _YES, _YES),
    "B10": BinaryRule((), _YES, _YES),
    "B11": BinaryRule(("advice",), _NO, _SAME),
    "B12": BinaryRule(("explanation",), _NO, _SAME),
    "B13": BinaryRule(("question",), _NO, _SAME),
    "B14": BinaryRule(("moral",), _NO, _NO),
    "B15": BinaryRule(("reflection",), _NO, _YES),
    "B16": BinaryRule((), _NO, _SAME),
    "B17": BinaryRule(("safety",), _NO, _SAME),
    "B18": BinaryRule(("safety",), _NO, _SAME),
    "B19": BinaryRule(("validation",), _NO, _YES),
    "B20": BinaryRule(("catastrophising",), _NO, _NO),
    "B108": BinaryRule((), _YES, _SAME),
    "B109": BinaryRule((), _YES, _SAME),
    "B206": BinaryRule((), _NO, _NO),
    "B207": BinaryRule((), _NO, _NO),
    "B310": BinaryRule((), _NO, _NO),
    "B311": BinaryRule((), _NO, _NO),
    "B313": BinaryRule(("advice",), _NO, _SAME),
    "B315": BinaryRule((), _NO, _NO),
    "B316": BinaryRule(("constraints",), _NO, _SAME),
    "B406": BinaryRule((), _NO, _SAME),
    "B408": BinaryRule((), _NO, _NO),
    "B501": BinaryRule(("own_perspective",), _NO, _SAME),
    "B502": BinaryRule(("other_perspective",), _NO, _SAME),
    "B503": BinaryRule(("alternatives",), _NO, _SAME),
    "B504": BinaryRule(("complexity",), _NO, _SAME),
    "B505": BinaryRule((), _NO, _SAME),
}
_UNKNOWN_RULE = BinaryRule((), _NO, _SAME)

#: q1_lookingFor cues, first match wins: (regex on all the participant's messages, option).
LOOKING_FOR_CUES: tuple[tuple[str, str], ...] = (
    (r"\bvent(ing)?\b|\blisten\b", "To just listen or let me vent"),
    (r"\bdecid|\bdecision|\boptions?\b", "To help me think through options or make a decision"),
    (r"\?|\bwhat should i\b|\badvice\b", "To get specific information or advice"),
)
LOOKING_FOR_DEFAULT = "To help me understand or sort out my feelings"
CLARITY_CLEAR, CLARITY_IMPLIED = "Clear and explicitly stated", "Implied or indirect"
MODEL_FIT_PRIOR = "Mostly well-matched"

_TOKEN_RE = re.compile(r"[a-z]+(?:'[a-z]+)?")
_REPLY_TEXT = {"original": "llm_response", "alternate": "llm_improved", "human": "human_edited"}


# --------------------------------------------------------------------------- lexicons
@cache
def nrc_lexicon() -> dict[str, frozenset[str]]:
    """EmoLex: word -> its emotions among the eight of ``NRC_TO_PANAS`` (words with none left out)."""
    raw = json.loads(resources.files("nrclex.data").joinpath("nrc_en.json").read_text(encoding="utf-8"))
    out = {}
    for word, emotions in raw.items():
        kept = frozenset(e for e in emotions if e in NRC_TO_PANAS)
        if kept:
            out[word] = kept
    return out


@cache
def _analyzer() -> SentimentIntensityAnalyzer:
    return SentimentIntensityAnalyzer()


@lru_cache(maxsize=1 << 16)
def compound(text: str | None) -> float:
    """VADER's compound score of ``text`` in [-1, 1]; 0.0 for None or blank text."""
    if not text or not text.strip():
        return 0.0
    return float(_analyzer().polarity_scores(text)["compound"])


def valence(text: str | None) -> float:
    """The text's valence in [0, 1]: (compound + 1) / 2; 0.5 for None or blank text."""
    return (compound(text) + 1.0) / 2.0


# --------------------------------------------------------------------------- helpers
def round_half_up(x: float, low: int, high: int) -> int:
    """``x`` rounded half up (2.5 -> 3) and clamped to [low, high]."""
    return int(min(high, max(low, math.floor(x + 0.5))))


def normalise(text: str | None) -> str:
    """Lower-cased text with curly apostrophes straightened; "" for None."""
    return (text or "").lower().replace("\u2019", "'").replace("\u2018", "'")


def tokens(text: str | None) -> list[str]:
    """Lower-cased word tokens of ``text`` (apostrophes kept inside words: "don't")."""
    return _TOKEN_RE.findall(normalise(text))


def nrc_emotions(token: str) -> frozenset[str]:
    """EmoLex emotions of a token, trying it bare and then without one suffix of ``NRC_SUFFIXES``."""
    lex = nrc_lexicon()
    if token in lex:
        return lex[token]
    for suffix in NRC_SUFFIXES:
        if token.endswith(suffix) and token[: -len(suffix)] in lex:
            return lex[token[: -len(suffix)]]
    return frozenset()


def _by_valence(words: Iterable[str], v: float) -> list[str]:
    """PANAS words sorted by |valence - v| (stable: equal distances keep the given order)."""
    table = instrument.panas_by_word()
    return sorted(words, key=lambda w: abs(table[w].valence - v))


# --------------------------------------------------------------------------- rule 1
def emotion_tags(message: str | None) -> list[dict[str, Any]]:
    """Rule 1: the PANAS tags [{emotion, intensity 1..7}] of one participant message (0..3)."""
    toks = tokens(message)
    c = compound(message)
    v = (c + 1.0) / 2.0
    intensity = round_half_up(2 + 5 * abs(c), 1, 7)
    direct = list(dict.fromkeys(DIRECT_CUES[t] for t in toks if t in DIRECT_CUES))
    if direct:
        return [{"emotion": w, "intensity": intensity} for w in _by_valence(direct, v)[:MAX_TAGS]]
    if abs(c) < NEUTRAL_BAND:
        return []
    support: dict[str, int] = defaultdict(int)
    for t in toks:
        for emotion in nrc_emotions(t):
            for w in NRC_TO_PANAS[emotion]:
                support[w] += 1
    if not support:
        return []
    order = [i.word for i in instrument.panas_items()]
    table = instrument.panas_by_word()
    best = min(support, key=lambda w: (abs(table[w].valence - v), -support[w], order.index(w)))
    return [{"emotion": best, "intensity": intensity}]


def drafted_response(tags: list[dict[str, Any]]) -> str:
    """The template reply written from the first detected emotion."""
    if tags:
        return f"It sounds like you feel {tags[0]['emotion']}. What feels hardest right now?"
    return "Thank you for telling me about this. What feels hardest right now?"


# --------------------------------------------------------------------------- rule 2
def reply_cues(reply: str | None) -> frozenset[str]:
    """The names of the ``CUES`` (and "emotion_words") present in an OM reply."""
    text = normalise(reply)
    found = {name for name, rx in _CUE_RE.items() if rx.search(text)}
    if any(t in DIRECT_CUES or t in FEELING_WORDS for t in tokens(text)):
        found.add("emotion_words")
    return frozenset(found)


def binary_answers(reply: str | None, question_ids: Iterable[str]) -> tuple[dict[str, str], dict[str, str]]:
    """Rule 2: (OM assessment, HP prediction), each {question id: 'yes'|'no'}, for the given ids
    in the given order (a repeated id is answered once)."""
    cues = reply_cues(reply)
    om: dict[str, str] = {}
    hp: dict[str, str] = {}
    for qid in question_ids:
        rule = BINARY_RULES.get(qid, _UNKNOWN_RULE)
        om[qid] = _YES if cues.intersection(rule.cues) else rule.default
        hp[qid] = om[qid] if rule.hp == _SAME else rule.hp
    return om, hp


# --------------------------------------------------------------------------- rule 3
def pick(text_a: str | None, text_b: str | None) -> str:
    """Rule 3: 'A' or 'B', the text with the higher compound; ties: the longer; still tied: 'A'."""
    key_a = (compound(text_a), len(text_a or ""))
    key_b = (compound(text_b), len(text_b or ""))
    return "B" if key_b > key_a else "A"


# --------------------------------------------------------------------------- rule 4
def mean_valence(messages: list[str | None]) -> float:
    """Mean valence in [0, 1] of the messages; 0.5 when there are none."""
    return sum(valence(m) for m in messages) / len(messages) if messages else 0.5


def valence_trend(messages: list[str | None]) -> float:
    """Mean valence of the last third minus that of the first third (k = max(1, n // 3)
    messages each), in [-1, 1]; 0.0 with fewer than two messages."""
    if len(messages) < 2:
        return 0.0
    k = max(1, len(messages) // 3)
    return mean_valence(messages[-k:]) - mean_valence(messages[:k])


def post_panas(
    messages: list[str | None], pre_items: dict[str, float] | None, pre_totals: dict[str, float] | None
) -> dict[str, Any]:
    """Rule 4: predicted post-chat PANAS {items: {Name: 1..7}, totals}. ``pre_items`` and
    ``pre_totals`` (affect -> 10..70) are None outside the omniscient modes."""
    v = mean_valence(messages)
    trend = valence_trend(messages)
    items: dict[str, int] = {}
    for item in instrument.panas_items():
        sign = 1 if item.affect == "positive" else -1
        plain = round_half_up(4 + sign * 6 * (v - 0.5), 1, 7)
        if pre_items is None:
            items[item.name] = plain
            continue
        base = pre_items.get(item.name)
        total = (pre_totals or {}).get(item.affect)
        if base is None and total is not None:
            base = total / 10
        items[item.name] = plain if base is None else round_half_up(base + sign * 6 * trend, 1, 7)
    totals = {
        "totalPositiveAffect": sum(items[i.name] for i in instrument.panas_items() if i.affect == "positive"),
        "totalNegativeAffect": sum(items[i.name] for i in instrument.panas_items() if i.affect == "negative"),
    }
    return {"items": items, "totals": totals}


def post_chat_ratings(messages: list[str | None], items: tuple[str, ...]) -> dict[str, int]:
    """Rule 4: predicted post-chat ratings of ``items`` from the valence of the closing messages."""
    k = max(1, len(messages) // 3)
    closing = mean_valence(messages[-k:]) if messages else 0.5
    scales = instrument.rating_items()
    return {
        name: round_half_up(
            scales[name].low + (scales[name].high - scales[name].low) * closing, scales[name].low, scales[name].high
        )
        for name in items
    }


def _option(question: str, text: str) -> str:
    """``text`` checked against the instrument's options of ``question`` (exact string)."""
    if text not in instrument.survey_options()[question]:
        raise ValueError(f"{text!r} is not an option of {question}")
    return text


def conversation_wide(messages: list[str | None], share_tagged: float) -> dict[str, Any]:
    """Rule 4: predicted post-chat answers; ``share_tagged`` = share of turns with a rule-1 tag."""
    text = " \n ".join(normalise(m) for m in messages)
    looking = next((option for rx, option in LOOKING_FOR_CUES if re.search(rx, text)), LOOKING_FOR_DEFAULT)
    return {
        "q1_lookingFor": [_option("q1_lookingFor", looking)],
        "q2_emotionClarity": _option("q2_emotionClarity", CLARITY_CLEAR if share_tagged > 0.5 else CLARITY_IMPLIED),
        "q3_modelFit": _option("q3_modelFit", MODEL_FIT_PRIOR),
        "q3_followUp_whatFeltOff": [],
        "fourBranchScores": {b: FOUR_BRANCH_PRIOR for b in instrument.FOUR_BRANCHES},
    }


# --------------------------------------------------------------------------- whole files
def _rows(df: pd.DataFrame, columns: list[str]) -> list[Any]:
    """Plain records (missing values None) of the named columns only."""
    return list(with_none(df[columns]).itertuples(index=False))


def _pre_panas(tables: dict[str, pd.DataFrame]) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """Pre-chat PANAS per conversation: ({cid: {Item: value}}, {cid: {affect: total}})."""
    items: dict[str, dict[str, float]] = defaultdict(dict)
    for r in _rows(tables["panas_items"], ["conversation_id", "phase", "item", "value"]):
        if r.phase == "pre" and r.value is not None:
            items[r.conversation_id][r.item] = float(r.value)
    totals: dict[str, dict[str, float]] = defaultdict(dict)
    for r in _rows(tables["panas_totals"], ["conversation_id", "phase", "positive", "negative"]):
        if r.phase == "pre":
            for affect, value in (("positive", r.positive), ("negative", r.negative)):
                if value is not None:
                    totals[r.conversation_id][affect] = float(value)
    return items, totals


def lexicon_outputs(tables: dict[str, pd.DataFrame], model: str, mode: str) -> dict[str, dict]:
    """EM output files ({'<conversation_id>.json': JSON-ready dict}) of the lexicon baseline for
    every conversation, in conversation id order.

    Reads only texts, judged question ids, pairwise positions and labels and (omniscient modes)
    the pre-chat PANAS from the gold ``tables``; see the module docstring for every rule.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {MODES}")
    omniscient = mode in OMNISCIENT_MODES
    conversations = {r.conversation_id: r for r in _rows(tables["conversations"], ["conversation_id", "source_file"])}
    turns: dict[str, list[Any]] = defaultdict(list)
    turn_rows = _rows(
        tables["turns"],
        [
            "conversation_id",
            "turn_number",
            "turn_index",
            "user_message",
            "llm_response",
            "llm_improved",
            "human_edited",
        ],
    )
    for r in sorted(turn_rows, key=lambda r: (r.conversation_id, r.turn_index)):
        turns[r.conversation_id].append(r)
    questions: dict[tuple[str, int], list[tuple[int, str]]] = defaultdict(list)
    for r in _rows(tables["binary_judgements"], ["conversation_id", "turn_number", "judgement_index", "question_id"]):
        questions[(r.conversation_id, r.turn_number)].append((r.judgement_index, r.question_id))
    comparisons: dict[tuple[str, int], list[Any]] = defaultdict(list)
    for r in _rows(
        tables["pairwise_comparisons"], ["conversation_id", "turn_number", "position", "response_a", "response_b"]
    ):
        comparisons[(r.conversation_id, r.turn_number)].append(r)
    pre_items, pre_totals = _pre_panas(tables) if omniscient else ({}, {})
    rating_items = cohort_rating_items(tables)

    outputs: dict[str, dict] = {}
    for cid in sorted(conversations):
        turns_out = []
        n_tagged = 0
        for turn in turns.get(cid, []):
            t = int(turn.turn_number)
            tags = emotion_tags(turn.user_message)
            n_tagged += bool(tags)
            judged = [q for _, q in sorted(questions.get((cid, t), []))]
            om, hp = binary_answers(turn.llm_response, judged)
            texts = {label: getattr(turn, column) for label, column in _REPLY_TEXT.items()}
            picks = {
                str(c.position): pick(texts.get(c.response_a), texts.get(c.response_b))
                for c in sorted(comparisons.get((cid, t), []), key=lambda c: c.position)
            }
            turns_out.append(
                {
                    "turnNumber": t,
                    "em_emotion_tags": tags,
                    "em_drafted_response": drafted_response(tags),
                    "em_binary_om_assessment": om,
                    "em_binary_human_prediction": hp,
                    "em_binary_om_assessment_hp": dict(om),
                    "em_binary_human_prediction_hp": dict(hp),
                    "em_pairwise_selections": picks,
                }
            )
        messages = [turn.user_message for turn in turns.get(cid, [])]
        share_tagged = n_tagged / len(turns_out) if turns_out else 0.0
        post = {
            "panas_strategy": "absolute",
            "pre_panas_shown": omniscient,
            "predicted_post_panas": post_panas(
                messages,
                pre_items.get(cid, {}) if omniscient else None,
                pre_totals.get(cid, {}) if omniscient else None,
            ),
            "predicted_panas_delta": None,
            "predicted_conversation_wide": conversation_wide(messages, share_tagged),
        }
        if rating_items:
            post["predicted_post_chat_ratings"] = post_chat_ratings(messages, rating_items)
        outputs[f"{cid}.json"] = {
            "conversationId": cid,
            "source_file": conversations[cid].source_file,
            "em_model": model,
            "run_timestamp": None,
            "mode": mode,
            "prompt_version": PROMPT_VERSION,
            "turns": turns_out,
            "post_conversation": post,
            "api_cost": 0.0,
            "duration_seconds": None,
        }
    return outputs

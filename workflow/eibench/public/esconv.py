"""ESConv (Liu et al., ACL 2021) as a cohort in the release format.

ESConv holds 1,300 emotional-support chats between a help-seeker (``usr``) and a trained human
supporter (``sys``), in three split files (train/valid/test, one JSON object per line). This
module keeps only what has a counterpart in the release format and documents every mapping
(docs/esconv.md); what has none stays absent, never invented:

- conversations from dialogs; one participant per conversation (ESConv has no seeker ids);
- topic: ``metadata.category`` from ``problem_type`` (``PROBLEM_TYPE_CATEGORY``; "breakup with
  partner" is the romantic category of the synthetic cohort), ``metadata.subtopic`` is the
  ``problem_type`` verbatim, ``metadata.text`` the seeker's ``situation``;
- turns from (consecutive seeker messages, the following consecutive supporter messages);
  messages of one speaker are merged (joined with a newline); supporter messages before the
  seeker's first message and seeker messages after the last supporter reply are dropped and
  counted;
- behaviour gold from the supporter strategies (``STRATEGY_QUESTION``): at every turn each mapped
  question is ``observedBehavior`` 'yes' when one of the turn's supporter messages carries its
  strategy, else 'no'; unmapped questions are absent; ``llmValue`` and ``preferredBehavior`` are
  absent (no counterpart);
- PANAS: the conversation-level ``emotion_type`` is mapped to one PANAS item
  (``EMOTION_PANAS``); the seeker's initial / final emotion intensity (1..5) become that item's
  ``prePanas`` / ``postPanas`` value, rescaled linearly to the 1..7 PANAS range. The other 19
  items and the totals stay absent;
- post-chat ratings: the seeker's ``empathy`` and ``relevance`` ratings (1..5) become
  ``postChatRatings`` (an extension of the release format, docs/release-format.md), the holistic
  targets of this cohort; a missing rating is left out;
- no per-turn mood tags (ESConv has none: the ``moodShiftTags`` field is left out, not emptied),
  no pairwise comparisons, no alternate replies, no conversation-wide survey answers (none of
  ESConv's survey questions is one of them). The source values are also kept verbatim in
  the extra block ``esconv`` (and each turn's raw strategies in ``esconvStrategies``), which
  the reader keeps as unknown fields for the audit table.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

from .. import instrument
from ..tables import write_text

SPLITS: tuple[str, ...] = ("train", "valid", "test")

#: ESConv problem_type -> topic category of the synthetic cohort (synthetic/topics.csv).
PROBLEM_TYPE_CATEGORY: dict[str, str] = {
    "breakup with partner": "Romantic relationships",
    "ongoing depression": "Health and wellbeing",
    "Sleep Problems": "Health and wellbeing",
    "Alcohol Abuse": "Health and wellbeing",
    "Procrastination": "Health and wellbeing",
    "job crisis": "Work and career",
    "academic pressure": "Studies",
    "problems with friends": "Friendships and social life",
    "School Bullying": "Friendships and social life",
    "conflict with parents": "Family",
    "Issues with Parents": "Family",
    "Issues with Children": "Family",
    "Appearance Anxiety": "Self-esteem and identity",
}

#: ESConv emotion_type -> the PANAS-SF item(s) that carry its intensity; () = no counterpart.
#: One item per emotion: the seeker rated the intensity of one emotion, so a second item would
#: be a rating the seeker never gave.
EMOTION_PANAS: dict[str, tuple[str, ...]] = {
    "anxiety": ("Nervous",),
    "nervousness": ("Nervous",),
    "fear": ("Afraid",),
    "depression": ("Upset",),
    "sadness": ("Distressed",),
    "anger": ("Irritable",),
    "disgust": ("Hostile",),
    "shame": ("Ashamed",),
    "guilt": ("Guilty",),
    "jealousy": (),
    "pain": (),
}

#: ESConv supporter strategy -> the behaviour question it determines; None = no counterpart.
STRATEGY_QUESTION: dict[str, str | None] = {
    "Question": "B13",
    "Affirmation and Reassurance": "B19",
    "Providing Suggestions": "B11",
    "Restatement or Paraphrasing": "B15",
    "Reflection of feelings": "B1",
    "Information": "B12",
    "Self-disclosure": None,
    "Others": None,
}

#: The questions the strategies determine, in instrument order.
MAPPED_QUESTIONS: tuple[str, ...] = tuple(
    q for q in instrument.binary_question_ids() if q in set(STRATEGY_QUESTION.values())
)

SEEKER, SUPPORTER = "usr", "sys"
RATINGS = ("initial_emotion_intensity", "final_emotion_intensity", "empathy", "relevance")
#: Seeker ratings that are post-chat ratings of the instrument (instrument/post_chat_ratings.csv), same 1..5 scale.
POST_CHAT_RATINGS = ("empathy", "relevance")
OM_MODEL = "human-supporter"
PROVIDER = "esconv"
MESSAGE_SEPARATOR = "\n"


class EsconvFormatError(ValueError):
    """A split file is not in the expected ESConv layout; the message names file, line, field
    and how to fix it."""

    def __init__(self, file: str, line: int, field: str, problem: str, fix: str):
        self.file, self.line, self.field = file, line, field
        super().__init__(f"{file}: line {line}: field {field}: {problem}. Fix: {fix}")


#: The scale of ESConv's emotion intensities (initial and final), which ``rescale_intensity``
#: maps onto the PANAS item range 1..7.
INTENSITY_LOW, INTENSITY_HIGH = 1, 5


def rescale_intensity(value: int) -> float:
    """An ESConv intensity 1..5 on the PANAS item range 1..7 (linear: 1 -> 1, 3 -> 4, 5 -> 7),
    so that a change is the same share of the range on both scales."""
    if isinstance(value, bool) or not isinstance(value, int) or not INTENSITY_LOW <= value <= INTENSITY_HIGH:
        raise ValueError(f"an ESConv intensity is an integer 1..5, got {value!r}")
    return 1 + (value - INTENSITY_LOW) * 6 / (INTENSITY_HIGH - INTENSITY_LOW)


def _rating(value: Any) -> int | None:
    """A 1..5 survey rating given as a string or an integer; None when missing."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ValueError(f"must be a rating 1..5, got {value!r}")
    try:
        number = int(str(value).strip())
    except ValueError:
        raise ValueError(f"must be a rating 1..5, got {value!r}") from None
    if not 1 <= number <= 5:
        raise ValueError(f"must be a rating 1..5, got {value!r}")
    return number


def check_dialog(obj: Any) -> list[tuple[str, str, str]]:
    """Problems of one ESConv conversation object as (field, problem, fix); [] when valid."""
    if not isinstance(obj, dict):
        return [("$", f"must be a JSON object, got {type(obj).__name__}", "one conversation object per line")]
    out: list[tuple[str, str, str]] = []
    for key in ("experience_type", "emotion_type", "problem_type", "situation", "survey_score", "dialog"):
        if key not in obj:
            out.append((key, "is missing", f"restore {key!r} from the upstream ESConv file"))
    if out:
        return out
    if obj["problem_type"] not in PROBLEM_TYPE_CATEGORY:
        out.append(
            (
                "problem_type",
                f"unknown value {obj['problem_type']!r}",
                f"use one of the 13 ESConv topics or add it to PROBLEM_TYPE_CATEGORY "
                f"({', '.join(sorted(PROBLEM_TYPE_CATEGORY))})",
            )
        )
    if obj["emotion_type"] not in EMOTION_PANAS:
        out.append(
            (
                "emotion_type",
                f"unknown value {obj['emotion_type']!r}",
                f"use one of the 11 ESConv emotions or add it to EMOTION_PANAS ({', '.join(sorted(EMOTION_PANAS))})",
            )
        )
    survey = obj["survey_score"]
    seeker = survey.get("seeker") if isinstance(survey, dict) else None
    if not isinstance(seeker, dict):
        out.append(("survey_score.seeker", "is missing or not an object", "restore the seeker's survey ratings"))
    else:
        if _safe_rating(seeker.get("initial_emotion_intensity")) is None:
            out.append(
                (
                    "survey_score.seeker.initial_emotion_intensity",
                    "is missing",
                    "every ESConv conversation has the seeker's initial intensity (1..5)",
                )
            )
        for key in RATINGS:
            try:
                _rating(seeker.get(key))
            except ValueError as e:
                out.append((f"survey_score.seeker.{key}", str(e), "give a rating 1..5 as a string or an integer"))
    dialog = obj["dialog"]
    if not isinstance(dialog, list) or not dialog:
        out.append(("dialog", "must be a non-empty list of messages", "restore the messages of the conversation"))
        return out
    for i, message in enumerate(dialog):
        where = f"dialog[{i}]"
        if not isinstance(message, dict):
            out.append((where, "must be an object with text and speaker", "one object per message"))
            continue
        if not isinstance(message.get("text"), str):
            out.append((f"{where}.text", "is missing or not a string", "give the message text"))
        speaker = message.get("speaker")
        if speaker not in (SEEKER, SUPPORTER):
            out.append((f"{where}.speaker", f"must be 'usr' or 'sys', got {speaker!r}", "name the speaker"))
        elif speaker == SUPPORTER and message.get("strategy") not in STRATEGY_QUESTION:
            out.append(
                (
                    f"{where}.strategy",
                    f"unknown or missing strategy {message.get('strategy')!r}",
                    f"use one of the 8 strategies of strategy.json ({', '.join(STRATEGY_QUESTION)})",
                )
            )
    return out


def _safe_rating(value: Any) -> int | None:
    try:
        return _rating(value)
    except ValueError:
        return None


def read_split(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The conversations of one split file (one JSON object per line; blank lines skipped),
    each checked with ``check_dialog``; the first problem raises ``EsconvFormatError``."""
    path = Path(path)
    out: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise EsconvFormatError(
                    str(path),
                    number,
                    "$",
                    f"not valid JSON ({e.msg} at column {e.colno})",
                    "one complete JSON object per line (re-download the split file)",
                ) from None
            problems = check_dialog(obj)
            if problems:
                field, problem, fix = problems[0]
                raise EsconvFormatError(str(path), number, field, problem, fix)
            out.append(obj)
    return out


def read_esconv(directory: str | os.PathLike[str]) -> dict[str, list[dict[str, Any]]]:
    """The three splits of an ESConv folder, {split: [conversation, ...]} in file order.

    Reads ``train.json``, ``valid.json``, ``test.json`` (one JSON object per line) and checks the
    fields every conversation needs; a problem raises ``EsconvFormatError`` naming the file, the
    line, the field and the fix; a missing split file raises ``FileNotFoundError``.
    """
    directory = Path(directory)
    out: dict[str, list[dict[str, Any]]] = {}
    for split in SPLITS:
        path = directory / f"{split}.json"
        if not path.is_file():
            raise FileNotFoundError(
                f"no ESConv split file {path}; the folder needs {', '.join(s + '.json' for s in SPLITS)}"
            )
        out[split] = read_split(path)
    return out


def conversation_id(split: str, index: int) -> str:
    """The safe id of the ``index``-th (0-based) conversation of a split: esconv_<split>_<nnnn>."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; ESConv splits are {', '.join(SPLITS)}")
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise ValueError(f"a conversation index is an integer >= 0, got {index!r}")
    return f"esconv_{split}_{index:04d}"


def _blocks(dialog: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Runs of consecutive messages of one speaker, as (speaker, messages)."""
    out: list[tuple[str, list[dict[str, Any]]]] = []
    for message in dialog:
        if out and out[-1][0] == message["speaker"]:
            out[-1][1].append(message)
        else:
            out.append((message["speaker"], [message]))
    return out


def pair_turns(dialog: list[dict[str, Any]]) -> tuple[list[tuple[list[dict], list[dict]]], list[dict], list[dict]]:
    """Split a dialog into turns: (seeker messages, supporter messages) pairs in order.

    Returns (pairs, leading supporter messages dropped, trailing seeker messages dropped): a
    supporter run before the seeker's first message has no seeker message to answer, and a
    seeker run after the last supporter reply has no reply.
    """
    blocks = _blocks(dialog)
    leading: list[dict] = []
    if blocks and blocks[0][0] == SUPPORTER:
        leading = blocks.pop(0)[1]
    trailing: list[dict] = []
    if blocks and blocks[-1][0] == SEEKER:
        trailing = blocks.pop()[1]
    pairs = [(blocks[i][1], blocks[i + 1][1]) for i in range(0, len(blocks), 2)]
    return pairs, leading, trailing


def _join(messages: list[dict[str, Any]]) -> str:
    return MESSAGE_SEPARATOR.join(m["text"].strip() for m in messages)


def judgements(strategies: list[str]) -> list[dict[str, str]]:
    """Gold behaviour judgements of one supporter reply from its strategies: each mapped question
    'yes' if one of the strategies determines it, else 'no' (as observedBehavior); unmapped
    questions absent."""
    shown = {STRATEGY_QUESTION[s] for s in strategies} - {None}
    return [{"questionId": q, "observedBehavior": "yes" if q in shown else "no"} for q in MAPPED_QUESTIONS]


def _panas(emotion: str, intensity: int | None) -> dict[str, Any] | None:
    words = EMOTION_PANAS[emotion]
    if not words or intensity is None:
        return None
    value = rescale_intensity(intensity)
    number: int | float = int(value) if value.is_integer() else value
    return {"items": {word: number for word in words}}


def to_release(dialog: dict[str, Any], index: int, split: str, max_turns: int | None = None) -> dict[str, Any]:
    """One ESConv conversation as a release-format conversation file (a JSON-ready dict).

    ``index`` is the conversation's 0-based position in its split file; the id is
    ``esconv_<split>_<nnnn>`` and the participant ``<id>_seeker`` (one per conversation).
    ``max_turns`` (None = all) keeps the first ``max_turns`` turns, for a sample whose cost is set
    by the number of turns asked. A conversation cut short loses its post-chat PANAS and post-chat
    ratings: the seeker gave them after the whole chat, which the cut conversation no longer
    reaches, so scoring a model on them would ask it about turns it was never shown. The pre-chat
    PANAS stays; ``esconv.cut_from_turns`` records the full length (absent when nothing was cut),
    and no trailing seeker message counts as dropped, since the cut chat never reaches its end.
    Raises ``ValueError`` when the conversation fails ``check_dialog``.
    """
    problems = check_dialog(dialog)
    if problems:
        field, problem, fix = problems[0]
        raise ValueError(f"ESConv conversation {split}[{index}]: field {field}: {problem}. Fix: {fix}")
    cid = conversation_id(split, index)
    pairs, leading, trailing = pair_turns(dialog["dialog"])
    full_length = len(pairs)
    cut = max_turns is not None and full_length > max_turns
    if cut:
        pairs = pairs[:max_turns]
    turns = []
    for number, (seeker, supporter) in enumerate(pairs, start=1):
        strategies = [m["strategy"] for m in supporter]
        turns.append(
            {
                "turnNumber": number,
                "userMessage": _join(seeker),
                "llmResponse": _join(supporter),
                "annotations": {"binaryJudgements": judgements(strategies)},
                "esconvStrategies": strategies,
            }
        )
    seeker_survey = dialog["survey_score"]["seeker"]
    supporter_survey = dialog["survey_score"].get("supporter") or {}
    ratings = {key: _rating(seeker_survey.get(key)) for key in RATINGS}
    out: dict[str, Any] = {
        "conversationId": cid,
        "metadata": {
            "conversationId": cid,
            "model": OM_MODEL,
            "provider": PROVIDER,
            "category": PROBLEM_TYPE_CATEGORY[dialog["problem_type"]],
            "subtopic": dialog["problem_type"],
            "text": dialog["situation"],
            "turnCount": len(turns),
        },
        "participant_profile": {"participant_id": f"{cid}_seeker"},
        "turns": turns,
        "esconv": {
            "split": split,
            "index": index,
            "emotion_type": dialog["emotion_type"],
            "experience_type": dialog["experience_type"],
            "problem_type": dialog["problem_type"],
            "seeker_ratings": ratings,
            "supporter_relevance": _safe_rating(supporter_survey.get("relevance"))
            if isinstance(supporter_survey, dict)
            else None,
            "dropped_leading_supporter_messages": len(leading),
            "dropped_trailing_seeker_messages": 0 if cut else len(trailing),  # a cut chat never reaches its end
        },
    }
    if cut:
        out["esconv"]["cut_from_turns"] = full_length
    pre = _panas(dialog["emotion_type"], ratings["initial_emotion_intensity"])
    post = None if cut else _panas(dialog["emotion_type"], ratings["final_emotion_intensity"])
    post_chat = {} if cut else {key: ratings[key] for key in POST_CHAT_RATINGS if ratings[key] is not None}
    if post_chat:
        out["postChatRatings"] = post_chat
    if pre is not None:
        out["prePanas"] = pre
    if post is not None:
        out["postPanas"] = post
    return out


def dumps(obj: dict[str, Any]) -> str:
    """Deterministic JSON text of a conversation file: sorted keys, UTF-8, indent 1, newline."""
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, indent=1, allow_nan=False) + "\n"


def _iter_conversations(
    splits: dict[str, list[dict[str, Any]]], limit: int | None, keep: tuple[str, ...] = SPLITS
) -> Iterator[tuple[str, int, dict]]:
    for split in (s for s in SPLITS if s in keep):
        for index, dialog in enumerate(splits[split][:limit] if limit is not None else splits[split]):
            yield split, index, dialog


def write_cohort(
    directory_in: str | os.PathLike[str],
    directory_out: str | os.PathLike[str],
    limit: int | None = None,
    splits: tuple[str, ...] | list[str] | None = None,
    max_turns: int | None = None,
) -> dict[str, Any]:
    """Convert an ESConv folder into one release-format file per conversation.

    Writes ``<directory_out>/esconv_<split>_<nnnn>.json`` (deterministic bytes, atomic rename);
    files named ``esconv_*.json`` left there by an earlier run and not written now are removed,
    so the folder holds exactly this cohort. ``limit`` keeps the first ``limit`` conversations
    of each split; ``splits`` (default all three) the splits kept, e.g. ``["train"]`` for a sample
    of training conversations only (a split of another name is a ValueError); ``max_turns`` the
    first turns of each conversation (``to_release``: a conversation cut short has no post-chat
    PANAS or ratings; ``conversations_cut`` counts them, ``post_chat_ratings_cut`` those whose
    seeker had rated the supporter). Returns the counts (also the measured
    counts of docs/esconv.md).
    """
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise ValueError(f"limit must be None or an integer >= 0, got {limit!r}")
    if max_turns is not None and (isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1):
        raise ValueError(f"max_turns must be None or an integer >= 1, got {max_turns!r}")
    keep = tuple(SPLITS if splits is None else splits)
    if not keep or any(s not in SPLITS for s in keep):
        raise ValueError(f"splits must be a non-empty list of {', '.join(SPLITS)}, got {list(keep)!r}")
    dialogs = read_esconv(directory_in)
    out_dir = Path(directory_out)
    out_dir.mkdir(parents=True, exist_ok=True)
    counts: dict[str, Any] = {
        "conversations": 0,
        "conversations_per_split": {s: 0 for s in SPLITS},
        # the source's dialogs per split, whether kept or not: what a sample was drawn from
        "source_per_split": {s: len(dialogs[s]) for s in SPLITS},
        "splits_kept": list(keep),
        "turns": 0,
        "supporter_messages": 0,
        "seeker_messages": 0,
        "dropped_trailing_seeker_messages": 0,
        "conversations_with_dropped_trailing": 0,
        "dropped_leading_supporter_messages": 0,
        "conversations_with_dropped_leading": 0,
        "conversations_without_turns": 0,
        "max_turns": max_turns,  # the setting (None = every turn)
        "conversations_cut": 0,
        "strategies_mapped": 0,
        "strategies_unmapped": 0,
        "strategies": Counter(),
        "judgements": 0,
        "judgements_yes": 0,
        "categories": Counter(),
        "emotion_types": Counter(),
        "with_pre_panas": 0,
        "with_post_panas": 0,
        "with_post_chat_ratings": 0,
        # cut conversations whose seeker rated the supporter after the whole chat (ratings dropped)
        "post_chat_ratings_cut": 0,
        "post_chat_ratings": {key: Counter() for key in POST_CHAT_RATINGS},  # item -> {rating: conversations}
    }
    written: set[str] = set()
    for split, index, dialog in _iter_conversations(dialogs, limit, keep):
        conv = to_release(dialog, index, split, max_turns)
        name = f"{conv['conversationId']}.json"
        path = out_dir / name
        write_text(dumps(conv), path)
        written.add(name)
        source = conv["esconv"]
        counts["conversations"] += 1
        counts["conversations_per_split"][split] += 1
        counts["turns"] += len(conv["turns"])
        counts["conversations_without_turns"] += not conv["turns"]
        counts["conversations_cut"] += "cut_from_turns" in source
        counts["post_chat_ratings_cut"] += "cut_from_turns" in source and any(
            source["seeker_ratings"].get(key) is not None for key in POST_CHAT_RATINGS
        )
        counts["dropped_trailing_seeker_messages"] += source["dropped_trailing_seeker_messages"]
        counts["conversations_with_dropped_trailing"] += source["dropped_trailing_seeker_messages"] > 0
        counts["dropped_leading_supporter_messages"] += source["dropped_leading_supporter_messages"]
        counts["conversations_with_dropped_leading"] += source["dropped_leading_supporter_messages"] > 0
        counts["categories"][conv["metadata"]["category"]] += 1
        counts["emotion_types"][source["emotion_type"]] += 1
        counts["with_pre_panas"] += "prePanas" in conv
        counts["with_post_panas"] += "postPanas" in conv
        counts["with_post_chat_ratings"] += "postChatRatings" in conv
        for key, value in conv.get("postChatRatings", {}).items():
            counts["post_chat_ratings"][key][str(value)] += 1
        pairs, _, _ = pair_turns(dialog["dialog"])
        counts["seeker_messages"] += sum(len(seeker) for seeker, _ in pairs[: len(conv["turns"])])
        for turn in conv["turns"]:
            counts["supporter_messages"] += len(turn["esconvStrategies"])
            for strategy in turn["esconvStrategies"]:
                counts["strategies"][strategy] += 1
                counts["strategies_mapped" if STRATEGY_QUESTION[strategy] else "strategies_unmapped"] += 1
            for j in turn["annotations"]["binaryJudgements"]:
                counts["judgements"] += 1
                counts["judgements_yes"] += j["observedBehavior"] == "yes"
    for stale in sorted(out_dir.glob("esconv_*.json")):
        if stale.name not in written:
            stale.unlink()
    for key in ("strategies", "categories", "emotion_types"):
        counts[key] = dict(sorted(counts[key].items()))
    counts["post_chat_ratings"] = {k: dict(sorted(v.items())) for k, v in counts["post_chat_ratings"].items()}
    return counts

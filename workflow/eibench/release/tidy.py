"""Validated release-format objects -> tidy typed tables.

One row per conversation / participant / turn / mood tag / binary judgement / pairwise
comparison / PANAS item / survey answer, and for EM outputs one row per predicted tag, answer,
pick and rating. Tables are declared once in ``GOLD_TABLES`` and ``EM_TABLES``; the data
dictionary of every column is in docs/release-format.md.

Conventions:
- ``source_file`` is the file's name only, so tables do not depend on where a cohort lies.
- yes/no/na answers are normalised ('yes', 'no', 'na' or null); gold fallbacks are applied
  here once (``gold_om`` = observed, else llmValue; ``gold_hp`` = preferred, else observed).
- PANAS totals missing from a file are derived from the ten items of that affect (only when
  all ten are present), then rounded and clamped to 10..70; ``*_source`` says which.
- A participant's age and traits each come from the first file (by name) that gives them (a
  file without traits records none, which does not undo another's); ``profile_consistent`` is
  False when two files give different ones (listed in the ingest report). Without traits in
  any file the diagnosis is not recorded: ``diagnosis_group`` and ``has_diagnosis`` are null.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import pandas as pd
from pydantic import BaseModel

from .. import instrument
from ..gcpause import cyclic_gc_paused
from ..tables import TableSpec, categorical, typed_column
from . import em_canonical as canonical
from . import normalize
from .em_canonical import EMFile
from .extras import has_extra_fields, with_extra_fields
from .read import json_path
from .schema import (
    ConversationFile,
    ConversationWide,
    EMOutputFile,
    EMTurn,
    MoodTag,
    Panas,
    PanasPrediction,
    totals_given,
)

STR, INT, FLT, BOOL, CAT = "string", "Int64", "Float64", "boolean", "category"
CID = ("conversation_id", STR)
TURN = ("turn_number", INT)
#: EM tables hold hundreds of thousands of rows per model: their key and enumeration columns
#: are categorical (dictionary-encoded in Parquet), so the scorer reads codes, not strings.
EMK = (("conversation_id", CAT), ("em_model", CAT), ("mode", CAT))


def _spec(name: str, doc: str, *cols: tuple[str, str]) -> TableSpec:
    return TableSpec(name, tuple(cols), doc)


GOLD_TABLES: dict[str, TableSpec] = {
    t.name: t
    for t in [
        _spec(
            "conversations",
            "one row per conversation",
            CID,
            ("source_file", STR),
            ("participant_id", STR),
            ("om_model", STR),
            ("provider", STR),
            ("model_version", STR),
            ("timestamp", STR),
            ("category", STR),
            ("subtopic", STR),
            ("visibility", STR),
            ("turn_count_declared", INT),
            ("n_turns", INT),
            ("has_pre_panas", BOOL),
            ("has_post_panas", BOOL),
            ("has_conversation_wide", BOOL),
        ),
        _spec(
            "participants",
            "one row per participant",
            ("participant_id", STR),
            ("age", STR),
            ("traits", STR),
            ("goals", STR),
            ("diagnosis_group", STR),
            ("has_diagnosis", BOOL),
            ("n_conversations", INT),
            ("profile_consistent", BOOL),
        ),
        _spec(
            "turns",
            "one row per turn",
            CID,
            TURN,
            ("turn_index", INT),
            ("n_turns", INT),
            ("rel_position", FLT),
            ("user_message", STR),
            ("llm_response", STR),
            ("llm_improved", STR),
            ("human_edited", STR),
            ("n_mood_tags", INT),
            ("n_binary", INT),
            ("n_pairwise", INT),
            ("selected_pairwise_questions", STR),
        ),
        _spec(
            "mood_tags",
            "one row per gold mood-shift tag",
            CID,
            TURN,
            ("tag_index", INT),
            ("emotion", STR),
            ("emotion_raw", STR),
            ("in_panas", BOOL),
            ("intensity", INT),
            ("intensity_clamped", BOOL),
        ),
        _spec(
            "binary_judgements",
            "one row per binary judgement",
            CID,
            TURN,
            ("judgement_index", INT),
            ("question_id", STR),
            ("known_question", BOOL),
            ("llm_value", STR),
            ("observed", STR),
            ("preferred", STR),
            ("gold_om", STR),
            ("gold_hp", STR),
        ),
        _spec(
            "pairwise_comparisons",
            "one row per pairwise comparison",
            CID,
            TURN,
            ("position", INT),
            ("question_id", STR),
            ("response_a", STR),
            ("response_b", STR),
            ("winner", STR),
            ("winner_label", STR),
        ),
        _spec(
            "panas_items",
            "one row per PANAS item answer",
            CID,
            ("phase", STR),
            ("item", STR),
            ("affect", STR),
            ("value", FLT),
        ),
        _spec(
            "panas_totals",
            "one row per conversation and phase",
            CID,
            ("phase", STR),
            ("positive", INT),
            ("negative", INT),
            ("positive_source", STR),
            ("negative_source", STR),
            ("items_block", STR),
        ),
        _spec(
            "survey_answers",
            "one row per post-chat answer (multi-select: one row per option)",
            CID,
            ("question", STR),
            ("item_index", INT),
            ("answer", STR),
            ("answer_norm", STR),
        ),
        _spec("four_branch", "one row per four-branch rating", CID, ("branch", STR), ("rating", FLT)),
        _spec(
            "post_chat_ratings",
            "one row per post-chat rating of the assistant (extension)",
            CID,
            ("item", STR),
            ("rating", FLT),
        ),
        _spec(
            "extra_fields",
            "unknown fields kept for the audit",
            ("source_file", STR),
            ("json_path", STR),
            ("value_json", STR),
        ),
    ]
}

EM_TABLES: dict[str, TableSpec] = {
    t.name: t
    for t in [
        _spec(
            "em_runs",
            "one row per EM output file",
            *EMK,
            ("source_file", STR),
            ("run_timestamp", STR),
            ("prompt_version", STR),
            ("panas_strategy", STR),
            ("pre_panas_shown", BOOL),
            ("api_cost", FLT),
            ("duration_seconds", FLT),
            ("n_turns", INT),
        ),
        _spec(
            "em_turns",
            "one row per EM turn",
            *EMK,
            TURN,
            ("drafted_response", STR),
            ("emotion_tags_invalid", BOOL),
            ("judge_overall_score", FLT),
            ("judge_emotional_appropriateness", FLT),
            ("judge_helpfulness", FLT),
            ("judge_tone_match", FLT),
        ),
        _spec(
            "em_emotion_tags",
            "one row per predicted emotion tag",
            *EMK,
            TURN,
            ("tag_index", INT),
            ("emotion", CAT),
            ("emotion_raw", STR),
            ("in_panas", BOOL),
            ("intensity", INT),
            ("intensity_clamped", BOOL),
        ),
        _spec(
            "em_binary",
            "one row per predicted yes/no answer",
            *EMK,
            TURN,
            ("target", CAT),
            ("wording", CAT),
            ("question_id", CAT),
            ("value", CAT),
            ("status", CAT),
        ),
        _spec(
            "em_pairwise",
            "one row per predicted pairwise pick",
            *EMK,
            TURN,
            ("key", CAT),
            ("pick", CAT),
            ("status", CAT),
        ),
        _spec(
            "em_four_branch",
            "one row per predicted four-branch rating",
            *EMK,
            ("source", STR),
            TURN,
            ("branch", STR),
            ("rating", FLT),
        ),
        _spec(
            "em_post_chat_ratings",
            "one row per predicted post-chat rating (extension)",
            *EMK,
            ("item", STR),
            ("rating", FLT),
        ),
        _spec(
            "em_panas",
            "one row per predicted PANAS value",
            *EMK,
            ("kind", STR),
            ("level", STR),
            ("name", STR),
            ("value", FLT),
            ("placement", STR),
        ),
        _spec(
            "em_conversation_wide",
            "one row per predicted post-chat answer",
            *EMK,
            ("question", STR),
            ("item_index", INT),
            ("answer", STR),
            ("answer_norm", STR),
        ),
        _spec(
            "extra_fields",
            "unknown fields kept for the audit",
            ("source_file", STR),
            ("json_path", STR),
            ("value_json", STR),
        ),
    ]
}

JUDGE_FIELDS = ("overall_score", "emotional_appropriateness", "helpfulness", "tone_match")
_DIAGNOSIS_KEYWORDS = {
    "anxiety_depression": ("anxiety", "depress"),
    "asd_adhd": ("asd", "adhd", "autis", "attention deficit"),
}


def diagnosis_group(traits: Sequence[str]) -> str:
    """Classify a participant's traits: 'none', 'anxiety_depression', 'asd_adhd' or 'multiple'.

    A trait counts as a diagnosis when it names anxiety/depression or ASD/ADHD (case-insensitive
    keyword match); other traits (and 'none') do not. Several diagnosis groups give 'multiple'.
    """
    groups = sorted(
        {g for t in traits for g, words in _DIAGNOSIS_KEYWORDS.items() if any(w in t.lower() for w in words)}
    )
    if not groups:
        return "none"
    return groups[0] if len(groups) == 1 else "multiple"


def _traits(profile: Any) -> list[str] | None:
    """A profile's traits as the participants table keeps them: None when the profile does not
    give them (no diagnosis recorded), else the list (empty: the participant gave none)."""
    return None if profile.traits is None else list(profile.traits)


def diagnosis_recorded(participants: pd.DataFrame) -> pd.Series:
    """Per row of the ``participants`` table: whether the profile gives traits (a list, empty
    or not), so that its ``diagnosis_group`` is known (a named diagnosis, or 'none' when the
    traits name none) rather than read from nothing: a cohort that collects no traits (ESConv,
    whose profiles hold an id only) records no diagnosis, which is not the same as none; the
    column is null there. A table without a ``traits`` column (one made by hand, with
    ``has_diagnosis`` only) is taken as recorded throughout, as before this distinction."""
    if "traits" not in participants:
        return pd.Series(True, index=participants.index)
    return participants["traits"].notna()


def extra_fields(obj: BaseModel, source_file: str, loc: tuple = ()) -> list[tuple[str, str, str]]:
    """Every unknown field under ``obj`` as (source_file, json_path, value as JSON), in the order
    of the fields (an object's own unknown fields sorted by key, then its children's)."""
    if not has_extra_fields(obj):
        return []
    return _extra_fields_at(obj, source_file, loc)


def _extra_fields_at(obj: BaseModel, source_file: str, loc: tuple) -> list[tuple[str, str, str]]:
    return [
        (source_file, json_path((*at, key)), json.dumps(value, sort_keys=True, ensure_ascii=False))
        for node, at in with_extra_fields(obj, loc)
        for key, value in sorted((node.model_extra or {}).items())
    ]


def _panas_rows(cid: str, phase: str, panas: Panas | None) -> tuple[list[tuple], tuple]:
    """Item rows and the totals row of one PANAS (totals derived from items when missing)."""
    by_name = {i.name: i for i in instrument.panas_items()}
    items = (panas.items or {}) if panas is not None else {}
    item_rows = [(cid, phase, name, by_name[name].affect, value) for name, value in sorted(items.items())]
    totals: list[tuple[float | None, str]] = []
    for affect, given in (
        ("positive", panas.totalPositiveAffect if panas else None),
        ("negative", panas.totalNegativeAffect if panas else None),
    ):
        affect_items = [v for n, v in items.items() if by_name[n].affect == affect]
        if given is not None:
            totals.append((normalize.panas_total(given), "given"))
        elif len(affect_items) == 10:
            totals.append((normalize.panas_total(sum(affect_items)), "items"))
        else:
            totals.append((None, "missing"))
    totals_row = (cid, phase, totals[0][0], totals[1][0], totals[0][1], totals[1][1], panas and panas._items_block)
    return item_rows, totals_row


def _survey_rows(key: tuple[Any, ...], cw: ConversationWide | canonical.ConversationWide | None) -> list[tuple]:
    rows: list[tuple] = []
    if cw is None:
        return rows
    for question in ("q1_lookingFor", "q2_emotionClarity", "q3_modelFit", "q3_followUp_whatFeltOff"):
        value = getattr(cw, question)
        if value is None:
            continue
        answers = value if isinstance(value, list) else [value]
        for i, answer in enumerate(answers):
            rows.append((*key, question, i, answer.strip(), normalize.text_answer(answer)))
    return rows


@cyclic_gc_paused()
def gold_tables(parsed: Iterable[tuple[Path, ConversationFile]]) -> dict[str, pd.DataFrame]:
    """Tidy tables of the gold annotations from validated conversation files."""
    rows: dict[str, list[tuple]] = {name: [] for name in GOLD_TABLES}
    participants: dict[str, dict[str, Any]] = {}
    panas_by_word = instrument.panas_by_word()
    known_q = set(instrument.binary_question_ids())

    for path, conv in parsed:
        cid, src = conv.conversationId, path.name
        md, prof = conv.metadata, conv.participant_profile
        pid = prof.participant_id if prof else None
        turns = sorted(conv.turns, key=lambda t: t.turnNumber)
        n = len(turns)
        rows["conversations"].append(
            (
                cid,
                src,
                pid,
                md and md.model,
                md and md.provider,
                md and md.model_version,
                md and md.timestamp,
                md and md.category,
                md and md.subtopic,
                md and md.conversation_visibility,
                md and md.turnCount,
                n,
                conv.prePanas is not None,
                conv.postPanas is not None,
                conv.conversationWideQuestions is not None,
            )
        )
        if prof is not None and pid is not None:
            entry = participants.setdefault(
                pid, {"age": None, "traits": None, "goals": list(prof.goals), "n": 0, "consistent": True}
            )
            entry["n"] += 1
            for key, given in (("age", prof.age), ("traits", _traits(prof))):
                if given is None:  # not given here: another file's stands
                    continue
                if entry[key] is None:
                    entry[key] = given
                elif entry[key] != given:
                    entry["consistent"] = False
        for idx, turn in enumerate(turns):
            t = turn.turnNumber
            ann = turn.annotations
            alt = ann.alternateResponses if ann else None
            judgements = ann.binaryJudgements if ann else []
            comparisons = ann.pairwiseComparisons if ann else []
            rows["turns"].append(
                (
                    cid,
                    t,
                    idx,
                    n,
                    idx / (n - 1) if n > 1 else 0.0,
                    turn.userMessage,
                    turn.llmResponse,
                    alt.llmImproved if alt else None,
                    alt.humanEdited if alt else None,
                    len(turn.moodShiftTags),
                    len(judgements),
                    len(comparisons),
                    ";".join(ann.selectedPairwiseQuestions) if ann else "",
                )
            )
            for k, tag in enumerate(turn.moodShiftTags):
                word = normalize.emotion_word(tag.emotion)
                rows["mood_tags"].append(
                    (cid, t, k, word, tag.emotion, word in panas_by_word, tag.intensity, tag.intensity_clamped)
                )
            for k, j in enumerate(judgements):
                llm = normalize.yes_no_na(j.llmValue)
                obs = normalize.yes_no_na(j.observedBehavior)
                pref = normalize.yes_no_na(j.preferredBehavior)
                gold_om = obs if obs is not None else llm
                gold_hp = pref if pref is not None else obs
                rows["binary_judgements"].append(
                    (cid, t, k, j.questionId, j.questionId in known_q, llm, obs, pref, gold_om, gold_hp)
                )
            for k, c in enumerate(comparisons):
                label = {"A": c.responseA, "B": c.responseB}.get(c.winner) if c.winner else None
                rows["pairwise_comparisons"].append(
                    (cid, t, k, c.questionId, c.responseA, c.responseB, c.winner, label)
                )
        for phase, panas in (("pre", conv.prePanas), ("post", conv.postPanas)):
            item_rows, totals_row = _panas_rows(cid, phase, panas)
            rows["panas_items"].extend(item_rows)
            if panas is not None:
                rows["panas_totals"].append(totals_row)
        cw = conv.conversationWideQuestions
        rows["survey_answers"].extend(_survey_rows((cid,), cw))
        if cw is not None and cw.fourBranchScores:
            for branch in instrument.FOUR_BRANCHES:
                if branch in cw.fourBranchScores:
                    rows["four_branch"].append((cid, branch, cw.fourBranchScores[branch]))
        for item in instrument.post_chat_ratings():
            if conv.postChatRatings and item.name in conv.postChatRatings:
                rows["post_chat_ratings"].append((cid, item.name, conv.postChatRatings[item.name]))
        rows["extra_fields"].extend(extra_fields(conv, src))

    for pid in sorted(participants):
        p = participants[pid]
        group = None if p["traits"] is None else diagnosis_group(p["traits"])  # None: not recorded
        age = None if p["age"] is None else str(p["age"])
        rows["participants"].append(
            (
                pid,
                age,
                None if p["traits"] is None else ";".join(p["traits"]),
                ";".join(p["goals"]),
                group,
                None if group is None else group != "none",
                p["n"],
                p["consistent"],
            )
        )
    return {name: GOLD_TABLES[name].frame(r) for name, r in rows.items()}


_OK_ANSWERS = {v: (v, "ok") for v in ("yes", "no", "na")}


def _answer_status(raw: object) -> tuple[str | None, str]:
    if type(raw) is str and raw in _OK_ANSWERS:
        return _OK_ANSWERS[raw]
    if raw is None:
        return None, "null"
    value = normalize.yes_no_na(raw)
    if value is not None:
        return value, "ok"
    if isinstance(raw, str) and raw.strip().lower() == normalize.INVALID_MARKER:
        return None, "invalid"
    return None, "unrecognised"


def _pick_status(raw: object) -> tuple[str | None, str]:
    if raw is None:
        return None, "null"
    if isinstance(raw, str) and raw.strip().upper() in ("A", "B"):
        return raw.strip().upper(), "ok"
    if isinstance(raw, str) and raw.strip().lower() == normalize.INVALID_MARKER:
        return None, "invalid"
    return None, "unrecognised"


def _panas_prediction_rows(
    key: tuple, kind: str, pred: PanasPrediction | canonical.PanasPrediction | None
) -> list[tuple]:
    if pred is None:
        return []
    rows = []
    for name, given in totals_given(pred):  # the schema refuses two values for one total
        if given.nested is not None:
            where = "totals" if given.beside is None else "both"
            rows.append((*key, kind, "total", name, float(given.nested), where))
        elif given.beside is not None:
            rows.append((*key, kind, "total", name, float(given.beside), "beside_items"))
    for name, value in sorted((pred.items or {}).items()):
        rows.append((*key, kind, "item", name, float(value), None))
    return rows


_BINARY_FIELDS = (
    ("em_binary_om_assessment", "om", "observer"),
    ("em_binary_human_prediction", "hp", "observer"),
    ("em_binary_om_assessment_hp", "om", "participant"),
    ("em_binary_human_prediction_hp", "hp", "participant"),
)


_BINARY_RUNS = tuple((field, (target, wording)) for field, target, wording in _BINARY_FIELDS)
_NO_JUDGE = (None,) * len(JUDGE_FIELDS)
#: The EM tables whose rows begin with the file's key (conversation_id, em_model, mode).
_KEYED = tuple(name for name, spec in EM_TABLES.items() if spec.columns[: len(EMK)] == EMK)


@cyclic_gc_paused()
def em_tables(parsed: Iterable[tuple[Path, EMOutputFile | EMFile]]) -> dict[str, pd.DataFrame]:
    """Tidy tables of one or more EM output files, validated by pydantic (``EMOutputFile``) or
    decoded in the canonical shape (``em_canonical.EMFile``, the same attributes)."""
    # Rows of the keyed tables leave out the file's key: every file's rows are consecutive, so
    # the key columns are the files' keys, each repeated by the file's number of rows.
    rows: dict[str, list[tuple]] = {name: [] for name in EM_TABLES}
    keys: list[tuple] = []  # per file
    ends: dict[str, list[int]] = {name: [] for name in _KEYED}  # per file: the table's row count after it
    # The answers and picks (most of the rows) are gathered column-wise: a run of rows shares its
    # file, turn and field (one group), and only the answer keys and values are lists per row.
    binary, picks = _Runs(), _Runs()
    panas_by_word = instrument.panas_by_word()
    runs, em_turns, tags_rows = rows["em_runs"], rows["em_turns"], rows["em_emotion_tags"]
    four_branch, panas, survey = rows["em_four_branch"], rows["em_panas"], rows["em_conversation_wide"]
    for path, out in parsed:
        key = (out.conversationId, out.em_model, out.mode)
        keys.append(key)
        post = out.post_conversation
        runs.append(
            (
                path.name,
                out.run_timestamp,
                out.prompt_version,
                post and post.panas_strategy,
                post and post.pre_panas_shown,
                out.api_cost,
                out.duration_seconds,
                len(out.turns),
            )
        )
        turns: list[EMTurn | canonical.Turn] = sorted(out.turns, key=lambda t: t.turnNumber)
        for turn in turns:
            t = turn.turnNumber
            judge = turn.em_draft_judge
            em_turns.append(
                (
                    t,
                    turn.em_drafted_response,
                    turn.em_emotion_tags_invalid,
                    *(tuple(judge.get(f) for f in JUDGE_FIELDS) if judge else _NO_JUDGE),
                )
            )
            tags: Sequence[MoodTag | canonical.Tag] = turn.em_emotion_tags or ()  # a canonical null is [] already
            clamped = turn.tags_clamped
            for k, tag in enumerate(tags):
                word = normalize.emotion_word(tag.emotion)
                tags_rows.append((t, k, word, tag.emotion, word in panas_by_word, tag.intensity, k in clamped))
            for field, constants in _BINARY_RUNS:
                binary.add(key, t, constants, getattr(turn, field))
            picks.add(key, t, (), turn.em_pairwise_selections)
            if turn.em_four_branch_scores:
                four_branch.extend(("turn", t, branch, rating) for branch, rating in turn.em_four_branch_scores.items())
        if post is not None:
            panas.extend(_panas_prediction_rows((), "post", post.predicted_post_panas))
            panas.extend(_panas_prediction_rows((), "delta", post.predicted_panas_delta))
            cw = post.predicted_conversation_wide
            survey.extend(_survey_rows((), cw))
            for branch, rating in ((cw.fourBranchScores or {}) if cw else {}).items():
                four_branch.append(("post", None, branch, rating))
            for item in instrument.post_chat_ratings():
                if post.predicted_post_chat_ratings and item.name in post.predicted_post_chat_ratings:
                    rows["em_post_chat_ratings"].append((item.name, post.predicted_post_chat_ratings[item.name]))
        for name, end in ends.items():
            end.append(len(rows[name]))
        rows["extra_fields"].extend(_em_extra_fields(out, path.name))
    tables = {
        name: _keyed_frame(EM_TABLES[name], keys, ends[name], r) if name in ends else EM_TABLES[name].frame(r)
        for name, r in rows.items()
    }
    tables["em_binary"] = binary.frame(EM_TABLES["em_binary"], ("target", "wording"), "question_id", _answer_status)
    tables["em_pairwise"] = picks.frame(EM_TABLES["em_pairwise"], (), "key", _pick_status)
    return tables


def _keyed_frame(spec: TableSpec, keys: list[tuple], ends: list[int], rows: list[tuple]) -> pd.DataFrame:
    """The table of ``spec`` from ``rows`` without their key columns: rows up to ``ends[i]``
    (and from the previous end) belong to the file whose key is ``keys[i]``. The same frame as
    ``spec.frame`` of the rows with their keys."""
    if not rows:
        return spec.frame()
    counts: np.ndarray = np.diff(np.asarray([0, *ends], dtype=np.int64))
    columns: dict[str, Any] = {
        name: categorical([k[i] for k in keys], counts) for i, (name, _) in enumerate(spec.columns[: len(EMK)])
    }
    for (name, dtype), values in zip(spec.columns[len(EMK) :], zip(*rows)):
        column = typed_column(values, dtype)
        if column is None:  # a value of no plain type: the row-wise path, keys put back
            file_of_row = np.repeat(np.arange(len(keys)), counts)
            return spec.frame([(*keys[f], *row) for f, row in zip(file_of_row.tolist(), rows)])
        columns[name] = column
    return pd.DataFrame(columns)


def _em_extra_fields(out: EMOutputFile | EMFile, source_file: str) -> list[tuple[str, str, str]]:
    """``extra_fields`` of an EM output file; a canonical one has none (em_canonical declines
    a file with an unknown field)."""
    return extra_fields(out, source_file) if isinstance(out, EMOutputFile) else []


class _Runs:
    """Rows gathered column-wise in runs: each run (one file, turn and field) holds the keys and
    raw values of one answers dict; every other column is constant over the run."""

    def __init__(self) -> None:
        # Per run: its file's key (conversation_id, em_model, mode: one tuple shared by the runs
        # of a file), turn number and constants.
        self.file_keys: list[tuple] = []
        self.turns: list[int] = []
        self.constants: list[tuple] = []
        self.key_sets: list[int] = []  # per run: the position of its answers' keys in key_positions
        # Each distinct tuple of answer keys (in order), by first appearance: the runs of a field
        # repeat the same few (36 question ids), so a run's keys are looked up as one tuple.
        self.key_positions: dict[tuple[str, ...], int] = {}
        self.raw: list[Any] = []  # per row: the raw answer

    def add(self, key: tuple, turn: int, constants: tuple, answers: dict[str, Any] | None) -> None:
        """One run: the answers of ``answers`` (an empty dict or None adds no run)."""
        if not answers:
            return
        self.file_keys.append(key)
        self.turns.append(turn)
        self.constants.append(constants)
        keys = tuple(answers)
        position = self.key_positions.get(keys)
        if position is None:
            position = self.key_positions[keys] = len(self.key_positions)
        self.key_sets.append(position)
        self.raw += answers.values()

    def frame(
        self, spec: TableSpec, constants: tuple[str, ...], name_column: str, status: Callable[[object], Any]
    ) -> pd.DataFrame:
        """The table of ``spec``: the run columns, ``name_column`` (the answer keys), then the
        normalised value and status of each raw answer (``status``: raw -> (value, status))."""
        if not self.raw:
            return spec.frame()
        value_column, status_column = spec.column_names[-2:]
        key_sets = list(self.key_positions)
        set_of_run = np.asarray(self.key_sets, dtype=np.intp)
        sizes = np.asarray([len(k) for k in key_sets], dtype=np.int64)[set_of_run]
        columns: dict[str, Any] = {}
        # The few distinct file keys and constants are tidied once each; each run holds a
        # position among them, each row its run's (every run has a row, so every distinct
        # value has one and the categories are those of the row-by-row column).
        for names, per_run in ((("conversation_id", "em_model", "mode"), self.file_keys), (constants, self.constants)):
            if names:
                distinct, row = _positions(per_run, sizes)
                for i, name in enumerate(names):
                    columns[name] = _taken(categorical([d[i] for d in distinct]), row)
        columns["turn_number"] = pd.array(np.repeat(np.asarray(self.turns, dtype=np.int64), sizes), "Int64")
        columns[name_column] = _run_keys(key_sets, set_of_run, sizes)
        distinct_raw = set(self.raw)
        if all(type(raw) is str for raw in distinct_raw):  # strings (the common case): each distinct one tidied once
            # A string equals no value of another type, so every row's answer is a string.
            found = {raw: status(raw) for raw in distinct_raw}
            distinct = list(found)
            position = {raw: k for k, raw in enumerate(distinct)}
            row = np.fromiter(map(position.__getitem__, self.raw), dtype=np.intp, count=len(self.raw))
            for i, column in enumerate((value_column, status_column)):
                columns[column] = _taken(categorical([found[raw][i] for raw in distinct]), row)
        else:
            values, statuses = zip(*map(status, self.raw))
            columns[value_column], columns[status_column] = categorical(values), categorical(statuses)
        return spec.frame_columns(columns)


def _run_keys(key_sets: list[tuple[str, ...]], set_of_run: np.ndarray, sizes: np.ndarray) -> pd.Categorical:
    """The column of the runs' answer keys: run i holds the keys of ``key_sets[set_of_run[i]]``
    (``sizes[i]`` of them), in order. ``categorical`` of the keys row by row, the keys of each
    distinct set looked up once."""
    column = categorical([k for keys in key_sets for k in keys])  # every distinct set's keys, one after another
    starts = np.cumsum([0, *map(len, key_sets)])[:-1]  # where each set begins in that column
    run_starts = np.cumsum(sizes) - sizes  # where each run begins among the rows
    row = np.repeat(starts[set_of_run] - run_starts, sizes) + np.arange(int(sizes.sum()))
    return _taken(column, row)


def _positions(per_run: list[tuple], sizes: np.ndarray) -> tuple[list[tuple], np.ndarray]:
    """The distinct tuples of ``per_run`` (first seen first) and, per row, its run's position
    among them (run i stands for ``sizes[i]`` rows)."""
    distinct = list(dict.fromkeys(per_run))
    position = {value: k for k, value in enumerate(distinct)}
    run = np.fromiter(map(position.__getitem__, per_run), dtype=np.intp, count=len(per_run))
    return distinct, np.repeat(run, sizes)


def _taken(per_value: pd.Categorical, row: np.ndarray) -> pd.Categorical:
    """The column whose row i holds ``per_value[row[i]]``."""
    return pd.Categorical.from_codes(per_value.codes[row], dtype=per_value.dtype)

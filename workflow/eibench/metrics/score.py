"""Score one model (one mode) on a cohort: per-turn, per-conversation and per-model tables.

``score_model`` joins the gold tidy tables with the model's EM tables and runs every metric
under one rule set. Which turns are scored:
- a conversation is scored when the model has an output file for it (coverage is reported);
- parity: a gold turn missing from the output file is skipped (as the public scorer does);
- strict: a missing turn is scored with every prediction missing, i.e. wrong.

Every parity fallback that fires is counted (``Scores.rule_counts``), and every NaN gets a
recorded reason (``Scores.missing``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..gcpause import cyclic_gc_paused
from . import composite, holistic
from .availability import BY_NAME, inapplicable_rules, reported_absent, undefined_confusion, undefined_metrics
from .binary import ACCURACY_NAME, BinaryRows, EMAnswers, binary_rows, binary_scores, em_answers, pooled
from .draft import as_arrow, draft_jaccards, draft_token_keys, judge_scores, similarity_scores
from .emotion import EMOTION_COLUMNS, Tags, emotion_scores
from .frame import ModelFrame
from .gold import GoldIndex
from .keys import codes, group_nanmean, lookup, take, vocabulary
from .pairwise import PairwiseRows, pairwise_rows, pairwise_scores
from .registry import METRICS
from .rules import Rules, js_trim, rules_for

KEY = ["conversation_id", "turn_number"]
TURN_LEVEL = [m.name for m in METRICS if m.level == "turn"]
#: Turn metrics that are optional by nature: a conversation mean over the turns that have one.
OPTIONAL_TURN = ("kendall_tau", "draft_judge", "response_similarity", "preference_alignment")
CONFUSION = [f"{p}_{c}" for p in ACCURACY_NAME for c in ("tp", "fp", "tn", "fn")]

RULE_DESCRIPTIONS = {
    "turn_missing_from_output": "gold turn absent from the EM output (parity: skipped; strict: scored as wrong)",
    "em_turn_not_in_gold": "EM output turn with no gold turn (ignored)",
    "emotion_tags_invalid": "EM emotion-tag answer marked invalid (parity: read as given; strict: wrong)",
    "emotion_intensity_clamped": "EM emotion tag whose intensity, rounded, lay outside 1..7 (clamped into it, both "
    "rule sets)",
    "conversation_without_scored_turns": "scored conversation with no scored turn (parity: turn metrics 0)",
    "binary_*_turn_without_judgements": (
        "turn with no judgement objects (parity: accuracy 1.0 with the observer wording, "
        "0.0 with the participant wording; strict: excluded)"
    ),
    "binary_*_turn_all_gold_na": "turn whose judgements are all gold na/null (parity: accuracy 0.0; strict: excluded)",
    "binary_*_prediction_missing": "gold yes/no item with no EM answer (parity: read as no; strict: wrong)",
    "binary_*_prediction_na": "gold yes/no item answered na (parity: read as no; strict: wrong)",
    "binary_*_prediction_invalid": "gold yes/no item whose answer was marked invalid (parity: no; strict: wrong)",
    "binary_*_prediction_unrecognised": (
        "gold yes/no item with an unrecognised or null answer (parity: no; strict: wrong)"
    ),
    "pairwise_turn_without_comparisons": "turn with no comparisons (parity: 1.0; strict: excluded)",
    "pairwise_null_gold_winner": "comparison with a null gold winner (in the denominator, never matched)",
    "pairwise_pick_missing": "comparison with no EM pick at its position (never matched)",
    "pairwise_pick_invalid": "EM pick marked invalid (never matched)",
    "pairwise_pick_unrecognised": "EM pick that is not A or B (never matched)",
    "pairwise_pick_without_comparison": "EM pick keyed by a position with no comparison (ignored)",
    "kendall_tau_undefined": "turn with fewer than two compared responses or no valid EM pick (tau null)",
    "panas_prediction_absolute": "PANAS total predicted as an absolute post value",
    "panas_prediction_delta": "PANAS total predicted as a delta from pre",
    "panas_prediction_missing": "PANAS total not predicted",
    "panas_total_missing_taken_as_40": "PANAS total missing on one side (parity: taken as 40)",
    "panas_affect_missing_both_sides": "PANAS affect whose gold and predicted totals are both missing (parity: left "
    "out of the MAE, as the public scorer)",
    "panas_post_equals_pre": "affect whose post equals pre (baseline-adjusted score undefined)",
    "panas_adjusted_null_part_half": "conversation with a null adjusted score (parity: composite part 0.5)",
    "conversation_wide_gold_missing": "conversation without a gold post-chat survey (strict: NaN)",
    "conversation_wide_gold_missing_scored_as_empty": "conversation without a gold post-chat survey (parity: the "
    "predictions scored against empty answers, as the public scorer)",
    "conversation_wide_prediction_missing": "conversation without predicted survey answers",
    "four_branch_no_gold": "conversation without gold four-branch ratings (parity: MAE 0, score 1; strict: excluded)",
    "four_branch_prediction_missing": "gold four-branch rating with no prediction (parity: taken as 4; strict: worst)",
    "post_chat_ratings_no_gold": "conversation without gold post-chat ratings (NaN under both rule sets)",
    "post_chat_ratings_prediction_missing": (
        "gold post-chat rating with no prediction (parity: scale midpoint; strict: worst)"
    ),
    "annotation_absent_from_cohort": "no conversation of the cohort has this kind of annotation: its metrics are NaN "
    "under both rule sets (no parity default), pillars renormalised over the rest",
}


@dataclass
class Scores:
    turn: pd.DataFrame
    conversation: pd.DataFrame
    rule_counts: pd.DataFrame
    missing: pd.DataFrame


def _describe_rule(rule: str) -> str:
    if rule.startswith("annotation_absent_from_cohort:"):
        kind = BY_NAME[rule.split(":", 1)[1]]
        return f"{RULE_DESCRIPTIONS['annotation_absent_from_cohort']} ({kind.description})"
    for prefix in ("om_pw", "hp_pw", "om", "hp"):
        generic = rule.replace(f"binary_{prefix}_", "binary_*_", 1)
        if generic in RULE_DESCRIPTIONS:
            return RULE_DESCRIPTIONS[generic]
    return RULE_DESCRIPTIONS.get(rule, "")


def _win_shares(tid: np.ndarray, reply: np.ndarray, n: int) -> np.ndarray:
    """[n, 3] share of each turn's gold wins of original, alternate, human (NaN rows: no winner)."""
    ok = (tid >= 0) & (reply >= 0)
    wins = np.zeros((n, 3))
    np.add.at(wins, (tid[ok], reply[ok]), 1)
    total = wins.sum(axis=1, keepdims=True)
    return np.divide(wins, total, out=np.full((n, 3), np.nan), where=total > 0)


def _js_words(gold: GoldIndex, em_tags: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    """Gold and EM word codes with JavaScript's trim and lower-casing of the raw words (D12)."""

    def norm(raw: pd.Series) -> pd.Series:
        return pd.Series(
            [None if w is None or w is pd.NA else js_trim(str(w)).lower() for w in raw.astype(object)], dtype=object
        )

    g, p = norm(gold.tables["mood_tags"]["emotion_raw"]), norm(em_tags["emotion_raw"])
    vocab = vocabulary(g, p)
    return codes(g, vocab), codes(p, vocab), vocab


def _em_words(gold: GoldIndex, em_tags: pd.DataFrame) -> tuple[np.ndarray, pd.Index]:
    """Codes of the EM's words in the gold vocabulary extended by the EM-only words."""
    word = codes(em_tags["emotion"], gold.words)
    unknown = word < 0
    extra = vocabulary(em_tags["emotion"][unknown]) if unknown.any() else pd.Index([], dtype=object)
    if len(extra):
        word = np.where(unknown, len(gold.words) + codes(em_tags["emotion"], extra), word)
    return word, gold.words.append(extra)


@dataclass
class _TurnParts:
    """Everything per turn that the scores of one rule set start from, on the strict turn frame."""

    emotion: dict[str, np.ndarray]
    invalid: np.ndarray
    clamped: np.ndarray
    binary: BinaryRows
    pairwise: PairwiseRows
    draft: dict[str, np.ndarray]


@dataclass(frozen=True)
class _ModelSide:
    """The turn-level inputs that do not depend on the rule set, only on the tokenisation
    (``Rules.js_text``): the model's tags, answers, picks and drafts joined to the turn frame.
    Computed once per model and shared by its rule sets (read, never changed)."""

    g_tags: Tags
    p_tags: Tags
    vocab: pd.Index
    invalid: np.ndarray
    clamped: np.ndarray  # per turn: the predicted tags whose intensity was clamped
    answers: EMAnswers
    pairwise: PairwiseRows
    pw_tid: np.ndarray
    judge: np.ndarray
    drafts: Any  # the drafted reply of each turn (Arrow array; null: none)
    draft_jaccards: np.ndarray  # [turn, reply] token-Jaccard of the drafts (draft.draft_jaccards)


def _model_side(gold: GoldIndex, em: dict[str, pd.DataFrame], frame: ModelFrame, js_text: bool) -> _ModelSide:
    n = frame.n
    em_tags = em["em_emotion_tags"]
    if js_text:
        gold_word, em_word, vocab = _js_words(gold, em_tags)
    else:
        (em_word, vocab), gold_word = _em_words(gold, em_tags), gold.tag_word
    g_tags = Tags.build(frame.tid(gold.tag_key), gold_word, gold.tag_intensity, gold.tag_index)
    tag_tid = frame.tid(frame.em_keys(em_tags))
    clamped = em_tags["intensity_clamped"].to_numpy(bool, na_value=False) & (tag_tid >= 0)
    p_tags = Tags.build(
        tag_tid,
        em_word,
        em_tags["intensity"].to_numpy(float, na_value=np.nan),
        em_tags["tag_index"].to_numpy(np.int64),
    )
    em_turns = em["em_turns"]
    em_row = lookup(frame.keys, frame.em_keys(em_turns))
    drafts = as_arrow(em_turns["drafted_response"], em_row)
    invalid = take(em_turns["emotion_tags_invalid"].to_numpy(bool, na_value=False), em_row, False).astype(bool)
    answers = em["em_binary"]
    answers_question = codes(answers["question_id"], gold.questions)
    # Any bound above every question code joins alike; the full gold's serves every rule set.
    n_questions = int(max(gold.binary_question.max(initial=0), answers_question.max(initial=0))) + 1
    pw_tid = frame.tid(gold.pw_key)
    picks = em["em_pairwise"]
    pairwise = pairwise_rows(
        pw_tid, gold.pw_position, gold.pw_a, gold.pw_b, gold.pw_winner, picks, frame.tid(frame.em_keys(picks)), n
    )
    return _ModelSide(
        g_tags,
        p_tags,
        vocab,
        invalid,
        np.bincount(tag_tid[clamped], minlength=n)[:n],
        em_answers(answers, frame.tid(frame.em_keys(answers)), answers_question, n, n_questions),
        pairwise,
        pw_tid,
        take(judge_scores(em_turns), em_row, np.nan),
        drafts,
        draft_jaccards(gold, frame.rows, draft_token_keys(gold, drafts, js_text), js_text) if n else np.zeros((0, 3)),
    )


def _turn_parts(gold: GoldIndex, frame: ModelFrame, rules: Rules, side: _ModelSide) -> _TurnParts:
    """The per-turn parts of one rule set from the model's shared inputs ``side``."""
    n = frame.n
    emotion = emotion_scores(
        side.g_tags, side.p_tags, n, side.vocab, rules.va_matching, rules.va_rounding, rules.last_duplicate_intensity
    )
    keep = gold.binary_last if rules.last_duplicate_question else slice(None)
    binary = binary_rows(
        frame.tid(gold.binary_key[keep]),
        gold.binary_question[keep],
        gold.gold_om[keep],
        gold.gold_hp[keep],
        side.answers,
    )
    draft = {"draft_judge": side.judge}
    draft["response_similarity"], draft["preference_alignment"] = similarity_scores(
        gold, frame.rows, side.drafts, _win_shares(side.pw_tid, gold.pw_winner_reply, n), rules, side.draft_jaccards
    )
    return _TurnParts(emotion, side.invalid, side.clamped, binary, side.pairwise, draft)


def score_turns(gold: GoldIndex, frame: ModelFrame, parts: _TurnParts, rule_set: str, counts: Counter) -> pd.DataFrame:
    """The per-turn table of one rule set: parity scores the turns the output answers, strict
    every gold turn of a scored conversation."""
    counts["turn_missing_from_output"] += frame.turns_missing
    counts["em_turn_not_in_gold"] += frame.em_turns_not_in_gold
    n = frame.n
    scored = frame.present if rule_set == "parity" else np.ones(n, dtype=bool)
    cols = dict(parts.emotion)
    counts["emotion_tags_invalid"] += int((parts.invalid & scored).sum())
    counts["emotion_intensity_clamped"] += int(parts.clamped[scored].sum())
    if rule_set == "strict":
        wrong = parts.invalid | ~frame.present
        for name in EMOTION_COLUMNS:
            cols[name] = np.where(wrong, 0.0, cols[name])
    cols["tracking"] = 0.5 * cols["emotion_f1"] + 0.5 * cols["emotion_va"]
    cols.update(binary_scores(parts.binary, n, rule_set, scored, counts))
    cols.update(pairwise_scores(parts.pairwise, n, rule_set, scored, counts))
    cols.update(parts.draft)
    for name in [*undefined_metrics(gold.absent), *undefined_confusion(gold.absent)]:
        if name in cols:
            cols[name] = np.full(n, np.nan)

    # One DataFrame from all columns at once: adding them one by one costs more than the scoring.
    return pd.DataFrame(
        {
            "rule_set": rule_set,
            "conversation_id": frame.conversation_ids[frame.conv[scored]],
            "turn_number": gold.turn_number[frame.rows[scored]],
            "rel_position": gold.rel_position[frame.rows[scored]],
            "present": frame.present[scored],
            "_conv": frame.conv[scored],
            **{name: cols[name][scored] for name in TURN_LEVEL + CONFUSION},
        }
    )


def score_conversations(
    gold: GoldIndex, em: dict[str, pd.DataFrame], turns: pd.DataFrame, frame: ModelFrame, rules: Rules, counts: Counter
) -> pd.DataFrame:
    rule_set = rules.rule_set
    n = len(frame.convs)
    conv_of_turn = turns["_conv"].to_numpy(np.int64)
    n_scored = np.bincount(conv_of_turn, minlength=n)[:n].astype(np.int64)
    empty = n_scored == 0
    counts["conversation_without_scored_turns"] += int(empty.sum())
    cols: dict[str, object] = {"conversation_id": frame.conversation_ids}
    for name in TURN_LEVEL:
        means = group_nanmean(conv_of_turn, turns[name].to_numpy(float), n)
        if rule_set == "parity" and name not in OPTIONAL_TURN:
            means = np.where(empty, 0.0, means)
        cols[name] = means
    cols["n_turns_scored"] = n_scored
    cols.update(holistic.panas_scores(gold, frame, em["em_panas"], rules, counts))
    cols.update(holistic.conversation_wide_scores(gold, frame, em["em_conversation_wide"], rules, counts))
    cols.update(holistic.four_branch_scores(gold, frame, em["em_four_branch"], rules, counts))
    cols.update(holistic.post_chat_rating_scores(gold, frame, em["em_post_chat_ratings"], rule_set, counts))
    cols["perspective_gap"] = np.asarray(cols["binary_hp_acc"], float) - np.asarray(cols["binary_hp_acc_pw"], float)
    runs = em["em_runs"]
    strategy = take(
        runs["panas_strategy"].to_numpy(object, na_value=None),
        lookup(frame.convs, codes(runs["conversation_id"], gold.conversations)),
        None,
    )
    cols["panas_strategy"] = pd.array(strategy, dtype="string")
    for name in undefined_metrics(gold.absent):
        if name in cols:
            cols[name] = np.full(n, np.nan)
    counts.update({f"annotation_absent_from_cohort:{kind}": 1 for kind in reported_absent(gold.absent)})
    conv = composite.add_pillars(pd.DataFrame(cols), rules)
    conv.insert(0, "rule_set", rule_set)
    return conv


_TURN_REASONS = {
    "binary_om_acc": "no judgement at this turn, or every gold answer na/null (strict)",
    "pairwise_acc": "no pairwise comparison at this turn (strict)",
    "kendall_tau": "fewer than two compared responses, or no valid EM pick",
    "draft_judge": "no judge score for the draft",
    "response_similarity": "no drafted reply",
    "preference_alignment": "no drafted reply, or no gold winner at this turn",
}
_CONV_REASONS = {
    "panas_adjusted": "post equals pre for both affects, or pre/post/prediction missing",
    "panas_normalized": "no gold post-chat PANAS total (strict)",
    "panas_items_adjusted": "no item with pre, post and prediction where post differs from pre",
    "panas_items_normalized": "no item with a gold post value and a prediction",
    "panas_part": "baseline-adjusted score null (strict)",
    "conversation_wide": "no gold post-chat survey",
    "four_branch": "no gold four-branch rating (strict)",
    "post_chat_ratings": "no gold post-chat rating",
}


def _turn_reason(name: str, undefined: dict[str, str]) -> str:
    """Why a turn metric is NaN at a turn (the same reason at every turn of it)."""
    reason = (
        undefined.get(name) or _TURN_REASONS.get(name) or _TURN_REASONS.get(name.replace("_pw", "").replace("hp", "om"))
    )
    return reason or "undefined at this turn"


def _conversation_reason(name: str, undefined: dict[str, str]) -> str:
    """Why a conversation metric is NaN in a conversation."""
    if name in undefined:
        return undefined[name]
    if name in TURN_LEVEL:
        return "no scored turn with a value in this conversation"
    if name.startswith("cw_"):
        return _CONV_REASONS["conversation_wide"]
    return _CONV_REASONS.get(name.removesuffix("_mae"), "a pillar or part is missing")


_MISSING_COLUMNS = ("level", "conversation_id", "turn_number", "metric", "reason")
_MISSING_TYPES = ("string", "string", "Int64", "string", "string")


def missing_reasons(turns: pd.DataFrame, conv: pd.DataFrame, absent: tuple[str, ...] = ()) -> pd.DataFrame:
    """One row per NaN value in the turn and conversation tables, with its reason (``absent``:
    the annotation kinds the cohort lacks, which name the reason of their metrics).

    Rows are metric by metric (turn metrics first, in ``TURN_LEVEL`` order, then conversation
    metrics in registry order), each in table order. Built column-wise: the NaN positions of
    every metric are gathered, then one table is made (not one per metric)."""
    undefined = undefined_metrics(absent)
    levels: list[str] = []
    metrics: list[str] = []
    reasons: list[str] = []
    sizes: list[int] = []
    rows: list[np.ndarray] = []
    n_turn_rows = 0
    for level, table, names in (
        ("turn", turns, [c for c in TURN_LEVEL if c in turns]),
        ("conversation", conv, [m.name for m in METRICS if m.name in conv.columns]),
    ):
        # One missing-value mask for all of the table's metrics, a row per metric.
        masks = table[names].isna().to_numpy(bool).T if names else ()
        for name, mask in zip(names, masks):
            where = np.flatnonzero(mask)
            if not len(where):
                continue
            levels.append(level)
            metrics.append(name)
            reasons.append(_turn_reason(name, undefined) if level == "turn" else _conversation_reason(name, undefined))
            sizes.append(len(where))
            rows.append(where)
            n_turn_rows += len(where) if level == "turn" else 0
    if not rows:
        return pd.DataFrame({c: pd.array([], dtype=t) for c, t in zip(_MISSING_COLUMNS, _MISSING_TYPES)})
    row = np.concatenate(rows)
    ids = np.concatenate(
        [
            turns["conversation_id"].to_numpy(object)[row[:n_turn_rows]],
            conv["conversation_id"].to_numpy(object)[row[n_turn_rows:]],
        ]
    )
    turn_number = np.zeros(len(row), dtype=np.int64)
    turn_number[:n_turn_rows] = turns["turn_number"].to_numpy(np.int64)[row[:n_turn_rows]]
    no_turn = np.ones(len(row), dtype=bool)  # conversation rows have no turn number
    no_turn[:n_turn_rows] = False
    size = np.asarray(sizes, dtype=np.int64)

    def repeated(values: list[str]) -> pd.api.extensions.ExtensionArray:  # one value per metric, to its rows
        return pd.array(np.repeat(np.asarray(values, dtype=object), size), dtype="string")

    return pd.DataFrame(
        {
            "level": repeated(levels),
            "conversation_id": pd.array(ids, dtype="string"),
            "turn_number": pd.arrays.IntegerArray(turn_number, no_turn),
            "metric": repeated(metrics),
            "reason": repeated(reasons),
        }
    )


@cyclic_gc_paused()
def score_rule_sets(
    gold: GoldIndex | dict[str, pd.DataFrame],
    em: dict[str, pd.DataFrame],
    rule_sets: tuple[str, ...] = ("parity", "strict"),
    va_matching: str = "optimal",
    compat: str = "none",
) -> dict[str, Scores]:
    """Every metric of one model and mode under each rule set ('parity', 'strict').

    ``gold`` is the gold tidy tables or, to share the gold-side work between models, their
    ``GoldIndex``. ``compat='port'`` makes the parity rule set reproduce the public TypeScript
    port (``rules.rules_for``; it implies greedy VA matching).
    """
    all_rules = [rules_for(rule_set, va_matching, compat) for rule_set in rule_sets]
    index = gold if isinstance(gold, GoldIndex) else GoldIndex.build(gold)
    frame = ModelFrame(index, em["em_runs"], em["em_turns"], keep_missing=True)
    out = {}
    sides: dict[bool, _ModelSide] = {}  # by Rules.js_text: the rule sets share the model's inputs
    for rules in all_rules:
        rule_set = rules.rule_set
        if rules.js_text not in sides:
            sides[rules.js_text] = _model_side(index, em, frame, rules.js_text)
        parts = _turn_parts(index, frame, rules, sides[rules.js_text])
        counts: Counter = Counter()
        turns = score_turns(index, frame, parts, rule_set, counts)
        conv = score_conversations(index, em, turns, frame, rules, counts)
        turns = turns.drop(columns="_conv").reset_index(drop=True)
        for rule in inapplicable_rules(index.absent, list(counts)):
            del counts[rule]
        rule_counts = pd.DataFrame(
            [(rule_set, rule, int(c), _describe_rule(rule)) for rule, c in sorted(counts.items())],
            columns=["rule_set", "rule", "count", "description"],
        )
        missing = missing_reasons(turns, conv, index.absent)
        missing.insert(0, "rule_set", rule_set)
        out[rule_set] = Scores(turns, conv, rule_counts, missing)
    return out


def score_model(
    gold: GoldIndex | dict[str, pd.DataFrame],
    em: dict[str, pd.DataFrame],
    rule_set: str,
    va_matching: str = "optimal",
    compat: str = "none",
) -> Scores:
    """Every metric of one model and mode under one rule set (see ``score_rule_sets``)."""
    return score_rule_sets(gold, em, (rule_set,), va_matching, compat)[rule_set]


#: Metrics also summarised per PANAS strategy ("for each PANAS strategy present").
PANAS_METRICS = ("panas_adjusted", "panas_normalized", "panas_items_adjusted", "panas_items_normalized", "panas_part")


def _describe(x: np.ndarray) -> tuple[float, float, float, int]:
    x = x[~np.isnan(x)]
    n = len(x)
    sd = float(np.std(x, ddof=1)) if n > 1 else np.nan
    return (float(np.mean(x)) if n else np.nan, sd, sd / np.sqrt(n) if n > 1 else np.nan, n)


def model_summary(turns: pd.DataFrame, conv: pd.DataFrame, n_cohort: int) -> pd.DataFrame:
    """One row per metric (and subset) of one model, mode and rule set: mean over
    conversations, sd, se, n.

    ``subset`` is 'all', or 'panas_strategy=<s>' for the PANAS metrics of the conversations
    the model answered with strategy <s>. Pooled precision/recall/F1/MCC come from the
    confusion counts of every scored turn. Coverage rows: conversations scored, their share of
    the cohort, turns scored.
    """
    rows = []
    names = [m.name for m in METRICS if m.name in conv]
    values = dict(zip(names, conv[names].to_numpy(float).T)) if names else {}  # one conversion for all
    for name in names:
        rows.append((name, "all", *_describe(values[name])))
    strategies = conv["panas_strategy"].astype(object).where(conv["panas_strategy"].notna(), "unknown")
    for strategy in sorted(set(strategies)):
        sel = (strategies == strategy).to_numpy()
        for name in PANAS_METRICS:
            rows.append((name, f"panas_strategy={strategy}", *_describe(values[name][sel])))
    for prefix in ACCURACY_NAME:
        # min_count=1: counts left undefined for the whole cohort (availability.py) stay NaN.
        c = {k: float(turns[f"{prefix}_{k}"].sum(min_count=1)) for k in ("tp", "fp", "tn", "fn")}
        if any(np.isnan(v) for v in c.values()) and len(turns):
            rows.extend(
                (f"{prefix}_{stat}", "all", np.nan, np.nan, np.nan, 0) for stat in ("precision", "recall", "f1", "mcc")
            )
            continue
        c = {k: 0.0 if np.isnan(v) else v for k, v in c.items()}
        for stat, value in pooled(c["tp"], c["fp"], c["tn"], c["fn"]).items():
            rows.append((f"{prefix}_{stat}", "all", value, np.nan, np.nan, int(sum(c.values()))))
    rows.append(("n_conversations", "all", float(len(conv)), np.nan, np.nan, len(conv)))
    rows.append(("coverage", "all", len(conv) / n_cohort if n_cohort else np.nan, np.nan, np.nan, len(conv)))
    rows.append(("n_turns", "all", float(len(turns)), np.nan, np.nan, len(turns)))
    return pd.DataFrame(rows, columns=["metric", "subset", "mean", "sd", "se", "n"])

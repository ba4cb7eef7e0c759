"""Holistic comprehension per conversation: PANAS prediction, conversation-wide questions,
four-branch ratings and post-chat ratings (an extension), vectorised over a model's scored
conversations.

PANAS: the EM's predicted post-chat values come from ``predicted_post_panas`` (absolute), or
from ``predicted_panas_delta`` added to the gold pre-chat value (delta strategies); predicted
totals are rounded and clamped to 10..70. Items are compared on the 1..7 scale, over the items
present on both sides.

Rule sets (``rules.Rules``; D-numbers: docs/metrics.md, divergence table): under parity a
missing total is the sum of the items present (D15), else taken as 40 in the normalised accuracy
(an affect missing on both sides left out, D14), and a missing four-branch prediction as 4 (no
turn fallback, D18); no gold four-branch rating gives MAE 0 and score 1; no gold survey is
scored against empty answers (D19); a null baseline-adjusted score enters the composite as 0.5.
The port setting reads the predictions as given (D22) and the gold items under 'responses'
only (D4). Under strict a missing prediction is
maximally wrong (the value farthest from the gold on the scale) and a conversation without a
gold value is excluded (NaN). Post-chat ratings (an extension): a missing prediction is the
scale midpoint under parity and the worst value under strict; no gold ratings is NaN under both.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from .. import instrument
from .frame import ModelFrame
from .gold import GoldIndex, grid
from .keys import codes, mapped, unique_first, unique_sorted, vocabulary
from .labels import fuzzy_f1
from .rules import Rules

CW_COLUMNS = ("cw_q1_f1", "cw_q2_exact", "cw_q3_exact", "cw_q3_distance", "cw_followup_f1", "conversation_wide")


def worst(gold: np.ndarray, lo: float | np.ndarray, hi: float | np.ndarray) -> np.ndarray:
    """The prediction farthest from ``gold`` on [lo, hi] (bounds scalar or per column, broadcast):
    how strict reads a missing one."""
    return np.where(gold - lo >= hi - gold, lo, hi)


def baseline_adjusted(post: np.ndarray, pre: np.ndarray, pred: np.ndarray, max_error: float) -> np.ndarray:
    """clip((raw - naive) / (1 - naive), -1, 1); NaN where post == pre or an input is NaN.

    raw = max(0, 1 - |post - pred| / max_error), naive = max(0, 1 - |post - pre| / max_error).
    """
    naive = np.maximum(0.0, 1.0 - np.abs(post - pre) / max_error)
    raw = np.maximum(0.0, 1.0 - np.abs(post - pred) / max_error)
    ok = ~np.isnan(naive) & ~np.isnan(raw) & (naive < 1.0)
    out = np.full(np.broadcast(post, pre, pred).shape, np.nan)
    out[ok] = np.clip((raw[ok] - naive[ok]) / (1.0 - naive[ok]), -1.0, 1.0)
    return out


def _nanmean_rows(x: np.ndarray) -> np.ndarray:
    k = (~np.isnan(x)).sum(axis=1)
    return np.divide(np.nansum(x, axis=1), k, out=np.full(len(x), np.nan), where=k > 0)


def _affect_sums(items: np.ndarray, positive: np.ndarray) -> np.ndarray:
    """[n, 2] sums of the items present of each affect (NaN where an affect has none)."""
    out = np.full((len(items), 2), np.nan)
    for k, cols in enumerate((positive, ~positive)):
        part = items[:, cols]
        present = ~np.isnan(part).all(axis=1)
        out[present, k] = np.nansum(part[present], axis=1)
    return out


def _js_round_array(x: np.ndarray) -> np.ndarray:
    """JavaScript's Math.round, elementwise (NaN stays NaN)."""
    lower = np.floor(x)
    return np.where(x - lower >= 0.5, lower + 1.0, lower)


def panas_scores(
    gold: GoldIndex, frame: ModelFrame, em_panas: pd.DataFrame, rules: Rules, counts: Counter
) -> dict[str, np.ndarray]:
    rule_set = rules.rule_set
    port = rules.port_panas_prediction
    n = len(frame.convs)
    pre, post = gold.panas_pre[frame.convs], gold.panas_post[frame.convs]
    item_pre, item_post = gold.item_pre[frame.convs], gold.item_post[frame.convs]
    if not rules.gold_items_block:  # the port's reader sees items under 'responses' only (D4)
        item_pre = np.where(gold.responses_pre[frame.convs][:, None], _js_round_array(item_pre), np.nan)
        item_post = np.where(gold.responses_post[frame.convs][:, None], _js_round_array(item_post), np.nan)
        pre = np.where(_given(gold, frame, "pre"), pre, np.nan)
        post = np.where(_given(gold, frame, "post"), post, np.nan)
    if rules.totals_from_present_items:  # D15: a missing gold total is the sum of its items present
        rnd = _js_round_array if port else np.round
        pre = np.where(np.isnan(pre), np.clip(rnd(_affect_sums(item_pre, gold.item_positive)), 10, 70), pre)
        post = np.where(np.isnan(post), np.clip(rnd(_affect_sums(item_post, gold.item_positive)), 10, 70), post)
    e_conv = frame.conv_rows(em_panas)
    kind = mapped(em_panas["kind"], {"post": 0, "delta": 1}, -1)
    is_total = (em_panas["level"] == "total").to_numpy(bool)
    values = em_panas["value"].to_numpy(float, na_value=np.nan)
    item_col = np.where(~is_total & (kind >= 0), codes(em_panas["name"], gold.item_names), -1)
    item_abs = grid(e_conv, np.where(kind == 0, item_col, -1), values, n, 20)
    item_delta = grid(e_conv, np.where(kind == 1, item_col, -1), values, n, 20)
    item_pred = np.where(~np.isnan(item_abs), item_abs, item_pre + item_delta)
    if not port:  # the port reads predictions as given
        item_pred = np.clip(item_pred, 1, 7)

    read_total = is_total
    if not rules.nested_predicted_totals:  # D28: the port sees only the post totals beside the items
        nested = (em_panas["placement"] == "totals").to_numpy(bool, na_value=False)
        read_total = is_total & ~(nested & (kind == 0))  # deltas are ours under every setting (D23)
    tot_col = np.where(
        read_total & (kind >= 0), kind * 2 + mapped(em_panas["name"], {"positive": 0, "negative": 1}, -9), -1
    )
    tot = grid(e_conv, np.where(tot_col >= 0, tot_col, -1), values, n, 4)
    absolute, delta = tot[:, 0:2], tot[:, 2:4]
    pred = np.where(~np.isnan(absolute), absolute, pre + delta)
    source = np.where(~np.isnan(absolute), 0, np.where(~np.isnan(pred), 1, 2))
    for code, name in enumerate(("absolute", "delta", "missing")):
        counts[f"panas_prediction_{name}"] += int((source == code).sum())
    if rules.totals_from_present_items:  # D15: the predicted items present stand in for a missing total
        pred = np.where(np.isnan(pred), _affect_sums(item_pred, gold.item_positive), pred)
    if not port:
        pred = np.clip(np.round(pred), 10, 70)  # numpy rounds half to even, as Python's round

    if rule_set == "parity":
        one_side = np.isnan(post) ^ np.isnan(pred)
        both = np.isnan(post) & np.isnan(pred)
        counts["panas_total_missing_taken_as_40"] += int((one_side | (both & ~rules.skip_missing_affect)).sum())
        err = np.abs(np.nan_to_num(post, nan=40.0) - np.nan_to_num(pred, nan=40.0))
        if rules.skip_missing_affect:  # D14: an affect missing on both sides is left out (none left: MAE 0)
            counts["panas_affect_missing_both_sides"] += int(both.sum())
            err = np.where(both, np.nan, err)
            mae = np.nan_to_num(_nanmean_rows(err), nan=0.0)
        else:
            mae = err.mean(axis=1)
        normalized = np.maximum(0.0, 1.0 - mae / 60.0)
        pred_eff = pred
    else:
        pred_eff = np.where(np.isnan(pred), worst(post, 10, 70), pred)
        normalized = np.maximum(0.0, 1.0 - _nanmean_rows(np.abs(post - pred_eff)) / 60.0)
    defined_inputs = ~np.isnan(post) & ~np.isnan(pre) & ~np.isnan(pred_eff)
    counts["panas_post_equals_pre"] += int((defined_inputs & (post == pre)).sum())
    adjusted = _nanmean_rows(baseline_adjusted(post, pre, pred_eff, 60.0))
    if rule_set == "parity":
        counts["panas_adjusted_null_part_half"] += int(np.isnan(adjusted).sum())
        part = np.where(np.isnan(adjusted), 0.5, (adjusted + 1.0) / 2.0)
    else:
        part = (adjusted + 1.0) / 2.0

    item_err = np.abs(item_post - item_pred)  # NaN unless both sides are present
    items_normalized = 1.0 - _nanmean_rows(item_err) / 6.0
    return {
        "panas_normalized": normalized,
        "panas_adjusted": adjusted,
        "panas_part": part,
        "panas_items_normalized": items_normalized if port else np.maximum(0.0, items_normalized),
        "panas_items_adjusted": _nanmean_rows(baseline_adjusted(item_post, item_pre, item_pred, 6.0)),
    }


def _given(gold: GoldIndex, frame: ModelFrame, phase: str) -> np.ndarray:
    """[n, 2] True where the gold total of ``phase`` was given in the file (not derived)."""
    totals = gold.tables["panas_totals"]
    sel = (totals["phase"] == phase).to_numpy(bool)
    conv = codes(totals["conversation_id"], gold.conversations)[sel]
    out = np.zeros((len(gold.conversations), 2), dtype=bool)
    for k, col in enumerate(("positive_source", "negative_source")):
        ok = conv >= 0
        out[conv[ok], k] = (totals[col].to_numpy(object)[sel] == "given")[ok]
    return out[frame.convs]


_QUESTIONS = ("q1_lookingFor", "q2_emotionClarity", "q3_modelFit", "q3_followUp_whatFeltOff")


def _answers(df: pd.DataFrame, conv: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per survey question, (conversation row, normalised answer) of its answers in answer
    order (by conversation row, then item index); rows whose ``conv`` is -1 are left out."""
    ok = conv >= 0
    c = conv[ok]
    question = df["question"].to_numpy(object)[ok]
    answer = df["answer_norm"].to_numpy(object, na_value="")[ok]
    # One stable sort for all questions: each question's rows keep the order a sort of its own
    # rows would give (ties in their table order).
    order = np.lexsort((df["item_index"].to_numpy(np.int64)[ok], c))
    c, question, answer = c[order], question[order], answer[order]
    out = {}
    for q in _QUESTIONS:
        sel = question == q
        out[q] = c[sel], answer[sel]
    return out


def _first(conv: np.ndarray, answer: np.ndarray, n: int) -> np.ndarray:
    """The first answer of each conversation ('' when there is none)."""
    out = np.full(n, "", dtype=object)
    uniq, first = unique_first(conv)
    out[uniq] = answer[first]
    return out


def _set_f1(g_conv, g_ans, p_conv, p_ans, n, raw_lists: bool = False) -> np.ndarray:
    """Set F1 of each conversation's answers; both empty 1, one empty 0. Items are trimmed and
    lower-cased; '' is dropped, or with ``raw_lists`` (D20, the public scorer) kept as a member
    and the emptiness tested on the lists as given."""
    g_ser, p_ser = pd.Series(g_ans, dtype=object), pd.Series(p_ans, dtype=object)
    vocab = vocabulary(g_ser, p_ser)
    nv = max(len(vocab), 1)
    keep_g, keep_p = (np.ones(len(g_ans), bool), np.ones(len(p_ans), bool)) if raw_lists else (g_ans != "", p_ans != "")
    gk = unique_sorted((g_conv * nv + codes(g_ser, vocab))[keep_g])
    pk = unique_sorted((p_conv * nv + codes(p_ser, vocab))[keep_p])
    ng = np.bincount(gk // nv, minlength=n)[:n]
    npred = np.bincount(pk // nv, minlength=n)[:n]
    ni = np.bincount(np.intersect1d(gk, pk, assume_unique=True) // nv, minlength=n)[:n]
    total = ng + npred
    return np.where(total == 0, 1.0, np.where((ng == 0) | (npred == 0), 0.0, 2.0 * ni / np.maximum(total, 1)))


def conversation_wide_scores(
    gold: GoldIndex, frame: ModelFrame, pred: pd.DataFrame, rules: Rules, counts: Counter
) -> dict[str, np.ndarray]:
    """Q1 set F1, Q2/Q3 exact match, Q3 ordinal distance, follow-up fuzzy F1 and their mean.

    Answers are compared trimmed and lower-cased; a missing single answer compares as ''.
    A conversation without a gold post-chat survey is NaN everywhere, or (parity, D19: the
    public scorer) scored against empty gold answers.
    """
    rule_set = rules.rule_set
    n = len(frame.convs)
    has_gold = gold.has_survey[frame.convs]
    g_conv = np.full(len(gold.survey), -1, dtype=np.int64)
    if n:
        pos = np.minimum(np.searchsorted(frame.convs, gold.survey_conv), n - 1)
        g_conv = np.where((frame.convs[pos] == gold.survey_conv) & (gold.survey_conv >= 0), pos, -1)
    p_conv = frame.conv_rows(pred)
    counts["conversation_wide_gold_missing"] += int((~has_gold).sum())
    p_any = np.zeros(n, dtype=bool)
    p_any[p_conv[p_conv >= 0]] = True
    counts["conversation_wide_prediction_missing"] += int((has_gold & ~p_any).sum())

    by_side = {"gold": _answers(gold.survey, g_conv), "pred": _answers(pred, p_conv)}

    def ans(which: str, question: str) -> tuple[np.ndarray, np.ndarray]:
        return by_side[which][question]

    q1 = _set_f1(*ans("gold", "q1_lookingFor"), *ans("pred", "q1_lookingFor"), n, rules.raw_survey_lists)
    q2 = (_first(*ans("gold", "q2_emotionClarity"), n) == _first(*ans("pred", "q2_emotionClarity"), n)).astype(float)
    q3g, q3p = _first(*ans("gold", "q3_modelFit"), n), _first(*ans("pred", "q3_modelFit"), n)
    q3 = (q3g == q3p).astype(float)
    fit = {o.strip().lower(): i for i, o in enumerate(instrument.survey_options()["q3_modelFit"])}
    ig = np.array([fit.get(x, -1) for x in q3g], dtype=np.int64)
    ip = np.array([fit.get(x, -1) for x in q3p], dtype=np.int64)
    distance = np.where((ig < 0) & (ip < 0), 0.0, np.where((ig < 0) | (ip < 0), 3.0, np.abs(ig - ip)))

    follow = np.ones(n)
    lists: dict[int, tuple[list[str], list[str]]] = {}
    for side, (cs, answers) in enumerate(
        (ans("gold", "q3_followUp_whatFeltOff"), ans("pred", "q3_followUp_whatFeltOff"))
    ):
        for c, a in zip(cs.tolist(), answers.tolist()):
            lists.setdefault(c, ([], []))[side].append(a)
    for c, (g_list, p_list) in lists.items():
        follow[c] = fuzzy_f1(g_list, p_list, as_lists=rules.raw_survey_lists)

    if rule_set == "strict":
        none = ~p_any
        q1, q2, q3, follow = (np.where(none, 0.0, x) for x in (q1, q2, q3, follow))
        distance = np.where(none, 3.0, distance)
    out = {"cw_q1_f1": q1, "cw_q2_exact": q2, "cw_q3_exact": q3, "cw_q3_distance": distance, "cw_followup_f1": follow}
    out["conversation_wide"] = (q1 + q2 + q3 + follow) / 4
    if rules.empty_survey_when_missing:
        counts["conversation_wide_gold_missing_scored_as_empty"] += int((~has_gold).sum())
        return out
    return {k: np.where(has_gold, v, np.nan) for k, v in out.items()}


def four_branch_scores(
    gold: GoldIndex, frame: ModelFrame, pred: pd.DataFrame, rules: Rules, counts: Counter
) -> dict[str, np.ndarray]:
    """Four-branch MAE over the branches with a gold rating, and 1 - MAE / 6.

    The prediction is the post-conversation rating set; under strict, when it holds no rating,
    the ratings of the last EM turn that gives any (D18: the public scorer has no such fallback).
    """
    rule_set = rules.rule_set
    n = len(frame.convs)
    g = gold.four[frame.convs]
    p_conv = frame.conv_rows(pred)
    p_branch = codes(pred["branch"], gold.branches)
    rating = pred["rating"].to_numpy(float, na_value=np.nan)
    is_post = (pred["source"] == "post").to_numpy(bool)
    post = grid(np.where(is_post, p_conv, -1), p_branch, rating, n, 4)
    turn = pred["turn_number"].to_numpy(float, na_value=-1.0)
    last = np.full(n, -1.0)
    ok = ~is_post & (p_conv >= 0)
    np.maximum.at(last, p_conv[ok], turn[ok])
    at_last = ok & (turn == last[np.maximum(p_conv, 0)])
    by_turn = grid(np.where(at_last, p_conv, -1), p_branch, rating, n, 4)
    has_post = ~np.isnan(post).all(axis=1)
    p = np.where(has_post[:, None], post, by_turn) if rules.four_branch_turn_fallback else post

    has_gold = ~np.isnan(g)
    counts["four_branch_prediction_missing"] += int((has_gold & np.isnan(p)).sum())
    fill = np.full_like(g, 4.0) if rule_set == "parity" else worst(g, 1, 7)
    err = np.where(has_gold, np.abs(g - np.where(np.isnan(p), fill, p)), np.nan)
    mae = _nanmean_rows(err)
    no_gold = ~has_gold.any(axis=1)
    counts["four_branch_no_gold"] += int(no_gold.sum())
    if rule_set == "parity":
        mae = np.where(no_gold, 0.0, mae)
    return {"four_branch_mae": mae, "four_branch": 1.0 - mae / 6.0}


def post_chat_rating_scores(
    gold: GoldIndex, frame: ModelFrame, pred: pd.DataFrame, rule_set: str, counts: Counter
) -> dict[str, np.ndarray]:
    """Post-chat ratings (extension; instrument/post_chat_ratings.csv, e.g. ESConv's empathy
    and relevance, 1..5): MAE over the items with a gold rating, in rating points (0..4 on a
    1..5 scale), and 1 - MAE / (high - low) in [0, 1].

    Predictions are clamped to each item's scale. A missing prediction of a gold item is read as
    the scale midpoint under parity (as a missing four-branch rating is read as 4) and as the
    farthest value from the gold under strict. No official scorer defines a conversation without
    gold ratings, so it is NaN under both rule sets (not the parity 1.0 of four-branch).
    """
    n = len(frame.convs)
    items = [instrument.rating_items()[name] for name in gold.rating_items]
    low = np.array([i.low for i in items], dtype=float)
    high = np.array([i.high for i in items], dtype=float)
    g = gold.ratings[frame.convs]
    p = grid(
        frame.conv_rows(pred),
        codes(pred["item"], gold.rating_items),
        pred["rating"].to_numpy(float, na_value=np.nan),
        n,
        len(items),
    )
    p = np.clip(p, low, high)
    has_gold = ~np.isnan(g)
    counts["post_chat_ratings_prediction_missing"] += int((has_gold & np.isnan(p)).sum())
    fill = np.broadcast_to((low + high) / 2, g.shape) if rule_set == "parity" else worst(g, low, high)
    err = np.where(has_gold, np.abs(g - np.where(np.isnan(p), fill, p)), np.nan)
    counts["post_chat_ratings_no_gold"] += int((~has_gold.any(axis=1)).sum())
    mae = _nanmean_rows(err)
    scaled = _nanmean_rows(np.where(has_gold, err / (high - low), np.nan))
    return {"post_chat_ratings_mae": mae, "post_chat_ratings": 1.0 - scaled}

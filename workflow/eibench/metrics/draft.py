"""The EM's drafted reply per turn: judge score, response similarity, preference alignment.

Reported apart from the composite (the optional fourth pillar).
- draft_judge: (mean of whichever of overall_score, emotional_appropriateness, helpfulness,
  tone_match are present - 1) / 6, clipped to [0, 1]; null without any judge score.
- response_similarity: best token-Jaccard of the draft with the original, improved and
  human-edited replies present at the turn; null without a draft (a draft without words scores
  0 against a reply with words, 1 against a reply without words: equal token sets).
- preference_alignment: sum over replies of (share of the turn's pairwise wins) x
  token-Jaccard(draft, reply). Parity (the public scorer): replies without text are left out and
  the shares renormalised (0 when none is left), a turn without a gold winner takes the response
  similarity, and no draft (null or '') scores 0 on both metrics; strict: a reply without text
  counts 0, and no draft or no gold winner is null.

Token-Jaccard is vectorised: every text becomes a set of (row, token id) keys, tokens being
Python's ``text.lower().split()`` (the same tokens as ``labels.token_jaccard``), and the
intersection of two sets of keys counts the shared tokens of each row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..release.tidy import JUDGE_FIELDS
from .gold import TOKEN_BITS, GoldIndex, tokenize
from .keys import arrow, unique_sorted
from .rules import Rules


def judge_scores(em_turns: pd.DataFrame) -> np.ndarray:
    """Per-row judge score of ``em_turns`` (aligned with its rows)."""
    cols = [f"judge_{f}" for f in JUDGE_FIELDS]
    values = (
        np.column_stack([em_turns[c].to_numpy(float, na_value=np.nan) for c in cols])
        if len(em_turns)
        else np.zeros((0, 4))
    )
    present = ~np.isnan(values)
    n = present.sum(axis=1)
    mean = np.divide(np.nansum(values, axis=1), n, out=np.full(len(values), np.nan), where=n > 0)
    return np.clip((mean - 1.0) / 6.0, 0.0, 1.0)


def as_arrow(values: pd.Series, rows: np.ndarray) -> pa.Array:
    """``values[rows]`` as an Arrow string array, null where ``rows`` is -1."""
    if len(values) == 0:
        return pa.nulls(len(rows), pa.large_string())
    idx = pa.array(np.maximum(rows, 0), mask=rows < 0)
    return arrow(values).cast(pa.large_string()).take(idx)


def draft_token_keys(gold: GoldIndex, drafts: pa.Array, js: bool = False) -> np.ndarray:
    """Sorted distinct (row << TOKEN_BITS | token id) keys of the drafts' tokens, token ids in
    the dictionary of the gold replies' tokens (``js``: JavaScript's tokens, D12)."""
    tid, tok, _ = tokenize(drafts, gold.replies(js).dictionary, js=js)
    return unique_sorted((tid << TOKEN_BITS) | tok)


def draft_jaccards(gold: GoldIndex, gold_rows: np.ndarray, draft_keys: np.ndarray, js: bool = False) -> np.ndarray:
    """[n, 3] token-Jaccard of each turn's draft (``draft_keys``: ``draft_token_keys`` of the
    drafts, one per gold row of ``gold_rows``) with its original, alternate and human reply;
    1 where both token sets are empty (the reply's presence is not looked at here)."""
    n = len(gold_rows)
    replies = gold.replies(js)
    d_tid = draft_keys >> TOKEN_BITS
    d_size = np.bincount(d_tid, minlength=n)[:n]
    as_gold = (gold_rows[d_tid] << TOKEN_BITS) | (draft_keys & ((1 << TOKEN_BITS) - 1))
    out = np.empty((n, 3))
    for k in range(3):
        reply = replies.keys[k]
        pos = np.minimum(np.searchsorted(reply, as_gold), max(len(reply) - 1, 0))
        shared = (reply[pos] == as_gold) if len(reply) else np.zeros(len(as_gold), dtype=bool)
        inter = np.bincount(d_tid[shared], minlength=n)[:n]
        union = d_size + replies.sizes[k][gold_rows] - inter
        out[:, k] = np.divide(inter, union, out=np.ones(n), where=union > 0)  # two empty token sets are equal: 1
    return out


def similarity_scores(
    gold: GoldIndex,
    gold_rows: np.ndarray,
    drafts: pa.Array,
    win_share: np.ndarray,
    rules: Rules | None = None,
    jaccards: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Response similarity and preference alignment per turn.

    ``gold_rows``: the gold turn row of each scored turn; ``drafts``: the EM drafts aligned
    with them (null where missing); ``win_share`` [n, 3]: each reply's share of the turn's gold
    wins (NaN rows when the turn has no winner). Token sets of the replies come precomputed
    from ``gold``; a draft token absent from every reply can only enlarge the union.

    ``rules`` (default: strict's) decide no draft (D6: 0 and '' is no draft, else null), no gold
    winner (D7a: the response similarity, else null), winners without text (D7b: left out and
    the shares renormalised, else similarity 0) and JavaScript tokens (D12).

    ``jaccards``: ``draft_jaccards`` of the drafts under the same tokens, when already
    computed (the rule sets of a model share them).
    """
    n = len(drafts)
    if n == 0:
        return np.zeros(0), np.zeros(0)
    js = bool(rules and rules.js_text)
    replies = gold.replies(js)
    has_draft = drafts.is_valid().to_numpy(zero_copy_only=False)
    if rules and rules.draft_missing_zero:  # the public scorer tests the draft's truthiness
        has_draft &= pc.fill_null(pc.greater(pc.utf8_length(drafts), 0), False).to_numpy(zero_copy_only=False)
    if jaccards is None:
        jaccards = draft_jaccards(gold, gold_rows, draft_token_keys(gold, drafts, js), js)
    scores = np.full((n, 3), np.nan)
    for k in range(3):
        # The port reads an empty improved or edited reply as none (its truthiness test).
        present = replies.has_text[k] if k and rules and rules.compat == "port" else replies.present[k]
        scores[:, k] = np.where(present[gold_rows], jaccards[:, k], np.nan)
    any_reply = ~np.isnan(scores).all(axis=1)
    best = np.full(n, np.nan)
    best[any_reply] = np.nanmax(scores[any_reply], axis=1)
    share = np.nan_to_num(win_share)
    if rules and rules.alignment_renormalise:
        text = np.column_stack([replies.has_text[k][gold_rows] for k in range(3)]) if n else np.zeros((0, 3), bool)
        weight = (share * text).sum(axis=1)
        align = np.divide((np.nan_to_num(scores) * share * text).sum(axis=1), weight, out=np.zeros(n), where=weight > 0)
    else:
        align = (np.nan_to_num(scores) * share).sum(axis=1)
    no_winner = np.isnan(win_share[:, 0])
    if rules and rules.alignment_fallback:
        align = np.where(no_winner, best, align)
    else:
        align = np.where(no_winner, np.nan, align)
    if rules and rules.draft_missing_zero:
        return np.where(has_draft, best, 0.0), np.where(has_draft, align, 0.0)
    return np.where(has_draft, best, np.nan), np.where(has_draft, align, np.nan)

"""The EM's drafted reply per turn: judge score, response similarity, preference alignment.

Reported apart from the composite (the optional fourth pillar).
- draft_judge: (mean of whichever of overall_score, emotional_appropriateness, helpfulness,
  tone_match are present - 1) / 6, clipped to [0, 1]; null without any judge score.
- response_similarity: best token-Jaccard of the draft with the original, improved and
  human-edited replies present at the turn; null without a draft (a draft without words scores
  0 against a reply with words, 1 against a reply without words: equal token sets).
- preference_alignment: sum over replies of (share of the turn's pairwise wins) x
  token-Jaccard(draft, reply) (0 for a reply with no text); null without a draft or without any
  gold winner.

Token-Jaccard is vectorised: every text becomes a set of (row, token id) keys, tokens being
Python's ``text.lower().split()`` (the same tokens as ``labels.token_jaccard``), and the
intersection of two sets of keys counts the shared tokens of each row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from ..release.tidy import JUDGE_FIELDS
from .gold import TOKEN_BITS, GoldIndex, tokenize
from .keys import arrow, unique_sorted


def judge_scores(em_turns: pd.DataFrame) -> np.ndarray:
    """Per-row judge score of ``em_turns`` (aligned with its rows)."""
    cols = [f"judge_{f}" for f in JUDGE_FIELDS]
    values = np.column_stack([em_turns[c].to_numpy(float, na_value=np.nan) for c in cols]) if len(em_turns) else np.zeros((0, 4))
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


def similarity_scores(gold: GoldIndex, gold_rows: np.ndarray, drafts: pa.Array, win_share: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Response similarity and preference alignment per turn.

    ``gold_rows``: the gold turn row of each scored turn; ``drafts``: the EM drafts aligned
    with them (null where missing); ``win_share`` [n, 3]: each reply's share of the turn's gold
    wins (NaN rows when the turn has no winner). Token sets of the replies come precomputed
    from ``gold``; a draft token absent from every reply can only enlarge the union.
    """
    n = len(drafts)
    if n == 0:
        return np.zeros(0), np.zeros(0)
    has_draft = drafts.is_valid().to_numpy(zero_copy_only=False)  # an empty draft is a draft (similarity 0)
    tid, tok, _ = tokenize(drafts, gold.token_dictionary)
    draft_keys = unique_sorted((tid << TOKEN_BITS) | tok)
    d_tid = draft_keys >> TOKEN_BITS
    d_size = np.bincount(d_tid, minlength=n)[:n]
    as_gold = (gold_rows[d_tid] << TOKEN_BITS) | (draft_keys & ((1 << TOKEN_BITS) - 1))
    scores = np.full((n, 3), np.nan)
    for k in range(3):
        reply = gold.reply_keys[k]
        pos = np.minimum(np.searchsorted(reply, as_gold), max(len(reply) - 1, 0))
        shared = (reply[pos] == as_gold) if len(reply) else np.zeros(len(as_gold), dtype=bool)
        inter = np.bincount(d_tid[shared], minlength=n)[:n]
        union = d_size + gold.reply_sizes[k][gold_rows] - inter
        jac = np.divide(inter, union, out=np.ones(n), where=union > 0)  # two empty token sets are equal: 1
        scores[:, k] = np.where(gold.reply_present[k][gold_rows], jac, np.nan)
    any_reply = ~np.isnan(scores).all(axis=1)
    best = np.full(n, np.nan)
    best[any_reply] = np.nanmax(scores[any_reply], axis=1)
    sim = np.where(has_draft, best, np.nan)
    align = (np.nan_to_num(scores) * np.nan_to_num(win_share)).sum(axis=1)
    align = np.where(has_draft & ~np.isnan(win_share[:, 0]), align, np.nan)
    return sim, align

"""The EM's drafted reply per turn: judge score, response similarity, preference alignment.

Reported apart from the composite (the optional fourth pillar).
- draft_judge: (mean of whichever of overall_score, emotional_appropriateness, helpfulness,
  tone_match are present - 1) / 6, clipped to [0, 1]; null without any judge score.
- response_similarity: best token-Jaccard of the draft with the original, improved and
  human-edited replies present at the turn; null without a draft.
- preference_alignment: sum over replies of (share of the turn's pairwise wins) x
  token-Jaccard(draft, reply) (0 for a reply with no text); null without a draft or without any
  gold winner.

Token-Jaccard is vectorised: every text becomes a set of (row, token id) keys, and the
intersection of two sets of keys counts the shared tokens of each row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..release.tidy import JUDGE_FIELDS
from .keys import unique_sorted

REPLY_COLUMNS = ("llm_response", "llm_improved", "human_edited")  # original, alternate, human


def judge_scores(em_turns: pd.DataFrame) -> np.ndarray:
    """Per-row judge score of ``em_turns`` (aligned with its rows)."""
    cols = [f"judge_{f}" for f in JUDGE_FIELDS]
    values = np.column_stack([em_turns[c].to_numpy(float, na_value=np.nan) for c in cols]) if len(em_turns) else np.zeros((0, 4))
    present = ~np.isnan(values)
    n = present.sum(axis=1)
    mean = np.divide(np.nansum(values, axis=1), n, out=np.full(len(values), np.nan), where=n > 0)
    return np.clip((mean - 1.0) / 6.0, 0.0, 1.0)


def _as_arrow(values: pd.Series, rows: np.ndarray) -> pa.Array:
    """``values[rows]`` as an Arrow string array, null where ``rows`` is -1."""
    arr = pa.array(values.to_numpy(object, na_value=None), type=pa.string()) if not len(values) else pa.array(values, type=pa.string())
    idx = pa.array(np.maximum(rows, 0), mask=rows < 0) if len(values) else pa.nulls(len(rows), pa.int64())
    return arr.take(idx) if len(values) else pa.nulls(len(rows), pa.string())


def _token_keys(texts: list[pa.Array]) -> tuple[list[np.ndarray], int]:
    """For each text array: sorted distinct keys row * n_tokens + token id of its lower-cased
    whitespace tokens (Unicode lower-casing and whitespace, via Arrow compute)."""
    n = len(texts[0])
    lists = pc.utf8_split_whitespace(pc.utf8_lower(pa.concat_arrays(texts)))
    rows = pc.list_parent_indices(lists).to_numpy().astype(np.int64)
    encoded = pc.dictionary_encode(pc.list_flatten(lists))
    tok = encoded.indices.to_numpy().astype(np.int64)
    n_tok = max(len(encoded.dictionary), 1)
    keys = []
    for k in range(len(texts)):
        sel = (rows >= k * n) & (rows < (k + 1) * n)
        keys.append(unique_sorted((rows[sel] - k * n) * n_tok + tok[sel]))
    return keys, n_tok


def _jaccard(a: np.ndarray, b: np.ndarray, n: int, n_tok: int) -> np.ndarray:
    inter = np.bincount(np.intersect1d(a, b, assume_unique=True) // n_tok, minlength=n)[:n]
    union = np.bincount(a // n_tok, minlength=n)[:n] + np.bincount(b // n_tok, minlength=n)[:n] - inter
    return np.divide(inter, union, out=np.zeros(n), where=union > 0)


def similarity_scores(replies: list[pa.Array], drafts: pa.Array, win_share: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Response similarity and preference alignment per turn.

    ``replies``: the original, improved and edited reply texts (Arrow string arrays, null
    where missing); ``drafts``: the EM drafts; ``win_share`` [n, 3]: each reply's share of the
    turn's gold wins (NaN rows when the turn has no winner).
    """
    n = len(drafts)
    if n == 0:
        return np.zeros(0), np.zeros(0)
    has_draft = pc.fill_null(pc.not_equal(pc.utf8_trim_whitespace(drafts), ""), False).to_numpy(zero_copy_only=False)
    keys, n_tok = _token_keys([drafts, *replies])
    scores = np.column_stack([
        np.where(reply.is_valid().to_numpy(zero_copy_only=False), _jaccard(keys[0], keys[k + 1], n, n_tok), np.nan)
        for k, reply in enumerate(replies)
    ])
    any_reply = ~np.isnan(scores).all(axis=1)
    best = np.full(n, np.nan)
    best[any_reply] = np.nanmax(scores[any_reply], axis=1)
    sim = np.where(has_draft, best, np.nan)
    align = (np.nan_to_num(scores) * np.nan_to_num(win_share)).sum(axis=1)
    align = np.where(has_draft & ~np.isnan(win_share[:, 0]), align, np.nan)
    return sim, align

"""The scored turns and conversations of one model, with dense ids.

A conversation is scored when the model has an output file for it; ``convs`` are their gold
conversation codes (sorted) and a conversation's position in ``convs`` is its row in the
conversation table. A turn gets a dense id ``tid`` (0..n-1) in (conversation, turn) order:
under parity the gold turns the output answers, under strict every gold turn of a scored
conversation (``present`` False for the ones the output lacks).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .gold import TURN_WIDTH, GoldIndex, turn_keys
from .keys import codes, unique_sorted


class ModelFrame:
    def __init__(self, gold: GoldIndex, em_runs: pd.DataFrame, em_turns: pd.DataFrame, keep_missing: bool):
        self.gold = gold
        self.convs = unique_sorted(codes(em_runs["conversation_id"], gold.conversations))
        self.convs = self.convs[self.convs >= 0]
        scored = np.zeros(len(gold.conversations), dtype=bool)
        scored[self.convs] = True

        g_key = gold.turn_key
        g_conv = np.where(g_key >= 0, g_key // TURN_WIDTH, -1)
        in_scored = (g_conv >= 0) & scored[np.maximum(g_conv, 0)]
        e_key = unique_sorted(self.em_keys(em_turns))
        e_key = e_key[e_key >= 0]
        present = np.isin(g_key, e_key) & in_scored
        self.turns_missing = int((in_scored & ~present).sum())
        self.em_turns_not_in_gold = int((~np.isin(e_key, g_key[in_scored])).sum()) + int(
            (self.em_keys(em_turns) < 0).sum()
        )
        keep = in_scored & (present | keep_missing)
        rows = np.flatnonzero(keep)
        order = np.argsort(g_key[rows], kind="stable")
        self.rows = rows[order]  # gold turn row of each tid
        self.keys = g_key[self.rows]
        self.n = len(self.rows)
        self.present = present[self.rows]
        self.conv = np.searchsorted(self.convs, g_conv[self.rows])  # conversation row of each tid
        self.row_of_gold_conv = np.full(len(gold.conversations), -1, dtype=np.int64)
        self.row_of_gold_conv[self.convs] = np.arange(len(self.convs))
        # Direct-address table (conversation row, turn number) -> tid when it is small; turn
        # numbers are small and dense in practice, so a gather replaces a binary search.
        self.max_turn = int(gold.turn_number[self.rows].max(initial=0))
        self.lut = None
        if len(self.convs) * (self.max_turn + 1) <= 8 * self.n + 1024:
            self.lut = np.full((len(self.convs), self.max_turn + 1), -1, dtype=np.int64)
            self.lut[self.conv, gold.turn_number[self.rows]] = np.arange(self.n)

    def em_keys(self, df: pd.DataFrame) -> np.ndarray:
        """Turn keys of an EM table's rows (-1 for an unknown conversation or turn)."""
        return turn_keys(codes(df["conversation_id"], self.gold.conversations), df["turn_number"].to_numpy(np.int64))

    def tid(self, keys: np.ndarray) -> np.ndarray:
        """The tid of each turn key; -1 for a turn that is not scored."""
        if self.n == 0:
            return np.full(len(keys), -1, dtype=np.int64)
        if self.lut is not None:
            row = np.where(keys >= 0, self.row_of_gold_conv[np.maximum(keys, 0) // TURN_WIDTH], -1)
            turn = keys % TURN_WIDTH
            ok = (row >= 0) & (turn <= self.max_turn)
            return np.where(ok, self.lut[np.maximum(row, 0), np.where(ok, turn, 0)], -1)
        pos = np.minimum(np.searchsorted(self.keys, keys), self.n - 1)
        return np.where((self.keys[pos] == keys) & (keys >= 0), pos, -1)

    def conv_rows(self, df: pd.DataFrame) -> np.ndarray:
        """The conversation row of each row of a conversation-level table; -1 if not scored."""
        c = codes(df["conversation_id"], self.gold.conversations)
        return np.where(c >= 0, self.row_of_gold_conv[np.maximum(c, 0)], -1)

    @property
    def conversation_ids(self) -> np.ndarray:
        return self.gold.conversations.to_numpy(object)[self.convs]

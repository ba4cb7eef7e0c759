"""Gold-side arrays of the scorer, computed once per cohort and shared by every model and
rule set.

Every per-turn gold table gets an integer turn key (conversation code x TURN_WIDTH + turn
number); words, questions and labels become codes; reply texts become sorted token keys; the
conversation-level gold (PANAS, survey, four-branch, post-chat ratings) becomes arrays indexed by conversation
code. Scoring a model then only converts that model's tables.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .. import instrument
from .availability import absent_kinds
from .keys import arrow, codes, mapped, unique_first, unique_sorted, vocabulary
from .rules import js_tokens

#: Turn numbers are below this bound (the reader refuses larger ones); a turn key is
#: conversation code * TURN_WIDTH + turn number.
TURN_WIDTH = 1 << 20
#: Token keys pack a row and a token id: row << TOKEN_BITS | token.
TOKEN_BITS = 24
LABELS = ("alternate", "human", "original")  # alphabetical: the Kendall tie-break order
YES, NO, NA = 1, 2, 3
VALUE_CODE = {"yes": YES, "no": NO, "na": NA}
PICK_CODE = {"A": 1, "B": 2}
REPLY_COLUMNS = ("llm_response", "llm_improved", "human_edited")  # original, alternate, human
AFFECTS = ("positive", "negative")


def turn_keys(conv: np.ndarray, turn: np.ndarray) -> np.ndarray:
    """conv * TURN_WIDTH + turn; -1 where the conversation is unknown or the turn out of range."""
    ok = (conv >= 0) & (turn >= 0) & (turn < TURN_WIDTH)
    return np.where(ok, conv * TURN_WIDTH + turn, -1)


_NOT_PLAIN = "[^\\x20-\\x7e\\t\\n\\r\\x0b\\x0c]"  # anything but printable ASCII and ASCII whitespace


def tokenize(
    texts: pa.Array, dictionary: pa.Array | None = None, js: bool = False
) -> tuple[np.ndarray, np.ndarray, pa.Array]:
    """Python's ``text.lower().split()`` tokens of each text: (row, token id, dictionary).

    Plain ASCII texts go through Arrow compute (whose lower-casing and whitespace agree with
    Python's on ASCII); any other text (accents, Greek final sigma, control separators) through
    Python itself, so every token is exactly Python's. With ``js`` the tokens are JavaScript's
    (``rules.js_tokens``: U+FEFF is whitespace, U+001C..U+001F and U+0085 are not). Token ids
    index ``dictionary`` when it is given (other tokens get ids after its end); otherwise the
    dictionary is built here.
    """
    texts = texts.cast(pa.large_string())
    special = pc.fill_null(pc.match_substring_regex(texts, _NOT_PLAIN), False).to_numpy(zero_copy_only=False)
    split = js_tokens if js else str.split  # on plain ASCII text (Arrow's path) the two agree
    plain_rows = np.flatnonzero(~special)
    lists = pc.utf8_split_whitespace(pc.ascii_lower(texts.take(pa.array(plain_rows))))
    rows = (
        plain_rows[pc.list_parent_indices(lists).to_numpy().astype(np.int64)]
        if len(plain_rows)
        else np.zeros(0, np.int64)
    )
    flat = pc.list_flatten(lists).cast(pa.large_string())
    # Arrow splits at every whitespace run, so leading or trailing whitespace (and '') yields an
    # empty token; Python's split() yields none.
    nonempty = pc.greater(pc.utf8_length(flat), 0)
    rows, flat = rows[nonempty.to_numpy(zero_copy_only=False)], flat.filter(nonempty)
    extra_rows, extra_tokens = [], []
    for row in np.flatnonzero(special):
        for token in split(str(texts[int(row)].as_py()).lower()):
            extra_rows.append(row)
            extra_tokens.append(token)
    if extra_tokens:
        rows = np.concatenate([rows, np.array(extra_rows, dtype=np.int64)])
        flat = pa.concat_arrays([flat, pa.array(extra_tokens, type=pa.large_string())])
    if dictionary is None:
        enc = pc.dictionary_encode(flat)
        return rows, enc.indices.to_numpy().astype(np.int64), enc.dictionary
    known = pc.fill_null(pc.index_in(flat, value_set=dictionary), -1).to_numpy(zero_copy_only=False).astype(np.int64)
    local = pc.dictionary_encode(flat).indices.to_numpy().astype(np.int64)
    tok = np.where(known >= 0, known, len(dictionary) + local)
    if tok.size and tok.max() >= 1 << TOKEN_BITS:
        raise ValueError("too many distinct tokens for the token key layout")
    return rows, tok, dictionary


def grid(conv: np.ndarray, col: np.ndarray, value: np.ndarray, n: int, m: int) -> np.ndarray:
    """[n, m] array of ``value`` at (conv, col); the first row wins; NaN where absent."""
    out = np.full((n, m), np.nan)
    ok = (conv >= 0) & (col >= 0)
    flat = conv[ok] * m + col[ok]
    keys, first = unique_first(flat)
    out.flat[keys] = value[ok][first]
    return out


@dataclass
class Replies:
    """Token keys (row << TOKEN_BITS | token id) of each reply column, in REPLY_COLUMNS order."""

    dictionary: pa.Array
    keys: list[np.ndarray]
    sizes: list[np.ndarray]  # tokens per gold turn row
    present: list[np.ndarray]  # the reply is given (not null)
    has_text: list[np.ndarray]  # the reply is a non-empty string


@dataclass
class GoldIndex:
    tables: dict[str, pd.DataFrame]
    conversations: pd.Index  # every gold conversation id, sorted; conversation code = position

    def __post_init__(self) -> None:
        g = self.tables
        n = len(self.conversations)
        self.absent = absent_kinds(g)  # kinds of annotation no conversation has (availability.py)
        turns = g["turns"]
        self.turn_key = turn_keys(
            codes(turns["conversation_id"], self.conversations), turns["turn_number"].to_numpy(np.int64)
        )
        if (self.turn_key < 0).any():
            raise ValueError("a gold turn has no key (unknown conversation or turn number out of range)")
        self.turn_number = turns["turn_number"].to_numpy(np.int64)
        self.rel_position = turns["rel_position"].to_numpy(float, na_value=np.nan)

        tags = g["mood_tags"]
        self.words = vocabulary(tags["emotion"])
        self.tag_key = self._key(tags)
        self.tag_word = codes(tags["emotion"], self.words)
        self.tag_intensity = tags["intensity"].to_numpy(float, na_value=np.nan)
        self.tag_index = tags["tag_index"].to_numpy(np.int64)

        b = g["binary_judgements"]
        self.questions = vocabulary(b["question_id"])
        self.binary_key = self._key(b)
        self.binary_question = codes(b["question_id"], self.questions)
        self.gold_om = mapped(b["gold_om"], VALUE_CODE)
        self.gold_hp = mapped(b["gold_hp"], VALUE_CODE)

        pw = g["pairwise_comparisons"]
        label = {x: i for i, x in enumerate(LABELS)}
        self.pw_key = self._key(pw)
        self.pw_position = pw["position"].to_numpy(np.int64)
        self.pw_a = mapped(pw["response_a"], label, -1)
        self.pw_b = mapped(pw["response_b"], label, -1)
        self.pw_winner = mapped(pw["winner"], PICK_CODE)
        self.pw_winner_reply = mapped(pw["winner_label"], {"original": 0, "alternate": 1, "human": 2}, -1)

        # D10: the last judgement of each (turn, question id), as the public scorer's map keeps.
        last_rows = unique_first((self.binary_key * (len(self.questions) + 1) + self.binary_question)[::-1])[1]
        self.binary_last = np.zeros(len(b), dtype=bool)
        self.binary_last[len(b) - 1 - last_rows] = True
        self._replies: dict[bool, Replies] = {}
        self.replies(js=False)

        totals = g["panas_totals"]
        t_conv = codes(totals["conversation_id"], self.conversations)
        phase = mapped(totals["phase"], {"pre": 0, "post": 1}, -1)
        by_phase = [grid(t_conv, phase, totals[a].to_numpy(float, na_value=np.nan), n, 2) for a in AFFECTS]
        self.panas_pre = np.column_stack([x[:, 0] for x in by_phase]) if n else np.zeros((0, 2))
        self.panas_post = np.column_stack([x[:, 1] for x in by_phase]) if n else np.zeros((0, 2))
        block = totals["items_block"] if "items_block" in totals else pd.Series([None] * len(totals), dtype=object)
        from_responses = grid(t_conv, phase, (block == "responses").to_numpy(bool, na_value=False).astype(float), n, 2)
        self.responses_pre, self.responses_post = from_responses[:, 0] == 1, from_responses[:, 1] == 1
        items = g["panas_items"]
        self.item_names = pd.Index([i.name for i in instrument.panas_items()], dtype=object)
        self.item_positive = np.array([i.affect == "positive" for i in instrument.panas_items()])
        i_conv = codes(items["conversation_id"], self.conversations)
        i_col = codes(items["item"], self.item_names)
        i_phase = mapped(items["phase"], {"pre": 0, "post": 1}, -1)
        i_value = items["value"].to_numpy(float, na_value=np.nan)
        self.item_pre = grid(i_conv, np.where(i_phase == 0, i_col, -1), i_value, n, 20)
        self.item_post = grid(i_conv, np.where(i_phase == 1, i_col, -1), i_value, n, 20)

        conv_table = g["conversations"]
        c = codes(conv_table["conversation_id"], self.conversations)
        self.has_survey = np.zeros(n, dtype=bool)
        self.has_survey[c[c >= 0]] = conv_table["has_conversation_wide"].to_numpy(bool, na_value=False)[c >= 0]
        self.survey = g["survey_answers"]
        self.survey_conv = codes(self.survey["conversation_id"], self.conversations)
        self.branches = pd.Index(list(instrument.FOUR_BRANCHES), dtype=object)
        four = g["four_branch"]
        self.four = grid(
            codes(four["conversation_id"], self.conversations),
            codes(four["branch"], self.branches),
            four["rating"].to_numpy(float, na_value=np.nan),
            n,
            4,
        )
        ratings = g["post_chat_ratings"]
        self.rating_items = pd.Index([i.name for i in instrument.post_chat_ratings()], dtype=object)
        self.ratings = grid(
            codes(ratings["conversation_id"], self.conversations),
            codes(ratings["item"], self.rating_items),
            ratings["rating"].to_numpy(float, na_value=np.nan),
            n,
            len(self.rating_items),
        )

    def replies(self, js: bool) -> "Replies":
        """Token sets of the original, alternate and human replies (Python's tokens, or
        JavaScript's with ``js``), computed once per tokenisation."""
        if js in self._replies:
            return self._replies[js]
        turns = self.tables["turns"]
        texts = pa.concat_arrays(
            [
                arrow(turns[c]).cast(pa.large_string()) if len(turns) else pa.array([], pa.large_string())
                for c in REPLY_COLUMNS
            ]
        )
        empty = (np.zeros(0, np.int64), np.zeros(0, np.int64), pa.array([], pa.large_string()))
        rows, tok, dictionary = tokenize(texts, js=js) if len(texts) else empty
        if len(dictionary) >= 1 << (TOKEN_BITS - 1):
            raise ValueError("too many distinct reply tokens for the token key layout")
        n_turns = len(turns)
        out = Replies(dictionary, [], [], [], [])
        for k, column in enumerate(REPLY_COLUMNS):
            sel = (rows >= k * n_turns) & (rows < (k + 1) * n_turns)
            keys = unique_sorted(((rows[sel] - k * n_turns) << TOKEN_BITS) | tok[sel])
            out.keys.append(keys)
            out.sizes.append(np.bincount(keys >> TOKEN_BITS, minlength=n_turns)[:n_turns])
            out.present.append(turns[column].notna().to_numpy(bool))
            out.has_text.append(
                pc.fill_null(
                    pc.greater(pc.utf8_length(arrow(turns[column]).cast(pa.large_string())), 0), False
                ).to_numpy(zero_copy_only=False)
                if n_turns
                else np.zeros(0, bool)
            )
        self._replies[js] = out
        return out

    @classmethod
    def build(cls, gold: dict[str, pd.DataFrame]) -> "GoldIndex":
        return cls(gold, pd.Index(sorted(gold["conversations"]["conversation_id"].astype(object)), dtype=object))

    def _key(self, df: pd.DataFrame) -> np.ndarray:
        return turn_keys(codes(df["conversation_id"], self.conversations), df["turn_number"].to_numpy(np.int64))

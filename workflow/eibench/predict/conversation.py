"""What an evaluated model may see of a conversation, turn by turn.

``ConversationView`` is built from the gold tidy tables but holds only what the protocol may
show: texts, the comparisons to choose between, the participant profile and the pre-chat
PANAS (shown in omniscient modes only). Gold annotations (mood tags, judgement answers,
winners, post-chat PANAS, survey answers, post-chat ratings) are never copied into it, so no
prompt can leak them; only which rating items the cohort asks is (the same for every view).
``history(t)`` returns turns 1..t-1 only: causality is enforced here, in one place.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import pandas as pd

from .. import instrument
from ..tables import with_none


@dataclass(frozen=True)
class Comparison:
    position: int  # index in the turn's list: the EM's pick is keyed by str(position)
    question_id: str
    text_a: str | None
    text_b: str | None


@dataclass(frozen=True)
class TurnView:
    turn_number: int
    user_message: str
    om_reply: str
    judged_questions: tuple[str, ...]  # question ids the participant answered at this turn
    comparisons: tuple[Comparison, ...]


@dataclass
class ConversationView:
    conversation_id: str
    source_file: str
    turns: list[TurnView]
    profile: dict[str, str] = field(default_factory=dict)  # age, traits, goals
    pre_panas_items: dict[str, float] = field(default_factory=dict)
    pre_panas_totals: dict[str, float | None] = field(default_factory=dict)
    #: Post-chat rating items the cohort's instrument asks (instrument order); the same for every
    #: conversation of a cohort, so it tells nothing about this conversation's own answers.
    rating_items: tuple[str, ...] = ()

    def history(self, turn_number: int) -> list[TurnView]:
        """The turns strictly before ``turn_number``."""
        return [t for t in self.turns if t.turn_number < turn_number]

    def upto(self, turn_number: int) -> list[TurnView]:
        """Turns 1..turn_number (the OM reply at ``turn_number`` included)."""
        return [t for t in self.turns if t.turn_number <= turn_number]


def cohort_rating_items(tables: dict[str, pd.DataFrame]) -> tuple[str, ...]:
    """The post-chat rating items that any conversation of the cohort has, in instrument order;
    () for a cohort without them (the synthetic cohort, an AttuneBench release). Cohort level on
    purpose: whether one person answered the ratings is not shown to a model."""
    ratings = tables.get("post_chat_ratings")
    rated = set() if ratings is None else set(ratings["item"].dropna())
    return tuple(i.name for i in instrument.post_chat_ratings() if i.name in rated)


_REPLY = {"original": "llm_response", "alternate": "llm_improved", "human": "human_edited"}


def conversation_views(
    tables: dict[str, pd.DataFrame], conversation_ids: list[str] | None = None
) -> list[ConversationView]:
    """One view per conversation (sorted by id), from the gold tidy tables."""
    conv = with_none(tables["conversations"])
    wanted = set(conversation_ids) if conversation_ids is not None else None
    turns_by = defaultdict(list)
    for r in with_none(tables["turns"]).itertuples(index=False):
        turns_by[r.conversation_id].append(r)
    judged = defaultdict(list)
    for r in with_none(tables["binary_judgements"]).itertuples(index=False):
        judged[(r.conversation_id, r.turn_number)].append(r.question_id)
    comps = defaultdict(list)
    for r in with_none(tables["pairwise_comparisons"]).itertuples(index=False):
        comps[(r.conversation_id, r.turn_number)].append(r)
    people = {r.participant_id: r for r in with_none(tables["participants"]).itertuples(index=False)}
    pre_items: defaultdict[str, dict[str, float]] = defaultdict(dict)
    for r in with_none(tables["panas_items"]).itertuples(index=False):
        if r.phase == "pre":
            pre_items[r.conversation_id][r.item] = float(r.value)
    pre_totals = {}
    for r in with_none(tables["panas_totals"]).itertuples(index=False):
        if r.phase == "pre":
            pre_totals[r.conversation_id] = {"positive": r.positive, "negative": r.negative}

    rating_items = cohort_rating_items(tables)
    views = []
    for c in sorted(conv.itertuples(index=False), key=lambda r: r.conversation_id):
        cid = c.conversation_id
        if wanted is not None and cid not in wanted:
            continue
        turn_views = []
        for t in sorted(turns_by[cid], key=lambda r: r.turn_number):
            texts = {label: getattr(t, column) for label, column in _REPLY.items()}
            comparisons = tuple(
                Comparison(int(p.position), p.question_id, texts[p.response_a], texts[p.response_b])
                for p in sorted(comps[(cid, t.turn_number)], key=lambda p: p.position)
            )
            turn_views.append(
                TurnView(
                    int(t.turn_number),
                    t.user_message,
                    t.llm_response,
                    tuple(dict.fromkeys(judged[(cid, t.turn_number)])),
                    comparisons,
                )
            )
        person = people.get(c.participant_id)
        profile = {}
        if person is not None:
            profile = {
                "age": person.age or "unknown",
                "traits": (person.traits or "none").replace(";", ", "),
                "goals": (person.goals or "not given").replace(";", ", "),
            }
        views.append(
            ConversationView(
                cid, c.source_file, turn_views, profile, pre_items.get(cid, {}), pre_totals.get(cid, {}), rating_items
            )
        )
    return views

"""The prior baseline: the most common answers of the other conversations.

Every rate is estimated leave-one-conversation-out: the answers for conversation c come from
the gold annotations of all conversations except c, never from c itself (so the baseline knows
the population, the same participant's other conversations included, but not conversation c).
It ignores every text.

- Emotions: no tag when most other turns have none; else the most frequent word (ties:
  alphabetical) at the rounded mean intensity it had elsewhere.
- Behaviour questions: per question, the majority gold answer elsewhere (OM: observed, HP:
  preferred), ties 'no'; the same answers in both wordings.
- Pairwise: for a comparison of reply X (as A) with reply Y (as B), the reply that won more
  often elsewhere in comparisons of X with Y (either order); ties 'A'.
- Post-chat PANAS (absolute): each item's rounded mean post value elsewhere.
- Survey: the most frequent q1 option, q2 and q3 answers elsewhere (ties: survey order), no
  follow-up complaint, four-branch ratings the rounded mean elsewhere.
- Post-chat ratings (a cohort with them only): each item's rounded mean elsewhere (the scale
  midpoint when no other conversation has it).
No draft reply.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pandas as pd

from ... import instrument
from ...tables import with_none
from ..conversation import ConversationView
from ..outputs import output_file
from .common import binary_fields, rounded_rating

VERSION = "prior-v1"


class _LeaveOneOut:
    """Counts over all conversations and per conversation, so any conversation can be left out."""

    def __init__(self) -> None:
        self.total: defaultdict[Any, float] = defaultdict(float)
        self.by_conv: defaultdict[str, defaultdict[Any, float]] = defaultdict(lambda: defaultdict(float))

    def add(self, conversation_id: str, key: Any, amount: float = 1.0) -> None:
        self.total[key] += amount
        self.by_conv[conversation_id][key] += amount

    def without(self, conversation_id: str, key: Any) -> float:
        return self.total[key] - self.by_conv[conversation_id][key]


def _best(counts: dict[Any, float], order: list[Any]) -> Any:
    """The key with the largest count; ties by position in ``order``."""
    return max(order, key=lambda k: (counts.get(k, 0.0), -order.index(k)))


def prior_outputs(
    views: list[ConversationView], tables: dict[str, pd.DataFrame], model: str, mode: str
) -> dict[str, dict[str, Any]]:
    loo = _LeaveOneOut()
    words = sorted(i.word for i in instrument.panas_items())
    turns_all = with_none(tables["turns"])
    for r in turns_all.itertuples(index=False):
        loo.add(r.conversation_id, "turns")
        if r.n_mood_tags == 0:
            loo.add(r.conversation_id, "empty_turns")
    for r in with_none(tables["mood_tags"]).itertuples(index=False):
        loo.add(r.conversation_id, ("word", r.emotion))
        if r.intensity is not None:
            loo.add(r.conversation_id, ("intensity_sum", r.emotion), r.intensity)
            loo.add(r.conversation_id, ("intensity_n", r.emotion))
    for r in with_none(tables["binary_judgements"]).itertuples(index=False):
        for target, gold in (("om", r.gold_om), ("hp", r.gold_hp)):
            if gold in ("yes", "no"):
                loo.add(r.conversation_id, (target, r.question_id, gold))
    for r in with_none(tables["pairwise_comparisons"]).itertuples(index=False):
        if r.winner_label is not None:
            pair = tuple(sorted((r.response_a, r.response_b)))
            loo.add(r.conversation_id, ("wins", pair, r.winner_label))
    for r in with_none(tables["panas_items"]).itertuples(index=False):
        if r.phase == "post":
            loo.add(r.conversation_id, ("item_sum", r.item), r.value)
            loo.add(r.conversation_id, ("item_n", r.item))
    for r in with_none(tables["survey_answers"]).itertuples(index=False):
        loo.add(r.conversation_id, (r.question, r.answer))
    for r in with_none(tables["four_branch"]).itertuples(index=False):
        loo.add(r.conversation_id, ("branch_sum", r.branch), r.rating)
        loo.add(r.conversation_id, ("branch_n", r.branch))

    for r in with_none(tables["post_chat_ratings"]).itertuples(index=False):
        loo.add(r.conversation_id, ("rating_sum", r.item), r.rating)
        loo.add(r.conversation_id, ("rating_n", r.item))

    labels: dict[tuple[str, int], list[tuple[str, str]]] = defaultdict(list)
    for r in with_none(tables["pairwise_comparisons"]).sort_values("position").itertuples(index=False):
        labels[(r.conversation_id, r.turn_number)].append((r.response_a, r.response_b))
    options = instrument.survey_options()
    out = {}
    for view in views:
        c = view.conversation_id

        def w(key: Any, c: str = c) -> float:
            return loo.without(c, key)

        turns_elsewhere = w("turns")
        if turns_elsewhere == 0 or w("empty_turns") * 2 >= turns_elsewhere:
            tags: list[dict[str, Any]] = []
        else:
            word = _best({x: w(("word", x)) for x in words}, words)
            n = w(("intensity_n", word))
            tags = [{"emotion": word, "intensity": int(round(w(("intensity_sum", word)) / n)) if n else 4}]
        turns = []
        for turn in view.turns:
            answers = {}
            for target in ("om", "hp"):
                answers[target] = {
                    q: "yes" if w((target, q, "yes")) > w((target, q, "no")) else "no" for q in turn.judged_questions
                }
            picks = {}
            # Which kind of reply (original, improved, edited) is A and B: the prior is about reply kinds.
            for comp, (label_a, label_b) in zip(turn.comparisons, labels[(c, turn.turn_number)]):
                pair = tuple(sorted((label_a, label_b)))
                a_wins, b_wins = w(("wins", pair, label_a)), w(("wins", pair, label_b))
                picks[str(comp.position)] = "B" if b_wins > a_wins else "A"
            turns.append(
                {
                    "turnNumber": turn.turn_number,
                    "em_emotion_tags": [dict(t) for t in tags],
                    "em_drafted_response": None,
                    **binary_fields(answers["om"], answers["hp"]),
                    "em_pairwise_selections": picks,
                }
            )
        items = {}
        for item in instrument.panas_items():
            n = w(("item_n", item.name))
            items[item.name] = int(min(7, max(1, round(w(("item_sum", item.name)) / n)))) if n else 4
        four = {}
        for branch in instrument.FOUR_BRANCHES:
            n = w(("branch_n", branch))
            four[branch] = int(min(7, max(1, round(w(("branch_sum", branch)) / n)))) if n else 4
        cw = {
            "q1_lookingFor": [
                _best({o: w(("q1_lookingFor", o)) for o in options["q1_lookingFor"]}, list(options["q1_lookingFor"]))
            ],
            "q2_emotionClarity": _best(
                {o: w(("q2_emotionClarity", o)) for o in options["q2_emotionClarity"]},
                list(options["q2_emotionClarity"]),
            ),
            "q3_modelFit": _best(
                {o: w(("q3_modelFit", o)) for o in options["q3_modelFit"]}, list(options["q3_modelFit"])
            ),
            "q3_followUp_whatFeltOff": [],
            "fourBranchScores": four,
        }
        post = {
            "panas_strategy": "absolute",
            "pre_panas_shown": False,
            "predicted_post_panas": {"items": items, "totals": instrument.panas_totals(items)},
            "predicted_panas_delta": None,
            "predicted_conversation_wide": cw,
        }
        if view.rating_items:
            post["predicted_post_chat_ratings"] = {
                name: rounded_rating(
                    w(("rating_sum", name)) / n if (n := w(("rating_n", name))) else None,
                    instrument.rating_items()[name],
                )
                for name in view.rating_items
            }
        out[f"{c}.json"] = output_file(view, model, mode, VERSION, turns, post)
    return out

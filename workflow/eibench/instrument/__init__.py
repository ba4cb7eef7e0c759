"""The AttuneBench instrument: questions, PANAS items and survey options.

The files in this folder are the instrument texts of the benchmark (copied verbatim from the
project's shared specification), except ``post_chat_ratings.csv``: an extension of ours whose
rows cite their source (ESConv's post-chat survey). They are read once and cached; every other module asks this
one for question ids, PANAS words, branches and options instead of repeating them.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Mapping

FOUR_BRANCHES: tuple[str, ...] = ("perceiving", "facilitating", "understanding", "managing")
RESPONSE_LABELS: tuple[str, ...] = ("original", "alternate", "human")


@dataclass(frozen=True)
class PanasItem:
    """One PANAS-SF item. ``valence`` and ``arousal`` lie in [0, 1]."""

    name: str  # as printed in the instrument, e.g. "Afraid"
    affect: str  # "positive" or "negative"
    valence: float
    arousal: float

    @property
    def word(self) -> str:
        """The lower-cased form used when comparing emotion labels."""
        return self.name.lower()


def _read_csv(name: str) -> list[dict[str, str]]:
    text = resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
    return list(csv.DictReader(io.StringIO(text, newline="")))


@cache
def panas_items() -> tuple[PanasItem, ...]:
    """The 20 PANAS-SF items in instrument order (10 negative, then 10 positive)."""
    return tuple(
        PanasItem(r["item"], r["affect"], float(r["valence"]), float(r["arousal"]))
        for r in _read_csv("panas_items.csv")
    )


@cache
def panas_by_word() -> dict[str, PanasItem]:
    """PANAS items keyed by their lower-cased word."""
    return {item.word: item for item in panas_items()}


@cache
def binary_questions() -> tuple[dict[str, str], ...]:
    """The 36 yes/no behaviour questions: question_id, branch, text_observer, text_participant."""
    return tuple(_read_csv("binary_questions.csv"))


@cache
def binary_question_ids() -> tuple[str, ...]:
    return tuple(q["question_id"] for q in binary_questions())


@cache
def pairwise_questions() -> tuple[dict[str, str], ...]:
    """The pairwise preference questions: 'general' and PW1..PW15."""
    return tuple(_read_csv("pairwise_questions.csv"))


@cache
def pairwise_question_ids() -> tuple[str, ...]:
    return tuple(q["question_id"] for q in pairwise_questions())


@cache
def survey_options() -> dict[str, tuple[str, ...]]:
    """Options of the post-chat questions, keyed by the short question key.

    Keys: ``q1_lookingFor`` (multi-select), ``q2_emotionClarity`` (one of),
    ``q3_modelFit`` (ordinal, best first), ``fourBranchScores`` (the four branches).
    """
    raw = json.loads(resources.files(__name__).joinpath("survey_options.json").read_text("utf-8"))
    return {key.split(" ")[0]: tuple(values) for key, values in raw.items()}


@dataclass(frozen=True)
class RatingItem:
    """One post-chat rating of the assistant by the person, on the integer scale low..high.

    An extension of the AttuneBench instrument (the release field ``postChatRatings``): ESConv's
    seekers rated their supporter's empathy and relevance 1..5 after the chat.
    """

    name: str  # key in postChatRatings / predicted_post_chat_ratings, e.g. "empathy"
    low: int
    high: int
    question: str  # the wording shown to an evaluated model
    source: str


@cache
def post_chat_ratings() -> tuple[RatingItem, ...]:
    """The post-chat rating items in instrument order (empathy, relevance)."""
    return tuple(
        RatingItem(r["item"], int(r["low"]), int(r["high"]), r["question"], r["source"])
        for r in _read_csv("post_chat_ratings.csv")
    )


@cache
def rating_items() -> dict[str, RatingItem]:
    """Post-chat rating items keyed by name."""
    return {item.name: item for item in post_chat_ratings()}


def panas_totals(items: Mapping[str, float]) -> dict[str, float]:
    """PANAS totals of a set of item values: the sums of the positive and the negative items
    given (keys totalPositiveAffect, totalNegativeAffect, as in the release format)."""
    affect = {i.name: i.affect for i in panas_items()}
    return {
        "totalPositiveAffect": sum(v for k, v in items.items() if affect[k] == "positive"),
        "totalNegativeAffect": sum(v for k, v in items.items() if affect[k] == "negative"),
    }

"""The offline baselines predict post-chat ratings (the release-format extension) for a cohort
that has them, and leave every output of a cohort without them exactly as before."""

from __future__ import annotations

import copy
from pathlib import Path

import pandas as pd
import pytest
from eibench.predict.baselines.chance import chance_outputs
from eibench.predict.baselines.embedding import embedding_outputs
from eibench.predict.baselines.lexicon import lexicon_outputs, mean_valence
from eibench.predict.baselines.prior import prior_outputs
from eibench.predict.conversation import conversation_views
from eibench.release.schema import EMOutputFile
from eibench.release.tidy import GOLD_TABLES, em_tables

from .test_embedding import BagOfWords


def _with_ratings(gold: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The small cohort with gold ratings in all conversations but the last (which has none)."""
    tables = copy.copy(gold)
    ids = sorted(gold["conversations"]["conversation_id"])
    rows = [
        (cid, item, float(1 + (k * 2 + j) % 5))
        for k, cid in enumerate(ids[:-1])
        for j, item in enumerate(("empathy", "relevance"))
    ]
    tables["post_chat_ratings"] = GOLD_TABLES["post_chat_ratings"].frame(rows)
    return tables


def _run(name: str, tables: dict[str, pd.DataFrame]) -> dict[str, dict]:
    views = conversation_views(tables)
    if name == "chance":
        return chance_outputs(views, "chance", "default", 11)
    if name == "prior":
        return prior_outputs(views, tables, "prior", "default")
    if name == "embedding":
        return embedding_outputs(tables, "embedding", "default", encoder=BagOfWords(), k=3)
    return lexicon_outputs(tables, "lexicon", "default")


@pytest.mark.parametrize("name", ["chance", "prior", "lexicon", "embedding"])
def test_ratings_only_for_a_cohort_that_has_them(small_gold, name):
    assert len(small_gold["post_chat_ratings"]) == 0  # the synthetic cohort has no post-chat ratings
    plain = _run(name, small_gold)
    rated = _run(name, _with_ratings(small_gold))
    assert plain.keys() == rated.keys()
    for file, out in plain.items():
        assert "predicted_post_chat_ratings" not in out["post_conversation"]
        got = copy.deepcopy(rated[file])
        ratings = got["post_conversation"].pop("predicted_post_chat_ratings")
        assert got == out  # nothing else changes, the random draws included
        # Every conversation gets a prediction (the last has no gold: not shown to the model).
        assert set(ratings) == {"empathy", "relevance"} and all(
            isinstance(v, int) and 1 <= v <= 5 for v in ratings.values()
        )


def test_outputs_with_ratings_read_into_the_tidy_table(small_gold):
    rated = _run("lexicon", _with_ratings(small_gold))
    table = em_tables([(Path(name), EMOutputFile.model_validate(out)) for name, out in rated.items()])[
        "em_post_chat_ratings"
    ]
    assert len(table) == 2 * len(rated) and set(table["item"]) == {"empathy", "relevance"}


def test_prior_is_the_rounded_mean_of_the_other_conversations(small_gold):
    tables = _with_ratings(small_gold)
    out = _run("prior", tables)
    ratings = tables["post_chat_ratings"]
    for file, answer in out.items():
        cid = file.removesuffix(".json")
        for item in ("empathy", "relevance"):
            others = ratings[(ratings["item"] == item) & (ratings["conversation_id"] != cid)]["rating"]
            assert answer["post_conversation"]["predicted_post_chat_ratings"][item] == int(round(others.mean()))


@pytest.mark.parametrize("name", ["chance", "prior", "lexicon", "embedding"])
def test_a_conversation_never_learns_its_own_ratings(small_gold, name):
    tables = _with_ratings(small_gold)
    target = sorted(tables["conversations"]["conversation_id"])[0]
    changed = dict(tables, post_chat_ratings=tables["post_chat_ratings"].copy())
    mine = changed["post_chat_ratings"]["conversation_id"] == target
    changed["post_chat_ratings"].loc[mine, "rating"] = 6.0 - changed["post_chat_ratings"].loc[mine, "rating"]
    before, after = _run(name, tables), _run(name, changed)
    assert before[f"{target}.json"] == after[f"{target}.json"]


def test_lexicon_rates_by_the_valence_of_the_closing_messages(small_gold):
    tables = _with_ratings(small_gold)
    out = _run("lexicon", tables)
    turns = tables["turns"].sort_values(["conversation_id", "turn_index"])
    for cid, group in turns.groupby("conversation_id"):
        messages = list(group["user_message"])
        closing = mean_valence(messages[-max(1, len(messages) // 3) :])
        expected = min(5, max(1, int(1 + 4 * closing + 0.5)))
        assert out[f"{cid}.json"]["post_conversation"]["predicted_post_chat_ratings"] == {
            "empathy": expected,
            "relevance": expected,
        }


def test_chance_ratings_are_seeded(small_gold):
    tables = _with_ratings(small_gold)
    assert _run("chance", tables) == _run("chance", tables)
    views = conversation_views(tables)
    assert chance_outputs(views, "chance", "default", 11) != chance_outputs(views, "chance", "default", 12)

"""The evaluation protocol: causal prompts, valid answers, repairs and invalid answers."""

from __future__ import annotations

import dataclasses
import json

import pytest
from eibench.predict.answers import extract_json, parse
from eibench.predict.collect import aggregate
from eibench.predict.conversation import Comparison, ConversationView, TurnView
from eibench.predict.prompts import PromptSet

MARKER = "ZEBRA-MARKER-7781"


def _plant(view: ConversationView, turn_number: int) -> ConversationView:
    """A copy of ``view`` with a unique marker in every text of turn ``turn_number``."""
    turns = []
    for t in view.turns:
        if t.turn_number == turn_number:
            comps = tuple(
                dataclasses.replace(c, text_a=f"{c.text_a} {MARKER}", text_b=f"{c.text_b} {MARKER}")
                for c in t.comparisons
            )
            t = dataclasses.replace(
                t, user_message=f"{t.user_message} {MARKER}", om_reply=f"{t.om_reply} {MARKER}", comparisons=comps
            )
        turns.append(t)
    return dataclasses.replace(view, turns=turns)


@pytest.mark.parametrize("mode", ["default", "verbose", "omniscient", "verbose_omniscient"])
def test_a_prediction_for_turn_t_never_sees_turn_t_plus_1(small_views, mode):
    prompts = PromptSet.load("v1")
    checked = 0
    for view in small_views:
        for later in view.turns[1:]:
            planted = _plant(view, later.turn_number)
            for request in prompts.conversation_requests(planted, mode, "absolute"):
                text = json.dumps(request.messages)
                if request.turn_number is not None and request.turn_number < later.turn_number:
                    assert MARKER not in text, (request.task, request.turn_number, later.turn_number)
                    checked += 1
                elif request.turn_number == later.turn_number and request.task in ("draft", "pairwise"):
                    # at turn t the draft and the pairwise picks see the message, never the OM reply
                    assert text.count(MARKER) >= 1
    assert checked > 100


def test_draft_and_pairwise_do_not_see_the_om_reply_of_their_turn(small_views):
    prompts = PromptSet.load("v1")
    view = small_views[0]
    turn = view.turns[0]
    marked = dataclasses.replace(view, turns=[dataclasses.replace(turn, om_reply=MARKER)] + view.turns[1:])
    for request in prompts.turn_requests(marked, marked.turns[0], "default"):
        seen = MARKER in json.dumps(request.messages)
        if request.task == "draft":
            assert not seen
        elif request.task == "pairwise":
            # the OM reply is one of the masked replies (never labelled as the assistant's)
            assert "Assistant: " + MARKER not in json.dumps(request.messages)
        else:
            assert seen


def test_omniscient_modes_show_the_profile_and_pre_panas_only_then(small_views):
    prompts = PromptSet.load("v1")
    view = small_views[0]
    default = json.dumps([r.messages for r in prompts.conversation_requests(view, "default", "absolute")])
    omni = json.dumps([r.messages for r in prompts.conversation_requests(view, "omniscient", "absolute")])
    assert "Before the chat they rated" not in default and "Before the chat they rated" in omni


def test_every_request_names_its_task_and_what_it_expects(small_views):
    prompts = PromptSet.load("v1")
    for request in prompts.conversation_requests(small_views[0], "default", "delta"):
        system = request.messages[0]["content"]
        assert system.startswith(f"TASK: {request.task}")
        if request.task.startswith("binary_"):
            assert len(request.expect) == 36 and "ANSWER KEYS: B1, B2" in request.messages[1]["content"]


@pytest.mark.parametrize(
    "text,ok",
    [
        ('{"emotions": [{"emotion": "Upset", "intensity": 5}]}', True),
        ('Sure!\n```json\n{"emotions": []}\n```', True),
        ('{"emotions": [{"emotion": "upset", "intensity": "moderate"}]}', True),
        ('{"emotions": [{"emotion": "upset", "intensity": 12}]}', False),  # out of 1..7: a repair asks again
        ('{"emotions": [{"emotion": "", "intensity": 3}]}', False),
        ('{"emotions": "upset"}', False),
        ("no json here", False),
        ('{"emotions": [', False),
    ],
)
def test_parse_emotions(text, ok):
    assert parse("emotions", text).ok is ok


def test_parse_binary_and_pairwise_need_every_key():
    keys = ("B1", "B13")
    assert parse("binary_om_observer", '{"B1": "Yes", "B13": "N/A"}', keys).value == {"B1": "yes", "B13": "na"}
    missing = parse("binary_om_observer", '{"B1": "yes"}', keys)
    assert not missing.ok and "B13" in missing.problem
    assert not parse("binary_om_observer", '{"B1": "maybe", "B13": "no"}', keys).ok
    assert parse("pairwise", '{"0": "b", "1": "A"}', ("0", "1")).value == {"0": "B", "1": "A"}
    assert not parse("pairwise", '{"0": "C", "1": "A"}', ("0", "1")).ok


def test_parse_panas_and_survey():
    items = ("Afraid", "Active")
    assert parse("post_panas_absolute", '{"items": {"afraid": 2, "Active": 6}}', items).value == {
        "Afraid": 2,
        "Active": 6,
    }
    assert not parse("post_panas_absolute", '{"items": {"Afraid": 9, "Active": 6}}', items).ok
    assert parse("post_panas_delta", '{"items": {"Afraid": -3, "Active": 0}}', items).ok
    good = {
        "q1_lookingFor": ["to just listen or let me vent"],
        "q2_emotionClarity": "Mixed or conflicted",
        "q3_modelFit": "Mostly well-matched",
        "q3_followUp_whatFeltOff": [],
        "fourBranchScores": {"perceiving": 5, "facilitating": 4, "understanding": 6, "managing": 5},
    }
    parsed = parse("conversation_wide", json.dumps(good))
    assert parsed.ok and parsed.value["q1_lookingFor"] == ["To just listen or let me vent"]
    bad = dict(good, q3_modelFit="Great")
    assert "q3_modelFit" in parse("conversation_wide", json.dumps(bad)).problem


def test_parse_post_chat_ratings():
    items = ("empathy", "relevance")
    assert parse("post_chat_ratings", '{"ratings": {"Empathy": 4.4, "relevance": 2}}', items).value == {
        "empathy": 4,
        "relevance": 2,
    }
    assert (
        "ratings.relevance" in parse("post_chat_ratings", '{"ratings": {"empathy": 4, "relevance": 6}}', items).problem
    )
    assert "ratings.relevance" in parse("post_chat_ratings", '{"ratings": {"empathy": 4}}', items).problem
    assert not parse("post_chat_ratings", '{"empathy": 4, "relevance": 2}', items).ok


def test_post_chat_ratings_are_asked_only_of_a_cohort_that_has_them(small_views):
    prompts = PromptSet.load("v1")
    view = small_views[0]
    tasks = [r.task for r in prompts.conversation_requests(view, "default", "absolute")]
    assert "post_chat_ratings" not in tasks and len(tasks) == PromptSet.count_requests(view)
    rated = dataclasses.replace(view, rating_items=("empathy", "relevance"))
    requests = prompts.conversation_requests(rated, "default", "absolute")
    assert len(requests) == PromptSet.count_requests(rated) == len(tasks) + 1
    last = requests[-1]
    assert last.task == "post_chat_ratings" and last.turn_number is None and last.expect == ("empathy", "relevance")
    text = last.messages[1]["content"]
    assert "empathy (1..5)" in text and "relevance (1..5)" in text and "ITEMS: empathy, relevance" in text
    # The other requests are unchanged: their cache keys stay valid.
    assert [r.messages for r in requests[:-1]] == [
        r.messages for r in prompts.conversation_requests(view, "default", "absolute")
    ]


def test_extract_json_takes_the_first_object():
    assert extract_json('text {"a": 1} more {"b": 2}')[0] == {"a": 1}


def test_aggregate_majority_median_and_words():
    assert aggregate("binary_om_observer", [{"B1": "yes"}, {"B1": "no"}, {"B1": "yes"}]) == {"B1": "yes"}
    assert aggregate("pairwise", [{"0": "A"}, {"0": "B"}]) == {"0": "A"}  # tie: the earliest sample
    assert aggregate("post_panas_absolute", [{"Afraid": 1}, {"Afraid": 4}, {"Afraid": 6}]) == {"Afraid": 4}
    assert aggregate("post_chat_ratings", [{"empathy": 2}, {"empathy": 5}, {"empathy": 4}]) == {"empathy": 4}
    tags = aggregate(
        "emotions",
        [
            [{"emotion": "upset", "intensity": 2}],
            [{"emotion": "upset", "intensity": 6}],
            [{"emotion": "afraid", "intensity": 3}],
        ],
    )
    assert tags == [{"emotion": "upset", "intensity": 4}]


def test_comparison_view_masks_reply_kinds(small_views):
    for view in small_views:
        for turn in view.turns:
            for c in turn.comparisons:
                assert isinstance(c, Comparison) and not hasattr(c, "response_a")
    assert all(isinstance(t, TurnView) for v in small_views for t in v.turns)

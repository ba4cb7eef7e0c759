"""The invalid-answer table counts the post-chat ratings task only where it was asked."""

from __future__ import annotations

from eibench.release.read import list_json_files, read_em_outputs
from eibench.release.tidy import em_tables
from eibench.release.write import write_json
from eibench.report.invalid import invalid_answers


def _outputs(tmp_path, posts: dict[str, dict]):
    for cid, post in posts.items():
        write_json(
            {"conversationId": cid, "em_model": "m", "mode": "default", "turns": [], "post_conversation": post},
            tmp_path / f"{cid}.json",
        )
    return em_tables(read_em_outputs(list_json_files(tmp_path), "m", "default"))


def test_ratings_answered_and_invalid_are_counted(tmp_path):
    em = _outputs(
        tmp_path,
        {
            "c1": {"predicted_post_chat_ratings": {"empathy": 4, "relevance": 5}},
            "c2": {"predicted_post_chat_ratings": None, "em_invalid_answers": {"post_chat_ratings": "five?"}},
            "c3": {"predicted_post_chat_ratings": {"empathy": 2, "relevance": 3}},
        },
    )
    table = invalid_answers(em).set_index("task")
    assert table.loc["post_chat_ratings", "asked"] == 3 and table.loc["post_chat_ratings", "invalid"] == 1


def test_no_row_where_the_ratings_were_not_asked(tmp_path):
    em = _outputs(tmp_path, {"c1": {"panas_strategy": "absolute"}})
    assert "post_chat_ratings" not in set(invalid_answers(em)["task"])


def test_requests_are_counted_beside_answers(tmp_path):
    """A behaviour request asks all of a turn's questions of one target and wording at once: the
    rate per request is the same unit for a model asked every question and one asked a few."""

    def turn(number: int, om: str) -> dict:
        """A turn whose three observer-wording OM answers are all ``om``."""
        return {
            "turnNumber": number,
            "em_binary_om_assessment": {"B1": om, "B2": om, "B3": om},
            "em_binary_human_prediction": {"B1": "yes"},
            "em_binary_om_assessment_hp": {"B1": "no", "B2": "yes", "B3": "no"},
            "em_binary_human_prediction_hp": {"B1": "no"},
            "em_emotion_tags": [],
            "em_drafted_response": "Hi.",
            "em_pairwise_selections": {},
        }

    turns = [turn(1, "invalid"), turn(2, "no")]
    write_json(
        {"conversationId": "c1", "em_model": "m", "mode": "default", "turns": turns, "post_conversation": None},
        tmp_path / "c1.json",
    )
    em = em_tables(read_em_outputs(list_json_files(tmp_path), "m", "default"))
    table = invalid_answers(em).set_index("task")
    om = table.loc["binary_om_observer"]
    assert (om["asked"], om["invalid"], om["requests"], om["invalid_requests"]) == (6, 3, 2, 1)
    hp = table.loc["binary_hp_observer"]
    assert (hp["asked"], hp["requests"], hp["invalid_requests"]) == (2, 2, 0)
    assert (table.loc["draft", "requests"], table.loc["draft", "asked"]) == (2, 2)
    assert table.loc["pairwise", "requests"] == 0

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

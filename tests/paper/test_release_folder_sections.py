"""The sections' sentences on a build of a release-format folder (meta.cohort 'attunebench':
real chats, the offline baselines alone) whose files are not known to be the official release,
e.g. ESConv's chats converted by the repository's adapter: each section compiled on its own with
the numbers such a build writes."""

from __future__ import annotations

from .section import section_text

RELEASE_META = {"cohort": "attunebench", "simulation": False, "simulated_cohort": False, "simulated_models": []}
SYNTHETIC_META = {"cohort": "synthetic", "simulation": True, "simulated_cohort": True, "simulated_models": ["m1"]}


def _post_chat(tmp_path, rated: int, n: int = 1300, alone: bool = True, meta=RELEASE_META) -> str:
    entries = {
        "n_conversations": n,
        "post_chat.n_conversations": rated,
        "post_chat.items": "empathy and relevance" if rated else "none",
        "absent.panas_totals": alone,
        "absent.survey": alone,
        "absent.four_branch": alone,
    }
    return section_text(tmp_path, "post-chat-ratings.typ", entries, meta)


def test_a_cohort_with_post_chat_ratings_is_told_they_are_in_the_holistic_pillar(tmp_path):
    """A folder whose files hold postChatRatings scores them in the holistic pillar (here the
    whole pillar: the folder has none of its published parts), and the benchmark section said so
    only in ESConv's own branch."""
    text = _post_chat(tmp_path, 1150)
    assert "The files of 1150 of the 1300 conversations hold post-chat ratings of the assistant" in text
    assert "(postChatRatings: empathy and relevance), an extension of the release format" in text
    assert "The holistic pillar of the composite includes them" in text
    assert "so its holistic pillar is the post-chat ratings alone." in text


def test_the_post_chat_ratings_beside_the_published_parts(tmp_path):
    text = _post_chat(tmp_path, 2, n=2, alone=False)
    assert "Every conversation's file holds post-chat ratings of the assistant" in text
    assert "renormalised over the parts a conversation has." in text
    assert "alone" not in text


def test_a_cohort_without_post_chat_ratings_is_told_nothing_of_them(tmp_path):
    assert "post-chat" not in _post_chat(tmp_path, 0, n=200, alone=False, meta=SYNTHETIC_META)

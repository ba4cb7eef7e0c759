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
    assert "The files of 1150 of the 1300 conversations hold the participant's post-chat ratings of whoever" in text
    assert "(postChatRatings: empathy and relevance), an extension of the release format" in text
    assert "The holistic pillar of the composite includes them" in text
    assert "so its holistic pillar is the post-chat ratings alone." in text


def test_the_post_chat_ratings_beside_the_published_parts(tmp_path):
    text = _post_chat(tmp_path, 2, n=2, alone=False)
    assert "Every conversation's file holds the participant's post-chat ratings of whoever wrote" in text
    assert "renormalised over the parts a conversation has." in text
    assert "alone" not in text


def test_a_cohort_without_post_chat_ratings_is_told_nothing_of_them(tmp_path):
    assert "post-chat" not in _post_chat(tmp_path, 0, n=200, alone=False, meta=SYNTHETIC_META)


ESCONV_META = {"cohort": "esconv", "simulation": False, "simulated_cohort": False, "simulated_models": []}
ESCONV_FILES = {
    "files.providers": '"esconv" (1300 of 1300)',
    "files.reply_authors": '"human-supporter" (1300 of 1300)',
    "files.all_esconv": True,
}


def _files(tmp_path, meta=RELEASE_META, **about) -> str:
    entries = {**ESCONV_FILES, **{f"cohort.{k}": v for k, v in about.items()}}
    return section_text(tmp_path, "cohort-files.typ", entries, meta)


def test_a_folder_of_unrecorded_source_is_not_presented_as_the_release(tmp_path):
    """With cohorts.attunebench.about.source unset the paper printed "Built from folder." and
    nothing more: a folder of ESConv's chats read as the AttuneBench release. The data section
    now says the source is not recorded, and what the files name as provider and reply author."""
    text = _files(tmp_path, name="folder")
    assert (
        'The files name as provider (metadata.provider) "esconv" (1300 of 1300) and as the author of the '
        'original replies (metadata.model, the original model in the release format) "human-supporter" '
        "(1300 of 1300)." in text
    )
    assert (
        "The source of these files is not recorded (config key cohorts.attunebench.about.source), and this "
        "build does not establish that they are the official AttuneBench release." in text
    )
    assert "Source:" not in text


def test_a_folder_of_esconvs_chats_says_what_its_participants_and_gold_are(tmp_path):
    """A release folder of ESConv's chats (every file names ESConv as provider) said "by 30
    participants" as a fact and first told in the limitations that the behaviour gold is the
    supporter's strategy label: the data section now says both, as what holds if they are."""
    text = _files(tmp_path, name="folder")
    assert (
        "If these are ESConv's chats, as their provider says, each participant is one conversation's seeker "
        "(ESConv records no seeker identities, so a seeker who chatted twice counts twice), and the behaviour "
        "gold is the supporter's own label of a strategy, not a participant's judgement of the reply" in text
    )
    other = section_text(tmp_path / "o", "cohort-files.typ", {**ESCONV_FILES, "files.all_esconv": False}, RELEASE_META)
    assert "If these are ESConv's chats" not in other
    # an ESConv build says it in its own data section, from its adapter's numbers
    assert "If these are ESConv's chats" not in _files(tmp_path / "e", ESCONV_META, name="ESConv", source="x")


def test_a_recorded_source_is_printed_instead(tmp_path):
    text = _files(tmp_path, name="Sample200", source="official release, Test Samples/Sample200")
    assert "Source: official release, Test Samples/Sample200." in text
    assert "not recorded" not in text and "The files name as provider" in text


def test_esconv_and_the_synthetic_cohort_say_no_more_of_their_source(tmp_path):
    esconv = _files(tmp_path, ESCONV_META, name="ESConv", source="thu-coai/esconv")
    assert "Source: thu-coai/esconv." in esconv and "not recorded" not in esconv
    synthetic = _files(tmp_path / "s", SYNTHETIC_META, source="generated by the seeded simulator")
    assert synthetic == "Source: generated by the seeded simulator."


def _related(tmp_path, meta, **entries) -> str:
    base = {
        "cohort.name": "folder",
        "n_conversations": 1300,
        "n_participants": 1300,
        "models.described": "3 offline baselines",
        "n_humans": 0,
        "humans.available": False,
    }
    return section_text(tmp_path, "related_work.typ", {**base, **entries}, meta, bibliography=True)


def test_related_work_states_the_design_of_a_build_of_other_data(tmp_path):
    """Related work ended "a couple of hundred conversations, a small number of participants, a
    handful of human raters, about a dozen models. This paper asks what such a design can
    support." on every build, a folder of 1300 chats with no rater and three baselines included."""
    text = _related(tmp_path, RELEASE_META)
    assert "This paper asks what such a design can support" not in text
    assert (
        "This paper applies its method to folder: 1300 conversations by 1300 participants, predicted by "
        "3 offline baselines, with no human rater." in text
    )
    one = _related(tmp_path / "one", RELEASE_META, **{"n_participants": 0, "n_humans": 1})
    assert "This paper applies its method to folder: 1300 conversations, predicted by 3 offline baselines." in one
    # ESConv records no seeker identities: its conversations are not counted by participant.
    esconv = _related(tmp_path / "esconv", ESCONV_META, **{"cohort.name": "ESConv"})
    assert (
        "This paper applies its method to ESConv: 1300 conversations, predicted by 3 offline baselines, with" in esconv
    )


def test_the_simulation_study_asks_what_the_published_design_can_support(tmp_path):
    text = _related(tmp_path, SYNTHETIC_META, **{"cohort.name": "synthetic cohort", "n_humans": 3})
    assert "about a dozen models. This paper asks what such a design can support." in text
    assert "This paper applies its method" not in text


def _verdicts_sentence(tmp_path, n_claims: int, not_testable: int, differ: int) -> str:
    """The Discussion of a release build whose claims' verdicts all come from the primary scheme."""
    same = n_claims - not_testable - differ
    entries = {
        "n_ranked_baselines": 3,
        "n_models": 3,
        "n_participants": 30,
        "n_conversations": 30,
        "cohort.name": "my-release",
        "models.described": "3 offline baselines",
        "ranks.n_models": 3,
        "ranks.margin": {"value": 0.3, "display": "0.30"},
        "ranks.power_at_margin": {"value": 0.0, "display": "0.00"},
        "unc.claims.n_claims": n_claims,
        "claims.n_not_testable": not_testable,
        "claims.not_testable_ids": ", ".join(f"C{k}" for k in range(1, not_testable + 1)) or "none",
        "unc.claims.n_primary_differs": differ,
        "unc.claims.primary_differs": "C9" if differ else "none",
        "unc.primary": "conversations",
        "unc.claims.n_primary_same": same,
    }
    return section_text(tmp_path, "discussion.typ", entries, RELEASE_META)


def test_one_remaining_verdict_is_named_in_words_not_as_a_bare_numeral(tmp_path):
    """The audit build of 30 ESConv chats printed "the verdict of the other 1 holds"."""
    text = _verdicts_sentence(tmp_path, 10, 9, 0)
    assert "the verdict of the remaining claim holds for these conversations" in text
    assert "other 1" not in text
    text = _verdicts_sentence(tmp_path, 10, 7, 0)
    assert "the verdicts of the other 3 hold for these conversations" in text
    text = _verdicts_sentence(tmp_path, 4, 0, 0)
    assert "the verdicts of all 4 hold" in text
    assert "the verdict of that claim holds" in _verdicts_sentence(tmp_path, 1, 0, 0)

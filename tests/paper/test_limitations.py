"""The limitations (paper/sections/limitations.typ) by the kind of cohort: a build of a
release-format folder said only that the benchmark is no clinical certification, though the
README's release example, built on the default cohort's files, has 11 participants, three
offline baselines and files that name their original assistant's provider "simulated"."""

from __future__ import annotations

from .section import section_text

RELEASE_META = {"cohort": "attunebench", "simulation": False, "simulated_cohort": False, "simulated_models": []}
SYNTHETIC_META = {"cohort": "synthetic", "simulation": True, "simulated_cohort": True, "simulated_models": ["m1"]}
ESCONV_META = {"cohort": "esconv", "simulation": False, "simulated_cohort": False, "simulated_models": []}


def _limitations(tmp_path, meta=RELEASE_META, **changed) -> str:
    entries = {
        "n_conversations": 200,
        "n_participants": 11,
        "n_models": 3,
        "n_ranked_baselines": 3,
        "models.described": "3 offline baselines",
        "n_provider_simulated": 200,
        "files.all_esconv": False,
        **changed,
    }
    return section_text(tmp_path, "limitations.typ", entries, meta)


def test_a_release_build_names_its_cohort_its_baselines_and_its_simulated_files(tmp_path):
    text = _limitations(tmp_path)
    assert "not a certification of fitness for clinical or therapeutic use." in text
    assert (
        "This build's results describe its cohort: 200 conversations by 11 participants, with predictions from 3 "
        "offline baselines; no language model is compared, so no verdict here bears on one; its intervals allow "
        "for the sampling of these participants and conversations, not for how they were recruited." in text
    )
    assert (
        "Every file of this cohort names the provider of its original assistant as \u201csimulated\u201d "
        "(metadata.provider): if that is what they are, these are the results of a simulation, whatever the "
        "cohort's name." in text
    )


def test_a_release_build_of_language_models_on_real_files_says_neither(tmp_path):
    text = _limitations(
        tmp_path,
        n_models=5,
        **{"models.described": "2 language models and 3 offline baselines"},
        n_provider_simulated=0,
    )
    assert "with predictions from 2 language models and 3 offline baselines; its intervals allow" in text
    assert "no language model" not in text and "simulated" not in text


def test_one_participant_and_one_conversation_take_the_singular(tmp_path):
    text = _limitations(tmp_path, n_conversations=1, n_participants=1, n_provider_simulated=1)
    assert "its cohort: 1 conversation by 1 participant, with" in text
    assert "Every file of this cohort names the provider" in text


def test_some_files_of_simulated_provider_are_counted(tmp_path):
    text = _limitations(tmp_path, n_provider_simulated=1)
    assert "The files of 1 of the 200 conversations name the provider of their original assistant as" in text


def test_a_simulated_or_esconv_build_keeps_its_own_limitations(tmp_path):
    synthetic = _limitations(tmp_path / "synthetic", SYNTHETIC_META)
    assert "The numbers of the cohort come from a simulation" in synthetic
    assert "This build's results" not in synthetic
    esconv = _limitations(tmp_path / "esconv", ESCONV_META, n_provider_simulated=0)
    assert "ESConv is not AttuneBench" in esconv and "This build's results" not in esconv


def test_human_raters_beside_the_baselines_are_not_read_as_language_models(tmp_path):
    text = _limitations(tmp_path, n_models=3, **{"models.described": "3 offline baselines and 3 human raters"})
    assert "with predictions from 3 offline baselines and 3 human raters; no language model is compared" in text

"""The hand-made foreign cohorts of tests/data/cohorts/ are valid release-format cohorts of the
shape their README says, and the script that wrote them rewrites the same bytes."""

import importlib.util
import shutil

import pytest
from eibench.release.read import list_json_files, read_conversations
from eibench.release.tidy import gold_tables

from ..conftest import REPO

COHORTS = REPO / "tests" / "data" / "cohorts"


@pytest.fixture(scope="module")
def tables():
    return {
        name: gold_tables(read_conversations(list_json_files(COHORTS / name), report_all=True))
        for name in ("mood_only", "no_humans")
    }


def test_mood_only_has_mood_tags_and_nothing_else(tables):
    t = tables["mood_only"]
    assert 12 <= len(t["conversations"]) <= 20
    assert t["conversations"]["n_turns"].min() >= 6
    assert t["conversations"]["category"].nunique() == 1
    assert len(t["mood_tags"]) > 0
    for absent in (
        "participants",
        "binary_judgements",
        "pairwise_comparisons",
        "panas_items",
        "panas_totals",
        "survey_answers",
        "four_branch",
        "post_chat_ratings",
    ):
        assert len(t[absent]) == 0, absent
    assert t["conversations"]["participant_id"].isna().all()


def test_no_humans_has_participants_and_judgements_only(tables):
    t = tables["no_humans"]
    assert 12 <= len(t["conversations"]) <= 20
    people = t["participants"]
    assert people["has_diagnosis"].sum() >= 2 and (~people["has_diagnosis"]).sum() >= 2
    assert "Romantic relationships" in set(t["conversations"]["category"])
    assert t["conversations"]["category"].nunique() >= 2
    assert len(t["binary_judgements"]) > 0 and len(t["mood_tags"]) > 0
    for absent in ("pairwise_comparisons", "panas_items", "survey_answers", "four_branch", "post_chat_ratings"):
        assert len(t[absent]) == 0, absent


def test_script_rewrites_the_committed_bytes(tmp_path):
    copy = tmp_path / "cohorts"
    shutil.copytree(COHORTS, copy)
    spec = importlib.util.spec_from_file_location("make_cohorts", copy / "make_cohorts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main()
    for name in ("mood_only", "no_humans"):
        committed = sorted(p.name for p in (COHORTS / name).glob("*.json"))
        rewritten = sorted(p.name for p in (copy / name).glob("*.json"))
        assert committed == rewritten
        for f in committed:
            assert (copy / name / f).read_bytes() == (COHORTS / name / f).read_bytes(), f

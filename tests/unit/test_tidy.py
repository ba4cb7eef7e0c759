"""Tidy tables from the hand-written corpus: typed, with fallbacks, derived totals and extras."""

import json
from pathlib import Path

import pandas as pd
import pytest
from eibench.release.read import list_json_files, read_conversations, read_em_outputs
from eibench.release.schema import EMOutputFile
from eibench.release.tidy import (
    EM_TABLES,
    GOLD_TABLES,
    diagnosis_group,
    em_tables,
    extra_fields,
    gold_tables,
    has_extra_fields,
)

from ..conftest import RELEASE


@pytest.fixture(scope="module")
def gold():
    return gold_tables(read_conversations(list_json_files(RELEASE / "valid")))


@pytest.fixture(scope="module")
def em():
    return em_tables(read_em_outputs(list_json_files(RELEASE / "em_valid"), "model-x", "default"))


def test_tables_have_declared_columns_and_types(gold, em):
    for specs, tables in ((GOLD_TABLES, gold), (EM_TABLES, em)):
        assert set(tables) == set(specs)
        for name, spec in specs.items():
            assert list(tables[name].columns) == spec.column_names
            assert [str(t) for t in tables[name].dtypes] == [
                {
                    "string": "string",
                    "Int64": "Int64",
                    "Float64": "Float64",
                    "boolean": "boolean",
                    "category": "category",
                }[d]
                for _, d in spec.columns
            ], name


def test_gold_fallbacks(gold):
    b = gold["binary_judgements"].set_index(["conversation_id", "question_id"])
    assert b.loc[("conversation_5", "B13"), "observed"] == "yes"  # 'Y'
    assert b.loc[("conversation_5", "B13"), "llm_value"] == "yes"  # true
    assert b.loc[("conversation_5", "B11"), "gold_om"] == "na"  # na does not fall back
    assert b.loc[("conversation_5", "B11"), "gold_hp"] == "na"  # preferred null -> observed 'na'
    assert b.loc[("conversation_5", "B14"), "gold_om"] == "no"  # observed null -> llmValue '0'
    assert pd.isna(b.loc[("conversation_5", "B14"), "gold_hp"])  # 'maybe' -> null, observed null
    assert not b.loc[("17", "B999"), "known_question"]


def test_panas_totals_given_derived_and_clamped(gold):
    t = gold["panas_totals"].set_index(["conversation_id", "phase"])
    assert t.loc[("conversation_5", "post"), "positive"] == 70  # 75.4 clamped
    assert t.loc[("conversation_5", "post"), "positive_source"] == "given"
    pre17 = t.loc[("17", "pre")]
    assert (pre17["positive"], pre17["negative"], pre17["positive_source"]) == (18, 24, "items")
    post17 = t.loc[("17", "post")]
    assert pd.isna(post17["positive"]) and post17["positive_source"] == "missing"  # 2 of 20 items


def test_mood_tags_normalised(gold):
    tags = gold["mood_tags"]
    c5 = tags[tags["conversation_id"] == "conversation_5"]
    assert list(c5["emotion"]) == ["upset", "distressed"]
    assert list(c5["emotion_raw"]) == [" Upset ", "Distressed"]
    assert list(c5["intensity"]) == [6, 5]
    c17 = tags[tags["conversation_id"] == "17"]
    assert list(c17["in_panas"]) == [True, True, False, True]  # 'Exhausted' is kept, flagged
    assert not tags["intensity_clamped"].any()  # every intensity given is a word or in 1..7 after rounding


def test_clamped_intensities_are_flagged(tmp_path):
    data = json.loads((RELEASE / "valid" / "conversation_5.json").read_text(encoding="utf-8"))
    tags = next(t for t in data["turns"] if t.get("moodShiftTags"))["moodShiftTags"]
    tags[:] = [{"emotion": "upset", "intensity": v} for v in (9, 7.4, "0", "mild", None)]
    (tmp_path / "c.json").write_text(json.dumps(data), encoding="utf-8")
    mood = gold_tables(read_conversations([tmp_path / "c.json"]))["mood_tags"]
    assert list(mood["intensity"].astype(object).where(mood["intensity"].notna(), None)) == [7, 7, 1, 2, None]
    assert list(mood["intensity_clamped"]) == [True, False, True, False, False]


def test_turns_and_pairwise(gold):
    turns = gold["turns"]
    c5 = turns[turns["conversation_id"] == "conversation_5"]
    assert list(c5["rel_position"]) == [0.0, 1.0]
    pw = gold["pairwise_comparisons"]
    first = pw[(pw["conversation_id"] == "conversation_5") & (pw["position"] == 0)].iloc[0]
    assert first["winner_label"] == "human"
    assert pd.isna(pw[(pw["conversation_id"] == "conversation_5") & (pw["position"] == 1)].iloc[0]["winner_label"])


def test_participants_and_survey(gold):
    p = gold["participants"]
    assert list(p["participant_id"]) == ["P01"] and bool(p["has_diagnosis"].iloc[0])
    conv = gold["conversations"].set_index("conversation_id")
    assert pd.isna(conv.loc["17", "participant_id"])
    s = gold["survey_answers"]
    assert list(s[s["conversation_id"] == "17"]["question"]) == [
        "q1_lookingFor",
        "q2_emotionClarity",
        "q3_modelFit",
        "q3_followUp_whatFeltOff",
    ]


def test_unknown_fields_are_kept_for_the_audit(gold, em):
    extras = set(gold["extra_fields"]["json_path"])
    assert extras == {
        "$.metadata.uploadedBy",
        "$.turns[0].annotatorNote",
        "$.turns[0].annotations.pairwiseComparisons[1].confidence",
    }
    assert set(em["extra_fields"]["json_path"]) == {"$.harness"}


def test_em_answers_keep_their_status(em):
    b = em["em_binary"].set_index(["target", "wording", "question_id"])
    assert b.loc[("hp", "observer", "B13"), "status"] == "invalid"
    assert pd.isna(b.loc[("hp", "observer", "B13"), "value"])
    assert b.loc[("hp", "participant", "B14"), "status"] == "unrecognised"
    assert b.loc[("om", "observer", "B14"), "value"] == "na"
    picks = em["em_pairwise"].set_index("key")
    assert picks.loc["1", "pick"] == "A"
    panas = em["em_panas"]
    assert set(zip(panas["kind"], panas["level"], panas["name"])) == {
        ("delta", "total", "positive"),
        ("delta", "total", "negative"),
        ("delta", "item", "Afraid"),
    }


@pytest.mark.parametrize(
    "traits,group",
    [
        (["none"], "none"),
        ([], "none"),
        (["anxiety/depression"], "anxiety_depression"),
        (["ASD/ADHD"], "asd_adhd"),
        (["Depression", "ADHD"], "multiple"),
        (["introvert"], "none"),
    ],
)
def test_diagnosis_group(traits, group):
    assert diagnosis_group(traits) == group


def test_extra_fields_are_found_at_any_depth_in_field_order():
    clean = {
        "conversationId": "c1",
        "em_model": "m",
        "turns": [
            {"turnNumber": 1, "em_emotion_tags": [{"emotion": "calm", "intensity": 2}]},
            {"turnNumber": 2, "em_emotion_tags": [{"emotion": "sad"}, {"emotion": "tense"}]},
        ],
        "post_conversation": {"predicted_post_panas": {"totals": {"positive": 30}}},
    }
    assert not has_extra_fields(EMOutputFile.model_validate(clean))
    assert extra_fields(EMOutputFile.model_validate(clean), "f.json") == []
    odd = json.loads(json.dumps(clean))
    odd["turns"][1]["em_emotion_tags"][1]["why"] = ["a", 1]
    odd["post_conversation"]["predicted_post_panas"]["totals"]["note"] = {"b": 2, "a": None}
    odd["zeta"], odd["alpha"] = 1, "x"
    out = EMOutputFile.model_validate(odd)
    assert has_extra_fields(out)
    assert extra_fields(out, "f.json") == [
        ("f.json", "$.alpha", '"x"'),
        ("f.json", "$.zeta", "1"),
        ("f.json", "$.turns[1].em_emotion_tags[1].why", '["a", 1]'),
        ("f.json", "$.post_conversation.predicted_post_panas.totals.note", '{"a": null, "b": 2}'),
    ]


def test_predicted_totals_keep_where_they_were_given():
    """A total under ``totals``, beside the items (the public port's layout) or in both places
    with one value: one row each, its placement kept for the port setting (D28); items have none."""
    post = {
        "predicted_post_panas": {
            "totals": {"PA": 31, "NA": 12},
            "totalNegativeAffect": 12,
            "items": {"Active": 3},
        },
        "predicted_panas_delta": {"totalPositiveAffect": -2},
    }
    out = EMOutputFile.model_validate({"conversationId": "c1", "em_model": "m", "turns": [], "post_conversation": post})
    panas = em_tables([(Path("c1.json"), out)])["em_panas"]
    rows = [
        tuple(None if pd.isna(v) else v for v in r)
        for r in panas.drop(columns=["conversation_id", "em_model", "mode"]).itertuples(index=False)
    ]
    assert rows == [
        ("post", "total", "positive", 31.0, "totals"),
        ("post", "total", "negative", 12.0, "both"),
        ("post", "item", "Active", 3.0, None),
        ("delta", "total", "positive", -2.0, "beside_items"),
    ]
    assert em_tables([(Path("c1.json"), out)])["extra_fields"].empty  # read, not kept as unknown


def test_a_profile_without_traits_is_told_from_one_with_an_empty_list(tmp_path):
    """ESConv's profiles hold an id only: no diagnosis is recorded (traits null in the table);
    a profile with traits [] gives none (""), read as no diagnosis, as 'none' is."""
    import json

    from eibench.release.read import read_conversations
    from eibench.release.tidy import diagnosis_recorded, gold_tables

    from ..conftest import RELEASE

    base = json.loads((RELEASE / "valid" / "conversation_5.json").read_text(encoding="utf-8"))
    paths = []
    for k, profile in enumerate(({"participant_id": "pa"}, {"participant_id": "pb", "traits": []})):
        path = tmp_path / f"c{k}.json"
        data = dict(base, conversationId=f"c{k}", participant_profile=profile)
        data["metadata"] = dict(base["metadata"], conversationId=f"c{k}")
        path.write_text(json.dumps(data), encoding="utf-8")
        paths.append(path)
    people = gold_tables(read_conversations(paths))["participants"].set_index("participant_id")
    assert people["traits"].isna().to_dict() == {"pa": True, "pb": False} and people.loc["pb", "traits"] == ""
    assert diagnosis_recorded(people).to_dict() == {"pa": False, "pb": True}
    assert not people["has_diagnosis"].any()
    # Not recorded is neither group: null, not 'none' / False.
    assert pd.isna(people.loc["pa", "diagnosis_group"]) and pd.isna(people.loc["pa", "has_diagnosis"])
    assert (people.loc["pb", "diagnosis_group"], bool(people.loc["pb", "has_diagnosis"])) == ("none", False)


def _profiles(tmp_path, profiles):
    """The participants table of copies of a valid file, one per profile (files c0, c1, ...)."""
    import json

    base = json.loads((RELEASE / "valid" / "conversation_5.json").read_text(encoding="utf-8"))
    paths = []
    for k, profile in enumerate(profiles):
        path = tmp_path / f"c{k}.json"
        data = dict(base, conversationId=f"c{k}", participant_profile=profile)
        data["metadata"] = dict(base["metadata"], conversationId=f"c{k}")
        path.write_text(json.dumps(data), encoding="utf-8")
        paths.append(path)
    return gold_tables(read_conversations(paths))["participants"].set_index("participant_id")


def test_traits_come_from_the_first_file_that_gives_them(tmp_path):
    """A file that leaves the traits out does not make a diagnosed participant unrecorded."""
    people = _profiles(
        tmp_path,
        [
            {"participant_id": "p", "age": 30},
            {"participant_id": "p", "traits": None},
            {"participant_id": "p", "traits": ["anxiety"], "age": 30},
            {"participant_id": "p", "traits": ["anxiety"]},
        ],
    )
    row = people.loc["p"]
    assert (row["traits"], row["diagnosis_group"], bool(row["has_diagnosis"])) == (
        "anxiety",
        "anxiety_depression",
        True,
    )
    assert (row["age"], bool(row["profile_consistent"]), row["n_conversations"]) == ("30", True, 4)


def test_two_files_giving_different_traits_make_the_profile_inconsistent(tmp_path):
    people = _profiles(tmp_path, [{"participant_id": "p", "traits": []}, {"participant_id": "p", "traits": ["adhd"]}])
    row = people.loc["p"]
    assert (row["traits"], row["diagnosis_group"], bool(row["profile_consistent"])) == ("", "none", False)

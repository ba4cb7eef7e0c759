"""Reading the release format: every alias accepted, every error named by file and JSON path."""

import csv
import json
import shutil
from pathlib import Path

import pytest
from eibench.release.read import (
    ReleaseFormatError,
    json_path,
    list_json_files,
    parse_file,
    read_conversations,
    read_em_outputs,
)
from eibench.release.schema import ConversationFile, EMOutputFile

from ..conftest import RELEASE


def _expected(folder: str) -> list[dict]:
    with open(RELEASE / folder / "EXPECTED.csv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize("case", _expected("invalid"), ids=lambda c: c["file"])
def test_each_invalid_conversation_file_names_its_path(case):
    obj, problems = parse_file(RELEASE / "invalid" / case["file"], ConversationFile, case["file"])
    assert obj is None
    assert len(problems) == 1, [str(p) for p in problems]
    assert problems[0].file == case["file"]
    assert problems[0].json_path == case["json_path"]
    assert case["message"] in problems[0].message


@pytest.mark.parametrize("case", _expected("em_invalid"), ids=lambda c: c["file"])
def test_each_invalid_em_file_names_its_path(case):
    obj, problems = parse_file(RELEASE / "em_invalid" / case["file"], EMOutputFile, case["file"])
    assert obj is None and len(problems) == 1
    assert problems[0].json_path == case["json_path"]
    assert case["message"] in problems[0].message


def test_every_invalid_corpus_file_has_an_expectation():
    for folder in ("invalid", "em_invalid"):
        listed = {c["file"] for c in _expected(folder)}
        on_disk = {p.name for p in list_json_files(RELEASE / folder)}
        assert listed == on_disk


def test_canonical_and_legacy_files_are_read():
    parsed = dict((p.name, c) for p, c in read_conversations(list_json_files(RELEASE / "valid")))
    canonical, legacy = parsed["conversation_5.json"], parsed["conversation_17.json"]
    assert canonical.conversationId == "conversation_5"
    assert legacy.conversationId == "17"  # a numeric id becomes a string

    t = legacy.turns[0]
    judgements = {j.questionId: j for j in t.annotations.binaryJudgements}
    assert (
        judgements["B11"].observedBehavior == "yes" and judgements["B11"].preferredBehavior == "no"
    )  # did_occur/should_occur
    assert (
        judgements["B13"].observedBehavior == "yes" and judgements["B13"].preferredBehavior == "yes"
    )  # humanValue/humanPreference
    assert judgements["B19"].observedBehavior == "no"  # actualValue
    comps = t.annotations.pairwiseComparisons
    assert (comps[0].responseA, comps[0].responseB, comps[0].winner) == ("human", "alternate", "A")  # response_1/2, 'a'
    assert comps[1].responseA == "alternate"  # llmImproved as a label
    assert t.annotations.alternateResponses.llmImproved == "That sounds exhausting."  # alternate1
    assert t.annotations.alternateResponses.humanEdited.startswith("Ugh")  # alternate2
    assert t.annotations.selectedPairwiseQuestions == ["PW7"]  # bare string -> list
    assert [m.intensity for m in t.moodShiftTags] == [4, 2, 6, None]  # words, case-insensitive, null
    cw = legacy.conversationWideQuestions
    assert cw.q1_lookingFor == ["To get specific information or advice"]  # Q1 bare string
    assert cw.q2_emotionClarity == "Clear and explicitly stated" and cw.q3_modelFit.startswith("Mixed")
    assert cw.fourBranchScores == {"perceiving": 1.0, "understanding": 3.0, "managing": 7.0}  # clamped, null dropped
    assert legacy.prePanas.items["Afraid"] == 2  # under 'responses', lower-case names
    assert canonical.conversationWideQuestions.fourBranchScores["understanding"] == 7.0


def test_em_output_aliases_and_markers():
    [(path, out)] = read_em_outputs(list_json_files(RELEASE / "em_valid"), "model-x", "default")
    turn = out.turns[0]
    assert turn.em_draft_judge == {"overall_score": 5, "helpfulness": 6, "tone_match": None}  # judge_scores alias
    assert turn.em_emotion_tags[0].intensity == 6
    post = out.post_conversation
    assert post.predicted_panas_delta.totals.positive == 4 and post.predicted_panas_delta.totals.negative == -6
    assert post.predicted_panas_delta.items == {"Afraid": -1.0}
    assert out.model_extra == {"harness": "kept as an extra field"}


def test_first_bad_file_stops_the_read(tmp_path):
    for name in ("wrong_type_turn_number.json", "bad_winner.json"):
        shutil.copy(RELEASE / "invalid" / name, tmp_path / name)
    shutil.copy(RELEASE / "valid" / "conversation_5.json", tmp_path)
    with pytest.raises(ReleaseFormatError) as err:
        read_conversations(list_json_files(tmp_path))
    assert len(err.value.problems) == 1
    assert "bad_winner.json" in str(err.value)  # sorted order: the same file every time
    assert "report_all_errors" in str(err.value)


def test_report_all_lists_every_bad_file(tmp_path):
    for p in list_json_files(RELEASE / "invalid"):
        shutil.copy(p, tmp_path / p.name)
    with pytest.raises(ReleaseFormatError) as err:
        read_conversations(list_json_files(tmp_path), report_all=True)
    assert {Path(p.file).name for p in err.value.problems} == {p.name for p in list_json_files(RELEASE / "invalid")}
    assert "report_all_errors" not in str(err.value)  # it is set already: no advice to set it


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "not valid JSON: the file is empty (0 bytes); a release file holds one JSON object"),
        ("  \n", "not valid JSON: the file is white space only; a release file holds one JSON object"),
        ('{"conversationId": "c', "not valid JSON: Unterminated string starting at line 1, column 20"),
        ('{"conversationId": }', "not valid JSON: Expecting value at line 1, column 20"),
    ],
)
def test_an_empty_or_broken_file_says_what_is_wrong_where(tmp_path, text, expected):
    (tmp_path / "conversation_1.json").write_text(text, encoding="utf-8")
    with pytest.raises(ReleaseFormatError) as err:
        read_conversations(list_json_files(tmp_path))
    assert expected in str(err.value)


def test_duplicate_conversation_ids_are_an_error(tmp_path):
    shutil.copy(RELEASE / "valid" / "conversation_5.json", tmp_path / "a.json")
    shutil.copy(RELEASE / "valid" / "conversation_5.json", tmp_path / "b.json")
    with pytest.raises(ReleaseFormatError, match="also used by"):
        read_conversations(list_json_files(tmp_path))


def test_a_model_whose_files_all_give_another_name_gets_one_problem_with_the_fix(tmp_path):
    data = json.loads((RELEASE / "em_valid" / "conversation_5.json").read_text(encoding="utf-8"))
    for k in range(3):
        (tmp_path / f"c{k}.json").write_text(json.dumps(dict(data, conversationId=f"c{k}")), encoding="utf-8")
    with pytest.raises(ReleaseFormatError) as raised:
        read_em_outputs(list_json_files(tmp_path), "other", "default")
    (problem,) = raised.value.problems
    assert problem.file == str(tmp_path) and problem.json_path == "$.em_model"
    assert problem.message == (
        "is 'model-x' in all 3 files, but this folder holds the outputs of model 'other': name the model "
        "'model-x' in config key 'models', or set em_model to 'other' in its files"
    )
    # one file of another model among them: each such file is named
    (tmp_path / "c9.json").write_text(json.dumps(dict(data, conversationId="c9", em_model="other")), encoding="utf-8")
    with pytest.raises(ReleaseFormatError) as raised:
        read_em_outputs(list_json_files(tmp_path), "other", "default")
    assert [p.file for p in raised.value.problems] == [str(tmp_path / f"c{k}.json") for k in range(3)]


def test_em_outputs_must_match_model_mode_and_cohort():
    files = list_json_files(RELEASE / "em_valid")
    with pytest.raises(
        ReleaseFormatError, match="is 'model-x' in its one file, but this folder holds the outputs of model"
    ):
        read_em_outputs(files, "other", "default")
    with pytest.raises(ReleaseFormatError, match="holds mode 'verbose'"):
        read_em_outputs(files, "model-x", "verbose")
    with pytest.raises(ReleaseFormatError, match="not a conversation of the cohort"):
        read_em_outputs(files, "model-x", "default", known_conversations={"conversation_6"})


def test_json_path_rendering():
    assert json_path(["turns", 2, "moodShiftTags", 0, "intensity"]) == "$.turns[2].moodShiftTags[0].intensity"
    assert json_path(["em_pairwise_selections", "0"]) == '$.em_pairwise_selections["0"]'


def _cohort_with_one_bad_file(folder: Path, n_good: int, bad: str = "bad_winner.json") -> Path:
    """``n_good`` copies of a valid conversation (ids 1000..) and one invalid file in the middle."""
    src = json.loads((RELEASE / "valid" / "conversation_5.json").read_text())
    for i in range(n_good):
        conv = dict(src, conversationId=str(1000 + i))
        if isinstance(conv.get("metadata"), dict):
            conv["metadata"] = dict(conv["metadata"], conversationId=str(1000 + i))
        (folder / f"conversation_{1000 + i}.json").write_text(json.dumps(conv))
    bad_path = folder / f"conversation_{1000 + n_good // 2}x.json"
    shutil.copy(RELEASE / "invalid" / bad, bad_path)
    return bad_path


def test_an_error_names_the_bad_file_once_and_counts_the_rest(tmp_path):
    bad = _cohort_with_one_bad_file(tmp_path, 224)
    files = list_json_files(tmp_path)
    with pytest.raises(ReleaseFormatError) as err:
        read_conversations(files)
    msg = str(err.value)
    assert msg.count(str(bad)) == 1 and "$.turns[0].annotations.pairwiseComparisons[0].winner" in msg
    assert sum(str(f) in msg for f in files) == 1  # no other file of the folder is printed
    n_before = files.index(bad)
    assert (
        f"Of the other 224 of the 225 files, {n_before} read before it are valid and {224 - n_before} were not read"
    ) in msg
    assert len(msg) < 1000
    with pytest.raises(ReleaseFormatError) as err:
        read_conversations(files, report_all=True)
    assert "The other 224 of the 225 files are valid." in str(err.value)


def test_a_file_with_many_problems_lists_ten_and_counts_the_others(tmp_path):
    conv = json.loads((RELEASE / "valid" / "conversation_5.json").read_text())
    conv["turns"] = [dict(conv["turns"][0], turnNumber=f"x{i}") for i in range(25)]
    (tmp_path / "conversation_1.json").write_text(json.dumps(conv))
    with pytest.raises(ReleaseFormatError) as err:
        read_conversations(list_json_files(tmp_path))
    msg = str(err.value)
    assert msg.count("- at $.turns[") == 10, msg
    assert "- ... and 15 more problems in this file" in msg and len(err.value.problems) == 25


def test_several_bad_files_are_each_named_once(tmp_path):
    for p in list_json_files(RELEASE / "invalid"):
        shutil.copy(p, tmp_path / p.name)
    with pytest.raises(ReleaseFormatError) as err:
        read_conversations(list_json_files(tmp_path), report_all=True)
    msg = str(err.value)
    for p in list_json_files(tmp_path):
        assert msg.count(str(p)) == 1, p.name


def _renamed(source, path: tuple, new: str, tmp_path):
    """``source`` (a file of tests/data/release) with the field at ``path`` renamed to ``new``."""
    data = json.loads(source.read_text(encoding="utf-8"))
    node = data
    for key in path[:-1]:
        node = node[key]
    node[new] = node.pop(path[-1])
    out = tmp_path / source.name
    out.write_text(json.dumps(data), encoding="utf-8")
    return out


@pytest.mark.parametrize(
    ("path", "new", "where", "known"),
    [
        (("prePanas",), "prePanass", "$.prePanass", "prePanas"),  # one letter added
        (("prePanas",), "prepanas", "$.prepanas", "prePanas"),  # a change of case
        (("turns", 0, "moodShiftTags"), "moodShiftTag", "$.turns[0].moodShiftTag", "moodShiftTags"),
    ],
)
def test_a_misspelt_conversation_field_is_refused_naming_the_known_one(tmp_path, path, new, where, known):
    """A misspelt field was kept aside as an extra field and the field it meant read as absent."""
    file = _renamed(RELEASE / "valid" / "conversation_5.json", path, new, tmp_path)
    obj, problems = parse_file(file, ConversationFile)
    assert obj is None and len(problems) == 1
    assert problems[0].json_path == where
    assert f"unknown field {new!r} is close to {known!r}" in problems[0].message
    assert f"rename it to {known!r}" in problems[0].message


def test_a_misspelt_em_field_is_refused_and_a_field_of_ones_own_is_kept(tmp_path):
    file = _renamed(
        RELEASE / "em_valid" / "conversation_5.json", ("turns", 0, "em_emotion_tags"), "em_emotion_tag", tmp_path
    )
    obj, problems = parse_file(file, EMOutputFile)
    assert obj is None and problems[0].json_path == "$.turns[0].em_emotion_tag"
    assert "is close to 'em_emotion_tags'" in problems[0].message
    own = _renamed(RELEASE / "em_valid" / "conversation_5.json", ("harness",), "my_notes", tmp_path)
    obj, problems = parse_file(own, EMOutputFile)
    assert (
        problems == [] and obj is not None and obj.model_extra == {"my_notes": json.loads(own.read_text())["my_notes"]}
    )


def _with_field(source, path: tuple, name: str, value, tmp_path):
    """``source`` (a file of tests/data/release) with a field ``name`` added to the object at ``path``."""
    data = json.loads(source.read_text(encoding="utf-8"))
    node = data
    for key in path:
        node = node[key]
    node[name] = value
    out = tmp_path / source.name
    out.write_text(json.dumps(data), encoding="utf-8")
    return out


@pytest.mark.parametrize(
    ("path", "name", "given"),
    [
        ((), "om_model", "em_model"),  # close to a required field, which the file gives
        (("turns", 0), "em_emotion_tags_raw", "em_emotion_tags"),
        (("turns", 0), "EM_EMOTION_TAGS", "em_emotion_tags"),  # a change of case of a field given
    ],
)
def test_a_field_of_ones_own_beside_the_field_it_is_close_to_is_kept(tmp_path, path, name, given):
    """A misspelling takes the place of the field it meant: beside that field, a near name is one's own."""
    source = RELEASE / "em_valid" / "conversation_5.json"
    node = json.loads(source.read_text(encoding="utf-8"))
    for key in path:
        node = node[key]
    assert given in node  # the test's premise: the field it is close to is given
    obj, problems = parse_file(_with_field(source, path, name, "mine", tmp_path), EMOutputFile)
    assert problems == [] and obj is not None
    target = obj
    for key in path:
        target = target[key] if isinstance(key, int) else getattr(target, key)
    assert target.model_extra is not None and target.model_extra[name] == "mine"


def test_a_near_name_closer_to_a_field_given_than_to_one_missing_is_kept(tmp_path):
    """em_binary_om_assessment_raw: 0.92 to em_binary_om_assessment (given), 0.906 to
    em_binary_om_assessment_hp (missing here)."""
    data = json.loads((RELEASE / "em_valid" / "conversation_5.json").read_text(encoding="utf-8"))
    turn = data["turns"][0]
    del turn["em_binary_om_assessment_hp"]
    turn["em_binary_om_assessment_raw"] = "mine"
    file = tmp_path / "conversation_5.json"
    file.write_text(json.dumps(data), encoding="utf-8")
    obj, problems = parse_file(file, EMOutputFile)
    assert problems == [] and obj is not None and obj.turns[0].model_extra["em_binary_om_assessment_raw"] == "mine"


def test_a_near_name_as_close_to_a_missing_field_as_to_one_given_is_refused(tmp_path):
    """``alternate`` is as close to ``alternate1`` (missing) as to ``alternate2`` (given): it
    may mean the missing one, which would be read as absent."""
    data = json.loads((RELEASE / "valid" / "conversation_5.json").read_text(encoding="utf-8"))
    turn = next(k for k, t in enumerate(data["turns"]) if (t.get("annotations") or {}).get("alternateResponses"))
    data["turns"][turn]["annotations"]["alternateResponses"] = {"alternate2": "edited", "alternate": "improved"}
    file = tmp_path / "conversation_5.json"
    file.write_text(json.dumps(data), encoding="utf-8")
    obj, problems = parse_file(file, ConversationFile)
    assert obj is None and len(problems) == 1
    assert problems[0].json_path == f"$.turns[{turn}].annotations.alternateResponses.alternate"
    assert "is close to 'alternate1'" in problems[0].message


@pytest.mark.parametrize("traits", [5, {"anxiety": True}, True, ["anxiety", 5]])
def test_traits_that_are_not_a_list_are_refused_with_the_forms_they_take(tmp_path, traits):
    data = json.loads((RELEASE / "valid" / "conversation_5.json").read_text(encoding="utf-8"))
    data["participant_profile"] = dict(data.get("participant_profile") or {"participant_id": "P01"}, traits=traits)
    file = tmp_path / "conversation_5.json"
    file.write_text(json.dumps(data), encoding="utf-8")
    obj, problems = parse_file(file, ConversationFile)
    assert obj is None and [p.json_path for p in problems] == ["$.participant_profile.traits"]
    assert (
        "traits must be a list of strings or one string ([] when the participant has none; absent or null when not "
        "recorded)" in problems[0].message
    )


def test_a_near_name_of_an_optional_field_given_as_null_is_kept(tmp_path):
    """An explicit null is the field given: the near name beside it is not its misspelling."""
    data = json.loads((RELEASE / "valid" / "conversation_5.json").read_text(encoding="utf-8"))
    data["prePanas"], data["prePanass"] = None, {"note": "mine"}
    file = tmp_path / "conversation_5.json"
    file.write_text(json.dumps(data), encoding="utf-8")
    obj, problems = parse_file(file, ConversationFile)
    assert problems == [] and obj is not None and obj.prePanas is None

"""ESConv as a cohort: the adapter's mappings on a hand-made dialog, its errors, and the whole
corpus (local mirror; skipped where absent) through the repository's own reader."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from eibench import instrument
from eibench.public import esconv
from eibench.release.read import list_json_files, read_conversations
from eibench.release.schema import ConversationFile
from eibench.release.tidy import gold_tables
from eibench.report.esconv_numbers import add_esconv
from eibench.report.numbers import Numbers
from eibench.synthetic.cohort import topics


def _msg(speaker: str, text: str, strategy: str | None = None) -> dict:
    out = {"speaker": speaker, "text": text}
    if strategy is not None:
        out["strategy"] = strategy
    return out


def tiny_dialog(**overrides) -> dict:
    """A hand-made ESConv conversation: a supporter greeting before the seeker's first message,
    two seeker messages in a row, a two-message supporter reply, and a trailing seeker message."""
    dialog = {
        "experience_type": "Current Experience",
        "emotion_type": "anxiety",
        "problem_type": "breakup with partner",
        "situation": "My partner left me last week.",
        "survey_score": {
            "seeker": {
                "initial_emotion_intensity": "4",
                "final_emotion_intensity": "2",
                "empathy": "5",
                "relevance": "4",
            },
            "supporter": {"relevance": "5"},
        },
        "dialog": [
            _msg("sys", "Hello, how can I help?", "Question"),
            _msg("usr", "Hi."),
            _msg("usr", " My partner left me. "),
            _msg("sys", "That sounds so painful.", "Reflection of feelings"),
            _msg("sys", "How long were you together?", "Question"),
            _msg("usr", "Five years."),
            _msg("sys", "I went through a breakup too.", "Self-disclosure"),
            _msg("usr", "Thanks, bye."),
            _msg("usr", "Really, bye."),
        ],
        "seeker_question1": "",
        "seeker_question2": "",
        "supporter_question1": "",
        "supporter_question2": "",
    }
    dialog.update(overrides)
    return dialog


def write_splits(folder: Path, splits: dict[str, list]) -> Path:
    """Write split files (one JSON object per line; strings are written as given)."""
    folder.mkdir(parents=True, exist_ok=True)
    for split in esconv.SPLITS:
        lines = [x if isinstance(x, str) else json.dumps(x) for x in splits.get(split, [])]
        (folder / f"{split}.json").write_text("\n".join(lines), encoding="utf-8")
    return folder


# --------------------------------------------------------------------------- mapping tables
def test_tables_use_only_instrument_words_questions_and_categories(default_config):
    panas = {i.name for i in instrument.panas_items()}
    assert {w for words in esconv.EMOTION_PANAS.values() for w in words} <= panas
    assert set(esconv.MAPPED_QUESTIONS) <= set(instrument.binary_question_ids())
    assert esconv.MAPPED_QUESTIONS == ("B1", "B11", "B12", "B13", "B15", "B19")
    assert {k for k, v in esconv.STRATEGY_QUESTION.items() if v is None} == {"Self-disclosure", "Others"}
    assert set(esconv.PROBLEM_TYPE_CATEGORY.values()) <= {c for c, _ in topics()}
    romantic = default_config["cohorts"]["synthetic"]["romantic_category"]
    assert [k for k, v in esconv.PROBLEM_TYPE_CATEGORY.items() if v == romantic] == ["breakup with partner"]


def test_rescale_intensity_keeps_endpoints_and_refuses_out_of_range():
    assert [esconv.rescale_intensity(v) for v in range(1, 6)] == [1, 2.5, 4, 5.5, 7]
    for bad in (0, 6, "3", True):
        with pytest.raises(ValueError):
            esconv.rescale_intensity(bad)


# --------------------------------------------------------------------------- one hand-made dialog
def test_tiny_dialog_pairs_turns_merges_and_drops():
    conv = esconv.to_release(tiny_dialog(), 7, "valid")
    assert conv["conversationId"] == "esconv_valid_0007"
    assert conv["participant_profile"] == {"participant_id": "esconv_valid_0007_seeker"}
    turns = conv["turns"]
    assert [t["turnNumber"] for t in turns] == [1, 2]
    # Consecutive messages of one speaker are merged; the greeting before the seeker's first
    # message and the two trailing seeker messages are dropped (and counted).
    assert turns[0]["userMessage"] == "Hi.\nMy partner left me."
    assert turns[0]["llmResponse"] == "That sounds so painful.\nHow long were you together?"
    assert turns[1]["userMessage"] == "Five years."
    assert turns[1]["llmResponse"] == "I went through a breakup too."
    assert conv["esconv"]["dropped_leading_supporter_messages"] == 1
    assert conv["esconv"]["dropped_trailing_seeker_messages"] == 2
    assert conv["metadata"]["turnCount"] == 2
    assert conv["metadata"]["category"] == "Romantic relationships"
    assert conv["metadata"]["subtopic"] == "breakup with partner"
    assert conv["metadata"]["text"] == "My partner left me last week."


def test_tiny_dialog_strategies_determine_their_questions():
    turns = esconv.to_release(tiny_dialog(), 0, "train")["turns"]
    first = {j["questionId"]: j["observedBehavior"] for j in turns[0]["annotations"]["binaryJudgements"]}
    assert first == {"B1": "yes", "B13": "yes", "B11": "no", "B12": "no", "B15": "no", "B19": "no"}
    assert turns[0]["esconvStrategies"] == ["Reflection of feelings", "Question"]
    # Self-disclosure determines no question: every mapped question is 'no', none is added.
    second = {j["questionId"]: j["observedBehavior"] for j in turns[1]["annotations"]["binaryJudgements"]}
    assert second == dict.fromkeys(esconv.MAPPED_QUESTIONS, "no")
    for turn in turns:
        for j in turn["annotations"]["binaryJudgements"]:
            assert set(j) == {"questionId", "observedBehavior"}  # no llmValue, no preferredBehavior


def test_every_strategy_maps_to_its_question():
    for strategy, question in esconv.STRATEGY_QUESTION.items():
        got = {j["questionId"] for j in esconv.judgements([strategy]) if j["observedBehavior"] == "yes"}
        assert got == ({question} if question else set()), strategy


def test_tiny_dialog_panas_and_nothing_invented():
    conv = esconv.to_release(tiny_dialog(), 0, "train")
    assert conv["prePanas"] == {"items": {"Nervous": 5.5}}  # anxiety, intensity 4 of 5
    assert conv["postPanas"] == {"items": {"Nervous": 2.5}}  # intensity 2 of 5
    for turn in conv["turns"]:
        assert "moodShiftTags" not in turn
        assert set(turn["annotations"]) == {"binaryJudgements"}
    assert "conversationWideQuestions" not in conv
    assert conv["esconv"]["seeker_ratings"] == {
        "initial_emotion_intensity": 4,
        "final_emotion_intensity": 2,
        "empathy": 5,
        "relevance": 4,
    }
    assert conv["postChatRatings"] == {"empathy": 5, "relevance": 4}  # the holistic targets
    ConversationFile.model_validate(conv)


@pytest.mark.parametrize(
    ("emotion", "word"),
    [
        ("depression", "Upset"),
        ("sadness", "Distressed"),
        ("fear", "Afraid"),
        ("anger", "Irritable"),
        ("shame", "Ashamed"),
    ],
)
def test_emotion_type_maps_to_panas_word(emotion, word):
    conv = esconv.to_release(tiny_dialog(emotion_type=emotion), 0, "train")
    assert conv["prePanas"]["items"] == {word: 5.5}


def test_missing_final_intensity_and_unmapped_emotion_stay_absent():
    survey = {"seeker": {"initial_emotion_intensity": "3"}, "supporter": {"relevance": "4"}}
    conv = esconv.to_release(tiny_dialog(survey_score=survey), 0, "train")
    assert conv["prePanas"] == {"items": {"Nervous": 4}}
    assert "postPanas" not in conv
    assert conv["esconv"]["seeker_ratings"]["empathy"] is None
    assert "postChatRatings" not in conv  # missing ratings are left out, never guessed
    survey = {"seeker": {"initial_emotion_intensity": "3", "relevance": "2"}}
    assert esconv.to_release(tiny_dialog(survey_score=survey), 0, "train")["postChatRatings"] == {"relevance": 2}
    conv = esconv.to_release(tiny_dialog(emotion_type="jealousy"), 0, "train")
    assert "prePanas" not in conv and "postPanas" not in conv


def test_unknown_problem_type_is_refused():
    with pytest.raises(ValueError, match="problem_type"):
        esconv.to_release(tiny_dialog(problem_type="alien abduction"), 0, "train")


def test_tiny_cohort_passes_the_reader(tmp_path):
    source = write_splits(
        tmp_path / "in",
        {"train": [tiny_dialog(), tiny_dialog(emotion_type="jealousy")], "valid": [tiny_dialog()], "test": []},
    )
    counts = esconv.write_cohort(source, tmp_path / "out")
    assert counts["conversations_per_split"] == {"train": 2, "valid": 1, "test": 0}
    assert counts["turns"] == 6
    assert counts["dropped_trailing_seeker_messages"] == 6
    assert counts["dropped_leading_supporter_messages"] == 3
    assert counts["strategies_mapped"] == 6 and counts["strategies_unmapped"] == 3
    parsed = read_conversations(list_json_files(tmp_path / "out"))
    tables = gold_tables(parsed)
    assert len(tables["mood_tags"]) == 0
    assert len(tables["pairwise_comparisons"]) == 0
    assert len(tables["binary_judgements"]) == 6 * len(esconv.MAPPED_QUESTIONS)
    assert tables["binary_judgements"]["gold_om"].eq("yes").sum() == 3 * 2
    assert counts["with_post_chat_ratings"] == 3
    assert counts["post_chat_ratings"] == {"empathy": {"5": 3}, "relevance": {"4": 3}}
    ratings = tables["post_chat_ratings"]
    assert sorted(ratings["item"]) == ["empathy"] * 3 + ["relevance"] * 3 and set(ratings["rating"]) == {4.0, 5.0}
    # limit keeps the first conversations of each split and removes files of an earlier run
    sample = esconv.write_cohort(source, tmp_path / "out", limit=1)
    assert [p.name for p in list_json_files(tmp_path / "out")] == ["esconv_train_0000.json", "esconv_valid_0000.json"]
    # what the sample was drawn from: every split's size in the source, and the splits kept
    assert sample["source_per_split"] == counts["conversations_per_split"] and sample["splits_kept"] == list(
        esconv.SPLITS
    )
    nums = Numbers(scripts={"esconv_cohort": "workflow/scripts/adapt_esconv.py"})
    (tmp_path / "counts.json").write_text(json.dumps(sample))
    add_esconv(nums, tmp_path / "counts.json")
    assert nums.entries["esconv.sample"]["value"] is True and nums.entries["esconv.kept_train"]["value"] is True
    whole = Numbers(scripts={"esconv_cohort": "workflow/scripts/adapt_esconv.py"})
    (tmp_path / "counts.json").write_text(json.dumps(counts))
    add_esconv(whole, tmp_path / "counts.json")
    assert whole.entries["esconv.sample"]["value"] is False


def test_max_turns_cuts_each_conversation_and_drops_what_the_seeker_gave_after_it(tmp_path):
    """The tiny dialog has two turns: max_turns 1 cuts it, max_turns 2 does not."""
    source = write_splits(tmp_path / "in", {"train": [tiny_dialog()], "valid": [], "test": []})
    whole = esconv.write_cohort(source, tmp_path / "whole", max_turns=2)
    counts = esconv.write_cohort(source, tmp_path / "cut", max_turns=1)
    assert whole["conversations_cut"] == 0 and whole["turns"] == 2 and whole["with_post_chat_ratings"] == 1
    assert counts["max_turns"] == 1 and counts["conversations_cut"] == 1 and counts["turns"] == 1
    assert counts["seeker_messages"] == 2  # "Hi." and "My partner left me.", merged into turn 1
    assert whole["dropped_trailing_seeker_messages"] == 2 and counts["dropped_trailing_seeker_messages"] == 0
    assert counts["with_pre_panas"] == 1 and counts["with_post_panas"] == 0 and counts["with_post_chat_ratings"] == 0
    # the seeker had rated the supporter: the cut drops those ratings, and the count says so
    assert counts["post_chat_ratings_cut"] == 1 and whole["post_chat_ratings_cut"] == 0
    (conv,) = [json.loads(p.read_text()) for p in list_json_files(tmp_path / "cut")]
    assert [t["turnNumber"] for t in conv["turns"]] == [1] and conv["metadata"]["turnCount"] == 1
    assert (
        conv["esconv"]["cut_from_turns"] == 2
        and "cut_from_turns" not in json.loads((tmp_path / "whole" / "esconv_train_0000.json").read_text())["esconv"]
    )
    assert "postPanas" not in conv and "postChatRatings" not in conv and "prePanas" in conv
    tables = gold_tables(read_conversations(list_json_files(tmp_path / "cut")))
    assert len(tables["turns"]) == 1 and len(tables["post_chat_ratings"]) == 0


@pytest.mark.parametrize("bad", [0, -1, True, 1.5])
def test_max_turns_must_be_a_positive_integer(tmp_path, bad):
    source = write_splits(tmp_path / "in", {"train": [tiny_dialog()], "valid": [], "test": []})
    with pytest.raises(ValueError, match="max_turns"):
        esconv.write_cohort(source, tmp_path / "out", max_turns=bad)


# --------------------------------------------------------------------------- errors
def test_malformed_line_names_file_line_field_and_fix(tmp_path):
    source = write_splits(tmp_path, {"train": [tiny_dialog(), '{"emotion_type": "anxiety", '], "valid": [], "test": []})
    with pytest.raises(esconv.EsconvFormatError) as err:
        esconv.read_esconv(source)
    text = str(err.value)
    assert "train.json" in text and "line 2" in text and "not valid JSON" in text and "Fix:" in text
    assert (err.value.line, err.value.field) == (2, "$")


@pytest.mark.parametrize(
    ("dialog", "field"),
    [
        ({k: v for k, v in tiny_dialog().items() if k != "dialog"}, "dialog"),
        (tiny_dialog(emotion_type="boredom"), "emotion_type"),
        (tiny_dialog(dialog=[_msg("usr", "hi"), _msg("sys", "hello", "Small talk")]), "dialog[1].strategy"),
        (tiny_dialog(dialog=[_msg("usr", "hi"), _msg("bot", "hello", "Question")]), "dialog[1].speaker"),
        (
            tiny_dialog(survey_score={"seeker": {"initial_emotion_intensity": "9"}}),
            "survey_score.seeker.initial_emotion_intensity",
        ),
    ],
)
def test_bad_field_is_named(tmp_path, dialog, field):
    source = write_splits(tmp_path, {"train": [], "valid": [tiny_dialog(), tiny_dialog(), dialog], "test": []})
    with pytest.raises(esconv.EsconvFormatError) as err:
        esconv.read_esconv(source)
    assert err.value.file.endswith("valid.json")
    assert (err.value.line, err.value.field) == (3, field)
    assert f"field {field}:" in str(err.value)


def test_missing_split_file(tmp_path):
    (tmp_path / "train.json").write_text("", encoding="utf-8")
    with pytest.raises(FileNotFoundError, match="valid.json"):
        esconv.read_esconv(tmp_path)


# --------------------------------------------------------------------------- the whole corpus
def test_whole_corpus_converts_and_reads(esconv_dir, tmp_path, default_config):
    counts = esconv.write_cohort(esconv_dir, tmp_path / "out")
    assert counts["conversations"] == 1300
    assert counts["conversations_per_split"] == {"train": 910, "valid": 195, "test": 195}
    files = list_json_files(tmp_path / "out")
    assert len(files) == 1300
    parsed = read_conversations(files)
    tables = gold_tables(parsed)
    conversations = tables["conversations"]
    assert len(conversations) == 1300 and conversations["conversation_id"].is_unique
    romantic = default_config["cohorts"]["synthetic"]["romantic_category"]
    assert (conversations["category"] == romantic).sum() == 239
    assert counts["categories"][romantic] == 239
    assert len(tables["turns"]) == counts["turns"]
    assert (conversations["n_turns"] > 0).all()
    assert len(tables["mood_tags"]) == 0 and len(tables["pairwise_comparisons"]) == 0
    assert len(tables["survey_answers"]) == 0 and len(tables["four_branch"]) == 0
    judgements = tables["binary_judgements"]
    assert set(judgements["question_id"]) == set(esconv.MAPPED_QUESTIONS)
    assert len(judgements) == counts["turns"] * len(esconv.MAPPED_QUESTIONS)
    assert judgements["preferred"].isna().all() and judgements["llm_value"].isna().all()

    # Every message of the source is either in a turn or counted as dropped.
    raw = esconv.read_esconv(esconv_dir)
    speakers = Counter(m["speaker"] for split in raw.values() for d in split for m in d["dialog"])
    assert counts["supporter_messages"] + counts["dropped_leading_supporter_messages"] == speakers["sys"]
    assert counts["seeker_messages"] + counts["dropped_trailing_seeker_messages"] == speakers["usr"]
    assert counts["strategies_mapped"] + counts["strategies_unmapped"] == counts["supporter_messages"]
    # PANAS: 2 conversations have an emotion without a PANAS word, 150 lack the final intensity.
    assert counts["with_pre_panas"] == 1300 - 2
    assert counts["with_post_panas"] == 1300 - 2 - 150
    assert counts["emotion_types"]["jealousy"] == 1 and counts["emotion_types"]["pain"] == 1
    # Post-chat ratings: empathy and relevance are missing together in the 150 conversations.
    assert counts["with_post_chat_ratings"] == 1300 - 150
    ratings = tables["post_chat_ratings"]
    assert len(ratings) == 2 * (1300 - 150) and ratings["rating"].between(1, 5).all()
    assert {k: sum(v.values()) for k, v in counts["post_chat_ratings"].items()} == {"empathy": 1150, "relevance": 1150}
    items = tables["panas_items"]
    assert set(items["item"]) <= {w for words in esconv.EMOTION_PANAS.values() for w in words}
    assert items["value"].between(1, 7).all()


def test_whole_corpus_bytes_are_deterministic(esconv_dir, tmp_path):
    first = esconv.write_cohort(esconv_dir, tmp_path / "a")
    second = esconv.write_cohort(esconv_dir, tmp_path / "b")
    assert first == second
    a, b = list_json_files(tmp_path / "a"), list_json_files(tmp_path / "b")
    assert [p.name for p in a] == [p.name for p in b]
    assert all(x.read_bytes() == y.read_bytes() for x, y in zip(a, b))
    text = a[0].read_text(encoding="utf-8")
    assert text == esconv.dumps(json.loads(text))  # sorted keys, canonical layout

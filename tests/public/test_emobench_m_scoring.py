"""EmoBench-M per-item scoring: upstream label extraction (every case), accuracy and weighted F1
against hand computation (and sklearn where installed), invalid accounting, joint emotion_intent,
BLEU-4 and ROUGE-L on hand-computed examples, the judge hook, clear format errors, the
mirror's format_examples files, and the scenario label sets of emobench_m_labels.yaml (FGDEA's
conflict resolved, checked against the mirror's scenarios.csv)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from eibench.public import emobench_m_scoring as S

from ..conftest import REPO

DATA = REPO / "tests" / "data" / "emobench_m"
MELD = ["neutral", "surprise", "fear", "sadness", "joy", "disgust", "anger"]
SEA = ["weak negative", "strong negative", "neutral", "strong positive", "weak positive"]
EMOTIONS = ["happy", "surprise", "sad", "disgust", "anger", "fear", "neutral"]
INTENTS = ["questioning", "agreeing", "acknowledging", "encouraging", "consoling", "suggesting", "wishing", "neutral"]


def load(name: str):
    items = S.read_items(DATA / f"{name}_items.json")
    outputs = S.align(items, S.read_predictions(DATA / f"{name}_predictions.json"))
    return items, outputs


# ------------------------------------------------------------------------------ extraction


@pytest.mark.parametrize(
    "output, expected",
    [
        ("joy", "joy"),  # exact label
        ("I think the speaker feels anger here.", "anger"),  # inside a sentence
        ("sadness, or maybe anger", "sadness"),  # two labels: the first wins
        ("anger, or maybe sadness", "anger"),  # ... in order of appearance, not of the set
        ("I cannot tell from the video.", None),  # no label: invalid
        ("{'emotion': 'SURPRISE'}", "surprise"),  # upper case
        ("  Joy  ", "joy"),  # stripped
        ("The speaker seems fearless; the emotion is joy.", "joy"),  # substring trap: no fear in fearless
        ("joyful", None),  # substring trap: whole words only
        ("what a killjoy", None),  # ... at the start of the label too
        ("", None),
        (None, None),
    ],
)
def test_extract_label_cases(output, expected):
    assert S.extract_label(output, MELD) == expected


@pytest.mark.parametrize(
    "output, expected",
    [
        ("Weak   Negative", "weak negative"),  # multi-word, any whitespace
        ("The sentiment is strong positive, not weak positive.", "strong positive"),  # first multi-word label
        ("{'emotion': 'positive'}", None),  # a part of a label is no label
    ],
)
def test_extract_multi_word_labels(output, expected):
    assert S.extract_label(output, SEA) == expected


def test_tie_at_the_same_position_goes_to_the_longest_label():
    for labels in (["weak", "weak negative"], ["weak negative", "weak"]):
        assert S.find_label("it is weak negative", labels) == ("weak negative", 6, 19)
        assert S.extract_label("it is weak, negative", labels) == "weak"
    # the earliest position wins over length
    assert S.extract_label("negative, weak negative", ["negative", "weak negative"]) == "negative"


def test_known_limitations_of_the_upstream_rule_are_kept():
    assert S.extract_label("not happy at all", ["happy", "sad"]) == "happy"  # no negation handling
    assert S.extract_label("non-negative", ["negative", "positive"]) == "negative"  # '-' is a word boundary


def test_labels_from_prompt_and_gold_normalisation():
    item = S.read_items(DATA / "classification_items.json")[0]
    assert S.labels_from_prompt(item.prompt) == MELD
    assert not item.prompt.startswith("<video>")
    ceia = S.read_items(DATA / "emotion_intent_items.json")[0].prompt
    assert S.labels_from_prompt(ceia, "emotion") == EMOTIONS
    assert S.labels_from_prompt(ceia, "intent") == INTENTS
    assert S.normalise_gold(" Joy ", MELD) == "joy"
    assert S.normalise_gold("{'emotion': 'Strong Positive'}", SEA) == "strong positive"
    with pytest.raises(ValueError, match="not one of the labels"):
        S.normalise_gold("happiness", MELD)
    with pytest.raises(ValueError, match="no labels list"):
        S.labels_from_prompt("Describe the video.")


# ------------------------------------------------------------------------------ classification


def test_classification_fixture_against_hand_computation():
    items, outputs = load("classification")
    score = S.score_classification([it.gold for it in items], outputs, MELD)
    assert score.predictions == ["joy", "anger", "sadness", None, "surprise", "joy", "neutral"]
    assert (score.n, score.n_valid, score.n_invalid) == (7, 6, 1)
    assert score.invalid_rate == pytest.approx(1 / 7)
    # valid: 4 of 6 right (fear -> joy and disgust -> neutral wrong)
    assert score.accuracy == pytest.approx(4 / 6)
    # per-class F1, gold supports 1 each: joy P=1/2 R=1 -> 2/3; anger, sadness, surprise 1; fear, disgust 0
    assert score.weighted_f1 == pytest.approx((2 / 3 + 3) / 6)
    # strict: the invalid c4 (gold neutral) counts as wrong, over all 7
    assert score.accuracy_strict == pytest.approx(4 / 7)
    assert score.weighted_f1_strict == pytest.approx((2 / 3 + 3) / 7)
    assert set(score.as_dict()) == {
        "n",
        "n_valid",
        "n_invalid",
        "invalid_rate",
        "accuracy",
        "weighted_f1",
        "accuracy_strict",
        "weighted_f1_strict",
    }


def test_predictions_in_item_shape_and_multi_word_labels():
    items, outputs = load("stock")
    assert outputs[0] == "Weak   Negative"  # the model's answer comes from the "gpt" turn
    score = S.score_classification([it.gold for it in items], outputs, SEA)
    assert score.predictions == ["weak negative", "strong positive", None]
    assert (score.accuracy, score.weighted_f1) == (1.0, 1.0)
    assert score.accuracy_strict == pytest.approx(2 / 3)
    assert score.weighted_f1_strict == pytest.approx(2 / 3)


def test_all_invalid_gives_nan_not_zero_division():
    score = S.score_classification(["joy", "anger"], ["?", None], MELD)
    assert score.n_valid == 0 and score.invalid_rate == 1.0
    assert math.isnan(score.accuracy) and math.isnan(score.weighted_f1)
    assert score.accuracy_strict == 0.0 and score.weighted_f1_strict == 0.0


def test_weighted_f1_by_hand():
    # gold a a a b c, pred a a b b a: a P=2/3 R=2/3 F=2/3 (w 3); b P=1/2 R=1 F=2/3 (w 1); c F=0 (w 1)
    assert S.weighted_f1(list("aaabc"), list("aabba")) == pytest.approx((3 * 2 / 3 + 2 / 3) / 5)
    # a label only predicted (d) has no weight
    assert S.weighted_f1(["a", "b"], ["a", "d"]) == pytest.approx(0.5)


def test_weighted_f1_matches_sklearn():
    metrics = pytest.importorskip("sklearn.metrics")
    import random

    rng = random.Random(3)
    for _ in range(25):
        n = rng.randint(1, 30)
        golds = [rng.choice("abcd") for _ in range(n)]
        preds = [rng.choice("abcde") for _ in range(n)]
        expected = metrics.f1_score(golds, preds, average="weighted", zero_division=0)
        assert S.weighted_f1(golds, preds) == pytest.approx(expected)


# ------------------------------------------------------------------------------ emotion_intent


def test_emotion_intent_joint_scoring():
    items, outputs = load("emotion_intent")
    assert S.parse_emotion_intent_gold(items[0].gold) == ("happy", "encouraging")
    score = S.score_emotion_intent([it.gold for it in items], outputs, EMOTIONS, INTENTS)
    # e1 both right; e2 intent wrong; e3 both right (keys without quotes); e4 "angry": invalid; e5 free text
    assert score.joint.predictions == [
        "happy_encouraging",
        "sad_neutral",
        "neutral_neutral",
        None,
        "surprise_questioning",
    ]
    assert (score.joint.n, score.joint.n_valid, score.joint.n_invalid) == (5, 4, 1)
    assert score.joint.accuracy == pytest.approx(3 / 4)
    assert score.joint.weighted_f1 == pytest.approx(3 / 4)
    assert score.joint.accuracy_strict == pytest.approx(3 / 5)
    assert score.emotion.accuracy == 1.0 and score.emotion.n_valid == 4
    assert score.intent.accuracy == pytest.approx(3 / 4)
    assert score.as_dict()["joint_accuracy"] == pytest.approx(3 / 4)


def test_emotion_intent_extraction_rules():
    # the shared label "neutral": the fallback intent is searched after the emotion
    assert S.extract_emotion_intent("neutral", EMOTIONS, INTENTS) == ("neutral", None)
    assert S.extract_emotion_intent("neutral, wishing", EMOTIONS, INTENTS) == ("neutral", "wishing")
    # keys in the other order
    assert S.extract_emotion_intent("intent: agreeing; emotion: sad", EMOTIONS, INTENTS) == ("sad", "agreeing")
    for gold in (
        {"emotion": "Sad", "intent": "consoling"},
        ["sad", "consoling"],
        '{"emotion": "sad", "intent": "consoling"}',
    ):
        assert S.parse_emotion_intent_gold(gold) == ("sad", "consoling")
    # one part missing makes the joint answer invalid, while the other part is still scored
    one = S.score_emotion_intent([("neutral", "neutral")], ["neutral"], EMOTIONS, INTENTS)
    assert (one.joint.n_invalid, one.emotion.n_valid, one.emotion.accuracy, one.intent.n_invalid) == (1, 1, 1.0, 1)
    with pytest.raises(ValueError, match="CEIA gold"):
        S.parse_emotion_intent_gold("sad")
    with pytest.raises(ValueError, match="not in the emotion/intent label sets"):
        S.score_emotion_intent([("sad", "joking")], ["sad joking"], EMOTIONS, INTENTS)


# ------------------------------------------------------------------------------ generation


def test_tokenize():
    assert S.tokenize('Raj\'s iPod, "slightly used"!') == [
        "raj",
        "'",
        "s",
        "ipod",
        ",",
        '"',
        "slightly",
        "used",
        '"',
        "!",
    ]


def test_bleu_hand_computed():
    # p1 = 5/6, p2 = 3/5, p3 = 2/4, p4 = 1/3, equal lengths (BP = 1): (1/12) ** (1/4)
    assert S.corpus_bleu(["the cat sat on a mat"], ["the cat sat on the mat"]) == pytest.approx((1 / 12) ** 0.25)
    assert S.sentence_bleu("the cat sat on a mat", "the cat sat on the mat") == pytest.approx((1 / 12) ** 0.25)
    # all precisions 1, c = 4 < r = 6: BP = exp(1 - 6/4)
    assert S.corpus_bleu(["the cat sat on the mat"], ["the cat sat on"]) == pytest.approx(math.exp(-0.5))
    # no 4-gram match: corpus BLEU 0, smoothed sentence BLEU > 0 (epsilon 0.1 for p4)
    assert S.corpus_bleu(["a b c d"], ["a b c e"]) == 0.0
    assert S.sentence_bleu("a b c d", "a b c e") == pytest.approx((3 / 4 * 2 / 3 * 1 / 2 * 0.1 / 1) ** 0.25)
    assert S.sentence_bleu("same words here ok", "Same words, here ok") < 1.0  # the comma is a token


def test_rouge_l_hand_computed():
    assert S.lcs_length("abcbdab", "bdcaba") == 4
    assert S.rouge_l("the cat sat on a mat", "the cat sat on the mat") == pytest.approx(5 / 6)
    # LCS 2 ("a c"), P = 2/2, R = 2/4: F1 = 2/3; beta = 1.2 weights recall
    assert S.rouge_l("a b c d", "a c") == pytest.approx(2 / 3)
    assert S.rouge_l("a b c d", "a c", beta=1.2) == pytest.approx((1 + 1.44) * 0.5 / (0.5 + 1.44))
    assert S.rouge_l("a b", None) == 0.0


def test_generation_fixture_identical_and_disjoint():
    items, outputs = load("smile")
    refs = [it.gold for it in items]
    assert S.sentence_bleu(refs[0], outputs[0]) == pytest.approx(1.0)
    assert S.rouge_l(refs[0], outputs[0]) == pytest.approx(1.0)
    assert S.sentence_bleu(refs[1], outputs[1]) == 0.0
    assert S.rouge_l(refs[1], outputs[1]) == 0.0
    scores = S.score_generation(refs, outputs)
    assert scores["rouge_l"] == pytest.approx(0.5)
    assert scores["bleu4_sentence_mean"] == pytest.approx(0.5)
    # corpus: 15 + 8 hypothesis tokens, 15 + 10 reference tokens; only item 1 matches
    p = (15 / 23) * (14 / 21) * (13 / 19) * (12 / 17)
    assert scores["bleu4"] == pytest.approx(math.exp(1 - 25 / 23) * p**0.25)


# ------------------------------------------------------------------------------ judge hook


class StubJudge:
    """Deterministic offline judge (tests only): logic = words in the output mod 11, multimodal 5."""

    def __init__(self):
        self.calls = []

    def __call__(self, prompt, reference, output):
        self.calls.append((prompt, reference, output))
        return {"logic": len(output.split()) % 11, "multimodal": 5}


def test_judge_hook_is_called_with_prompt_reference_output():
    items, outputs = load("smile")
    judge = StubJudge()
    result = S.judge_generation([it.prompt for it in items], [it.gold for it in items], outputs, judge)
    assert judge.calls == [(it.prompt, it.gold, out) for it, out in zip(items, outputs)]
    assert [s["logic"] for s in result["per_item"]] == [3.0, 8.0]  # 14 words -> 3, 8 words -> 8
    assert result["logic"] == pytest.approx(5.5) and result["multimodal"] == 5.0
    assert result["total"] == pytest.approx(10.5)


def test_judge_scores_are_checked():
    with pytest.raises(ValueError, match="item 0: judge score 'logic' = 11"):
        S.judge_generation(["p"], ["r"], ["o"], lambda p, r, o: {"logic": 11, "multimodal": 1})
    with pytest.raises(ValueError, match="'multimodal' = None"):
        S.judge_generation(["p"], ["r"], ["o"], lambda p, r, o: {"logic": 1})
    assert (
        S.judge_generation(["p"], ["r"], ["o"], lambda p, r, o: {"logic": 5, "multimodal": 1}, scale=(1, 5))["total"]
        == 6.0
    )


# ------------------------------------------------------------------------------ reading and errors


def _write(tmp_path: Path, data) -> Path:
    path = tmp_path / "bad_items.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _ok(i):
    return {
        "id": i,
        "video": "v.mp4",
        "conversations": [{"from": "human", "value": "<video>\nq"}, {"from": "gpt", "value": "joy"}],
    }


@pytest.mark.parametrize(
    "data, message",
    [
        ({"id": 1}, "expected a JSON list"),
        ([_ok(1), {"id": 2}], r"bad_items.json: item 1: field 'conversations': missing"),
        ([_ok(1), {"conversations": []}], r"item 1: field 'id'"),
        (
            [_ok(1), {"id": 2, "conversations": [{"from": "human", "value": "q"}]}],
            r"item 1: field 'conversations': no turn with from='gpt'",
        ),
        ([_ok(1), _ok(1)], r"item 1: field 'id': duplicate id '1' \(first at item 0\)"),
        ([_ok(1), {"id": 2, "conversations": [{"from": "human"}]}], r"item 1: field 'conversations\[0\]'"),
        ([_ok(1), {**_ok(2), "frames": "f.jpg"}], r"item 1: field 'frames': not a list of file paths"),
        ([_ok(1), {**_ok(2), "frames": ["a.jpg", 3]}], r"item 1: field 'frames'"),
        ([{**_ok(1), "audio": ""}], r"item 0: field 'audio': not a file path"),
    ],
)
def test_read_items_errors_name_file_item_and_field(tmp_path, data, message):
    with pytest.raises(S.ItemFormatError, match=message):
        S.read_items(_write(tmp_path, data))


def test_frames_and_audio_are_read():
    path_items = [{**_ok(1), "frames": ["v_001.jpg", "v_002.jpg"], "audio": "v.wav"}, _ok(2)]
    a, b = S._parse_items(path_items, "mem.json")
    assert (a.frames, a.audio) == (("v_001.jpg", "v_002.jpg"), "v.wav")
    assert (b.frames, b.audio) == ((), None)


def test_predictions_and_alignment_errors(tmp_path):
    bad = tmp_path / "preds.json"
    bad.write_text(json.dumps({"c1": 3}), encoding="utf-8")
    with pytest.raises(S.ItemFormatError, match="preds.json: field 'c1'"):
        S.read_predictions(bad)
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(S.ItemFormatError, match="not valid JSON"):
        S.read_predictions(bad)
    items = S.read_items(DATA / "classification_items.json")
    with pytest.raises(KeyError, match="7 item"):
        S.align(items, {})
    assert S.align(items, {"c1": "joy"}, missing="invalid") == ["joy"] + [None] * 6


# ------------------------------------------------------------------------------ the mirror's format_examples


def test_format_examples_from_the_mirror_parse_and_score(emobench_m_dir: Path):
    folder = emobench_m_dir / "format_examples"
    cls = S.read_format_example(folder / "emotion_classification.json")
    assert cls.task == "classification"
    labels = S.labels_from_prompt(cls.instruction)
    assert labels == ["neutral", "negative", "positive"]
    score = S.score_classification(cls.golds, cls.predictions, labels)
    assert (score.accuracy, score.weighted_f1, score.n_invalid) == (0.5, 0.5, 0)

    ei = S.read_format_example(folder / "emotion_intent.json")
    assert ei.task == "emotion_intent" and ei.golds == [("happy", "encouraging"), ("sad", "questioning")]
    outputs = ["{'emotion label': '%s', 'intent label': '%s'}" % p for p in ei.predictions]
    ei_score = S.score_emotion_intent(
        ei.golds,
        outputs,
        S.labels_from_prompt(ei.instruction, "emotion"),
        S.labels_from_prompt(ei.instruction, "intent"),
    )
    assert ei_score.joint.accuracy == 0.5 and ei_score.emotion.accuracy == 1.0 and ei_score.intent.accuracy == 0.5

    gen = S.read_format_example(folder / "smile_reason.json")
    assert gen.task == "generation" and len(gen.golds) == 2
    rouge = [S.rouge_l(r, o) for r, o in zip(gen.golds, gen.predictions)]
    assert all(0 < x < 1 for x in rouge) and rouge[0] > rouge[1]
    assert 0 < S.score_generation(gen.golds, gen.predictions)["bleu4"] < 1


def test_format_example_with_unknown_shape_is_refused(tmp_path):
    path = tmp_path / "odd.json"
    path.write_text(json.dumps({"instruction": "x", "examples": [{"video": "a.mp4"}]}), encoding="utf-8")
    with pytest.raises(S.ItemFormatError, match="odd.json: field 'examples': no known shape"):
        S.read_format_example(path)


# ------------------------------------------------------------------------------ scenario label sets


def test_every_scenario_has_its_label_set_and_source():
    specs = S.scenario_specs()
    assert {s.scenario for s in specs.values()} == {
        "SOER",
        "SPER",
        "OSA",
        "EIA",
        "SEA",
        "FGDEA",
        "PEA",
        "FCDEA",
        "CEIA",
        "MPDER",
        "HU",
        "SD",
        "LR",
    }
    assert S.scenario_spec("scea") is S.scenario_spec("SEA")  # the stock scenario's other name
    assert S.scenario_spec("MPDER").labels == tuple(MELD)
    assert S.scenario_spec("SEA").labels == tuple(SEA)
    ceia = S.scenario_spec("CEIA")
    assert (ceia.task, ceia.emotions, ceia.intents) == ("emotion_intent", tuple(EMOTIONS), tuple(INTENTS))
    assert S.scenario_spec("LR").task == "generation"
    assert all(spec.source for spec in specs.values())
    with pytest.raises(KeyError, match="unknown EmoBench-M scenario 'XYZ'"):
        S.scenario_spec("XYZ")


def test_fgdea_uses_the_eval_config_set_and_records_the_conflict():
    spec = S.scenario_spec("FGDEA")
    assert spec.labels == ("happy", "sad", "neutral", "angry", "worried", "surprise")
    assert "calm" in spec.conflict and "happiness" in spec.conflict
    # only FGDEA has sources that disagree
    assert [s.scenario for s in set(S.scenario_specs().values()) if s.conflict] == ["FGDEA"]


def _item(i, prompt, gold):
    return S.Item(str(i), f"{i}.mp4", prompt, gold)


FGDEA_PROMPT = (
    "Determine the emotion. Choose one of the following labels as your final answer: happy, sad, neutral, "
    "angry, worried, surprise. Respond in the format: {'emotion': 'label'}."
)


def test_score_scenario_uses_the_label_file():
    items = [_item(1, FGDEA_PROMPT, "worried"), _item(2, FGDEA_PROMPT, "happy"), _item(3, FGDEA_PROMPT, "sad")]
    outputs = ["{'emotion': 'worried'}", "{'emotion': 'happiness'}", "calm"]
    score = S.score_scenario("FGDEA", items, outputs)
    # "worried" is a label (not in the paper table's set); "happiness" and "calm" are none (invalid)
    assert (score["scenario"], score["n_valid"], score["n_invalid"], score["accuracy"]) == ("FGDEA", 1, 2, 1.0)
    assert score["accuracy_strict"] == pytest.approx(1 / 3)
    # a gold from the paper table's set is refused: it is no label of the scenario
    with pytest.raises(ValueError, match="not one of the labels"):
        S.score_scenario("FGDEA", [_item(1, "Describe it.", "calm")], ["calm"])
    ceia = S.read_items(DATA / "emotion_intent_items.json")
    ceia_outputs = S.align(ceia, S.read_predictions(DATA / "emotion_intent_predictions.json"))
    direct = S.score_emotion_intent([it.gold for it in ceia], ceia_outputs, EMOTIONS, INTENTS).as_dict()
    assert S.score_scenario("CEIA", ceia, ceia_outputs) == {"scenario": "CEIA", "task": "emotion_intent", **direct}
    smile = S.read_items(DATA / "smile_items.json")
    smile_outputs = S.align(smile, S.read_predictions(DATA / "smile_predictions.json"))
    assert S.score_scenario("LR", smile, smile_outputs)["rouge_l"] == pytest.approx(
        S.score_generation([it.gold for it in smile], smile_outputs)["rouge_l"]
    )


def test_a_prompt_offering_another_label_set_is_refused():
    paper_table = FGDEA_PROMPT.replace(
        "happy, sad, neutral, angry, worried, surprise", "happiness, sadness, anger, surprise, neutral, calm"
    )
    with pytest.raises(ValueError, match=r"item '1': its prompt offers the labels .*'calm'.* scenario FGDEA"):
        S.score_scenario("FGDEA", [_item(1, paper_table, "happy")], ["happy"])
    items = S.read_items(DATA / "classification_items.json")  # MELD prompts
    with pytest.raises(ValueError, match="scenario OSA"):
        S.score_scenario("OSA", items, [None] * len(items))


def test_label_file_agrees_with_the_mirror_scenarios_csv(emobench_m_dir: Path):
    import csv

    with open(emobench_m_dir / "scenarios.csv", encoding="utf-8", newline="") as fh:
        rows = {r["scenario_abbrev"].split(" ")[0]: r for r in csv.DictReader(fh)}
    for abbrev, row in rows.items():
        spec = S.scenario_spec(abbrev)
        if spec.task == "classification" and abbrev != "FGDEA":
            assert spec.labels == tuple(row["labels"].split("|")), abbrev
    fgdea = rows["FGDEA"]["labels"]
    assert "eval code+prompt figure: " + "|".join(S.scenario_spec("FGDEA").labels) in fgdea

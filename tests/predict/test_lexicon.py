"""The lexicon baseline: valid output files, deterministic, causal, blind to the gold
annotations, and its hand rules do what the module docstring says."""

from __future__ import annotations

import copy

import pandas as pd
import pytest
from eibench import instrument
from eibench.predict.baselines import lexicon
from eibench.predict.baselines.lexicon import MODES, binary_answers, compound, emotion_tags, lexicon_outputs, pick
from eibench.release.read import parse_file, read_conversations, read_em_outputs
from eibench.release.schema import EMOutputFile
from eibench.release.tidy import em_tables, gold_tables
from eibench.release.write import dumps
from eibench.synthetic.cohort import generate_cohort

from ..conftest import write_files as _write

MODEL = "lexicon"


@pytest.fixture(scope="module")
def gold(default_config, tmp_path_factory) -> dict[str, pd.DataFrame]:
    """Gold tables of a small synthetic cohort, through the real write/read/tidy pipeline."""
    params = copy.deepcopy(default_config["cohorts"]["synthetic"]) | {"n_conversations": 8}
    files, _ = generate_cohort(params, default_config["seed"])
    return gold_tables(read_conversations(_write(files, tmp_path_factory.mktemp("cohort"))))


def _texts(outputs: dict[str, dict]) -> dict[str, str]:
    return {name: dumps(obj) for name, obj in outputs.items()}


def _copy(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    return {name: df.copy() for name, df in tables.items()}


def _turn_outputs(outputs: dict[str, dict]) -> dict[tuple[str, int], dict]:
    return {(o["conversationId"], t["turnNumber"]): t for o in outputs.values() for t in o["turns"]}


# --------------------------------------------------------------------------- validity
@pytest.mark.parametrize("mode", MODES)
def test_outputs_validate_and_tidy(gold, mode, tmp_path):
    outputs = lexicon_outputs(gold, MODEL, mode)
    ids = set(gold["conversations"]["conversation_id"])
    assert set(outputs) == {f"{cid}.json" for cid in ids}
    paths = _write(outputs, tmp_path / mode)
    for path in paths:
        parsed, problems = parse_file(path, EMOutputFile)
        assert problems == [] and parsed is not None
        assert parsed.em_model == MODEL and parsed.mode == mode and parsed.prompt_version == "lexicon-v1"
    em = em_tables(read_em_outputs(paths, MODEL, mode, known_conversations=ids))

    assert len(em["em_runs"]) == len(ids)

    def keys(df: pd.DataFrame) -> list[tuple[str, int]]:
        return sorted((str(c), int(t)) for c, t in zip(df["conversation_id"], df["turn_number"]))

    assert keys(em["em_turns"]) == keys(gold["turns"])
    assert em["em_turns"]["drafted_response"].notna().all()

    # Exactly the judged questions, in all four answer objects, every answer recognised.
    judged = gold["binary_judgements"].drop_duplicates(["conversation_id", "turn_number", "question_id"])
    assert len(em["em_binary"]) == 4 * len(judged)
    assert (em["em_binary"]["status"] == "ok").all()
    assert set(em["em_binary"]["value"]) <= {"yes", "no"}
    # One pick per comparison, keyed by its position.
    assert len(em["em_pairwise"]) == len(gold["pairwise_comparisons"])
    assert (em["em_pairwise"]["status"] == "ok").all()
    assert set(em["em_emotion_tags"]["in_panas"]) <= {True}
    assert em["em_emotion_tags"]["intensity"].between(1, 7).all()


@pytest.mark.parametrize("mode", ["default", "omniscient"])
def test_post_conversation_is_well_formed(gold, mode):
    options = instrument.survey_options()
    for out in lexicon_outputs(gold, MODEL, mode).values():
        post = out["post_conversation"]
        assert post["panas_strategy"] == "absolute" and post["pre_panas_shown"] == (mode == "omniscient")
        items = post["predicted_post_panas"]["items"]
        assert set(items) == {i.name for i in instrument.panas_items()}
        assert all(isinstance(v, int) and 1 <= v <= 7 for v in items.values())
        totals = post["predicted_post_panas"]["totals"]
        for key, affect in (("totalPositiveAffect", "positive"), ("totalNegativeAffect", "negative")):
            assert totals[key] == sum(items[i.name] for i in instrument.panas_items() if i.affect == affect)
        cw = post["predicted_conversation_wide"]
        assert set(cw["q1_lookingFor"]) <= set(options["q1_lookingFor"]) and len(cw["q1_lookingFor"]) == 1
        assert cw["q2_emotionClarity"] in options["q2_emotionClarity"]
        assert cw["q3_modelFit"] in options["q3_modelFit"]
        assert cw["fourBranchScores"] == {b: 5 for b in instrument.FOUR_BRANCHES}


def test_unknown_mode_is_refused(gold):
    with pytest.raises(ValueError, match="unknown mode"):
        lexicon_outputs(gold, MODEL, "clairvoyant")


# --------------------------------------------------------------------------- determinism
def test_two_calls_give_identical_json(gold):
    for mode in MODES:
        assert _texts(lexicon_outputs(gold, MODEL, mode)) == _texts(lexicon_outputs(_copy(gold), MODEL, mode))


# --------------------------------------------------------------------------- causality
MARKER_MESSAGE = "I am terrified and furious and so ashamed. What should I do?"
MARKER_REPLY = "Is that wrong? You should call a crisis hotline. It sounds like it makes sense, because it often does."


@pytest.mark.parametrize("mode", ["default", "omniscient"])
def test_later_turns_never_change_earlier_predictions(gold, mode):
    """Plant a marker in every text of turn t+1 (user message and all three replies): the
    predictions for turns 1..t stay the same, for every cut t."""
    base = _turn_outputs(lexicon_outputs(gold, MODEL, mode))
    turns = gold["turns"]
    changed = 0
    for cut in range(int(turns["turn_index"].max())):
        planted = _copy(gold)
        later = planted["turns"]["turn_index"] == cut + 1
        planted["turns"].loc[later, "user_message"] = MARKER_MESSAGE
        for column in ("llm_response", "llm_improved", "human_edited"):
            planted["turns"].loc[later, column] = MARKER_REPLY
        after = _turn_outputs(lexicon_outputs(planted, MODEL, mode))
        for row in turns.itertuples(index=False):
            key = (row.conversation_id, int(row.turn_number))
            if row.turn_index <= cut:
                assert after[key] == base[key], (cut, key)
            elif row.turn_index == cut + 1:
                changed += after[key] != base[key]
    assert changed > 0  # the marker is seen at its own turn, so the check above has teeth


# --------------------------------------------------------------------------- gold independence
def _flip(value):
    return {"yes": "no", "no": "yes", "na": "yes", None: "no"}.get(value, value)


def _perturbed(tables: dict[str, pd.DataFrame], pre_panas: bool) -> dict[str, pd.DataFrame]:
    """Every gold annotation changed; texts, question ids and comparison positions/labels kept.
    ``pre_panas`` also changes the pre-chat PANAS (allowed as input in the omniscient modes)."""
    t = _copy(tables)
    tags = t["mood_tags"]
    tags["emotion"] = tags["emotion"].map(lambda w: "proud" if w != "proud" else "afraid").astype("string")
    tags["emotion_raw"] = tags["emotion"]
    tags["intensity"] = pd.array([7] * len(tags), dtype="Int64")
    t["turns"]["n_mood_tags"] = pd.array([0] * len(t["turns"]), dtype="Int64")
    judgements = t["binary_judgements"]
    for column in ("llm_value", "observed", "preferred", "gold_om", "gold_hp"):
        judgements[column] = pd.array(
            [_flip(v) for v in judgements[column].astype(object).where(judgements[column].notna(), None)],
            dtype="string",
        )
    pw = t["pairwise_comparisons"]
    pw["winner"] = pd.array(
        [{"A": "B", "B": "A"}.get(w, "A") for w in pw["winner"].astype(object).where(pw["winner"].notna(), None)],
        dtype="string",
    )
    pw["winner_label"] = pd.array(
        [r.response_a if r.winner == "A" else r.response_b for r in pw.itertuples()], dtype="string"
    )
    items = t["panas_items"]
    phases = items["phase"].isin(["pre", "post"] if pre_panas else ["post"])
    items.loc[phases, "value"] = 8 - items.loc[phases, "value"]
    totals = t["panas_totals"]
    phases = totals["phase"].isin(["pre", "post"] if pre_panas else ["post"])
    for column in ("positive", "negative"):
        totals.loc[phases, column] = 80 - totals.loc[phases, column]
    survey = t["survey_answers"]
    survey["answer"] = pd.array(["Other"] * len(survey), dtype="string")
    survey["answer_norm"] = pd.array(["other"] * len(survey), dtype="string")
    t["four_branch"]["rating"] = 8 - t["four_branch"]["rating"]
    return t


@pytest.mark.parametrize("mode", MODES)
def test_gold_annotations_never_reach_a_prediction(gold, mode):
    omniscient = mode in ("omniscient", "verbose_omniscient")
    perturbed = _perturbed(gold, pre_panas=not omniscient)
    assert not perturbed["binary_judgements"]["gold_om"].equals(gold["binary_judgements"]["gold_om"])
    assert _texts(lexicon_outputs(perturbed, MODEL, mode)) == _texts(lexicon_outputs(gold, MODEL, mode))
    # With every forbidden annotation row removed the predictions are still the same.
    empty = _copy(perturbed)
    for name in ("mood_tags", "survey_answers", "four_branch"):
        empty[name] = empty[name].iloc[0:0]
    for name in ("panas_items", "panas_totals"):
        empty[name] = empty[name][(empty[name]["phase"] == "pre") & omniscient]
    assert _texts(lexicon_outputs(empty, MODEL, mode)) == _texts(lexicon_outputs(gold, MODEL, mode))


def test_pre_panas_is_used_only_in_omniscient_modes(gold):
    perturbed = _perturbed(gold, pre_panas=True)
    for mode in MODES:
        same = _texts(lexicon_outputs(perturbed, MODEL, mode)) == _texts(lexicon_outputs(gold, MODEL, mode))
        assert same == (mode not in ("omniscient", "verbose_omniscient")), mode


# --------------------------------------------------------------------------- hand rules
def _judged_turn(gold: dict[str, pd.DataFrame], question: str) -> tuple[str, int]:
    rows = gold["binary_judgements"]
    row = rows[rows["question_id"] == question].iloc[0]
    return str(row["conversation_id"]), int(row["turn_number"])


def _set_text(tables: dict[str, pd.DataFrame], key: tuple[str, int], **texts: str) -> dict[str, pd.DataFrame]:
    out = _copy(tables)
    at = (out["turns"]["conversation_id"] == key[0]) & (out["turns"]["turn_number"] == key[1])
    for column, text in texts.items():
        out["turns"].loc[at, column] = text
    return out


def test_question_mark_answers_b13_yes(gold):
    key = _judged_turn(gold, "B13")
    asks = _turn_outputs(
        lexicon_outputs(
            _set_text(gold, key, llm_response="Thanks for sharing. How are you holding up?"), MODEL, "default"
        )
    )[key]
    for field in (
        "em_binary_om_assessment",
        "em_binary_om_assessment_hp",
        "em_binary_human_prediction",
        "em_binary_human_prediction_hp",
    ):
        assert asks[field]["B13"] == "yes"
    tells = _turn_outputs(lexicon_outputs(_set_text(gold, key, llm_response="Thanks for sharing."), MODEL, "default"))[
        key
    ]
    assert tells["em_binary_om_assessment"]["B13"] == "no"
    judged = set(
        gold["binary_judgements"].query("conversation_id == @key[0] and turn_number == @key[1]")["question_id"]
    )
    assert set(asks["em_binary_om_assessment"]) == judged


def test_binary_cues_and_hp_policy():
    reply = "It sounds like you might be feeling nervous. You could try writing it down. Is that wrong of them?"
    om, hp = binary_answers(reply, ["B7", "B1", "B11", "B313", "B13", "B14", "B19", "B18", "B8", "B999"])
    assert om == {
        "B7": "yes",
        "B1": "yes",
        "B11": "yes",
        "B313": "yes",
        "B13": "yes",
        "B14": "yes",
        "B19": "no",
        "B18": "no",
        "B8": "yes",
        "B999": "no",
    }
    assert hp["B14"] == "no" and hp["B19"] == "yes" and hp["B11"] == "yes" and hp["B999"] == "no"
    om, _ = binary_answers(
        "If you feel unsafe, call a crisis line. That makes sense because this happens often.",
        ["B17", "B18", "B19", "B12"],
    )
    assert set(om.values()) == {"yes"}
    assert set(lexicon.BINARY_RULES) == set(instrument.binary_question_ids())
    assert all(c in lexicon.CUES or c == "emotion_words" for rule in lexicon.BINARY_RULES.values() for c in rule.cues)


def test_scared_message_gives_a_negative_tag(gold):
    tags = emotion_tags("I feel so scared and nervous")
    words = {t["emotion"] for t in tags}
    assert words & {"scared", "nervous", "afraid"}
    assert all(instrument.panas_by_word()[w].affect == "negative" for w in words)
    assert all(1 <= t["intensity"] <= 7 for t in tags) and len(tags) <= 3
    key = (str(gold["turns"]["conversation_id"].iloc[0]), int(gold["turns"]["turn_number"].iloc[0]))
    out = _turn_outputs(
        lexicon_outputs(_set_text(gold, key, user_message="I feel so scared and nervous"), MODEL, "default")
    )[key]
    assert out["em_emotion_tags"] == tags
    assert tags[0]["emotion"] in out["em_drafted_response"]


def test_no_emotion_signal_gives_no_tag():
    assert emotion_tags("I went to the shop on Tuesday.") == []
    assert emotion_tags("") == [] and emotion_tags(None) == []
    assert lexicon.drafted_response([]).endswith("What feels hardest right now?")


def test_intensity_follows_vader_magnitude():
    mild, strong = (
        emotion_tags("I guess I'm nervous."),
        emotion_tags("I'm so terribly nervous and afraid, it is awful!!"),
    )
    assert mild and strong and mild[0]["intensity"] < strong[0]["intensity"]


def test_pick_follows_vader(gold):
    happy, grim = "This is wonderful, I am so happy for you!", "This is terrible and awful."
    assert compound(happy) > compound(grim)
    assert pick(happy, grim) == "A" and pick(grim, happy) == "B"
    assert pick("the table", "the table here") == "B"  # equal scores: the longer text
    assert pick("the table", "the table") == "A" and pick(None, "") == "A"
    pw = gold["pairwise_comparisons"]
    row = pw[pw["response_a"] != pw["response_b"]].iloc[0]
    key = (str(row["conversation_id"]), int(row["turn_number"]))
    column = {"original": "llm_response", "alternate": "llm_improved", "human": "human_edited"}
    tables = _set_text(gold, key, **{column[row["response_a"]]: grim, column[row["response_b"]]: happy})
    picks = _turn_outputs(lexicon_outputs(tables, MODEL, "default"))[key]["em_pairwise_selections"]
    assert picks[str(int(row["position"]))] == "B"


def test_post_panas_follows_valence_and_trend():
    up = ["I feel awful and hopeless.", "It is a bit better.", "I feel great and happy now!"]
    flat = lexicon.post_panas(up, None, None)["items"]
    assert flat == lexicon.post_panas(list(reversed(up)), None, None)["items"]  # order-free without pre
    pre = {i.name: 4.0 for i in instrument.panas_items()}
    rising = lexicon.post_panas(up, pre, {})["items"]
    falling = lexicon.post_panas(list(reversed(up)), pre, {})["items"]
    assert rising["Excited"] > 4 > falling["Excited"] and rising["Afraid"] < 4 < falling["Afraid"]
    assert lexicon.post_panas([], None, None)["totals"] == {"totalPositiveAffect": 40, "totalNegativeAffect": 40}
    assert lexicon.post_panas(up, {}, {"positive": 30.0})["items"]["Excited"] == lexicon.round_half_up(
        3 + 6 * lexicon.valence_trend(up), 1, 7
    )

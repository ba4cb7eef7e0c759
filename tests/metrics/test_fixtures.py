"""Hand-computed fixtures for every edge case of the metrics spec.

Each case builds a tiny conversation and EM output, runs them through the real reader, tidy
tables and scorer, and checks numbers worked out by hand (the working is in the comments).
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
from eibench.metrics.score import score_model
from eibench.release.read import list_json_files, read_conversations, read_em_outputs
from eibench.release.tidy import em_tables, gold_tables
from eibench.release.write import write_json

from ..conftest import RELEASE

S2 = math.sqrt(2)


def _sim(a: str, b: str, digits: int | None = 4) -> float:
    """Label similarity; parity uses the public scorer's table, rounded to 4 decimals (D3)."""
    va = {"upset": (0.167, 0.65), "afraid": (0.073, 0.84), "distressed": (0.125, 0.75), "excited": (0.8, 0.85)}
    x = 1 - math.dist(va[a], va[b]) / S2
    return x if digits is None else round(x, digits)


#: A complete release conversation put beside each fixture's conversation (unscored: no output
#: file), so the fixture cohort has every kind of annotation and the per-conversation parity
#: rules apply; a cohort lacking a kind everywhere is tested in test_availability.py.
COMPLETE = Path(__file__).parents[1] / "data" / "release" / "valid" / "conversation_5.json"


def _written(tmp_path: Path, turns: list[dict], em_turns: list[dict], **extra) -> Path:
    """The fixture's conversation (beside ``COMPLETE``) in tmp_path/g, its output in the
    folder returned (tmp_path/e)."""
    conv = {"conversationId": "c1", "turns": turns, **extra.get("conv", {})}
    out = {"conversationId": "c1", "em_model": "m", "mode": "default", "turns": em_turns, **extra.get("em", {})}
    (tmp_path / "g").mkdir(exist_ok=True)
    (tmp_path / "e").mkdir(exist_ok=True)
    shutil.copyfile(COMPLETE, tmp_path / "g" / COMPLETE.name)
    write_json(conv, tmp_path / "g" / "c1.json")
    write_json(out, tmp_path / "e" / "c1.json")
    return tmp_path / "e"


def _score(tmp_path: Path, turns: list[dict], em_turns: list[dict], rule_set: str = "parity", **extra):
    outputs = _written(tmp_path, turns, em_turns, **extra)
    gold = gold_tables(read_conversations(list_json_files(tmp_path / "g")))
    em = em_tables(read_em_outputs(list_json_files(outputs), "m", "default"))
    return score_model(gold, em, rule_set)


def _turn(tags=(), judgements=(), comparisons=(), n=1):
    return {
        "turnNumber": n,
        "userMessage": "u",
        "llmResponse": "the reply",
        "moodShiftTags": list(tags),
        "annotations": {
            "binaryJudgements": list(judgements),
            "pairwiseComparisons": list(comparisons),
            "alternateResponses": {"llmImproved": "better reply", "humanEdited": "my own reply"},
        },
    }


def _em(tags=(), om=None, hp=None, picks=None, n=1, **more):
    return {
        "turnNumber": n,
        "em_emotion_tags": list(tags),
        "em_binary_om_assessment": om or {},
        "em_binary_human_prediction": hp or {},
        "em_pairwise_selections": picks or {},
        **more,
    }


def _t(score, metric):
    return score.turn.iloc[0][metric]


# ------------------------------------------------------------------ emotion tracking
def test_both_empty_is_one_one_empty_is_zero(tmp_path):
    s = _score(tmp_path, [_turn(), _turn(tags=[{"emotion": "Upset", "intensity": 3}], n=2)], [_em(), _em(n=2)])
    first, second = s.turn.iloc[0], s.turn.iloc[1]
    for metric in ("emotion_f1", "emotion_va", "emotion_va_intensity"):
        assert first[metric] == 1.0 and second[metric] == 0.0, metric
    # The public rule (scorer.ts, scoreEmotionF1): both sets empty gives 1.0 for F1 x intensity
    # too; one side empty, no matched label: 0.
    assert first["emotion_f1_intensity"] == 1.0 and second["emotion_f1_intensity"] == 0.0


def test_f1_with_duplicates_and_intensity_words(tmp_path):
    # gold {upset(6), distressed(5)}; predicted upset twice ('intense' = 6, then 1), afraid 3:
    # sets {upset, distressed} vs {upset, afraid}: F1 = 2*1/(2+2) = 0.5. D11: parity keeps the
    # last intensity of a duplicated word (the public scorer's map): 1 - |6-1|/6 = 1/6 -> 0.5/6;
    # strict the first: 1 - |6-6|/6 = 1 -> 0.5.
    gold = [{"emotion": " Upset ", "intensity": 6}, {"emotion": "Distressed", "intensity": 4.6}]
    pred = [
        {"emotion": "upset", "intensity": "intense"},
        {"emotion": "UPSET", "intensity": 1},
        {"emotion": "Afraid", "intensity": 3},
    ]
    s = _score(tmp_path, [_turn(tags=gold)], [_em(tags=pred)])
    assert _t(s, "emotion_f1") == pytest.approx(0.5)
    assert _t(s, "emotion_f1_intensity") == pytest.approx(0.5 / 6)
    assert _t(
        _score(tmp_path, [_turn(tags=gold)], [_em(tags=pred)], "strict"), "emotion_f1_intensity"
    ) == pytest.approx(0.5)
    # VA uses the lists as given: 2 gold x 3 predicted. Best match: upset-upset (1) and
    # distressed with the better of upset (second copy) / afraid.
    best = 1 + max(_sim("distressed", "upset"), _sim("distressed", "afraid"))
    assert _t(s, "emotion_va") == pytest.approx(best / 3, abs=1e-12)


def test_clamped_predicted_intensities_are_flagged_and_counted_on_scored_turns(tmp_path):
    # 9 and "0" round outside 1..7 (clamped to 7 and 1), 7.4 rounds to 7 (not clamped), a word
    # is never clamped; turn 2's 12 is clamped too; turn 5 has no gold turn: flagged, not counted.
    gold = [
        _turn(tags=[{"emotion": "Upset", "intensity": 6}]),
        _turn(tags=[{"emotion": "Afraid", "intensity": 2}], n=2),
    ]
    pred = [{"emotion": "upset", "intensity": v} for v in (9, "0", 7.4, "mild")]
    em = [_em(tags=pred), _em(tags=[{"emotion": "afraid", "intensity": 12}], n=2)]
    em.append(_em(tags=[{"emotion": "calm", "intensity": -3}], n=5))
    read = read_em_outputs(list_json_files(_written(tmp_path, gold, em)), "m", "default")
    tags = em_tables(read)["em_emotion_tags"]
    assert list(tags["intensity"]) == [7, 1, 7, 2, 7, 1]
    assert list(tags["intensity_clamped"]) == [True, True, False, False, True, True]
    for rule_set in ("parity", "strict"):
        s = _score(tmp_path, gold, em, rule_set)
        counts = dict(zip(s.rule_counts["rule"], s.rule_counts["count"]))
        assert counts["emotion_intensity_clamped"] == 3, rule_set
        assert counts["em_turn_not_in_gold"] == 1


def test_va_is_one_exactly_when_the_label_multisets_match(tmp_path):
    tags = [{"emotion": "Afraid", "intensity": 2}, {"emotion": "Excited", "intensity": 5}]
    s = _score(tmp_path, [_turn(tags=tags)], [_em(tags=list(reversed(tags)))])
    assert _t(s, "emotion_va") == 1.0 and _t(s, "emotion_va_intensity") == 1.0


def test_word_outside_panas_has_no_similarity(tmp_path):
    s = _score(
        tmp_path,
        [_turn(tags=[{"emotion": "Exhausted", "intensity": 4}])],
        [_em(tags=[{"emotion": "exhausted", "intensity": 4}])],
    )
    assert _t(s, "emotion_f1") == 1.0  # the same word still matches in F1
    assert _t(s, "emotion_va") == 0.0  # but has similarity 0 in VA
    assert _t(s, "emotion_va_intensity") == pytest.approx(0.3)  # 0.7 * 0 + 0.3 * 1


def test_intensity_missing_on_a_matched_label(tmp_path):
    # F1 = 1 but no matched label has both intensities -> intensity variant 0.
    s = _score(
        tmp_path,
        [_turn(tags=[{"emotion": "Upset", "intensity": None}])],
        [_em(tags=[{"emotion": "upset", "intensity": 5}])],
    )
    assert _t(s, "emotion_f1") == 1.0 and _t(s, "emotion_f1_intensity") == 0.0
    assert _t(s, "emotion_va_intensity") == pytest.approx(0.7)


# ------------------------------------------------------------------ binary
J = [
    {"questionId": "B1", "observedBehavior": "yes", "preferredBehavior": "no"},
    {"questionId": "B2", "observedBehavior": "no", "preferredBehavior": "no"},
    {"questionId": "B3", "observedBehavior": "na", "preferredBehavior": "yes"},
]


def test_binary_missing_and_na_predictions(tmp_path):
    # OM gold: B1 yes, B2 no (B3 na not counted). EM: B1 'na', B2 missing.
    # parity: both read as no -> B1 FN, B2 TN -> 1/2. strict: both wrong -> 0/2.
    # HP gold: B1 no, B2 no, B3 yes. EM: B1 no, B2 yes, B3 invalid.
    # parity: TN, FP, FN -> 1/3. strict: TN, FP, FN (invalid is wrong) -> 1/3.
    turns, em = [_turn(judgements=J)], [_em(om={"B1": "na"}, hp={"B1": "no", "B2": "yes", "B3": "invalid"})]
    parity, strict = _score(tmp_path, turns, em), _score(tmp_path, turns, em, "strict")
    assert _t(parity, "binary_om_acc") == 0.5 and _t(strict, "binary_om_acc") == 0.0
    assert _t(parity, "binary_hp_acc") == pytest.approx(1 / 3) and _t(strict, "binary_hp_acc") == pytest.approx(1 / 3)
    assert (_t(strict, "om_fn"), _t(strict, "om_fp")) == (1, 1)


def test_empty_and_all_na_turns(tmp_path):
    na = [{"questionId": "B1", "observedBehavior": "na", "preferredBehavior": None, "llmValue": None}]
    turns = [_turn(n=1), _turn(judgements=na, n=2)]
    em = [_em(n=1), _em(om={"B1": "yes"}, n=2)]
    parity, strict = _score(tmp_path, turns, em), _score(tmp_path, turns, em, "strict")
    assert list(parity.turn["binary_om_acc"]) == [1.0, 0.0]  # no judgements 1.0; all gold na 0.0
    assert strict.turn["binary_om_acc"].isna().all()
    counts = dict(zip(parity.rule_counts["rule"], parity.rule_counts["count"]))
    assert counts["binary_om_turn_without_judgements"] == 1 and counts["binary_om_turn_all_gold_na"] == 1


def test_turn_without_judgements_participant_wording_is_zero(tmp_path):
    # The public scorer's 1.0 for a turn without judgement objects covers the observer-wording
    # accuracies only; the participant-wording ones come from empty confusion counts: 0.0.
    turns = [_turn(n=1)]
    parity, strict = _score(tmp_path, turns, [_em(n=1)]), _score(tmp_path, turns, [_em(n=1)], "strict")
    row = parity.turn.iloc[0]
    assert (row["binary_om_acc"], row["binary_hp_acc"]) == (1.0, 1.0)
    assert (row["binary_om_acc_pw"], row["binary_hp_acc_pw"]) == (0.0, 0.0)
    assert parity.conversation.iloc[0]["perspective_gap"] == 1.0  # 1.0 - 0.0
    assert strict.turn[["binary_om_acc_pw", "binary_hp_acc_pw"]].isna().all(axis=None)


# ------------------------------------------------------------------ draft similarity
def test_padded_draft_equals_its_reply(tmp_path):
    # Tokens are Python's split(): leading, trailing and repeated whitespace make no token, so a
    # draft equal to the original reply up to padding has Jaccard 1 with it (not 2/3 or 0.986).
    turns = [_turn(n=1), _turn(n=2), _turn(n=3)]
    em = [
        _em(n=1, em_drafted_response="the reply "),
        _em(n=2, em_drafted_response="  THE\t reply\n"),
        _em(n=3, em_drafted_response="the  reply  better"),
    ]
    s = _score(tmp_path, turns, em)
    assert list(s.turn["response_similarity"]) == [
        1.0,
        1.0,
        pytest.approx(2 / 3),
    ]  # 3: {the, reply} in {the, reply, better}


def test_draft_without_words(tmp_path):
    # A draft of whitespace has no token: Jaccard 0 with a reply that has words, 1 with a reply
    # that has none (two empty token sets are equal).
    turn = _turn()
    turn["llmResponse"] = "   "
    turn["annotations"]["alternateResponses"] = None
    s = _score(tmp_path, [turn, _turn(n=2)], [_em(em_drafted_response=" \t "), _em(n=2, em_drafted_response="  ")])
    assert list(s.turn["response_similarity"]) == [1.0, 0.0]


# ------------------------------------------------------------------ pairwise and Kendall tau
C = [
    {"questionId": "general", "responseA": "original", "responseB": "human", "winner": "B"},
    {"questionId": "PW4", "responseA": "alternate", "responseB": "original", "winner": None},
]


def test_pairwise_null_winner_counts_in_the_denominator(tmp_path):
    s = _score(tmp_path, [_turn(comparisons=C)], [_em(picks={"0": "B", "1": "A", "7": "A"})])
    assert _t(s, "pairwise_acc") == 0.5
    # HP wins: human 1 -> order human, alternate, original. EM wins: human 1, alternate 1 ->
    # tie broken alphabetically: alternate, human, original. Pairs: (alt, hum) discordant,
    # (alt, orig) and (hum, orig) concordant -> tau = (2 - 1) / 3.
    assert _t(s, "kendall_tau") == pytest.approx(1 / 3)


def test_no_comparisons_and_no_picks(tmp_path):
    turns = [_turn(n=1), _turn(comparisons=C, n=2)]
    parity = _score(tmp_path, turns, [_em(n=1), _em(n=2)])
    strict = _score(tmp_path, turns, [_em(n=1), _em(n=2)], "strict")
    assert list(parity.turn["pairwise_acc"]) == [1.0, 0.0]
    assert math.isnan(strict.turn["pairwise_acc"].iloc[0])
    assert parity.turn["kendall_tau"].isna().all()  # no labels / no EM pick


# ------------------------------------------------------------------ holistic
PRE = {"totalPositiveAffect": 30, "totalNegativeAffect": 20}


def test_panas_adjusted_and_post_equals_pre(tmp_path):
    # PA: pre 30, post 40, predicted 37: naive = 1 - 10/60, raw = 1 - 3/60,
    # adjusted = (raw - naive) / (1 - naive) = (7/60) / (10/60) = 0.7.
    # NA: pre 20 = post 20: undefined. Mean over defined affects = 0.7; part = 0.85.
    conv = {"prePanas": PRE, "postPanas": {"totalPositiveAffect": 40, "totalNegativeAffect": 20}}
    em = {"post_conversation": {"panas_strategy": "absolute", "predicted_post_panas": {"totals": {"PA": 37, "NA": 26}}}}
    s = _score(tmp_path, [_turn()], [_em()], conv=conv, em=em)
    c = s.conversation.iloc[0]
    assert c["panas_adjusted"] == pytest.approx(0.7) and c["panas_part"] == pytest.approx(0.85)
    assert c["panas_normalized"] == pytest.approx(1 - (3 + 6) / 2 / 60)


def test_panas_delta_and_missing_predictions(tmp_path):
    conv = {"prePanas": PRE, "postPanas": {"totalPositiveAffect": 30, "totalNegativeAffect": 20}}
    em = {"post_conversation": {"panas_strategy": "delta", "predicted_panas_delta": {"totals": {"PA": 5}}}}
    parity = _score(tmp_path, [_turn()], [_em()], conv=conv, em=em).conversation.iloc[0]
    # post = pre everywhere: adjusted undefined -> part 0.5 (parity). Normalised: PA 30 vs 35,
    # NA missing -> 40 vs 20: MAE (5 + 20) / 2 = 12.5 -> 1 - 12.5/60.
    assert math.isnan(parity["panas_adjusted"]) and parity["panas_part"] == 0.5
    assert parity["panas_normalized"] == pytest.approx(1 - 12.5 / 60)


def test_conversation_wide_and_four_branch(tmp_path):
    gold_cw = {
        "q1_lookingFor": ["To just listen or let me vent", "Other"],
        "q2_emotionClarity": "Implied or indirect",
        "q3_modelFit": "Mostly well-matched",
        "q3_followUp_whatFeltOff": ["it repeated the same suggestions"],
        "fourBranchScores": {"perceiving": 6, "managing": 2},
    }
    pred_cw = {
        "q1_lookingFor": ["to just listen or let me vent"],
        "q2_emotionClarity": " implied or indirect ",
        "q3_modelFit": "Mostly off-target or intrusive",
        "q3_followUp_whatFeltOff": ["it repeated suggestions"],
        "fourBranchScores": {"perceiving": 5},
    }
    s = _score(
        tmp_path,
        [_turn()],
        [_em()],
        conv={"conversationWideQuestions": gold_cw},
        em={"post_conversation": {"predicted_conversation_wide": pred_cw}},
    )
    c = s.conversation.iloc[0]
    assert c["cw_q1_f1"] == pytest.approx(2 * 1 / 3)  # 2|∩| / (2 + 1)
    assert c["cw_q2_exact"] == 1.0 and c["cw_q3_exact"] == 0.0
    assert c["cw_q3_distance"] == 2.0  # positions 1 and 3
    # 'it repeated suggestions' vs 'it repeated the same suggestions': 3 / 5 tokens = 0.6 each side.
    assert c["cw_followup_f1"] == pytest.approx(0.6)
    assert c["conversation_wide"] == pytest.approx((2 / 3 + 1 + 0 + 0.6) / 4)
    # perceiving |6 - 5| = 1, managing missing -> 4: |2 - 4| = 2; MAE 1.5; score 1 - 1.5/6.
    assert c["four_branch_mae"] == 1.5 and c["four_branch"] == pytest.approx(0.75)


def test_no_gold_survey(tmp_path):
    # D19, parity (the public scorer): the predictions are scored against empty gold answers;
    # no prediction either: q1 both empty 1, q2 and q3 '' = '' 1, distance 0, follow-up 1.
    s = _score(tmp_path, [_turn()], [_em()])
    c = s.conversation.iloc[0]
    assert (c["cw_q1_f1"], c["cw_q2_exact"], c["cw_q3_exact"], c["cw_q3_distance"], c["cw_followup_f1"]) == (
        1,
        1,
        1,
        0,
        1,
    )
    assert c["conversation_wide"] == 1.0 and c["four_branch"] == 1.0  # parity: no gold rating
    pred_cw = {
        "q1_lookingFor": ["Other"],
        "q2_emotionClarity": "Implied or indirect",
        "q3_modelFit": "Mostly well-matched",
    }
    c = _score(
        tmp_path, [_turn()], [_em()], em={"post_conversation": {"predicted_conversation_wide": pred_cw}}
    ).conversation.iloc[0]
    # q1 one side empty 0, q2 and q3 '' vs an answer 0, distance 3 (gold unknown), follow-up both empty 1.
    assert (c["cw_q1_f1"], c["cw_q2_exact"], c["cw_q3_exact"], c["cw_q3_distance"], c["cw_followup_f1"]) == (
        0,
        0,
        0,
        3,
        1,
    )
    assert c["conversation_wide"] == 0.25
    strict = _score(tmp_path, [_turn()], [_em()], "strict")  # strict: NaN, with its reason
    assert math.isnan(strict.conversation.iloc[0]["conversation_wide"])
    assert set(strict.missing.query("metric == 'conversation_wide'")["reason"]) == {"no gold post-chat survey"}


def test_composite_rounding_and_weights(tmp_path):
    s = _score(tmp_path, [_turn()], [_em()])
    c = s.conversation.iloc[0]
    # tracking 1 (both empty), evaluation 1 (no judgements, no comparisons -> 1.0 each),
    # holistic: PANAS part 0.5, conversation-wide 1 (no survey, no answers: D19), four-branch 1.
    holistic = 0.4 * 0.5 + 0.3 * 1.0 + 0.3 * 1.0
    assert c["holistic"] == pytest.approx(holistic)
    assert c["composite"] == round(100 * (0.24 + 0.49 + 0.27 * holistic), 2)
    # D5: the equal-weight composite is rounded too: 100 x mean(1, (0.5 + 1 + 1) / 3) = 91.666.. -> 91.67.
    assert c["composite_equal"] == 91.67


# ------------------------------------------------------------------ the release corpus
def test_corpus_conversation_5_by_hand():
    gold = gold_tables(read_conversations(list_json_files(RELEASE / "valid")))
    em = em_tables(read_em_outputs(list_json_files(RELEASE / "em_valid"), "model-x", "default"))
    t = score_model(gold, em, "parity").turn.set_index(["conversation_id", "turn_number"]).loc[("conversation_5", 1)]
    assert t["emotion_f1"] == 0.5 and t["pairwise_acc"] == 0.5 and t["binary_om_acc"] == 1.0
    best = 1 + _sim("distressed", "afraid")  # upset-upset 1, distressed-afraid beats the swap
    assert t["emotion_va"] == pytest.approx(best / 2)
    assert t["kendall_tau"] == pytest.approx(1 / 3)
    assert t["draft_judge"] == pytest.approx(((5 + 6) / 2 - 1) / 6)


def test_greedy_matching_of_the_public_port_differs_from_optimal(tmp_path):
    # sims: guilty-interested .646, guilty-inspired .465, strong-interested .900, strong-inspired .894.
    # Greedy takes the cheapest pair first (strong-interested), then guilty-inspired: .900 + .465.
    # Optimal: guilty-interested + strong-inspired = .646 + .894. Score = total / 2.
    va = {"guilty": (0.15, 0.6), "strong": (0.75, 0.7), "interested": (0.65, 0.6), "inspired": (0.9, 0.7)}

    def sim(a, b):
        return round(1 - math.dist(va[a], va[b]) / S2, 4)  # parity: the rounded table (D3)

    gold = [{"emotion": "Guilty", "intensity": 3}, {"emotion": "Strong", "intensity": 3}]
    pred = [{"emotion": "interested", "intensity": 3}, {"emotion": "inspired", "intensity": 3}]
    turns, em = [_turn(tags=gold)], [_em(tags=pred)]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    optimal = _score(tmp_path / "a", turns, em)
    gold_t = gold_tables(read_conversations(list_json_files(tmp_path / "a" / "g")))
    em_t = em_tables(read_em_outputs(list_json_files(tmp_path / "a" / "e"), "m", "default"))
    greedy = score_model(gold_t, em_t, "parity", va_matching="greedy")
    assert _t(optimal, "emotion_va") == pytest.approx((sim("guilty", "interested") + sim("strong", "inspired")) / 2)
    assert _t(greedy, "emotion_va") == pytest.approx((sim("strong", "interested") + sim("guilty", "inspired")) / 2)


def test_panas_metrics_are_also_summarised_per_strategy(tmp_path):
    from eibench.metrics.score import model_summary

    conv = {"prePanas": PRE, "postPanas": {"totalPositiveAffect": 40, "totalNegativeAffect": 20}}
    em = {"post_conversation": {"panas_strategy": "delta", "predicted_panas_delta": {"totals": {"PA": 7, "NA": 6}}}}
    s = _score(tmp_path, [_turn()], [_em()], conv=conv, em=em)
    summary = model_summary(s.turn, s.conversation, 1)
    by = summary.set_index(["metric", "subset"])["mean"]
    assert by[("panas_adjusted", "panas_strategy=delta")] == pytest.approx(0.7)  # PA 30 + 7 = 37, as above
    assert by[("panas_adjusted", "all")] == pytest.approx(0.7)

"""Hand-computed fixtures of every divergence from the public port (docs/metrics.md,
"Divergences from the public port"): parity, strict and the port setting.

Parity and strict values are also checked against the reference scorer (tests/oracle) to
1e-9; the port setting's values are worked out by hand from the port's rules (scorer.ts,
types.ts, utils.ts, constants.ts), which the working in the comments cites.
"""

from __future__ import annotations

import math

import pytest
from eibench.metrics.rules import js_round, js_tokens, js_trim, rules_for
from eibench.metrics.score import score_model
from eibench.release.read import list_json_files, read_conversations, read_em_outputs
from eibench.release.tidy import em_tables, gold_tables

from ..oracle.reference_scorer import reference_scores
from .test_fixtures import _em, _score, _turn

TOL = 1e-9
QUIET = {"em": {"post_conversation": {"predicted_conversation_wide": {}}}}


def _port(tmp_path):
    """The files _score wrote, scored with the port setting."""
    gold = gold_tables(read_conversations(list_json_files(tmp_path / "g")))
    em = em_tables(read_em_outputs(list_json_files(tmp_path / "e"), "m", "default"))
    return score_model(gold, em, "parity", compat="port")


def _oracle_agrees(tmp_path, fast, rule_set: str) -> None:
    """The fast scorer and the reference scorer agree on every turn and conversation value."""
    turns, convs = reference_scores(list_json_files(tmp_path / "g"), list_json_files(tmp_path / "e"), rule_set)
    fast_turns = fast.turn.set_index("turn_number")
    for row in turns:
        for name, value in row.items():
            if name in fast_turns.columns and name not in ("conversation_id",):
                got = float(fast_turns.loc[row["turn_number"], name])
                assert _same(got, float(value)), (rule_set, row["turn_number"], name, got, value)
    fast_conv = fast.conversation.set_index("conversation_id").loc[convs[0]["conversation_id"]]
    for name, value in convs[0].items():
        if name != "conversation_id" and name in fast_conv.index:
            assert _same(float(fast_conv[name]), float(value)), (rule_set, name, fast_conv[name], value)


def _same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= TOL


def _post(**post):
    """An EM file's ``post_conversation`` (no survey prediction) as _score's ``em`` override."""
    return {"post_conversation": {"predicted_conversation_wide": {}, **post}}


def _both(tmp_path, turns, em_turns, **extra):
    out = {}
    for rule_set in ("parity", "strict"):
        out[rule_set] = _score(tmp_path, turns, em_turns, rule_set, **extra)
        _oracle_agrees(tmp_path, out[rule_set], rule_set)
    out["port"] = _port(tmp_path)
    return out


# ------------------------------------------------------------------ the rules module
def test_javascript_semantics():
    assert js_round(2.5) == 3.0 and js_round(-2.5) == -2.0 and js_round(0.49999999999999994) == 0.0
    assert round(2.5) == 2  # Python: half to even (D16)
    assert js_trim("\ufeff x \x1c") == "x \x1c" and "\ufeff x \x1c".strip() == "\ufeff x"
    assert js_tokens("A\u0085b \ufeffC") == ["a\u0085b", "c"] and "A\u0085b \ufeffC".lower().split() == [
        "a",
        "b",
        "\ufeffc",
    ]
    with pytest.raises(ValueError, match="scoring.compat"):
        rules_for("parity", compat="javascript")
    assert rules_for("strict", compat="port") == rules_for("strict")  # the port setting changes parity only
    assert rules_for("parity", compat="port").va_matching == "greedy"


# ------------------------------------------------------------------ D10, D11
def test_duplicate_question_id_and_word(tmp_path):
    # D10: B1 twice (observed yes, then no); the EM says yes. Parity and port: the last, counted
    # once: FP -> 0/1. Strict: both count: TP + FP -> 1/2.
    judgements = [{"questionId": "B1", "observedBehavior": "yes"}, {"questionId": "B1", "observedBehavior": "no"}]
    # D11: gold upset 2 then 6; EM upset 6. Parity and port keep the last: 1 - 0/6 = 1 -> F1 x 1.
    # Strict the first: 1 - |2 - 6|/6 = 1/3.
    tags = [{"emotion": "Upset", "intensity": 2}, {"emotion": "upset", "intensity": 6}]
    s = _both(
        tmp_path,
        [_turn(tags=tags, judgements=judgements)],
        [_em(tags=[{"emotion": "upset", "intensity": 6}], om={"B1": "yes"})],
        **QUIET,
    )
    for name in ("parity", "port"):
        t = s[name].turn.iloc[0]
        assert (t["binary_om_acc"], t["om_fp"], t["om_tp"]) == (0.0, 1, 0), name
        assert t["emotion_f1_intensity"] == 1.0, name
    t = s["strict"].turn.iloc[0]
    assert (t["binary_om_acc"], t["om_fp"], t["om_tp"]) == (0.5, 1, 1)
    assert t["emotion_f1_intensity"] == pytest.approx(1 / 3)


# ------------------------------------------------------------------ D6, D7
def test_draft_rules(tmp_path):
    # Turn 1: winners human (reply '') and original; draft 'the reply' = the original (Jaccard 1),
    # improved 'better reply' 1/3, human '' 0. D7b parity: human left out, original's share
    # renormalised: 0.5 x 1 / 0.5 = 1. Strict: 0.5 x 1 + 0.5 x 0 = 0.5. Similarity max = 1.
    # Turn 2: no gold winner. D7a parity: alignment = similarity = J('better', 'better reply') = 1/2.
    # Turn 3: no draft. D6 parity: 0 and 0; strict: null. Turn 4: draft '': parity no draft (0, 0);
    # strict a draft: similarity 0, alignment null (no comparison).
    t1 = _turn(
        comparisons=[
            {"questionId": "general", "responseA": "original", "responseB": "human", "winner": "B"},
            {"questionId": "PW1", "responseA": "alternate", "responseB": "original", "winner": "B"},
        ],
        n=1,
    )
    t1["annotations"]["alternateResponses"]["humanEdited"] = ""
    t2 = _turn(
        comparisons=[{"questionId": "general", "responseA": "original", "responseB": "alternate", "winner": None}], n=2
    )
    em = [
        _em(n=1, em_drafted_response="the reply"),
        _em(n=2, em_drafted_response="better"),
        _em(n=3),
        _em(n=4, em_drafted_response=""),
    ]
    s = _both(tmp_path, [t1, t2, _turn(n=3), _turn(n=4)], em, **QUIET)
    for name in ("parity", "port"):
        assert list(s[name].turn["response_similarity"]) == [1.0, 0.5, 0.0, 0.0], name
        assert list(s[name].turn["preference_alignment"]) == [1.0, 0.5, 0.0, 0.0], name
        assert s[name].conversation.iloc[0]["response_similarity"] == 0.375, name  # (1 + .5 + 0 + 0) / 4
    strict = s["strict"].turn
    assert list(strict["response_similarity"].fillna(-1)) == [1.0, 0.5, -1, 0.0]
    assert list(strict["preference_alignment"].fillna(-1)) == [0.5, -1, -1, -1]


def test_empty_alternate_is_no_reply_for_the_port(tmp_path):
    # D7c: a draft without words against an empty improved reply: parity counts the reply
    # (two empty token sets, Jaccard 1); the port's truthiness test skips it, and the original
    # 'the reply' gives 0.
    turn = _turn()
    turn["annotations"]["alternateResponses"] = {"llmImproved": "", "humanEdited": "my own reply"}
    s = _both(tmp_path, [turn], [_em(em_drafted_response="   ")], **QUIET)
    assert s["parity"].turn.iloc[0]["response_similarity"] == 1.0
    assert s["port"].turn.iloc[0]["response_similarity"] == 0.0


# ------------------------------------------------------------------ D3, D12, D16
def test_va_table_rounding_and_javascript_words(tmp_path):
    # D3: upset-afraid: 1 - |(0.167, 0.65) - (0.073, 0.84)| / sqrt 2 = 1 - 0.21198.. / 1.41421.. =
    # 0.850105..; parity and port read the table rounded to 0.8501, strict the exact value.
    exact = 1 - math.dist((0.167, 0.65), (0.073, 0.84)) / math.sqrt(2)
    # D12: gold word '\ufeffAfraid': JavaScript's trim strips U+FEFF, Python's does not, so only
    # the port matches it with the EM's 'afraid' (F1 1, VA 1); parity and strict see an unknown
    # word (F1 0, VA similarity 0 with both predictions).
    tags = [{"emotion": "Upset", "intensity": 3}]
    s = _both(
        tmp_path,
        [_turn(tags=tags), _turn(tags=[{"emotion": "\ufeffAfraid", "intensity": 3}], n=2)],
        [_em(tags=[{"emotion": "afraid", "intensity": 3}]), _em(tags=[{"emotion": "afraid", "intensity": 3}], n=2)],
        **QUIET,
    )
    assert s["parity"].turn.iloc[0]["emotion_va"] == 0.8501 and s["port"].turn.iloc[0]["emotion_va"] == 0.8501
    assert s["strict"].turn.iloc[0]["emotion_va"] == pytest.approx(exact, abs=1e-15)
    assert (s["parity"].turn.iloc[1]["emotion_f1"], s["parity"].turn.iloc[1]["emotion_va"]) == (0.0, 0.0)
    assert (s["port"].turn.iloc[1]["emotion_f1"], s["port"].turn.iloc[1]["emotion_va"]) == (1.0, 1.0)


def test_javascript_whitespace_in_tokens(tmp_path):
    # D12: draft 'the\u0085reply': Python splits at U+0085 ({the, reply} = the original's tokens,
    # Jaccard 1); JavaScript does not ({'the\u0085reply'} shares nothing: 0 with 'the reply',
    # 0 with 'better reply', 0 with 'my own reply').
    s = _both(tmp_path, [_turn()], [_em(em_drafted_response="the\u0085reply")], **QUIET)
    assert s["parity"].turn.iloc[0]["response_similarity"] == 1.0
    assert s["port"].turn.iloc[0]["response_similarity"] == 0.0


def test_composite_half_rounding(tmp_path):
    # D16: every part 1 except the PANAS part 0.5 (no PANAS) and the pairwise accuracy of one
    # turn with two comparisons, one matched: 0.5. Holistic 0.4 x 0.5 + 0.3 + 0.3 = 0.8 (D19: no
    # survey, no answers: 1). Composite = 100 x (0.24 + 0.49 x 0.75 + 0.27 x 0.8) = 82.35 under
    # both roundings; equal-weight = 100 x mean((1 + 1 + 0.5) / 3, (0.5 + 1 + 1) / 3) = 83.333..
    # -> 83.33 both (D5: rounded).
    comps = [
        {"questionId": "general", "responseA": "original", "responseB": "human", "winner": "B"},
        {"questionId": "PW1", "responseA": "alternate", "responseB": "original", "winner": "A"},
    ]
    s = _both(tmp_path, [_turn(comparisons=comps)], [_em(picks={"0": "B", "1": "B"})], **QUIET)
    for name in ("parity", "port"):
        c = s[name].conversation.iloc[0]
        assert (c["composite"], c["composite_equal"]) == (82.35, 83.33), name
    # A half: Math.round(12.5) = 13, Python's round(0.125, 2) = 0.12 (0.125 is exact in binary).
    import numpy as np
    from eibench.metrics.composite import _round2

    assert list(_round2(np.array([0.125, 0.135]), "up")) == [0.13, 0.14]
    assert list(_round2(np.array([0.125, 0.135]), "even")) == [0.12, 0.14]


# ------------------------------------------------------------------ D4, D14, D15, D22, D28
def test_panas_rules(tmp_path):
    # Pre: PA 30 given, NA not given, items Afraid 2 and Scared 3 under 'items'. Post: PA 40, NA
    # not given, no items. Prediction: PA 37, NA missing, no items.
    # D15 parity: pre NA = 2 + 3 = 5 -> clamped 10; strict: missing (not all ten items).
    # D14: NA missing in post and prediction: left out (parity and strict): MAE = |40 - 37| = 3;
    # normalised 1 - 3/60 = 0.95 (the old parity read both as 40 and averaged 0 in: 0.975).
    # Adjusted PA: naive 1 - 10/60, raw 1 - 3/60 -> (7/60) / (10/60) = 0.7; NA undefined.
    conv = {
        "prePanas": {"totalPositiveAffect": 30, "items": {"Afraid": 2, "Scared": 3}},
        "postPanas": {"totalPositiveAffect": 40},
    }
    em = {
        "post_conversation": {
            "panas_strategy": "absolute",
            "predicted_post_panas": {"totalPositiveAffect": 37},  # beside the items: the port reads it (D28)
            "predicted_conversation_wide": {},
        }
    }
    s = _both(tmp_path, [_turn()], [_em()], conv=conv, em=em)
    for name in ("parity", "strict", "port"):
        c = s[name].conversation.iloc[0]
        assert c["panas_normalized"] == pytest.approx(0.95, abs=1e-12), name
        assert c["panas_adjusted"] == pytest.approx(0.7, abs=1e-12), name
    # D4: the port ignores items under 'items': no gold items, item metrics null; parity reads
    # them (but the post has none, so null too). D15 for predictions and D22: below.


def test_predicted_total_from_items_and_port_reader(tmp_path):
    # Gold pre PA 30 / NA 20, post PA 40 / NA 26, items under 'responses' (the port reads them).
    # Prediction: PA 37, no NA total, items Afraid 3, Scared 4, Nervous 5 (NA items).
    # D15 parity and port: predicted NA = 3 + 4 + 5 = 12. MAE (3 + 14) / 2 = 8.5 -> 1 - 8.5/60.
    # Strict: NA prediction missing -> the farthest value 70: MAE (3 + 44) / 2 -> 1 - 23.5/60.
    # Items: post Afraid 2 / Scared 4, predicted 3 / 4: MAE 0.5 -> 1 - 0.5/6 (all settings).
    responses = {"Afraid": 2, "Scared": 4}
    conv = {
        "prePanas": {"totalPositiveAffect": 30, "totalNegativeAffect": 20, "responses": {"Afraid": 1, "Scared": 4}},
        "postPanas": {"totalPositiveAffect": 40, "totalNegativeAffect": 26, "responses": responses},
    }
    pred = {"totalPositiveAffect": 37, "items": {"Afraid": 3, "Scared": 4, "Nervous": 5}}
    em = _post(panas_strategy="absolute", predicted_post_panas=pred)
    s = _both(tmp_path, [_turn()], [_em()], conv=conv, em=em)
    for name in ("parity", "port"):
        assert s[name].conversation.iloc[0]["panas_normalized"] == pytest.approx(1 - 8.5 / 60, abs=1e-12), name
    assert s["strict"].conversation.iloc[0]["panas_normalized"] == pytest.approx(1 - 23.5 / 60, abs=1e-12)
    for name in ("parity", "strict", "port"):
        assert s[name].conversation.iloc[0]["panas_items_normalized"] == pytest.approx(1 - 0.5 / 6, abs=1e-12), name
    # Item adjusted: Afraid pre 1, post 2, pred 3: naive 1 - 1/6, raw 1 - 1/6 -> 0; Scared post = pre: undefined.
    assert s["parity"].conversation.iloc[0]["panas_items_adjusted"] == 0.0
    # The same gold items under 'items' instead (D4): the port's reader sees none -> null.
    conv["postPanas"] = {"totalPositiveAffect": 40, "totalNegativeAffect": 26, "items": responses}
    s = _both(tmp_path, [_turn()], [_em()], conv=conv, em=em)
    assert s["parity"].conversation.iloc[0]["panas_items_normalized"] == pytest.approx(1 - 0.5 / 6, abs=1e-12)
    assert math.isnan(s["port"].conversation.iloc[0]["panas_items_normalized"])


def test_port_reads_predicted_totals_as_given(tmp_path):
    # D22: predicted PA 81.6: parity and strict round and clamp it to 70 (error |40 - 70| = 30);
    # the port uses 81.6 (error 41.6). NA 20 = 20. Parity MAE 15 -> 0.75; port 20.8 -> 1 - 20.8/60.
    conv = {
        "prePanas": {"totalPositiveAffect": 30, "totalNegativeAffect": 20},
        "postPanas": {"totalPositiveAffect": 40, "totalNegativeAffect": 20},
    }
    em = {
        "post_conversation": {
            "panas_strategy": "absolute",
            "predicted_conversation_wide": {},
            "predicted_post_panas": {"totalPositiveAffect": 81.6, "totalNegativeAffect": 20},
        }
    }
    s = _both(tmp_path, [_turn()], [_em()], conv=conv, em=em)
    assert s["parity"].conversation.iloc[0]["panas_normalized"] == 0.75
    assert s["port"].conversation.iloc[0]["panas_normalized"] == pytest.approx(1 - 20.8 / 60, abs=1e-12)


def test_predicted_totals_under_totals_are_invisible_to_the_port(tmp_path):
    # D28. Gold pre PA 30 / NA 20, post PA 40 / NA 26. Prediction: PA 37 under 'totals', NA 30
    # beside the items (the port's PanasScores layout), items Afraid, Scared, Nervous (NA items).
    # Parity and strict read both: MAE (|40 - 37| + |26 - 30|) / 2 = 3.5 -> 1 - 3.5/60. Adjusted:
    # PA naive 1 - 10/60, raw 1 - 3/60 -> 0.7; NA naive 1 - 6/60, raw 1 - 4/60 -> (2/60) / (6/60)
    # = 1/3; mean (0.7 + 1/3) / 2.
    # The port reads predicted_post_panas.totalPositiveAffect only (scorer.ts scorePanasPrediction):
    # PA unseen, and no positive item to sum (deriveAggregates) -> 40 (midpoint): error 0; NA 30:
    # error 4. MAE 2 -> 1 - 2/60. Adjusted: PA needs a prediction -> null; NA 1/3.
    conv = {
        "prePanas": {"totalPositiveAffect": 30, "totalNegativeAffect": 20},
        "postPanas": {"totalPositiveAffect": 40, "totalNegativeAffect": 26},
    }
    pred = {"totals": {"PA": 37}, "totalNegativeAffect": 30, "items": {"Afraid": 3, "Scared": 4, "Nervous": 5}}
    em = _post(panas_strategy="absolute", predicted_post_panas=pred)
    s = _both(tmp_path, [_turn()], [_em()], conv=conv, em=em)
    for name in ("parity", "strict"):
        c = s[name].conversation.iloc[0]
        assert c["panas_normalized"] == pytest.approx(1 - 3.5 / 60, abs=1e-12), name
        assert c["panas_adjusted"] == pytest.approx((0.7 + 1 / 3) / 2, abs=1e-12), name
    c = s["port"].conversation.iloc[0]
    assert c["panas_normalized"] == pytest.approx(1 - 2 / 60, abs=1e-12)
    assert c["panas_adjusted"] == pytest.approx(1 / 3, abs=1e-12)
    # A delta under 'totals' is read under every setting (the port reads no delta: D23, ours):
    # PA 30 + 5 = 35, error 5; NA not predicted -> 40, error 14: MAE 9.5.
    em = _post(panas_strategy="delta", predicted_panas_delta={"totals": {"PA": 5}})
    s = _both(tmp_path, [_turn()], [_em()], conv=conv, em=em)
    for name in ("parity", "port"):
        assert s[name].conversation.iloc[0]["panas_normalized"] == pytest.approx(1 - 9.5 / 60, abs=1e-12), name


# ------------------------------------------------------------------ D18, D19, D20
def test_survey_and_four_branch_rules(tmp_path):
    # D20 parity: q1 sets {'other', ''} vs {'other'}: 2 x 1 / (2 + 1) = 2/3 (strict drops '': 1).
    # Follow-up lists [x, x, 'it was slow'] vs [x]: parity recall (1 + 1 + 0) / 3, precision 1 ->
    # F1 0.8; strict sets {x, slow} vs {x}: recall 1/2, precision 1 -> 2/3.
    # D18: no post-conversation four-branch prediction, the last turn rates perceiving 6:
    # parity takes every branch as 4 (gold perceiving 6, managing 2: MAE (2 + 2) / 2 = 2 ->
    # 1 - 2/6); strict uses the turn: |6 - 6| = 0 and managing missing -> farthest 7: 5 -> MAE 2.5.
    x = "the tone felt clinical"
    gold_cw = {
        "q1_lookingFor": ["Other", ""],
        "q2_emotionClarity": "Implied or indirect",
        "q3_modelFit": "Mostly well-matched",
        "q3_followUp_whatFeltOff": [x, x, "it was slow"],
        "fourBranchScores": {"perceiving": 6, "managing": 2},
    }
    pred_cw = {
        "q1_lookingFor": ["other"],
        "q2_emotionClarity": "Implied or indirect",
        "q3_modelFit": "Mostly well-matched",
        "q3_followUp_whatFeltOff": [x],
    }
    s = _both(
        tmp_path,
        [_turn()],
        [_em(em_four_branch_scores={"perceiving": 6})],
        conv={"conversationWideQuestions": gold_cw},
        em={"post_conversation": {"predicted_conversation_wide": pred_cw}},
    )
    for name in ("parity", "port"):
        c = s[name].conversation.iloc[0]
        assert (c["cw_q1_f1"], c["cw_followup_f1"]) == (pytest.approx(2 / 3), pytest.approx(0.8)), name
        assert c["four_branch"] == pytest.approx(1 - 2 / 6), name
    c = s["strict"].conversation.iloc[0]
    assert (c["cw_q1_f1"], c["cw_followup_f1"]) == (1.0, pytest.approx(2 / 3))
    assert c["four_branch_mae"] == 2.5

"""Seeded perturbations of synthetic files that exercise every edge case of the metrics spec.

The synthetic generator writes well-formed, complete files; real releases and real models do
not. ``perturb_gold`` and ``perturb_em`` damage copies of the files in every documented way
(empty and all-na turns, null winners, post = pre, missing survey, words outside PANAS,
duplicate tags, missing, 'na', invalid and unrecognised answers, missing turns, delta PANAS,
judge scores, ...), each with a small probability, so that a sweep over seeds reaches them all.
"""

from __future__ import annotations

import copy
import random
from typing import Any


def perturb_gold(conv: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    c = copy.deepcopy(conv)
    for turn in c["turns"]:
        ann = turn["annotations"]
        r = rng.random()
        if r < 0.08:
            ann["binaryJudgements"] = []
        elif r < 0.14:
            for j in ann["binaryJudgements"]:
                for key in ("observedBehavior", "did_occur", "preferredBehavior", "should_occur", "llmValue"):
                    if key in j:
                        j[key] = rng.choice(["na", None, "N/A"])
        elif r < 0.2:
            for j in ann["binaryJudgements"]:
                for key in ("observedBehavior", "did_occur"):
                    if key in j:
                        j[key] = rng.choice([None, "maybe", True, 0])
        if rng.random() < 0.1:
            ann["pairwiseComparisons"] = []
        for comp in ann["pairwiseComparisons"]:
            if rng.random() < 0.1:
                comp["winner"] = None
        if rng.random() < 0.1 and turn["moodShiftTags"]:
            turn["moodShiftTags"].append(dict(turn["moodShiftTags"][0]))  # duplicate word
        if rng.random() < 0.05:
            turn["moodShiftTags"].append({"emotion": "Exhausted", "intensity": rng.choice([None, 3, "mild"])})
        if rng.random() < 0.05 and turn["moodShiftTags"]:
            turn["moodShiftTags"][0]["intensity"] = None
    for turn in c["turns"]:
        if rng.random() < 0.05:
            turn["llmResponse"] += " ΣΑΣ ευχαριστώ İyi günler"  # non-ASCII: Python's tokens, not Arrow's
        if rng.random() < 0.08:
            turn["llmResponse"] = rng.choice(["  ", "\t", ""]) + turn["llmResponse"] + rng.choice([" ", "  \n", "\x1c"])
        for j in turn["annotations"]["binaryJudgements"]:
            if rng.random() < 0.03 and "observedBehavior" in j:  # a null spelling gives way to the next
                j["did_occur"] = j["observedBehavior"]
                j["observedBehavior"] = None
    if rng.random() < 0.1:
        rng.shuffle(c["turns"])  # turns need not be in order in the file
    if rng.random() < 0.1:
        c["postPanas"] = copy.deepcopy(c["prePanas"])  # post = pre: nothing to predict
    if rng.random() < 0.08:
        c.pop("conversationWideQuestions")
    elif rng.random() < 0.1:
        cw = c["conversationWideQuestions"]
        cw.pop("fourBranchScores")
        key = "q1_lookingFor" if "q1_lookingFor" in cw else "Q1"
        cw[key] = []
    elif rng.random() < 0.05:
        c["conversationWideQuestions"] = {"fourBranchScores": c["conversationWideQuestions"]["fourBranchScores"]}
    if rng.random() < 0.05:
        c.pop("prePanas")
    elif rng.random() < 0.06:
        c.pop("postPanas")  # with a missing prediction: an affect missing on both sides
    for turn in c["turns"]:
        judgements = turn["annotations"]["binaryJudgements"]
        if judgements and rng.random() < 0.06:  # a question id twice, with another answer
            twin = dict(judgements[0])
            for key in ("observedBehavior", "did_occur", "preferredBehavior", "should_occur"):
                if key in twin:
                    twin[key] = rng.choice(["yes", "no", "na"])
            judgements.append(twin)
        if turn["moodShiftTags"] and rng.random() < 0.06:  # the same word twice, another intensity
            turn["moodShiftTags"].append(
                {"emotion": turn["moodShiftTags"][0]["emotion"].upper() + " ", "intensity": rng.choice([1, 7, None])}
            )
        alternates = turn["annotations"].get("alternateResponses")
        if alternates and rng.random() < 0.05:  # a winning reply without text
            alternates[rng.choice([k for k in alternates])] = ""
    cw = c.get("conversationWideQuestions")
    if cw and rng.random() < 0.06:  # '' and duplicates in the survey lists
        for key in ("q1_lookingFor", "Q1", "q3_followUp_whatFeltOff"):
            if isinstance(cw.get(key), list):
                cw[key] = cw[key] + rng.choice([[""], cw[key][:1], [" "]])
    return c


def perturb_em(out: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    o = copy.deepcopy(out)
    if rng.random() < 0.04:
        o["turns"] = []
        return o
    kept = []
    for turn in o["turns"]:
        if rng.random() < 0.07 and len(o["turns"]) > 1:
            continue  # a gold turn missing from the output
        for field in (
            "em_binary_om_assessment",
            "em_binary_human_prediction",
            "em_binary_om_assessment_hp",
            "em_binary_human_prediction_hp",
        ):
            answers = turn[field]
            for qid in list(answers):
                r = rng.random()
                if r < 0.04:
                    del answers[qid]
                elif r < 0.08:
                    answers[qid] = rng.choice(["na", "invalid", "perhaps", None, True, "N"])
        for key in list(turn["em_pairwise_selections"]):
            r = rng.random()
            if r < 0.05:
                del turn["em_pairwise_selections"][key]
            elif r < 0.1:
                turn["em_pairwise_selections"][key] = rng.choice(["invalid", "C", "b", None])
        if rng.random() < 0.05:
            turn["em_pairwise_selections"]["9"] = "A"  # a position with no comparison
        if rng.random() < 0.05:
            turn["em_pairwise_selections"][rng.choice(["00", "\u00b2", "general", " 1"])] = "B"  # not positions
        if rng.random() < 0.05:
            turn["em_emotion_tags_invalid"] = True
            turn["em_emotion_tags"] = []
        if rng.random() < 0.08 and turn["em_emotion_tags"]:
            turn["em_emotion_tags"].append(dict(turn["em_emotion_tags"][0]))
        if rng.random() < 0.05:
            turn["em_emotion_tags"].append({"emotion": "Calm", "intensity": 4})
        if rng.random() < 0.05 and turn["em_emotion_tags"]:
            turn["em_emotion_tags"][0]["intensity"] = rng.choice([None, "intense"])
        if rng.random() < 0.05 and turn["em_emotion_tags"]:
            turn["em_emotion_tags"][-1]["intensity"] = rng.choice([0, 9, "7.6", -2.5])  # clamped into 1..7
        if rng.random() < 0.3:
            turn["judge_scores"] = {
                "overall_score": rng.randint(1, 7),
                "helpfulness": rng.choice([None, 5]),
                "tone_match": rng.uniform(1, 7),
            }
        r = rng.random()
        if r < 0.1:
            turn["em_drafted_response"] = None
        elif r < 0.15:
            turn["em_drafted_response"] = rng.choice(["", "   ", "σας ευχαριστώ iyi", "ΣΑΣ Ευχαριστώ"])
        elif r < 0.22 and isinstance(turn.get("em_drafted_response"), str):
            turn["em_drafted_response"] = (
                rng.choice([" ", "\n"]) + turn["em_drafted_response"] + rng.choice([" ", "  "])
            )
        if rng.random() < 0.05:
            turn["em_four_branch_scores"] = {"perceiving": rng.randint(1, 7), "managing": 8}
        kept.append(turn)
    o["turns"] = kept
    if rng.random() < 0.03:
        o["turns"].append({"turnNumber": 99, "em_emotion_tags": []})  # not a gold turn
    post = o["post_conversation"]
    r = rng.random()
    if r < 0.05:
        o["post_conversation"] = None
    elif r < 0.2:
        pred = post["predicted_post_panas"]
        post["panas_strategy"] = "delta"
        post["predicted_panas_delta"] = {
            "totals": {"PA": rng.randint(-8, 8), "NA": rng.randint(-8, 8)},
            "items": {name: rng.randint(-2, 2) for name in list(pred["items"])[:5]},
        }
        post["predicted_post_panas"] = None
    elif r < 0.3:
        post["predicted_post_panas"]["totals"].pop("totalNegativeAffect", None)
        post["predicted_post_panas"]["items"] = {}
    elif r < 0.35:
        totals = post["predicted_post_panas"]["totals"]
        totals["PA"] = totals.pop("totalPositiveAffect", 40)
        totals["totalPositiveAffect"] = None  # a null spelling gives way to the next
    if o["post_conversation"] is not None and rng.random() < 0.1:
        cw = o["post_conversation"]["predicted_conversation_wide"]
        cw.pop("fourBranchScores", None)
        cw["q3_modelFit"] = rng.choice([None, "something else"])
        cw["q3_followUp_whatFeltOff"] = rng.choice(
            [[], ["it assumed how I felt, honestly"], ["the tone felt clinical", "The tone felt clinical"]]
        )
    return o

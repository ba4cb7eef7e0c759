"""The chance baseline: every answer drawn uniformly at random (seeded from the config).

Emotions: no tag or one random PANAS word (each with probability 1/2) at a random intensity
1..7; every judged behaviour question yes or no with probability 1/2 (both wordings draw
afresh); every pairwise pick A or B with probability 1/2; post-chat PANAS items uniform on
1..7 (absolute strategy); a random option for each survey question, no follow-up complaint,
four-branch ratings uniform on 1..7; post-chat ratings (a cohort with them only) uniform on each
item's scale. No draft reply. The floor every model must beat.
"""

from __future__ import annotations

from typing import Any

from ... import instrument
from ...seeding import rng_for
from ..conversation import ConversationView
from ..outputs import output_file

VERSION = "chance-v1"


def chance_outputs(views: list[ConversationView], model: str, mode: str, seed: int) -> dict[str, dict[str, Any]]:
    words = [i.word for i in instrument.panas_items()]
    options = instrument.survey_options()
    out = {}
    for view in views:
        rng = rng_for(seed, "chance", model, mode, view.conversation_id)

        def coin(a: str, b: str, rng=rng) -> str:
            return a if rng.random() < 0.5 else b

        turns = []
        for turn in view.turns:
            tags = (
                []
                if rng.random() < 0.5
                else [{"emotion": str(rng.choice(words)), "intensity": int(rng.integers(1, 8))}]
            )
            entry: dict[str, Any] = {
                "turnNumber": turn.turn_number,
                "em_emotion_tags": tags,
                "em_drafted_response": None,
            }
            for name in (
                "em_binary_om_assessment",
                "em_binary_human_prediction",
                "em_binary_om_assessment_hp",
                "em_binary_human_prediction_hp",
            ):
                entry[name] = {q: coin("yes", "no") for q in turn.judged_questions}
            entry["em_pairwise_selections"] = {str(c.position): coin("A", "B") for c in turn.comparisons}
            turns.append(entry)
        items = {i.name: int(rng.integers(1, 8)) for i in instrument.panas_items()}
        post = {
            "panas_strategy": "absolute",
            "pre_panas_shown": False,
            "predicted_post_panas": {"items": items, "totals": instrument.panas_totals(items)},
            "predicted_panas_delta": None,
            "predicted_conversation_wide": {
                "q1_lookingFor": [str(rng.choice(options["q1_lookingFor"]))],
                "q2_emotionClarity": str(rng.choice(options["q2_emotionClarity"])),
                "q3_modelFit": str(rng.choice(options["q3_modelFit"])),
                "q3_followUp_whatFeltOff": [],
                "fourBranchScores": {b: int(rng.integers(1, 8)) for b in instrument.FOUR_BRANCHES},
            },
        }
        if view.rating_items:  # drawn last, so the draws above do not depend on the cohort
            scales = instrument.rating_items()
            post["predicted_post_chat_ratings"] = {
                name: int(rng.integers(scales[name].low, scales[name].high + 1)) for name in view.rating_items
            }
        out[f"{view.conversation_id}.json"] = output_file(view, model, mode, VERSION, turns, post)
    return out

"""Shared pieces of the offline baselines: the output-file skeleton and turn bookkeeping."""

from __future__ import annotations

from typing import Any

from ..conversation import ConversationView


def output_file(view: ConversationView, model: str, mode: str, version: str, turns: list[dict[str, Any]],
                post: dict[str, Any]) -> dict[str, Any]:
    """A release-format EM output file of a baseline (no cost, no timings)."""
    return {
        "conversationId": view.conversation_id,
        "source_file": view.source_file,
        "em_model": model,
        "run_timestamp": None,
        "mode": mode,
        "prompt_version": version,
        "turns": turns,
        "post_conversation": post,
        "api_cost": 0.0,
        "duration_seconds": None,
    }


def binary_fields(om: dict[str, str], hp: dict[str, str]) -> dict[str, dict[str, str]]:
    """The four binary answer sets; a baseline gives the same answers in both wordings."""
    return {"em_binary_om_assessment": om, "em_binary_human_prediction": hp,
            "em_binary_om_assessment_hp": dict(om), "em_binary_human_prediction_hp": dict(hp)}

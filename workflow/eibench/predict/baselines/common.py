"""Shared pieces of the offline baselines: turn bookkeeping."""

from __future__ import annotations


def binary_fields(om: dict[str, str], hp: dict[str, str]) -> dict[str, dict[str, str]]:
    """The four binary answer sets; a baseline gives the same answers in both wordings."""
    return {"em_binary_om_assessment": om, "em_binary_human_prediction": hp,
            "em_binary_om_assessment_hp": dict(om), "em_binary_human_prediction_hp": dict(hp)}

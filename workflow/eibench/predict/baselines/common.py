"""Shared pieces of the offline baselines: turn bookkeeping, rating rounding."""

from __future__ import annotations

from ... import instrument


def rounded_rating(mean: float | None, item: instrument.RatingItem) -> int:
    """A mean post-chat rating as a whole number on the item's scale (Python's round, then
    clamped); the scale midpoint when there is no mean (None)."""
    value = (item.low + item.high) / 2 if mean is None else mean
    return int(min(item.high, max(item.low, round(value))))


def binary_fields(om: dict[str, str], hp: dict[str, str]) -> dict[str, dict[str, str]]:
    """The four binary answer sets; a baseline gives the same answers in both wordings."""
    return {
        "em_binary_om_assessment": om,
        "em_binary_human_prediction": hp,
        "em_binary_om_assessment_hp": dict(om),
        "em_binary_human_prediction_hp": dict(hp),
    }

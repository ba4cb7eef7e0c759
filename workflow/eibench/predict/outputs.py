"""The skeleton of a release-format EM output file, shared by live collection and the
offline baselines (docs/release-format.md)."""

from __future__ import annotations

from typing import Any

from .conversation import ConversationView


def output_file(
    view: ConversationView,
    model: str,
    mode: str,
    version: str,
    turns: list[dict[str, Any]],
    post: dict[str, Any] | None,
    cost: float | None = 0.0,
    prompt_digest: str | None = None,
) -> dict[str, Any]:
    """One EM output file: ``cost`` in US dollars (0 for an offline baseline; None, written as
    null, when the token usage of an answer used is unknown), no timings;
    ``prompt_digest`` (sha256 of the prompt set) only for prompted models."""
    out: dict[str, Any] = {
        "conversationId": view.conversation_id,
        "source_file": view.source_file,
        "em_model": model,
        "run_timestamp": None,
        "mode": mode,
        "prompt_version": version,
    }
    if prompt_digest is not None:
        out["prompt_digest"] = prompt_digest
    out.update(
        {
            "turns": turns,
            "post_conversation": post,
            "api_cost": None if cost is None else round(cost, 10),
            "duration_seconds": None,
        }
    )
    return out

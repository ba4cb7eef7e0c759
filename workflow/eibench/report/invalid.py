"""Invalid answers per task: what a model was asked and how often its answer stayed invalid
after the repair attempts (counted from its tidy EM tables)."""

from __future__ import annotations

import json
import re
from collections import Counter

import pandas as pd

BINARY_TASK = {
    ("om", "observer"): "binary_om_observer",
    ("hp", "observer"): "binary_hp_observer",
    ("om", "participant"): "binary_om_participant",
    ("hp", "participant"): "binary_hp_participant",
}
_TURN_RECORD = re.compile(r"\$\.turns\[\d+\]\.em_invalid_answers")
_POST_RECORD = "$.post_conversation.em_invalid_answers"


def task_family(task: str) -> str:
    """The task as invalid_answers.csv names it (and local_model_numbers.TASK_METRICS): the
    protocol's post_panas_absolute, post_panas_delta, ... are one task, post_panas."""
    return "post_panas" if task.startswith("post_panas") else task


def _by_turn(sel: pd.DataFrame) -> tuple[int, int]:
    """Requests (one per conversation and turn with rows) and those with an invalid answer."""
    if sel.empty:
        return 0, 0
    bad = (sel["status"] == "invalid").groupby([sel["conversation_id"], sel["turn_number"]]).any()
    return len(bad), int(bad.sum())


def _one_per_request(task: str, asked: int, invalid: int) -> tuple[str, int, int, int, int]:
    """The row of a task of one answer per request (a turn's or a conversation's): as many
    requests as answers."""
    return task, asked, invalid, asked, invalid


def invalid_answers(em: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per task: answers asked and answers invalid, requests asked and requests with an
    invalid answer. Binary questions and pairwise comparisons count one answer per question or
    comparison and one request per turn (all of a turn's questions of one target and wording are
    one request, as are its comparisons); emotions and drafts one per turn; the post-conversation
    PANAS and conversation-wide answers one per conversation; post-chat ratings (asked only of a
    cohort that has them) one per conversation answered or recorded invalid, and no row when
    none was asked. Requests are the same unit for every model, whichever questions it answers:
    a rate per request compares models, a rate per answer weighs each by how many questions it
    was asked."""
    b, p, turns = em["em_binary"], em["em_pairwise"], em["em_turns"]
    rows: list[tuple[str, int, int, int, int]] = []
    for (target, wording), task in BINARY_TASK.items():
        sel = b[(b["target"] == target) & (b["wording"] == wording)]
        rows.append((task, len(sel), int((sel["status"] == "invalid").sum()), *_by_turn(sel)))
    rows.append(("pairwise", len(p), int((p["status"] == "invalid").sum()), *_by_turn(p)))
    rows.append(_one_per_request("emotions", len(turns), int(turns["emotion_tags_invalid"].fillna(False).sum())))
    recorded: Counter = Counter()
    for path, value in zip(em["extra_fields"]["json_path"].astype(str), em["extra_fields"]["value_json"].astype(str)):
        if _TURN_RECORD.fullmatch(path) or path == _POST_RECORD:
            recorded.update(task_family(task) for task in json.loads(value))
    rows.append(_one_per_request("draft", len(turns), recorded["draft"]))
    n_conversations = len(em["em_runs"])
    rows.append(_one_per_request("post_panas", n_conversations, recorded["post_panas"]))
    rows.append(_one_per_request("conversation_wide", n_conversations, recorded["conversation_wide"]))
    rated = em.get("em_post_chat_ratings")
    answered = 0 if rated is None else int(em["em_runs"]["conversation_id"].isin(rated["conversation_id"]).sum())
    asked_ratings = answered + recorded["post_chat_ratings"]
    if asked_ratings:
        rows.append(_one_per_request("post_chat_ratings", asked_ratings, recorded["post_chat_ratings"]))
    return pd.DataFrame(rows, columns=["task", "asked", "invalid", "requests", "invalid_requests"])

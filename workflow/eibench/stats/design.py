"""The design of a cohort as the statistics see it: who and what it holds, in counts.

``cohort_design`` reads a :class:`Study` and returns a JSON-ready dict; the claims' testability
(``testability.py``), the validation by simulation (``simulation.py``) and the paper all read
this one description, so that what the paper says the cohort holds, what the claims are tested
on and what the simulated studies copy cannot differ.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from ..metrics.composite import COMPOSITE_PARTS
from .drift import BINS, _bin
from .study import Study

#: The parts the composite is built from (metrics/composite.py pillar_values), in its order.


def metrics_defined(study: Study, rows: list[int]) -> list[str]:
    """The metrics with at least one finite value for these model rows (sorted names); a
    metric whose annotation kind the cohort lacks is NaN throughout and is not listed."""
    return sorted(m for m in study.values if rows and study.defined(m, rows))


def composite_parts_missing(study: Study, rows: list[int]) -> dict[str, list[int]]:
    """Per part of the composite (COMPOSITE_PARTS) that these model rows have somewhere but not
    in every conversation: the conversations (indices in the study's order) where none of them
    has it (e.g. ESConv's post-chat ratings, missing in 150 conversations). A part absent from
    the whole cohort is not listed (``metrics_defined`` leaves it out)."""
    out = {}
    for part in COMPOSITE_PARTS:
        if rows and study.defined(part, rows):
            has = np.isfinite(study.values[part][rows]).any(axis=0)
            if not has.all():
                out[part] = [int(j) for j in np.flatnonzero(~has)]
    return out


def cohort_design(study: Study) -> dict[str, Any]:
    """Counts of the cohort's design.

    Keys: ``n_conversations``; ``participants``: conversations with a known participant, and per
    group (``diagnosed``, ``not_diagnosed``) the number of participants and of their
    conversations (0 and 0 when the cohort has no participant profiles); ``categories``: topic
    category -> conversations (conversations without a category are counted in
    ``conversations_without_category``); ``turns``: per conversation, in the study's order;
    ``turn_positions``: the position bins (early, middle, late) holding at least one scored turn;
    ``models`` / ``humans``: names of the evaluated models and of the human raters;
    ``human_conversations``: conversations at least one rater answered; ``metrics_models`` /
    ``metrics_humans``: metrics with a value for the models / for the raters;
    ``composite_parts_missing``: the parts of the composite the models have in some
    conversations only, each with the conversations without it (``composite_parts_missing``),
    so that a simulated composite is renormalised where the real one is. Per conversation, in
    the study's order, for the simulation to copy: ``conversation_participant`` (participant code,
    -1 unknown), ``conversation_category`` (None unknown); per participant code
    ``participant_diagnosed`` and ``participant_diagnosis_recorded`` (False: a profile without
    traits, in neither group: ``participant_diagnosed`` False says nothing then).
    """
    models, humans = study.with_role("model"), study.with_role("human")
    known = study.participant >= 0
    recorded = known & study.diagnosis_recorded()  # a profile without traits is in neither group
    groups = {}
    for name, flag in (("diagnosed", True), ("not_diagnosed", False)):
        sel = recorded & (study.diagnosed == flag)
        groups[name] = {"participants": int(len(np.unique(study.participant[sel]))), "conversations": int(sel.sum())}
    categories = Counter(c for c in study.category if isinstance(c, str))
    positions: list[str] = []
    if study.turns is not None and len(study.turns):
        named = study.turns[study.turns["em_model"].isin([study.models[i] for i in models])]
        present = set(_bin(named["rel_position"].to_numpy(float)).tolist()) if len(named) else set()
        positions = [BINS[k] for k in sorted(present)]
    rated = 0
    if humans and "composite" in study.values:
        answered = np.zeros(study.n_conversations, dtype=bool)
        for values in study.values.values():
            answered |= np.isfinite(values[humans]).any(axis=0)
        rated = int(answered.sum())
    return {
        "n_conversations": study.n_conversations,
        "participants": {"conversations_with_participant": int(known.sum()), **groups},
        "categories": dict(sorted(categories.items())),
        "conversations_without_category": int(study.n_conversations - sum(categories.values())),
        "turns": [int(t) for t in study.n_turns],
        "turn_positions": positions,
        "models": [study.models[i] for i in models],
        "humans": [study.models[i] for i in humans],
        "human_conversations": rated,
        "metrics_models": metrics_defined(study, models),
        "metrics_humans": metrics_defined(study, humans),
        "composite_parts_missing": composite_parts_missing(study, models),
        "conversation_participant": [int(p) for p in study.participant],
        "conversation_category": [c if isinstance(c, str) else None for c in study.category],
        "participant_diagnosed": [
            bool(study.diagnosed[study.participant == p].any()) for p in range(len(study.participants))
        ],
        "participant_diagnosis_recorded": [
            bool(recorded[study.participant == p].all()) for p in range(len(study.participants))
        ],
    }

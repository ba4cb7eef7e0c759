"""The expected binary accuracies of a simulated model, computed exactly from its abilities.

For a gold 'yes'/'no' judgement the simulator (simulate.py) answers correctly with probability
``accuracy = sigmoid(logit)``, the logit of the turn (capability behaviour for OM answers,
preference for HP answers with the observer wording), and every judgement of a turn shares that
logit. Under the parity rule set a turn's accuracy is then, in expectation: ``accuracy`` when
the turn has a gold 'yes'/'no' judgement, 1.0 when it has no judgement at all and 0.0 when all
its gold answers are 'na'/null (eibench.metrics.binary). The conversation's score is the mean of
its turns' and the model's the mean of its conversations', both linear, so the expectation is
exact, conditional on this cohort (its conversations and the participant and conversation
random effects, which the simulator draws from the seed): no Monte Carlo error.

The logit is rebuilt here as simulate.simulate_outputs builds it (base + ability + planted
effects + random effects + mode bonus + turn drift); tests/unit/test_expected_accuracy.py checks
the two agree by simulating many answers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .simulate import (
    CAPABILITIES,
    GoldRecords,
    SimulatedModel,
    conversation_logits_of,
    indexed,
    shared_effects,
    sigmoid,
)

METRICS = {"binary_om_acc": ("behaviour", "gold_om"), "binary_hp_acc": ("preference", "gold_hp")}


def conversation_logits(
    tables: dict[str, pd.DataFrame] | GoldRecords,
    model: SimulatedModel,
    mode: str,
    sim: dict[str, Any],
    seed: int,
    romantic_category: str,
) -> dict[str, dict[str, float]]:
    """The logit of every capability at the middle of every conversation (relative position 0.5,
    where the turn drift is zero; the holistic answers' logit), keyed by conversation id."""
    gold = indexed(tables)
    u = shared_effects(sorted(gold.diagnosed), sim["participant_sd"], seed, "participant-difficulty")
    w = shared_effects(sorted(gold.conversations), sim["conversation_sd"], seed, "conversation-difficulty")
    omniscient = mode in ("omniscient", "verbose_omniscient")
    out = {}
    for cid, meta in gold.conversations.items():
        pid = meta.participant_id
        diag = float(gold.diagnosed.get(pid, False))
        romantic = float(meta.category == romantic_category)
        out[cid] = conversation_logits_of(sim, model, diag, romantic, u.get(pid, {}), w[cid], omniscient)
    return out


def turn_logits(
    tables: dict[str, pd.DataFrame] | GoldRecords,
    model: SimulatedModel,
    mode: str,
    sim: dict[str, Any],
    seed: int,
    romantic_category: str,
) -> dict[tuple[str, int], dict[str, float]]:
    """The logit of every capability at every turn, keyed (conversation id, turn number): the
    conversation's logit plus the turn drift at the turn's relative position."""
    gold = indexed(tables)
    fixed = conversation_logits(gold, model, mode, sim, seed, romantic_category)
    drift = sim["effects"]["turn_drift"]
    out = {}
    for cid in gold.conversations:
        for turn in gold.turns.get(cid, []):
            rel = float(turn.rel_position)
            out[(cid, int(turn.turn_number))] = {k: fixed[cid][k] + drift[k] * (rel - 0.5) for k in CAPABILITIES}
    return out


def expected_binary_accuracy(
    tables: dict[str, pd.DataFrame],
    model: SimulatedModel,
    mode: str,
    sim: dict[str, Any],
    seed: int,
    romantic_category: str,
    conversations: list[str] | None = None,
) -> dict[str, float]:
    """The model's expected ``binary_om_acc`` and ``binary_hp_acc`` (parity rule set, observer
    wording), each in [0, 1], over ``conversations`` (None: all of the cohort's). NaN when no
    conversation is given."""
    gold = indexed(tables)
    logits = turn_logits(tables, model, mode, sim, seed, romantic_category)
    ids = sorted(gold.conversations) if conversations is None else sorted(conversations)
    out = {}
    for metric, (cap, column) in METRICS.items():
        per_conversation = []
        for cid in ids:
            turns = []
            for turn in gold.turns.get(cid, []):
                t = int(turn.turn_number)
                items = gold.binary.get((cid, t), [])
                if not items:
                    turns.append(1.0)
                elif not any(getattr(j, column) in ("yes", "no") for j in items):
                    turns.append(0.0)
                else:
                    turns.append(sigmoid(logits[(cid, t)][cap]))
            per_conversation.append(float(np.mean(turns)) if turns else 0.0)
        out[metric] = float(np.mean(per_conversation)) if per_conversation else float("nan")
    return out

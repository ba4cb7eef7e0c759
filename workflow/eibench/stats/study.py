"""The data every analysis reads: per-conversation values of each model and metric, the
conversations' covariates (participant, diagnosis, topic, length) and turn-level values.

``Study.from_tables`` builds it from the aggregated score tables and the gold tables for one
mode and rule set. Values are arrays [n_models, n_conversations] with NaN where a model has
no value (human raters answer a subset).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..release.tidy import diagnosis_recorded


@dataclass
class Study:
    models: list[str]
    roles: dict[str, str]  # model -> model | human | baseline
    conversations: list[str]
    participant: np.ndarray  # participant code per conversation (-1: unknown)
    participants: list[str]
    diagnosed: np.ndarray  # bool per conversation (participant has a diagnosis)
    category: np.ndarray  # topic category per conversation (object)
    n_turns: np.ndarray  # turns per conversation
    values: dict[str, np.ndarray] = field(default_factory=dict)  # metric -> [models, conversations]
    turns: pd.DataFrame | None = None  # turn-level scores: em_model, conversation_id, rel_position, metrics
    # bool per conversation: the participant's profile records traits, so ``diagnosed`` False
    # means no diagnosis rather than none recorded (release.tidy.diagnosis_recorded); None: all
    diagnosis_known: np.ndarray | None = None

    @classmethod
    def from_tables(
        cls,
        conversation_scores: pd.DataFrame,
        turn_scores: pd.DataFrame,
        gold_conversations: pd.DataFrame,
        participants: pd.DataFrame,
        roles: dict[str, str],
        metrics: list[str],
        mode: str = "default",
        rule_set: str = "parity",
    ) -> "Study":
        conv = gold_conversations.sort_values("conversation_id").reset_index(drop=True)
        ids = list(conv["conversation_id"].astype(str))
        people = participants.set_index("participant_id")
        pids = sorted(set(conv["participant_id"].dropna().astype(str)))
        pcode = {p: i for i, p in enumerate(pids)}
        participant = np.array([pcode.get(str(p), -1) if pd.notna(p) else -1 for p in conv["participant_id"]])

        def per_conversation(flag: pd.Series) -> np.ndarray:
            """A participant's flag for each conversation (False without a known participant, or
            where the flag is null: ``has_diagnosis`` of a diagnosis not recorded)."""
            return np.array(
                [
                    bool(flag[p]) if pd.notna(p) and p in people.index and pd.notna(flag[p]) else False
                    for p in conv["participant_id"]
                ],
                dtype=bool,
            )

        diagnosed = per_conversation(people["has_diagnosis"])
        diagnosis_known = per_conversation(diagnosis_recorded(people))
        scores = conversation_scores[
            (conversation_scores["mode"] == mode) & (conversation_scores["rule_set"] == rule_set)
        ]
        models = sorted(set(scores["em_model"].astype(str)))
        col = {c: i for i, c in enumerate(ids)}
        row = {m: i for i, m in enumerate(models)}
        r = scores["em_model"].astype(str).map(row).to_numpy()
        c = scores["conversation_id"].astype(str).map(col).to_numpy()
        values = {}
        for metric in metrics:
            grid = np.full((len(models), len(ids)), np.nan)
            grid[r, c] = scores[metric].to_numpy(float)
            values[metric] = grid
        turns = turn_scores[(turn_scores["mode"] == mode) & (turn_scores["rule_set"] == rule_set)].copy()
        turns["em_model"] = turns["em_model"].astype(str)
        turns["conversation_id"] = turns["conversation_id"].astype(str)
        return cls(
            models,
            {m: roles.get(m, "model") for m in models},
            ids,
            participant,
            pids,
            diagnosed,
            conv["category"].astype(object).to_numpy(),
            conv["n_turns"].to_numpy(float),
            values,
            turns,
            diagnosis_known,
        )

    def defined(self, metric: str, models: list[int]) -> bool:
        """Whether ``metric`` has at least one value for these model rows (a cohort can lack a
        kind of annotation altogether, metrics/availability.py: its metrics are NaN throughout)."""
        return metric in self.values and bool(np.isfinite(self.values[metric][models]).any())

    def diagnosis_recorded(self) -> np.ndarray:
        """Per conversation: whether its participant's diagnosis is recorded, so that it can
        enter a diagnosis analysis (``diagnosis_known``; every conversation when it is None)."""
        if self.diagnosis_known is None:
            return np.ones(self.n_conversations, dtype=bool)
        return self.diagnosis_known

    def with_role(self, role: str) -> list[int]:
        """Row indices of the models with this role."""
        return [i for i, m in enumerate(self.models) if self.roles[m] == role]

    @property
    def n_conversations(self) -> int:
        return len(self.conversations)

"""Loading a Study and its bootstrap resamples for the statistics rules.

Every rule draws the same resamples (seeded from the config's seed, the mode and the rule set),
so intervals from different analyses are computed on the same resamples.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from ..metrics.registry import ANALYSABLE, PRINCIPAL
from ..seeding import rng_for
from .bootstrap import SCHEMES
from .study import Study

STUDY_METRICS = list(ANALYSABLE)
#: The columns of the turn-level scores that ``Study.turns`` is read for (drift, operating
#: characteristics, design): the keys, the turn's relative position and the metrics.
TURN_COLUMNS = ("em_model", "mode", "rule_set", "conversation_id", "rel_position", *STUDY_METRICS)


def read_scores(path: str, mode: str, rule_set: str, columns: tuple[str, ...] | None = None) -> pd.DataFrame:
    """The rows of one mode and rule set of a score table (``conversation_scores`` or
    ``turn_scores``), in the file's order; with ``columns``, only those of them the file has.

    The rows and columns are chosen while reading (Parquet filters), not after: the default
    run's turn-level table holds 51,856 rows of 37 columns over both rule sets, so about 2.6
    million at 10,000 conversations, where every statistics job, reading it whole, peaked at
    about 2.2 GiB (benchmarks/records/scaling_rules.csv)."""
    names = pq.read_schema(path).names
    keep = None if columns is None else [c for c in names if c in columns]
    return pd.read_parquet(path, columns=keep, filters=[("mode", "==", mode), ("rule_set", "==", rule_set)])


def load_study(
    conversation_scores: str,
    turn_scores: str,
    conversations: str,
    participants: str,
    roles: dict[str, str],
    stats: dict[str, Any],
) -> Study:
    return Study.from_tables(
        read_scores(conversation_scores, stats["mode"], stats["rule_set"]),
        read_scores(turn_scores, stats["mode"], stats["rule_set"], TURN_COLUMNS),
        pd.read_parquet(conversations),
        pd.read_parquet(participants),
        roles,
        sorted(set(STUDY_METRICS)),
        stats["mode"],
        stats["rule_set"],
    )


def resamples(
    study: Study, stats: dict[str, Any], seed: int, n: int | None = None, scheme: str | None = None
) -> np.ndarray:
    """The cluster-bootstrap weights shared by every analysis: [n_bootstrap, n_conversations].

    ``scheme`` (default: the config's ``statistics.cluster``) is a name of
    ``bootstrap.SCHEMES``; each scheme has its own seeded stream, so the config's scheme gives
    the same resamples whichever rule asks for them."""
    scheme = scheme or stats["cluster"]
    if scheme not in SCHEMES:
        raise ValueError(f"unknown resampling scheme {scheme!r}: use one of {', '.join(SCHEMES)}")
    rng = rng_for(seed, "bootstrap", stats["mode"], stats["rule_set"], scheme)
    return SCHEMES[scheme](study.participant, n or stats["n_bootstrap"], rng)


def available(study: Study, metrics: list[str], models: list[int]) -> list[str]:
    """The metrics with at least one value for the given models (a judged draft may be absent)."""
    return [m for m in metrics if m in study.values and np.isfinite(study.values[m][models]).any()]


def principal_metrics(stats: Mapping[str, Any] | None) -> list[str]:
    """The cohort's principal metrics: the config's ``statistics.principal_metrics`` (which the
    workflow's config schema requires), else the registry's principal metrics (for a library
    caller or a test whose ``stats`` lack the key). Every analysis, figure and table
    of "the principal metrics" reads them from here, so a cohort whose annotations define other
    metrics (ESConv, ``config/esconv.yaml``) gets its own, not the synthetic study's."""
    configured = (stats or {}).get("principal_metrics")
    return list(configured) if configured else list(PRINCIPAL)

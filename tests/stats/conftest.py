"""Helpers of the statistics tests: hand-built studies, a fast statsmodels reference, and the
bootstrap p-value written out from its definition."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from eibench.stats.study import Study


def make_study(
    values: dict[str, np.ndarray],
    *,
    participant=None,
    diagnosed=None,
    category=None,
    n_turns=None,
    models: list[str] | None = None,
    roles: dict[str, str] | None = None,
    turns: pd.DataFrame | None = None,
) -> Study:
    """A Study from metric arrays [n_models, n_conversations]; every covariate has a default."""
    first = next(iter(values.values()))
    n_models, n = first.shape
    models = models or [f"m{i}" for i in range(n_models)]
    participant = np.zeros(n, dtype=int) if participant is None else np.asarray(participant)
    n_people = int(participant.max(initial=-1)) + 1
    return Study(
        models,
        roles or {m: "model" for m in models},
        [f"c{j:03d}" for j in range(n)],
        participant,
        [f"P{p}" for p in range(n_people)],
        np.zeros(n, dtype=bool) if diagnosed is None else np.asarray(diagnosed, dtype=bool),
        np.array(["Family"] * n, dtype=object) if category is None else np.asarray(category, dtype=object),
        np.full(n, 5.0) if n_turns is None else np.asarray(n_turns, dtype=float),
        {k: np.asarray(v, dtype=float) for k, v in values.items()},
        turns,
    )


@pytest.fixture
def multipletests(monkeypatch):
    """statsmodels' multipletests without the ``gc.collect()`` of its Holm branch (0.1 s a call
    in a large test process); the numbers are untouched."""
    import gc

    from statsmodels.stats.multitest import multipletests as reference

    monkeypatch.setattr(gc, "collect", lambda *args, **kwargs: 0)
    return reference


def reference_bootstrap_p(d: np.ndarray) -> float:
    """The two-sided bootstrap p-value by its definition: 2 x the smaller share of the (non-NaN)
    resampled differences on either side of 0, zeros counting on both sides, capped at 1."""
    d = np.asarray(d, dtype=float)
    d = d[~np.isnan(d)]
    if not len(d):
        return float("nan")
    return min(1.0, 2 * min(float(np.mean(d <= 0)), float(np.mean(d >= 0))))

"""The numbers that describe any cohort in the title, abstract and data section: its name,
source, citation and description (config ``cohorts.<cohort>.about``), the models by kind, and
the pillars the composite covers. The data caveats (kinds of annotation absent from the cohort)
are the entries ``absent_kinds`` / ``n_absent_kinds`` beside them; an ESConv cohort adds its
adapter's counts (``esconv_numbers``)."""

from __future__ import annotations

from typing import Mapping

import pandas as pd

from ..metrics.composite import PILLAR_WEIGHTS
from ..metrics.registry import BY_NAME
from .numbers import Numbers, plural

RULE, AGG = "paper_numbers", "aggregate_scores"

#: How the paper names each kind of ``models`` entry (eibench.cohorts.MODEL_KINDS): singular, plural.
KIND_WORDS = {
    "simulated": ("simulated model", "simulated models"),
    "live": ("live model (API)", "live models (API)"),
    "outputs_dir": ("model read from its existing outputs", "models read from their existing outputs"),
    "baseline": ("offline baseline", "offline baselines"),
    "human": ("simulated human rater", "simulated human raters"),
}


def joined(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'; '' for no item."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else ""


def models_described(counts: Mapping[str, int]) -> str:
    """The models of a run in words, e.g. '11 simulated models, 3 offline baselines and 3
    simulated human raters' (kinds in ``KIND_WORDS`` order, kinds with none left out; 'no model'
    when there is none)."""
    parts = [f"{counts[k]} {plural(counts[k], *KIND_WORDS[k])}" for k in KIND_WORDS if counts.get(k, 0)]
    return joined(parts) or "no model"


def pillar_name(pillar: str) -> str:
    """'emotion tracking' for 'tracking': the registry's label without ' pillar', lower case."""
    return BY_NAME[pillar].label.removesuffix(" pillar").lower()


def covered_pillars(board: pd.DataFrame) -> list[str]:
    """The pillars (``PILLAR_WEIGHTS`` order) with a value for at least one row of ``board``
    (leaderboard rows: a pillar none of whose annotations the cohort has is NaN for every model)."""
    return [p for p in PILLAR_WEIGHTS if p in board and board[p].notna().any()]


def add_cohort(nums: Numbers, about: Mapping[str, str | None], kinds: Mapping[str, str], board: pd.DataFrame) -> None:
    """Add ``cohort.<name|source|citation|description>`` (only those set), ``models.n_<kind>``
    for every kind, ``models.n_total``, ``models.described``, ``models.baselines`` (the
    baselines' names, or "none"), and ``composite.n_pillars``,
    ``composite.all_pillars`` and ``composite.pillars`` from the compared models' leaderboard rows
    ``board``. ``kinds`` maps each configured model to its kind (eibench.cohorts.model_kinds)."""
    for key in ("name", "source", "citation", "description"):
        if about.get(key):
            nums.add(f"cohort.{key}", str(about[key]), RULE)
    counts = {k: sum(v == k for v in kinds.values()) for k in KIND_WORDS}
    for kind, n in counts.items():
        nums.add(f"models.n_{kind}", n, RULE)
    nums.add("models.n_total", len(kinds), RULE)
    nums.add("models.described", models_described(counts), RULE)
    nums.add("models.baselines", joined(sorted(m for m, k in kinds.items() if k == "baseline")) or "none", RULE)
    pillars = covered_pillars(board)
    nums.add("composite.n_pillars", len(pillars), AGG)
    nums.add("composite.all_pillars", len(pillars) == len(PILLAR_WEIGHTS), AGG)
    nums.add(
        "composite.pillars",
        joined([pillar_name(p) for p in pillars]) or "none",
        AGG,
        note="pillars with a value for at least one compared model",
    )

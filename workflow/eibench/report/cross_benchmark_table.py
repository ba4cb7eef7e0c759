"""The paper's cross-benchmark table (strings, as printed) from the agreement table of
eibench.public.cross_benchmark: the report stage formats, the public stage computes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..public.cross_benchmark import LEVELS, RULE_LABELS
from .numbers import fmt


def display_table(
    agreement: pd.DataFrame, measure: str = "overall", digits: int = 2, level: float = 0.95
) -> pd.DataFrame:
    """The paper's table: one row per matching rule for one EmoBench-M ``measure``, with the
    units, the models behind them, tau-b with its measurement and model intervals (``level``, as
    computed), and the permutation p-value (an en dash where undefined)."""
    part = agreement[agreement["measure"] == measure].set_index("rule").reindex(list(LEVELS))

    def interval(lo: float, hi: float) -> str:
        return "–" if not (np.isfinite(lo) and np.isfinite(hi)) else f"[{fmt(lo, digits)}, {fmt(hi, digits)}]"

    return pd.DataFrame(
        {
            "Matching rule": [RULE_LABELS[r] for r in part.index],
            "Units": part["n_units"].astype(int).to_numpy(),
            "EQ-Bench models": part["n_eqbench_models"].astype(int).to_numpy(),
            "EmoBench-M models": part["n_emobench_m_models"].astype(int).to_numpy(),
            "tau-b": [fmt(v, digits) for v in part["tau"]],
            f"{level:.0%} interval, items": [
                interval(a, b) for a, b in zip(part["tau_lo_items"], part["tau_hi_items"])
            ],
            f"{level:.0%} interval, units": [
                interval(a, b) for a, b in zip(part["tau_lo_models"], part["tau_hi_models"])
            ],
            "p": [fmt(v, 3) for v in part["p_permutation"]],
        }
    )

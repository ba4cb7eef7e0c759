"""Run-to-run noise of the simulated models: their answers drawn again with other seeded
streams (``simulate_outputs(..., redraw=k)``: same abilities, same shared difficulties, new
answers), scored under the parity rule set in memory, and each draw's composite per model.

This is the spread a rerun of the same (simulated) model gives on the same conversations; the
bootstrap interval of the composite, by contrast, is the spread over other conversations or
participants. Nothing is written to disk: the outputs are validated as their files would be
(``release.em_canonical.validate``) and tidied as rule score_model does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..metrics.gold import GoldIndex
from ..metrics.score import score_rule_sets
from ..release import em_canonical
from ..release.tidy import em_tables
from ..stats.uncertainty import sd_interval_factors
from .simulate import draw_ability, human_subset, indexed, simulate_outputs


def redrawn_composites(
    gold: dict[str, pd.DataFrame],
    profiles: dict[str, str],
    sim: dict[str, Any],
    seed: int,
    mode: str,
    romantic_category: str,
    draws: int,
    va_matching: str = "optimal",
    compat: str = "none",
) -> pd.DataFrame:
    """One row per redraw (1..``draws``) and simulated model (``profiles``: name -> profile):
    the model's mean composite over the conversations it answered (parity rule set)."""
    index = GoldIndex.build(gold)
    records = indexed(gold)  # once, not per model and draw
    ids = list(gold["conversations"]["conversation_id"])
    rows = []
    for name, profile in profiles.items():
        model = draw_ability(name, profile, sim, seed)
        subset = human_subset(ids, sim["human"]["n_conversations"], seed) if profile == "human" else None
        for k in range(1, draws + 1):
            outputs = simulate_outputs(records, model, mode, sim, seed, romantic_category, subset, redraw=k)
            parsed = [(Path(file_name), em_canonical.validate(obj)) for file_name, obj in sorted(outputs.items())]
            conv = score_rule_sets(index, em_tables(parsed), ("parity",), va_matching, compat)["parity"].conversation
            composite = conv["composite"].to_numpy(float)
            rows.append((k, name, profile, float(np.nanmean(composite)), int(np.isfinite(composite).sum())))
    return pd.DataFrame(rows, columns=["draw", "em_model", "profile", "composite", "n_conversations"])


#: The columns of ``spread``'s table, in order.
SPREAD_COLUMNS = [
    "em_model",
    "draws",
    "sd",
    "sd_lo",
    "sd_hi",
    "min",
    "max",
    "estimate",
    "width",
    "bootstrap_sd",
    "noise_share",
]


def spread(redrawn: pd.DataFrame, published: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Per model: the published composite, the standard deviation and range of its composites
    over the published draw and the redraws (points; ``draws`` counts both), the ``level``
    interval of that standard deviation (``sd_lo``, ``sd_hi``: chi-square, normal draws; NaN with
    one draw), and the published bootstrap interval's width beside them (``published``:
    em_model, estimate, width, from the scheme table of one scheme; its estimate is the published
    draw's composite)."""
    first = published[published["em_model"].isin(set(redrawn["em_model"]))]
    pooled = pd.concat(
        [
            redrawn[["em_model", "composite"]],
            first.rename(columns={"estimate": "composite"})[["em_model", "composite"]],
        ],
        ignore_index=True,
    )
    g = pooled.groupby("em_model")["composite"]
    out = pd.DataFrame({"draws": g.size(), "sd": g.std(ddof=1), "min": g.min(), "max": g.max()})
    factors = np.array([sd_interval_factors(int(n) - 1, level) for n in out["draws"]]).reshape(-1, 2)
    out.insert(2, "sd_lo", out["sd"].to_numpy(float) * factors[:, 0])
    out.insert(3, "sd_hi", out["sd"].to_numpy(float) * factors[:, 1])
    out = out.join(published.set_index("em_model")[["estimate", "width"]], how="left")
    # A bootstrap interval's width in standard deviations of a normal: 2 x z_{(1+level)/2}.
    from scipy.stats import norm

    out["bootstrap_sd"] = out["width"] / (2 * norm.ppf((1 + level) / 2))
    out["noise_share"] = out["sd"] / out["bootstrap_sd"]
    return out.reset_index()[SPREAD_COLUMNS]

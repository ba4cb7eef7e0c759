"""The paper's figures: pure drawing functions that take tables and return a Figure."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from . import style
from .leaderboard import label


def forest(board: pd.DataFrame, metric: str, caption_source: str) -> plt.Figure:
    """Forest plot of ``metric`` per model: mean and 95% interval, best at the top.

    ``board`` holds one mode and rule set. Human raters are drawn in their own colour
    (they answer a subset of conversations, so their intervals are wider).
    """
    style.apply()
    rows = board.sort_values([metric, "em_model"], ascending=[True, False], kind="stable")
    fig, ax = plt.subplots(figsize=(6.0, 0.32 * len(rows) + 1.0))
    y = np.arange(len(rows))
    for yi, (_, r) in zip(y, rows.iterrows()):
        colour = style.ROLE_COLOURS.get(r["role"], style.PALETTE[4])
        ax.errorbar(r[metric], yi, xerr=[[r[metric] - r[f"{metric}_lo"]], [r[f"{metric}_hi"] - r[metric]]],
                    fmt="o", color=colour, ms=4, capsize=2, lw=1)
    ax.set_yticks(y, rows["em_model"])
    ax.set_xlabel(f"{label(metric)} (mean over conversations, 95% interval)")
    ax.grid(axis="y", alpha=0)
    handles = [plt.Line2D([], [], marker="o", ls="", color=c, label=r) for r, c in style.ROLE_COLOURS.items()
               if r in set(rows["role"])]
    ax.legend(handles=handles, loc="lower right", frameon=False)
    ax.set_title(caption_source, fontsize=7, loc="left", color="#555555")
    return fig

"""The weight-sensitivity figure: each model's probability of ranking first under random pillar
weights (around the published weights, and flat), and its rank under the published and the
equal weights. Drawn at its print width (the paper includes it at 100% of the text width, 6.5
in), so the 8 pt text here is 8 pt on the page."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from . import style

PRINT_WIDTH_IN = 6.5
FONT_PT = 8


def weight_sensitivity(table: pd.DataFrame, concentration: float) -> plt.Figure:
    """``table``: rows of rule stats_resampling's weight_sensitivity.csv (em_model, rank_published,
    rank_equal_weights, p_first_around, p_first_flat), in published-rank order."""
    style.apply()
    plt.rcParams.update(
        {
            "font.size": FONT_PT,
            "axes.titlesize": FONT_PT,
            "axes.labelsize": FONT_PT,
            "xtick.labelsize": FONT_PT,
            "ytick.labelsize": FONT_PT,
            "legend.fontsize": FONT_PT,
        }
    )
    t = table.sort_values(["rank_published", "em_model"]).reset_index(drop=True)
    n = len(t)
    fig, (left, right) = plt.subplots(1, 2, figsize=(PRINT_WIDTH_IN, 0.5 + 0.22 * n), width_ratios=(3, 2))
    y = np.arange(n)
    h = 0.38
    left.barh(
        y - h / 2,
        t["p_first_around"],
        height=h,
        color=style.PALETTE[0],
        label=f"around published (concentration {concentration:g})",
    )
    left.barh(y + h / 2, t["p_first_flat"], height=h, color=style.PALETTE[1], label="flat (any weights)")
    left.set_yticks(y, t["em_model"])
    left.invert_yaxis()
    left.set_xlim(0, 1)
    left.set_xlabel("probability of rank 1")
    left.legend(loc="lower right", frameon=False)
    left.grid(axis="y", visible=False)
    for k, (a, b) in enumerate(zip(t["rank_published"], t["rank_equal_weights"])):
        colour = style.PALETTE[3] if a != b else "0.55"
        right.plot([0, 1], [a, b], color=colour, marker="o", markersize=3, linewidth=1)
        right.text(-0.06, a, t["em_model"][k], ha="right", va="center")
    right.set_xticks([0, 1], ["published\nweights", "equal\nweights"])
    right.set_xlim(-0.7, 1.15)
    right.set_ylim(n + 0.5, 0.5)
    right.set_yticks(range(1, n + 1))
    right.yaxis.tick_right()
    right.set_ylabel("rank (1 = best)")
    right.yaxis.set_label_position("right")
    right.grid(False)
    right.spines["left"].set_visible(False)
    right.spines["right"].set_visible(True)
    fig.tight_layout()
    return fig

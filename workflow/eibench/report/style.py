"""One figure style for every figure: colour-blind-safe palette, deterministic vector output."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

#: Okabe-Ito colour-blind-safe palette.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
ROLE_COLOURS = {"model": PALETTE[0], "human": PALETTE[3], "baseline": PALETTE[2]}


def apply() -> None:
    """Set the shared rcParams (call before drawing)."""
    plt.rcParams.update({
        "figure.dpi": 100,
        "font.family": "DejaVu Sans",
        "font.size": 9,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
        "svg.hashsalt": "eibench",  # fixed ids inside the SVG: identical bytes on every run
        "svg.fonttype": "path",
    })


def save(fig: plt.Figure, path: str | Path) -> None:
    """Save as SVG without a date stamp, so identical figures give identical bytes."""
    fig.savefig(path, format="svg", metadata={"Date": None}, bbox_inches="tight")
    plt.close(fig)

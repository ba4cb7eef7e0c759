"""The paper's one figure theme, and deterministic SVG output.

Every figure of the paper is drawn under the same seaborn theme. To draw a new figure::

    from eibench.report import style

    style.apply()                      # the theme: call first, before creating the figure
    fig, ax = plt.subplots(figsize=(style.TEXT_WIDTH, 3.0))
    ...                                # seaborn or matplotlib calls; colours from style.PALETTE
    style.source(fig, "rule figure_x; data results/stats/x.csv")
    style.save(fig, snakemake.output.figure)

Sizes: draw at the width at which paper/main.typ places the figure (``TEXT_WIDTH`` inches for
``width: 100%``, proportionally less for a narrower figure), so that the theme's font sizes are
the printed sizes. tests/paper/test_figure_print_size.py fails for any text below ``MIN_PT``
points at print size. ``save`` writes an SVG whose bytes depend on the drawing only (fixed ids,
no date), so reruns are byte-identical.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402

#: Okabe-Ito colour-blind-safe palette.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
ROLE_COLOURS = {"model": PALETTE[0], "human": PALETTE[3], "baseline": PALETTE[2]}
GREY = "#555555"
#: The text width of paper/main.typ (A4, 2.2 cm margins), in inches: a figure of this width
#: placed at ``width: 100%`` prints at the font sizes of the theme.
TEXT_WIDTH = 6.5
#: The smallest font size allowed at print size, in points.
MIN_PT = 7.0
#: The theme's font size (points) of tick labels, legends and annotations; titles and axis
#: labels use ``FONT_PT + 1``.
FONT_PT = 8.0


def apply() -> None:
    """Set the paper's theme (seaborn "ticks" style, Okabe-Ito palette, fonts of at least
    ``FONT_PT`` points, deterministic SVG). Call before drawing each figure."""
    sns.set_theme(
        context="paper",
        style="ticks",
        palette=list(PALETTE),
        font="DejaVu Sans",
        rc={
            "figure.dpi": 100,
            "font.size": FONT_PT,
            "axes.titlesize": FONT_PT + 1,
            "axes.labelsize": FONT_PT + 1,
            "xtick.labelsize": FONT_PT,
            "ytick.labelsize": FONT_PT,
            "legend.fontsize": FONT_PT,
            "legend.title_fontsize": FONT_PT,
            "figure.titlesize": FONT_PT,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.grid": True,
            "axes.grid.axis": "x",
            "grid.alpha": 0.3,
            "legend.frameon": False,
            "svg.hashsalt": "eibench",  # fixed ids inside the SVG: identical bytes on every run
            "svg.fonttype": "path",
        },
    )


def source(fig: plt.Figure, text: str) -> None:
    """The provenance line (rule and data), in grey at the figure's top left."""
    fig.suptitle(text, x=0.01, ha="left", color=GREY, fontsize=FONT_PT)


def save(fig: plt.Figure, path: str | Path) -> None:
    """Save as SVG without a date stamp, so identical figures give identical bytes."""
    fig.savefig(path, format="svg", metadata={"Date": None}, bbox_inches="tight")
    plt.close(fig)

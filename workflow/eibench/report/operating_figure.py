"""The design curves of the operating characteristics as one figure (three panels).

Sized for the paper's text width (16.6 cm, A4 with 2.2 cm margins), so the figure is placed at
its own size and every text is at least 7 pt (style.apply's 9 pt, ticks and legends at 7.5 pt).
"""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import pandas as pd

from . import style

WIDTH_IN = 16.6 / 2.54


def _not_computed(ax: plt.Axes, reason: str, title: str) -> None:
    """A panel with no simulated number: its title and, in place of the curve, why."""
    ax.text(
        0.5,
        0.5,
        "not computed:\n" + textwrap.fill(reason, 34),
        ha="center",
        va="center",
        fontsize=7.5,
        transform=ax.transAxes,
    )
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title, loc="left")


def design_curves(
    models: pd.DataFrame, participants: pd.DataFrame, conversations: pd.DataFrame, power_bar: float = 0.8
) -> plt.Figure:
    """Left: power of the independence claim against the number of models; middle: power of the
    diagnosis claim against the number of participants (each with its Clopper-Pearson 95%
    interval and the ``power_bar`` line); right: median reliability and signal-to-noise of each
    metric's model means against the number of conversations."""
    style.apply()
    plt.rcParams.update(
        {
            "xtick.labelsize": 7.5,
            "ytick.labelsize": 7.5,
            "legend.fontsize": 7.5,
            "axes.labelsize": 8,
            "axes.titlesize": 8.5,
        }
    )
    fig, axes = plt.subplots(1, 3, figsize=(WIDTH_IN, 2.7), layout="constrained")
    for ax, curve, label in (
        (axes[0], models, "evaluated models"),
        (axes[1], participants, "participants, diagnosis recorded"),
    ):
        claim = str(curve["claim"].iloc[0]) if len(curve) and pd.notna(curve["claim"].iloc[0]) else ""
        if not len(curve) or curve["value"].isna().any():
            # A curve with no simulated number (stats.operating.not_computed_curve): say why.
            note = str(curve["note"].iloc[0]) if len(curve) and "note" in curve else "no design point"
            _not_computed(ax, note, f"{claim or 'no claim'}: share 'supported'")
            ax.set_xlabel(f"number of {label}")
            continue
        x = curve["value"].to_numpy(float)
        y = curve["supported"].to_numpy(float)
        err = [y - curve["supported_lo"].to_numpy(float), curve["supported_hi"].to_numpy(float) - y]
        ax.errorbar(x, y, yerr=err, marker="o", ms=3.5, capsize=2, color=style.PALETTE[0], lw=1)
        ax.axhline(power_bar, color=style.PALETTE[3], lw=0.8, ls="--", label=f"power {power_bar:g}")
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel(f"number of {label}")
        ax.set_ylabel(f"simulated power of {claim}")
        ax.set_title(f"{claim}: share 'supported'", loc="left")
        ax.legend(loc="lower right", frameon=False)
    ax = axes[2]
    if conversations.empty:  # none of the curve's metrics in this cohort
        _not_computed(ax, "no metric of the curve", "simulated reliability")
        return fig
    twin = ax.twinx()
    for k, (metric, g) in enumerate(conversations.groupby("metric", sort=True)):
        colour = style.PALETTE[k % len(style.PALETTE)]
        ax.plot(g["n_conversations"], g["reliability"], marker="o", ms=3, color=colour, lw=1, label=metric)
        twin.plot(g["n_conversations"], g["snr"], marker="s", ms=2.5, color=colour, lw=0.8, ls=":")
    ax.set_xscale("log")
    grid = sorted(conversations["n_conversations"].unique())
    ax.set_xticks(grid, [str(int(g)) for g in grid])
    ax.xaxis.set_minor_locator(plt.NullLocator())
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("number of conversations")
    ax.set_ylabel("reliability (solid)")
    twin.set_ylabel("signal-to-noise (dotted)", fontsize=8)
    twin.tick_params(labelsize=7.5)
    twin.grid(False)
    twin.spines["right"].set_visible(True)
    ax.set_title("simulated reliability", loc="left")
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower right", ncols=4, frameon=False, fontsize=7.5)
    return fig

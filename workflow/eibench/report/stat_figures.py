"""The paper's figures: pure drawing functions that take the tables of ``results/`` and return a
Figure, all under the theme of :mod:`.style` (seaborn draws the faceted forests and the heatmap).

Every function draws a "no data" figure instead of failing when its table is empty (e.g. no
human raters in a small study) or lacks the rows it needs. ``caption_source`` is the short
provenance line (:func:`provenance`), printed in grey at the top left. Widths are the widths at
which paper/main.typ places each figure, so the theme's font sizes are the printed sizes.
"""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.ticker import MaxNLocator

from ..metrics.registry import BY_NAME, PRINCIPAL
from ..stats.drift import POOLED
from ..stats.testability import MIN_CONVERSATIONS
from . import style
from .board_numbers import BLOCKS, block_label, block_of
from .coverage import too_few_studies
from .numbers import fmt_share, plural
from .stats_numbers import testable_topics

GREY = style.GREY
NO_DATA = "no data"
#: The note of a panel whose metric was asked for (a principal metric) but has no value.
NO_VALUES = "no values in this cohort"
#: The label of a test the validation by simulation left out of this design (figure simulation).
NOT_RUN = "not run in this design"
#: Colours of the verdicts of the human-versus-model comparisons (the Holm-adjusted paired
#: bootstrap decides). An unadjusted interval that excludes zero without a Holm-significant
#: difference is drawn in its own colour, so no coloured point contradicts the interval shown.
VERDICT_COLOURS = {"humans better": style.PALETTE[3], "model better": style.PALETTE[0], "no difference": "#888888"}
UNADJUSTED_ONLY = "interval excludes 0, not after Holm"
UNADJUSTED_COLOUR = style.PALETTE[1]
#: Short forms of the rank-independence verdicts printed in the heatmap cells.
RANK_VERDICTS = {"related": "related", "independent": "indep.", "inconclusive": "?"}
#: Diverging colour map from the palette: vermillion (-1), white (0), blue (+1).
TAU_CMAP = LinearSegmentedColormap.from_list("tau", [style.PALETTE[3], "#FFFFFF", style.PALETTE[0]])


def provenance(smk) -> str:
    """The one-line provenance of a rule's figure: "rule R; data a.csv, b.csv"."""
    return f"rule {smk.rule}; data {', '.join(str(p) for p in smk.input)}"


def metric_label(metric: str) -> str:
    """The registry label of ``metric`` (the name itself for an unregistered metric)."""
    m = BY_NAME.get(metric)
    return m.label if m is not None else str(metric)


def direction(metric: str) -> str:
    """'higher is better' or 'lower is better' from the registry ('' when unregistered)."""
    m = BY_NAME.get(metric)
    if m is None:
        return ""
    return "higher is better" if m.higher_is_better else "lower is better"


def metric_order(metrics) -> list[str]:
    """Metrics in registry order (principal first as the registry lists them), others after by name."""
    present = list(dict.fromkeys(str(m) for m in metrics))
    return [m for m in BY_NAME if m in present] + sorted(m for m in present if m not in BY_NAME)


def no_data_figure(caption_source: str, what: str = "") -> plt.Figure:
    """A small figure that says there is no data (and what is missing)."""
    style.apply()
    fig, ax = plt.subplots(figsize=(style.TEXT_WIDTH, 0.8))  # the text width: prints at the theme's sizes
    _no_data_axes(ax, what)
    sns.despine(ax=ax, left=True, bottom=True)
    style.source(fig, caption_source)
    return fig


def _no_data_axes(ax: plt.Axes, what: str = "", width: int | None = None, lead: str = NO_DATA) -> None:
    """Say "no data" (or ``lead``; and ``what``) in the middle of ``ax``, wrapped at ``width``
    characters when given (a narrow panel: the text stays inside its axes, off the neighbouring
    spines)."""
    ax.set_xticks([])
    ax.set_yticks([])
    ax.grid(False)
    text = lead + (f": {what}" if what else "")
    ax.text(
        0.5,
        0.5,
        _wrap(text, width) if width else text,
        ha="center",
        va="center",
        multialignment="center",
        transform=ax.transAxes,
        color=GREY,
    )


def _has(df: pd.DataFrame | None, *columns: str) -> bool:
    return df is not None and len(df) > 0 and all(c in df.columns for c in columns)


def _interval(ax: plt.Axes, x, y, lo, hi, colour, **kw) -> None:
    """Dots at (x, y) with horizontal intervals [lo, hi]; NaN bounds draw the dot alone."""
    x, y, lo, hi = (np.asarray(v, float) for v in (x, y, lo, hi))
    err = np.vstack([np.where(np.isfinite(lo), x - lo, 0.0), np.where(np.isfinite(hi), hi - x, 0.0)])
    ax.errorbar(
        x,
        y,
        xerr=np.clip(err, 0, None),
        fmt="o",
        color=colour,
        ms=kw.pop("ms", 3.5),
        capsize=kw.pop("capsize", 1.5),
        lw=kw.pop("lw", 1),
        **kw,
    )


def _rows(ax: plt.Axes, labels, zero: bool = False) -> None:
    """Categorical rows 0..n-1 (bottom to top) labelled ``labels``; zero dashed when asked."""
    ax.set_yticks(range(len(labels)), list(labels))
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.grid(axis="y", alpha=0)
    ax.xaxis.set_major_locator(MaxNLocator(3))  # few x ticks: no overlapping labels in small panels
    if zero:
        ax.axvline(0, color=GREY, lw=0.8, ls="--")


def _legend(fig: plt.Figure, colours: dict[str, str], present) -> None:
    handles = [plt.Line2D([], [], marker="o", ls="", color=c, label=k) for k, c in colours.items() if k in set(present)]
    if handles:
        fig.set_layout_engine("constrained")
        fig.legend(handles=handles, loc="outside lower center", ncol=len(handles) if len(handles) <= 3 else 2)


def _layout(fig: plt.Figure, legend: bool = False) -> None:
    """Constrained layout: room for the provenance line on top and the figure legend below."""
    fig.set_layout_engine("constrained", h_pad=0.04, w_pad=0.04)


def _short(v: float) -> str:
    """Two decimals without the leading zero (-0.25 -> -.25), for the heatmap's narrow cells."""
    return f"{v:.2f}".replace("0.", ".", 1) if abs(v) < 1 else f"{v:.2f}"


def _wrap(text: str, width: int = 34) -> str:
    return "\n".join(textwrap.wrap(str(text), width)) or str(text)


def _finite_max(values, default: float) -> float:
    """The largest finite value, or ``default`` when there is none (np.nanmax would warn)."""
    x = np.asarray(values, dtype=float).ravel()
    x = x[np.isfinite(x)]
    return float(x.max()) if len(x) else default


def _facet_forest(
    table: pd.DataFrame,
    metrics: list[str],
    models: list[str],
    x: str,
    lo: str,
    hi: str,
    colour_of,
    xlabel,
    col_wrap: int,
    panel_h: float,
    zero: bool,
) -> sns.FacetGrid:
    """Small multiples with seaborn: one panel per metric (registry label as title), one row per
    model (``models`` bottom to top), each point coloured by ``colour_of(row)``."""
    y_of = {m: i for i, m in enumerate(models)}
    data = table.assign(
        _panel=table["metric"].map(metric_label),
        _y=table["em_model"].astype(str).map(y_of),
        _colour=[colour_of(r) for _, r in table.iterrows()],
    )
    col_wrap = max(1, min(col_wrap, len(metrics)))
    grid = sns.FacetGrid(
        data,
        col="_panel",
        col_order=[metric_label(m) for m in metrics],
        col_wrap=col_wrap,
        sharex=False,
        sharey=True,
        height=panel_h,
        aspect=style.TEXT_WIDTH / col_wrap / panel_h,
        despine=True,
    )

    def draw(data, **_):
        ax = plt.gca()
        for colour, part in data.groupby("_colour", sort=True):
            _interval(ax, part[x], part["_y"], part[lo], part[hi], colour)

    grid.map_dataframe(draw)
    grid.set_titles("{col_name}")
    for ax in grid.axes.flat:  # titles wrapped to their column (about 5.5 pt of width per character)
        ax.set_title(_wrap(ax.get_title(), int(style.TEXT_WIDTH / col_wrap * 72 / 5.5)))
    for ax, metric in zip(grid.axes.flat, metrics):
        _rows(ax, models, zero)
        ax.set_xlabel(xlabel(metric) if callable(xlabel) else xlabel, color=GREY)
    return grid


#: Headings of the forest's blocks when the board has no conversation counts (board_numbers.BLOCKS).
BLOCK_NAMES = {
    "ranked": "Ranked",
    "baseline": "Baselines (references), not ranked",
    "human": "Human raters, not ranked",
}


def forest_blocks(board: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """The leaderboard's rows in the printed table's blocks (board_numbers.block_of: ranked rows,
    unranked baselines, human raters), each with its heading (board_numbers.block_label, with the
    rows' number of conversations when the board has ``n_conversations``), best first within a
    block. A board without ``rank`` ranks its models (role ``model``)."""
    ranked = board["rank"].notna() if "rank" in board else board["role"] == "model"
    blocks = [block_of(str(r), bool(k)) for r, k in zip(board["role"], ranked)]
    out = []
    for block in BLOCKS:
        part = board[[b == block for b in blocks]]
        if not len(part):
            continue
        heading = (
            block_label(block, part["role"], part["n_conversations"])
            if "n_conversations" in part and part["n_conversations"].notna().all()
            else BLOCK_NAMES[block]
        )
        out.append((heading, part))
    return out


def forest(board: pd.DataFrame, metric: str, caption_source: str) -> plt.Figure:
    """Forest plot of ``metric`` per model: mean and 95% interval over conversations, one panel
    per block of the printed leaderboard (:func:`forest_blocks`: the ranked models, the
    baselines, the human raters, each headed with its number of conversations; human raters
    answer a subset of conversations, so they are never drawn among the models), best at the top
    of each, on one shared axis, coloured by role."""
    style.apply()
    blocks = forest_blocks(board)
    if not blocks:
        return no_data_figure(caption_source, "no model on the leaderboard")
    sizes = [len(part) for _, part in blocks]
    fig, axes = plt.subplots(
        len(blocks),
        1,
        figsize=(0.85 * style.TEXT_WIDTH, 0.2 * sum(sizes) + 0.45 * len(blocks) + 0.8),
        sharex=True,
        gridspec_kw={"height_ratios": [k + 0.6 for k in sizes]},
        squeeze=False,
    )
    for ax, (heading, part) in zip(axes[:, 0], blocks):
        rows = part.sort_values([metric, "em_model"], ascending=[True, False], kind="stable")
        for role, group in rows.assign(_y=np.arange(len(rows))).groupby("role", sort=True):
            _interval(
                ax,
                group[metric],
                group["_y"],
                group[f"{metric}_lo"],
                group[f"{metric}_hi"],
                style.ROLE_COLOURS.get(role, style.PALETTE[4]),
            )
        _rows(ax, rows["em_model"])
        ax.set_title(heading, loc="left", fontsize=style.FONT_PT)
    axes[-1, 0].set_xlabel(f"{metric_label(metric)} (mean over conversations, 95% interval)")
    _layout(fig)
    _legend(fig, style.ROLE_COLOURS, board["role"])
    style.source(fig, caption_source)
    return fig


def rank_correlation_heatmap(pairs: pd.DataFrame, caption_source: str) -> plt.Figure:
    """Heatmap (seaborn) of Kendall's tau-b between the models' rankings on each pair of metrics.

    ``pairs`` has one row per pair (metric_a, metric_b, tau, lo95, hi95, verdict); lo95 and hi95
    are the interval the verdict uses (resampling models and conversations). The strict lower
    triangle is drawn: each cell's colour is tau (blue positive, vermillion negative, white
    zero) and its text gives tau, the interval and the verdict (``related``, ``indep.``, ``?``
    for inconclusive). A pair without a finite tau is grey and reads n/a; with too few models
    for any verdict, a pair is grey and reads "too few models", without a number.
    """
    if not _has(pairs, "metric_a", "metric_b", "tau", "lo95", "hi95"):
        return no_data_figure(caption_source, "rank correlations")
    metrics = metric_order(list(pairs["metric_a"]) + list(pairs["metric_b"]))
    k = len(metrics)
    if k < 2:
        return no_data_figure(caption_source, "fewer than two metrics")
    style.apply()
    pos = {m: i for i, m in enumerate(metrics)}
    tau = np.full((k - 1, k - 1), np.nan)  # row i: metric i + 1; column j: metric j
    text = np.full((k - 1, k - 1), "", dtype=object)
    for _, r in pairs.iterrows():
        i, j = sorted((pos[str(r["metric_a"])], pos[str(r["metric_b"])]), reverse=True)
        if r.get("verdict") == "not testable":  # too few models: no number (grey, as a pair without tau)
            text[i - 1, j] = "too few\nmodels"
            continue
        tau[i - 1, j] = r["tau"]
        if np.isfinite(r["tau"]):
            ci = (
                f"[{_short(r['lo95'])}, {_short(r['hi95'])}]"
                if np.isfinite(r["lo95"]) and np.isfinite(r["hi95"])
                else "[n/a]"
            )
            text[i - 1, j] = (
                f"{r['tau']:.2f}\n{ci}\n{RANK_VERDICTS.get(str(r.get('verdict', '')), r.get('verdict', ''))}"
            )
        else:
            text[i - 1, j] = "n/a"
    upper = np.triu(np.ones_like(tau, bool), k=1)
    size = min(style.TEXT_WIDTH - 0.2, 0.95 * (k - 1) + 2.0)
    fig, ax = plt.subplots(figsize=(size, size))
    ax.grid(False)
    grey = np.where(~upper & np.isnan(tau), 0.0, np.nan)  # pairs without a tau: grey cells
    sns.heatmap(grey, mask=~np.isfinite(grey), cmap=["#DDDDDD"], vmin=0, vmax=1, cbar=False, ax=ax)
    sns.heatmap(
        tau,
        mask=upper | np.isnan(tau),
        cmap=TAU_CMAP,
        vmin=-1,
        vmax=1,
        square=True,
        ax=ax,
        linewidths=0.5,
        linecolor="white",
        annot=np.where(upper, "", text),
        fmt="",
        annot_kws={"fontsize": style.MIN_PT, "linespacing": 1.05},
        xticklabels=[_wrap(metric_label(m), 12) for m in metrics[:-1]],
        yticklabels=[_wrap(metric_label(m), 14) for m in metrics[1:]],
        cbar_ax=ax.inset_axes((0.55, 0.9, 0.42, 0.035)),  # in the empty upper triangle
        cbar_kws={"orientation": "horizontal", "label": "Kendall tau-b between model rankings"},
    )
    for t in ax.texts:  # the cells without a tau are not annotated by seaborn (masked)
        t.set_color("white" if abs(float(t.get_text().split("\n")[0] or 0)) > 0.6 else "black")
    for (i, j), s in np.ndenumerate(text):
        if s and np.isnan(tau[i, j]):  # grey cells: "n/a", "too few models"
            ax.text(j + 0.5, i + 0.5, s, ha="center", va="center", color=GREY, fontsize=style.MIN_PT)
    ax.tick_params(axis="x", rotation=45)
    plt.setp(ax.get_xticklabels(), ha="right", rotation_mode="anchor")
    ax.tick_params(axis="y", rotation=0)
    bar = ax.collections[-1].colorbar
    if bar is not None and bar.solids is not None:
        bar.solids.set_rasterized(False)  # all-vector SVG
        bar.solids.set_edgecolor("face")  # no seams between the colour bar's cells
    style.source(fig, caption_source)
    return fig


def with_roles(table: pd.DataFrame, roles: dict[str, str]) -> pd.DataFrame:
    """``table`` with its ``role`` column set from ``roles`` (em_model -> model, baseline or
    human: what the model is, as the leaderboard names it), not from the role the analyses gave
    it (a baseline compared as a model under statistics.baselines_as_models). A model missing
    from ``roles`` keeps its role; a table without ``em_model`` is returned unchanged."""
    if "em_model" not in table:
        return table
    out = table.copy()
    known = out["em_model"].astype(str).map(roles)
    out["role"] = known.fillna(out["role"]) if "role" in out else known
    return out


def capability_profiles(
    intervals: pd.DataFrame, caption_source: str, metrics: tuple[str, ...] | None = None, order_by: str = "composite"
) -> plt.Figure:
    """Small multiples (seaborn FacetGrid): one panel per principal metric, each model's
    estimate and 95% interval over conversations.

    ``intervals`` is long (em_model, role, metric, estimate, lo, hi). Models keep one row across
    panels, ordered by ``order_by`` (best at the top; models without it at the bottom) and
    coloured by role. Each panel's axis names the metric's direction.

    ``metrics`` are the cohort's principal metrics (``statistics.principal_metrics``): each gets
    its panel, and one without any estimate in the table (the cohort cannot score it) an empty
    panel saying so (:data:`NO_VALUES`), never none; when none of them has an estimate, the "no
    data" figure names them. Without ``metrics``, the registry's principal metrics present in
    the table.
    """
    if not _has(intervals, "em_model", "metric", "estimate", "lo", "hi"):
        return no_data_figure(caption_source, "capability profiles")
    present = set(intervals.loc[intervals["estimate"].notna(), "metric"].astype(str))
    shown = list(dict.fromkeys(metrics)) if metrics else [m for m in PRINCIPAL if m in present]
    empty = [m for m in shown if m not in present]
    if len(empty) == len(shown):
        what = ", ".join(metric_label(m) for m in empty)
        return no_data_figure(caption_source, f"{NO_VALUES}: {what}" if what else "no principal metric in the table")
    style.apply()
    models = sorted(intervals["em_model"].astype(str).unique())
    key = intervals[intervals["metric"] == order_by].set_index("em_model")["estimate"]
    better = BY_NAME[order_by].higher_is_better if order_by in BY_NAME else True
    score = {m: key.get(m, np.nan) * (1 if better else -1) for m in models}
    models = sorted(models, key=lambda m: (np.isfinite(score[m]), np.nan_to_num(score[m], nan=0.0)))
    rows = intervals[intervals["metric"].isin(shown)]
    role = rows["role"] if "role" in rows else pd.Series("model", index=rows.index)
    grid = _facet_forest(
        rows.assign(role=role),
        shown,
        models,
        "estimate",
        "lo",
        "hi",
        lambda r: style.ROLE_COLOURS.get(r["role"], style.PALETTE[4]),
        direction,
        5,
        0.15 * len(models) + 1.3,
        zero=False,
    )
    for ax, metric in zip(grid.axes.flat, shown):
        if metric in empty:  # requested, but the cohort has no value of it: say so, draw no number
            ax.set_xticks([])
            ax.set_xlabel("")
            ax.text(0.5, 0.5, _wrap(NO_VALUES, 14), ha="center", va="center", transform=ax.transAxes, color=GREY)
    _legend(grid.figure, style.ROLE_COLOURS, role)
    style.source(grid.figure, caption_source)
    _layout(grid.figure, legend=True)
    return grid.figure


def discriminability(table: pd.DataFrame, caption_source: str) -> plt.Figure:
    """Three panels per metric: reliability of model means, signal-to-noise ratio (both with
    95% intervals) and the share of model pairs separated by the Holm-corrected paired
    bootstrap. Metrics are ordered by SNR, the most discriminating at the top.
    """
    if not _has(table, "metric", "reliability", "snr", "share_pairs_separated"):
        return no_data_figure(caption_source, "discriminability")
    style.apply()
    rows = table.sort_values(["snr", "metric"], ascending=[True, False], kind="stable", na_position="first")
    y = np.arange(len(rows))
    fig, axes = plt.subplots(1, 3, figsize=(style.TEXT_WIDTH, 0.25 * len(rows) + 1.2), sharey=True)
    for ax, col, xlabel in (
        (axes[0], "reliability", "reliability of\nmodel means"),
        (axes[1], "snr", "signal-to-noise ratio"),
    ):
        nan = np.full(len(rows), np.nan)
        _interval(ax, rows[col], y, rows.get(f"{col}_lo", nan), rows.get(f"{col}_hi", nan), style.PALETTE[0])
        ax.set_xlabel(xlabel)
    axes[2].barh(y, rows["share_pairs_separated"], color=style.PALETTE[2], height=0.6)
    axes[2].set_xlim(0, 1)
    axes[2].set_xlabel("share of model\npairs separated")
    for ax in axes:
        _rows(ax, [metric_label(m) for m in rows["metric"]])
    style.source(fig, caption_source)
    _layout(fig)
    return fig


def _p(p) -> str:
    if p is None or not np.isfinite(p):
        return "p n/a"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _topic_label(category: str, p_hardest: float, lo: float, testable: bool, n: int) -> str:
    """A topic's row label in the subgroups figure: its name, then its probability of being the
    hardest when it has one and an interval (``lo`` finite), or, for a topic too small to test
    whether it is the hardest (``testable`` False), its count of conversations. The probability
    is printed as the text prints it (``numbers.fmt_share``): a share of the resamples strictly
    between 0 and 1 is never 0.00 or 1.00 (5 of 2,000 is 0.0025, not 0.00)."""
    label = _wrap(category, 26)
    if not testable:
        return f"{label}\n{n} {plural(n, 'conversation', 'conversations')}: too few"
    return label + (f"\nP(hardest) {fmt_share(p_hardest)}" if np.isfinite(p_hardest) and np.isfinite(lo) else "")


#: Characters per line of a subgroups panel's "no data" text: each panel is about a third of the
#: text width once the topic labels have their room, so a longer line runs over the axes' spines.
SUBGROUP_NO_DATA_WIDTH = 16


def subgroups_topics(
    diagnosis: pd.DataFrame,
    topics: pd.DataFrame,
    caption_source: str,
    topic_metric: str = "composite",
    diagnosis_untestable: str | None = None,
    min_conversations: int = MIN_CONVERSATIONS,
) -> plt.Figure:
    """Two panels. Left: the adjusted effect of a diagnosis (diagnosed minus not) per metric with
    its 95% interval and the permutation p-value. Right: the mean of ``topic_metric`` per topic
    with its 95% interval, hardest at the bottom, annotated with the bootstrap probability of
    being the hardest topic; the reference category of the mixed model's contrasts is drawn as
    an open dot (and named in the legend) when the table gives a contrast (column
    ``effect_vs_reference``; without the column, whenever a category is the reference). A panel
    without rows (the left one: or without an estimated effect, e.g. no diagnosis recorded) says
    "no data", wrapped to stay inside the panel. With ``diagnosis_untestable`` (the reason the
    cohort cannot test the diagnosis claims) the left panel gives that reason and no effect. A
    topic with fewer than ``min_conversations`` conversations, or fewer in the other topics (the
    testability of claim topic_hardest), is drawn without interval or probability of being the
    hardest, its label giving its count.
    """
    style.apply()
    n = max(
        len(diagnosis) if diagnosis is not None else 0,
        len(topics) // max(1, topics["metric"].nunique()) if _has(topics, "metric") else 0,
    )
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(style.TEXT_WIDTH - 0.8, max(3.6, 0.45 * n + 1.5)), gridspec_kw={"width_ratios": [1, 1.1]}
    )
    if diagnosis_untestable:
        _no_data_axes(left, diagnosis_untestable, width=SUBGROUP_NO_DATA_WIDTH, lead="diagnosis contrast not testable")
    elif _has(diagnosis, "metric", "adjusted_effect", "adjusted_lo", "adjusted_hi") and (
        diagnosis["adjusted_effect"].notna().any()
    ):
        order = metric_order(diagnosis["metric"])
        rows = diagnosis.assign(_o=[order.index(m) for m in diagnosis["metric"]])
        rows = rows.sort_values("_o", ascending=False, kind="stable")
        y = np.arange(len(rows))
        _interval(left, rows["adjusted_effect"], y, rows["adjusted_lo"], rows["adjusted_hi"], style.PALETTE[4])
        p = rows["p_permutation"] if "p_permutation" in rows else [np.nan] * len(rows)
        _rows(left, [f"{_wrap(metric_label(m), 20)}\n{_p(q)}" for m, q in zip(rows["metric"], p)], zero=True)
        left.set_xlabel("adjusted effect of a diagnosis\n(diagnosed minus not,\n95% interval)")
    else:
        _no_data_axes(left, "no diagnosis effect estimable", width=SUBGROUP_NO_DATA_WIDTH)
    tp = topics[topics["metric"] == topic_metric] if _has(topics, "metric", "category", "mean", "lo", "hi") else None
    if tp is not None and len(tp):
        tp = tp.sort_values(["mean", "category"], kind="stable")
        y = np.arange(len(tp))
        ref = (
            tp["is_reference"].astype(str).str.lower().eq("true").to_numpy()
            if "is_reference" in tp
            else np.zeros(len(tp), bool)
        )
        if "effect_vs_reference" in tp and not np.isfinite(tp["effect_vs_reference"].to_numpy(float)[~ref]).any():
            ref = np.zeros(len(tp), bool)  # the mixed model gave no contrast (a failed fit): none to mark
        enough = testable_topics(tp, min_conversations)
        lo = tp["lo"].to_numpy(float).copy()
        hi = tp["hi"].to_numpy(float).copy()
        lo[~enough], hi[~enough] = np.nan, np.nan
        _interval(right, tp["mean"], y, lo, hi, style.PALETTE[0], label="topic mean")
        if ref.any():  # drawn over the filled dot, larger, so it reads as an open ring
            right.plot(
                tp["mean"].to_numpy()[ref],
                y[ref],
                "o",
                mfc="white",
                mec=style.PALETTE[0],
                mew=1.2,
                ms=6,
                zorder=5,
                label="reference category",
            )
            right.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=2, borderaxespad=0.1)
        hardest = tp["p_hardest"].to_numpy(float) if "p_hardest" in tp else np.full(len(tp), np.nan)
        counts = tp["n_conversations"].to_numpy(int) if "n_conversations" in tp else np.zeros(len(tp), int)
        # A topic without an interval (one conversation with a value resamples to itself) gets
        # no probability of being the hardest either: the bootstrap cannot say how it varies.
        # Nor does a topic too small to test whether it is the hardest: its label gives its count.
        _rows(right, [_topic_label(*row) for row in zip(tp["category"], hardest, lo, enough, counts)])
        drawn = ",\n95% interval" if np.isfinite(lo).any() else ""  # no interval drawn: none named
        right.set_xlabel(f"{metric_label(topic_metric)} per topic\n(mean over conversations{drawn})")
    else:
        _no_data_axes(right, f"topics ({topic_metric})", width=SUBGROUP_NO_DATA_WIDTH)
    style.source(fig, caption_source)
    _layout(fig)
    return fig


def drift(table: pd.DataFrame, caption_source: str) -> plt.Figure:
    """Small multiples (seaborn FacetGrid), one panel per metric: the within-conversation slope
    of each model's score on relative turn position (late minus early scale) with its 95%
    interval. The pooled slope over all compared models is drawn in black at the top; zero is
    dashed.

    A metric analysed without any value (a drift claim names it, but the cohort lacks its kind of
    annotation: ``n_turns`` 0 in every row, or no slope where the table has no ``n_turns``) keeps
    its panel, which says so (:data:`NO_VALUES`) and draws no axis.
    """
    if not _has(table, "metric", "em_model", "slope", "slope_lo", "slope_hi"):
        return no_data_figure(caption_source, "turn drift")
    style.apply()
    models = sorted(set(table["em_model"].astype(str)) - {POOLED}, reverse=True)
    models += [POOLED] if POOLED in set(table["em_model"]) else []
    metrics = metric_order(table["metric"])
    grid = _facet_forest(
        table,
        metrics,
        models,
        "slope",
        "slope_lo",
        "slope_hi",
        lambda r: style.PALETTE[7] if r["em_model"] == POOLED else style.PALETTE[0],
        "slope over the conversation",
        4,
        0.17 * len(models) + 1.2,
        zero=True,
    )
    empty = set(metrics) - drift_metrics_with_values(table)
    for ax, metric in zip(grid.axes.flat, metrics):
        if metric in empty:  # analysed, but the cohort has no value of it: say so, draw no axis
            for line in ax.get_lines():  # the dashed zero
                line.remove()
            ax.set_xticks([])
            ax.set_xlabel("")
            ax.text(0.5, 0.5, _wrap(NO_VALUES, 14), ha="center", va="center", transform=ax.transAxes, color=GREY)
    style.source(grid.figure, caption_source)
    _layout(grid.figure)
    return grid.figure


def drift_metrics_with_values(table: pd.DataFrame) -> set[str]:
    """The metrics of rule stats_drift's table (drift.csv) that have a value at some turn: a row
    with ``n_turns`` above 0, or, in a table without that column, a slope."""
    if "n_turns" in table:
        has = table["n_turns"].fillna(0).astype(float) > 0
    else:
        has = table["slope"].notna()
    return set(table.loc[has, "metric"].astype(str))


def human_colour(row) -> str:
    """The colour of one comparison: its verdict (Holm-adjusted paired bootstrap), or
    ``UNADJUSTED_COLOUR`` for "no difference" whose unadjusted 95% interval excludes zero."""
    verdict = str(row.get("verdict", ""))
    if verdict == "no difference" and (row["lo"] > 0 or row["hi"] < 0):
        return UNADJUSTED_COLOUR
    return VERDICT_COLOURS.get(verdict, style.PALETTE[4])


def humans_vs_models(table: pd.DataFrame, caption_source: str) -> plt.Figure:
    """Forest of human minus model per metric (seaborn FacetGrid, one panel each): the paired
    bootstrap difference and its unadjusted 95% interval per evaluated model, coloured by the
    verdict of the Holm-adjusted test across models (humans better, model better, no
    difference); a difference whose interval excludes zero but that Holm does not confirm has
    its own colour. Zero is dashed. An empty table (no human raters) says "no data".
    """
    if not _has(table, "metric", "em_model", "human_minus_model", "lo", "hi"):
        return no_data_figure(caption_source, "no human raters in this cohort")
    style.apply()
    models = sorted(table["em_model"].astype(str).unique(), reverse=True)
    colours = [human_colour(r) for _, r in table.iterrows()]
    grid = _facet_forest(
        table,
        metric_order(table["metric"]),
        models,
        "human_minus_model",
        "lo",
        "hi",
        human_colour,
        "human minus model",
        4,
        0.17 * len(models) + 1.2,
        zero=True,
    )
    legend = {f"{k} (Holm p ≤ 0.05)" if k != "no difference" else k: c for k, c in VERDICT_COLOURS.items()}
    legend[UNADJUSTED_ONLY] = UNADJUSTED_COLOUR
    _legend(grid.figure, legend, [k for k, c in legend.items() if c in set(colours)])
    style.source(grid.figure, caption_source)
    _layout(grid.figure, legend=True)
    return grid.figure


#: Colours of the coverage dots, by the one-sided exact binomial tests of the coverage against
#: the nominal level (the planted table's ``coverage_vs_nominal``); a share over the models of each study
#: has no such test and is drawn as an open dot.
COVERAGE_COLOURS = {
    "below nominal": style.PALETTE[3],
    "above nominal": style.PALETTE[2],
    "consistent with nominal": style.PALETTE[0],
}


def coverage_labels(alpha: float | None) -> dict[str, str]:
    """The legend label of each verdict of ``COVERAGE_COLOURS``, with the level ``alpha`` of
    its one-sided test (``statistics.alpha``, the null-rates table's ``alpha``; 'α' when the
    figure has none)."""
    level = "α" if alpha is None else f"{alpha:g}"
    return {
        "below nominal": f"coverage below nominal\n(one-sided p ≤ {level})",
        "above nominal": f"coverage above nominal\n(one-sided p ≤ {level})",
        "consistent with nominal": "coverage consistent\nwith nominal",
    }


UNTESTED_COVERAGE = "coverage: share over models\n(no binomial test)"
#: The verdict a tested coverage not significantly below nominal is drawn with when the run has
#: too few simulated studies to show a coverage at nominal (``coverage.too_few_studies``): the
#: paper then prints no verdict for it either. One significantly below nominal keeps its colour.
TOO_FEW = "too few studies"


def _coverage_panel(ax: plt.Axes, rows: pd.DataFrame, nominal: float, alpha: float | None) -> None:
    """The right panel of :func:`simulation_calibration`: per planted effect (row ``y``) its
    coverage with the Clopper-Pearson 95% interval (when the table has ``coverage_lo`` /
    ``coverage_hi``), coloured by ``coverage_vs_nominal`` (open dot where it is empty: no
    binomial test applies; when the studies are too few to show a coverage at nominal,
    ``coverage.too_few_studies`` over the most studies of a tested coverage, one neutral colour
    for every tested coverage but those significantly below nominal, which are evidence of
    under-coverage however few the studies), its sign recovery (cross) and the nominal coverage
    (dashed)."""
    y = np.arange(len(rows))
    verdicts = rows["coverage_vs_nominal"].fillna("") if "coverage_vs_nominal" in rows else pd.Series([""] * len(rows))
    labels = coverage_labels(alpha)
    tested = verdicts.ne("").to_numpy()
    if tested.any() and "n_simulations" in rows:
        studies = int(rows["n_simulations"][tested].max())
        if too_few_studies(studies, 1 - nominal):
            verdicts = verdicts.where(~tested | verdicts.eq("below nominal"), TOO_FEW)
            labels[TOO_FEW] = (
                f"coverage over {studies} {plural(studies, 'study', 'studies')}\n(too few to show nominal)"
            )
    for verdict in [*COVERAGE_COLOURS, TOO_FEW, ""]:
        at = (verdicts == verdict).to_numpy()
        if not at.any():
            continue
        sel = rows[at]
        colour = COVERAGE_COLOURS.get(verdict, style.PALETTE[0])
        if verdict and "coverage_lo" in sel and "coverage_hi" in sel:
            lo, hi = sel["coverage_lo"].to_numpy(float), sel["coverage_hi"].to_numpy(float)
            c = sel["coverage"].to_numpy(float)
            ax.errorbar(c, y[at], xerr=[c - lo, hi - c], fmt="none", ecolor=colour, elinewidth=1.2, capsize=2)
        face = colour if verdict else "white"
        label = labels.get(verdict, UNTESTED_COVERAGE if "coverage_vs_nominal" in rows else "coverage")
        ax.plot(sel["coverage"], y[at], "o", color=colour, mfc=face, ms=4, label=label, zorder=3)
    if "sign_recovery" in rows and rows["sign_recovery"].notna().any():
        ax.plot(rows["sign_recovery"], y, "x", color=style.PALETTE[1], ms=5, label="sign recovery", zorder=3)
    ax.axvline(nominal, color=GREY, lw=0.8, ls="--", label=f"nominal coverage {nominal:g}")
    _rows(ax, [_wrap(t, 26) for t in rows["effect"]])
    shown = np.r_[rows["coverage"], rows.get("sign_recovery", 1.0), rows.get("coverage_lo", 1.0), nominal]
    lowest = float(np.nanmin(np.asarray(shown, dtype=float)))
    ax.set_xlim(max(0.0, lowest - 0.05), 1.01)
    ax.xaxis.set_major_locator(MaxNLocator(nbins=3))
    ax.set_xlabel("share of planted-effect studies")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1)


def simulation_calibration(
    null_rates: pd.DataFrame,
    planted: pd.DataFrame,
    caption_source: str,
    nominal_coverage: float = 0.95,
) -> plt.Figure:
    """Two panels from the validation by simulation. Left: each test's false-positive rate under
    the null generator, its binomial 95% band around the nominal level (grey bar) and the
    nominal alpha (dashed). Right: the coverage of the 95% intervals of each planted effect
    (dot, with its Clopper-Pearson 95% interval, coloured by the exact binomial test against
    ``nominal_coverage``: :data:`COVERAGE_COLOURS`) and its sign recovery (cross), with the
    nominal coverage (dashed). No other reference line is drawn: the binomial test, not a
    lower acceptance bar, says whether a coverage falls short. Rows without a coverage (e.g.
    the power row) are left out.
    """
    style.apply()
    n = max(len(null_rates) if null_rates is not None else 0, len(planted) if planted is not None else 0)
    fig, (left, right) = plt.subplots(1, 2, figsize=(style.TEXT_WIDTH - 0.4, max(2.5, 0.42 * n + 1.4)))
    if _has(null_rates, "test", "false_positive_rate", "alpha"):
        rows, y = null_rates.iloc[::-1], np.arange(len(null_rates))
        if "band_lo" in rows and "band_hi" in rows:
            left.barh(
                y,
                rows["band_hi"] - rows["band_lo"],
                left=rows["band_lo"],
                height=0.5,
                color="#DDDDDD",
                label="binomial 95% band",
            )
        left.plot(rows["false_positive_rate"], y, "o", color=style.PALETTE[0], ms=4, label="false-positive rate")
        for at, rate in zip(y, rows["false_positive_rate"]):
            if pd.isna(rate):  # a test this design leaves out (null_rates' left_out): a blank row says nothing
                left.text(
                    0.003,
                    at,
                    NOT_RUN,
                    va="center",
                    ha="left",
                    color=GREY,
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.6},
                    zorder=4,
                )
        for a in sorted(set(rows["alpha"].dropna())):
            left.axvline(a, color=GREY, lw=0.8, ls="--", label="nominal alpha")
        _rows(left, [_wrap(t, 26) for t in rows["test"]])
        left.set_xlim(0, max(0.12, _finite_max(np.r_[rows["false_positive_rate"], rows.get("band_hi", 0)], 0.0) + 0.02))
        left.xaxis.set_major_locator(MaxNLocator(nbins=2))  # narrow panel: few ticks, none overlapping
        left.set_xlabel("false-positive rate under the null")
        left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1)
    else:
        _no_data_axes(left, "null simulations")
    pl = planted[planted["coverage"].notna()] if _has(planted, "effect", "coverage") else None
    if pl is not None and len(pl):
        # the coverage verdicts' level is the tests' (stats_simulation_summary passes statistics.alpha to both)
        levels = set(null_rates["alpha"].dropna()) if _has(null_rates, "alpha") else set()
        alpha = float(levels.pop()) if len(levels) == 1 else None
        _coverage_panel(right, pl.iloc[::-1].reset_index(drop=True), nominal_coverage, alpha)
    else:
        _no_data_axes(right, "planted simulations")
    style.source(fig, caption_source)
    _layout(fig)
    return fig


def rank_intervals(table: pd.DataFrame, caption_source: str, metric: str = "composite") -> plt.Figure:
    """Critical-difference style ranking diagram for ``metric``: each model's rank (1 = best)
    as a dot and its 95% bootstrap rank interval as a bar, best at the top. Models whose rank
    intervals do not overlap are separated by the data.
    """
    if not _has(table, "em_model", "metric", "rank", "rank_lo", "rank_hi"):
        return no_data_figure(caption_source, "rank intervals")
    rows = table[table["metric"] == metric]
    if rows.empty or not np.isfinite(rows[["rank", "rank_hi"]].to_numpy(float)).any():
        return no_data_figure(caption_source, f"rank intervals of {metric}")
    style.apply()
    rows = rows.sort_values(["rank", "em_model"], ascending=[False, False], kind="stable")
    y = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(0.75 * style.TEXT_WIDTH, 0.22 * len(rows) + 1.0))
    ax.hlines(y, rows["rank_lo"] - 0.15, rows["rank_hi"] + 0.15, color=style.PALETTE[5], lw=5, alpha=0.7)
    ax.plot(rows["rank"], y, "o", color=style.PALETTE[0], ms=4)
    _rows(ax, rows["em_model"])
    n = int(_finite_max(rows[["rank", "rank_hi"]].to_numpy(float), 1.0))
    ax.set_xlim(n + 0.7, 0.3)  # rank 1 on the right, as in a critical-difference diagram
    ax.set_xticks(range(1, n + 1))
    ax.set_xlabel(f"rank on {metric_label(metric)}\n(1 = best; bar: 95% bootstrap interval)")
    style.source(fig, caption_source)
    return fig


def read_table(path) -> pd.DataFrame:
    """Read a statistics CSV; a file with no columns at all (nothing to report) is an empty table."""
    try:
        return pd.read_csv(path)
    except pd.errors.EmptyDataError:
        return pd.DataFrame()

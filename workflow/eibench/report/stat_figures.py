"""The statistical figures of the paper: pure drawing functions that take the statistics
tables of ``results/stats`` and return a Figure.

Every function draws a "no data" figure instead of failing when its table is empty (e.g. no
human raters in a small study) or lacks the rows it needs. ``caption_source`` names the rule and
script; it is printed in small grey text at the top left, as in :func:`figures.forest`.
"""

from __future__ import annotations

import math
import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import LinearSegmentedColormap

from ..metrics.registry import BY_NAME, PRINCIPAL
from . import style

GREY = "#555555"
NO_DATA = "no data"
#: Colours of the verdicts of the human-versus-model comparisons.
VERDICT_COLOURS = {"humans better": style.PALETTE[3], "model better": style.PALETTE[0],
                   "no difference": "#888888"}
#: Short forms of the rank-independence verdicts printed in the heatmap cells.
RANK_VERDICTS = {"related": "related", "independent": "indep.", "inconclusive": "?"}
#: Diverging colour map from the palette: vermillion (-1), white (0), blue (+1).
TAU_CMAP = LinearSegmentedColormap.from_list("tau", [style.PALETTE[3], "#FFFFFF", style.PALETTE[0]])


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
    registry = [m for m in BY_NAME if m in present]
    return registry + sorted(m for m in present if m not in BY_NAME)


def _source(fig: plt.Figure, caption_source: str) -> None:
    fig.suptitle(caption_source, fontsize=7, x=0.01, ha="left", color=GREY)


def no_data_figure(caption_source: str, what: str = "") -> plt.Figure:
    """A small figure that says there is no data (and what is missing)."""
    style.apply()
    fig, ax = plt.subplots(figsize=(6.0, 1.4))
    ax.axis("off")
    ax.text(0.5, 0.5, NO_DATA + (f": {what}" if what else ""), ha="center", va="center",
            transform=ax.transAxes, fontsize=10, color=GREY)
    ax.set_title(caption_source, fontsize=7, loc="left", color=GREY)
    return fig


def _no_data_axes(ax: plt.Axes, what: str = "") -> None:
    ax.set_xticks([])
    ax.set_yticks([])
    ax.grid(False)
    ax.text(0.5, 0.5, NO_DATA + (f": {what}" if what else ""), ha="center", va="center",
            transform=ax.transAxes, fontsize=9, color=GREY)


def _has(df: pd.DataFrame | None, *columns: str) -> bool:
    return df is not None and len(df) > 0 and all(c in df.columns for c in columns)


def _interval(ax: plt.Axes, x, y, lo, hi, colour, **kw) -> None:
    """Dots at (x, y) with horizontal intervals [lo, hi]; NaN bounds draw the dot alone."""
    x, y, lo, hi = (np.asarray(v, float) for v in (x, y, lo, hi))
    err = np.vstack([np.where(np.isfinite(lo), x - lo, 0.0), np.where(np.isfinite(hi), hi - x, 0.0)])
    ax.errorbar(x, y, xerr=np.clip(err, 0, None), fmt="o", color=colour, ms=kw.pop("ms", 3.5),
                capsize=kw.pop("capsize", 1.5), lw=kw.pop("lw", 1), **kw)


def _grid(n: int, ncols: int, panel_w: float, panel_h: float, sharey: bool = True):
    ncols = max(1, min(ncols, n))
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(panel_w * ncols, panel_h * nrows + 0.5),
                             sharey=sharey, squeeze=False)
    flat = list(axes.ravel())
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def _wrap(text: str, width: int = 34) -> str:
    return "\n".join(textwrap.wrap(str(text), width)) or str(text)


# 1. Rank correlations -----------------------------------------------------------------------

def rank_correlation_heatmap(pairs: pd.DataFrame, caption_source: str) -> plt.Figure:
    """Heatmap of Kendall's tau-b between the models' rankings on each pair of metrics.

    ``pairs`` has one row per pair (metric_a, metric_b, tau, lo95, hi95, verdict). The lower
    triangle is drawn: each cell's colour is tau (blue positive, vermillion negative, white
    zero) and its text gives tau, the 95% interval and the verdict (``related``, ``indep.``,
    ``?`` for inconclusive). A pair without a finite tau is grey and reads n/a.
    """
    if not _has(pairs, "metric_a", "metric_b", "tau", "lo95", "hi95"):
        return no_data_figure(caption_source, "rank correlations")
    style.apply()
    metrics = metric_order(list(pairs["metric_a"]) + list(pairs["metric_b"]))
    k = len(metrics)
    if k < 2:
        return no_data_figure(caption_source, "fewer than two metrics")
    pos = {m: i for i, m in enumerate(metrics)}
    tau = np.full((k, k), np.nan)
    cells = {}
    for _, r in pairs.iterrows():
        i, j = pos[str(r["metric_a"])], pos[str(r["metric_b"])]
        i, j = max(i, j), min(i, j)  # lower triangle: row below column
        tau[i, j] = r["tau"]
        cells[(i, j)] = r
    size = max(3.5, 0.72 * (k - 1) + 1.6)
    fig, ax = plt.subplots(figsize=(size + 0.8, size))
    masked = np.ma.masked_invalid(tau)
    edges = np.arange(k + 1) - 0.5
    image = ax.pcolormesh(edges, edges, masked, cmap=TAU_CMAP, vmin=-1, vmax=1)  # vector cells, no raster
    ax.set_xlim(-0.5, k - 1.5)  # strict lower triangle: no empty first row or last column
    ax.set_ylim(k - 0.5, 0.5)  # second metric on the top row
    ax.set_aspect("equal")
    for (i, j), r in sorted(cells.items()):
        if np.isfinite(r["tau"]):
            lo, hi = r["lo95"], r["hi95"]
            ci = f"[{lo:.2f}, {hi:.2f}]" if np.isfinite(lo) and np.isfinite(hi) else "[n/a]"
            verdict = RANK_VERDICTS.get(str(r.get("verdict", "")), str(r.get("verdict", "")))
            text = f"{r['tau']:.2f}\n{ci}\n{verdict}"
            colour = "white" if abs(r["tau"]) > 0.6 else "black"
        else:
            ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, color="#DDDDDD"))
            text, colour = "n/a", GREY
        ax.text(j, i, text, ha="center", va="center", fontsize=5.5, color=colour, linespacing=1.1)
    labels = [_wrap(metric_label(m), 16) for m in metrics]
    ax.set_xticks(range(k - 1), labels[:-1], rotation=45, ha="right", fontsize=7)
    ax.set_yticks(range(1, k), labels[1:], fontsize=7)
    ax.grid(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_visible(False)
    bar = fig.colorbar(image, ax=ax, shrink=0.6, pad=0.02)
    bar.solids.set_rasterized(False)  # all-vector SVG
    bar.solids.set_edgecolor("face")  # no seams between the colour bar's cells
    bar.set_label("Kendall tau-b between model rankings")
    ax.set_title(caption_source, fontsize=7, loc="left", color=GREY)
    return fig


def _finite_max(values, default: float) -> float:
    """The largest finite value, or ``default`` when there is none (np.nanmax would warn
    "All-NaN slice encountered" on the console and return NaN)."""
    x = np.asarray(values, dtype=float).ravel()
    x = x[np.isfinite(x)]
    return float(x.max()) if len(x) else default


# 2. Capability profiles ------------------------------------------------------------------------

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


def capability_profiles(intervals: pd.DataFrame, caption_source: str,
                        metrics: tuple[str, ...] | None = None, order_by: str = "composite") -> plt.Figure:
    """Small multiples: one panel per principal metric, each model's estimate and 95% interval.

    ``intervals`` is long (em_model, role, metric, estimate, lo, hi). Models keep one row across
    panels, ordered by ``order_by`` (best at the top; by name when that metric is absent) and
    coloured by role. Each panel's axis names the metric and its direction. Metrics default to
    the registry's principal metrics present in the table.
    """
    if not _has(intervals, "em_model", "metric", "estimate", "lo", "hi"):
        return no_data_figure(caption_source, "capability profiles")
    present = set(intervals["metric"].astype(str))
    metrics = [m for m in (metrics or PRINCIPAL) if m in present]
    if not metrics:
        return no_data_figure(caption_source, "no principal metric in the table")
    style.apply()
    roles = intervals.drop_duplicates("em_model").set_index("em_model")["role"] if "role" in intervals else None
    models = sorted(intervals["em_model"].astype(str).unique())
    key = intervals[intervals["metric"] == order_by].set_index("em_model")["estimate"]
    better = BY_NAME[order_by].higher_is_better if order_by in BY_NAME else True
    score = {m: key.get(m, np.nan) * (1 if better else -1) for m in models}
    # worst at the bottom (y = 0), best at the top; models without the key metric at the bottom
    models = sorted(models, key=lambda m: (np.isfinite(score[m]), np.nan_to_num(score[m], nan=0.0)))
    y_of = {m: i for i, m in enumerate(models)}
    fig, axes = _grid(len(metrics), 5, 1.55, 0.16 * len(models) + 0.8)
    for ax, metric in zip(axes, metrics):
        rows = intervals[intervals["metric"] == metric]
        for role, part in rows.groupby(rows["role"] if "role" in rows else "em_model", sort=True):
            colour = style.ROLE_COLOURS.get(role, style.PALETTE[4])
            _interval(ax, part["estimate"], [y_of[str(m)] for m in part["em_model"]], part["lo"], part["hi"], colour)
        ax.set_title(_wrap(metric_label(metric), 22), fontsize=7)
        ax.set_xlabel(direction(metric), fontsize=6, color=GREY)
        ax.tick_params(labelsize=6)
        ax.grid(axis="y", alpha=0)
    axes[0].set_yticks(range(len(models)), models)
    for ax in axes:
        ax.set_ylim(-0.7, len(models) - 0.3)
    if roles is not None:
        handles = [plt.Line2D([], [], marker="o", ls="", color=c, label=r) for r, c in style.ROLE_COLOURS.items()
                   if r in set(roles)]
        fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False,
                   bbox_to_anchor=(0.5, -0.02))
    _source(fig, caption_source)
    fig.tight_layout(rect=(0, 0.03, 1, 0.97))
    return fig


# 3. Discriminability ---------------------------------------------------------------------------

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
    fig, axes = plt.subplots(1, 3, figsize=(7.2, 0.3 * len(rows) + 1.2), sharey=True)
    for ax, col, xlabel in ((axes[0], "reliability", "reliability of model means"),
                            (axes[1], "snr", "signal-to-noise ratio")):
        lo = rows[f"{col}_lo"] if f"{col}_lo" in rows else np.full(len(rows), np.nan)
        hi = rows[f"{col}_hi"] if f"{col}_hi" in rows else np.full(len(rows), np.nan)
        _interval(ax, rows[col], y, lo, hi, style.PALETTE[0])
        ax.set_xlabel(xlabel)
    axes[2].barh(y, rows["share_pairs_separated"], color=style.PALETTE[2], height=0.6)
    axes[2].set_xlim(0, 1)
    axes[2].set_xlabel("share of model pairs separated")
    axes[0].set_yticks(y, [metric_label(m) for m in rows["metric"]])
    for ax in axes:
        ax.grid(axis="y", alpha=0)
        ax.tick_params(labelsize=7)
    _source(fig, caption_source)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig


# 4. Diagnosis subgroups and topics ------------------------------------------------------------

def _p(p) -> str:
    if p is None or not np.isfinite(p):
        return "p n/a"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def subgroups_topics(diagnosis: pd.DataFrame, topics: pd.DataFrame, caption_source: str,
                     topic_metric: str = "composite") -> plt.Figure:
    """Two panels. Left: the adjusted effect of a diagnosis (diagnosed minus not) per metric with
    its 95% interval and the permutation p-value. Right: the mean of ``topic_metric`` per topic
    with its 95% interval, hardest at the bottom, annotated with the bootstrap probability of
    being the hardest topic; the reference category of the contrasts is drawn as an open dot.
    A panel without rows says "no data".
    """
    style.apply()
    fig, (left, right) = plt.subplots(1, 2, figsize=(7.6, 3.6), gridspec_kw={"width_ratios": [1, 1.15]})
    if _has(diagnosis, "metric", "adjusted_effect", "adjusted_lo", "adjusted_hi"):
        rows = diagnosis.assign(_o=[metric_order(diagnosis["metric"]).index(m) for m in diagnosis["metric"]])
        rows = rows.sort_values("_o", ascending=False, kind="stable")
        y = np.arange(len(rows))
        _interval(left, rows["adjusted_effect"], y, rows["adjusted_lo"], rows["adjusted_hi"], style.PALETTE[4])
        left.axvline(0, color=GREY, lw=0.8, ls="--")
        left.set_yticks(y, [metric_label(m) for m in rows["metric"]])
        if "p_permutation" in rows:
            for yi, p in zip(y, rows["p_permutation"]):
                left.annotate(_p(p), (1.0, yi), xycoords=("axes fraction", "data"), xytext=(2, 0),
                              textcoords="offset points", fontsize=6, va="center", color=GREY)
        left.set_xlabel("adjusted effect of a diagnosis\n(diagnosed minus not, 95% interval)")
        left.grid(axis="y", alpha=0)
    else:
        _no_data_axes(left, "diagnosis subgroups")
    tp = topics[topics["metric"] == topic_metric] if _has(topics, "metric", "category", "mean", "lo", "hi") else None
    if tp is not None and len(tp):
        tp = tp.sort_values(["mean", "category"], kind="stable")
        y = np.arange(len(tp))
        ref = tp["is_reference"].astype(bool).to_numpy() if "is_reference" in tp else np.zeros(len(tp), bool)
        _interval(right, tp["mean"], y, tp["lo"], tp["hi"], style.PALETTE[0])
        if ref.any():
            right.plot(tp["mean"].to_numpy()[ref], y[ref], "o", mfc="white", mec=style.PALETTE[0], ms=4.5,
                       label="reference category")
            right.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), frameon=False, fontsize=7,
                         borderaxespad=0.1)
        right.set_yticks(y, [_wrap(c, 22) for c in tp["category"]])
        if "p_hardest" in tp:
            for yi, p in zip(y, tp["p_hardest"]):
                right.annotate(f"P(hardest) {p:.2f}" if np.isfinite(p) else "", (1.0, yi),
                               xycoords=("axes fraction", "data"), xytext=(2, 0), textcoords="offset points",
                               fontsize=6, va="center", color=GREY)
        right.set_xlabel(f"{metric_label(topic_metric)} per topic\n(mean over conversations, 95% interval)")
        right.grid(axis="y", alpha=0)
    else:
        _no_data_axes(right, f"topics ({topic_metric})")
    for ax in (left, right):
        ax.tick_params(labelsize=7)
    _source(fig, caption_source)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig


# 5. Turn drift ---------------------------------------------------------------------------------

POOLED = "all evaluated models"


def _forest_panels(axes, metrics: list[str], models: list[str], xlabel: str) -> None:
    """Finish small-multiple forests (one panel per metric, one row per model): zero dashed,
    the metric as the title, shared model labels on the first panel and the same rows on all."""
    for ax, metric in zip(axes, metrics):
        ax.axvline(0, color=GREY, lw=0.8, ls="--")
        ax.set_title(metric_label(metric), fontsize=8)
        ax.set_xlabel(xlabel, fontsize=7, color=GREY)
        ax.tick_params(labelsize=7)
        ax.grid(axis="y", alpha=0)
    axes[0].set_yticks(range(len(models)), models)
    for ax in axes:
        ax.set_ylim(-0.7, len(models) - 0.3)


def drift(table: pd.DataFrame, caption_source: str) -> plt.Figure:
    """Small multiples, one panel per metric: the within-conversation slope of each model's
    score on relative turn position (late minus early scale) with its 95% interval. The pooled
    slope over all evaluated models is drawn in black at the top; zero is dashed.
    """
    if not _has(table, "metric", "em_model", "slope", "slope_lo", "slope_hi"):
        return no_data_figure(caption_source, "turn drift")
    style.apply()
    metrics = metric_order(table["metric"])
    models = sorted(set(table["em_model"].astype(str)) - {POOLED}, reverse=True)
    if POOLED in set(table["em_model"]):
        models.append(POOLED)
    y_of = {m: i for i, m in enumerate(models)}
    fig, axes = _grid(len(metrics), min(3, len(metrics)), 2.5, 0.22 * len(models) + 1.0)
    for ax, metric in zip(axes, metrics):
        rows = table[table["metric"] == metric]
        pooled = rows["em_model"] == POOLED
        for part, colour in ((rows[~pooled], style.PALETTE[0]), (rows[pooled], style.PALETTE[7])):
            if len(part):
                _interval(ax, part["slope"], [y_of[str(m)] for m in part["em_model"]], part["slope_lo"],
                          part["slope_hi"], colour)
    _forest_panels(axes, metrics, models, "slope over the conversation")
    _source(fig, caption_source)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    return fig


# 6. Humans versus models -----------------------------------------------------------------------

def humans_vs_models(table: pd.DataFrame, caption_source: str) -> plt.Figure:
    """Forest of human minus model per metric (one panel each): the paired-bootstrap difference
    and its 95% interval per evaluated model, coloured by the verdict (humans better, model
    better, no difference); zero is dashed. An empty table (no human raters) says "no data".
    """
    if not _has(table, "metric", "em_model", "human_minus_model", "lo", "hi"):
        return no_data_figure(caption_source, "no human raters in this cohort")
    style.apply()
    metrics = metric_order(table["metric"])
    models = sorted(table["em_model"].astype(str).unique(), reverse=True)
    y_of = {m: i for i, m in enumerate(models)}
    verdicts = table["verdict"].astype(str) if "verdict" in table else pd.Series("", index=table.index)
    fig, axes = _grid(len(metrics), min(3, len(metrics)), 2.5, 0.22 * len(models) + 1.0)
    for ax, metric in zip(axes, metrics):
        rows = table[table["metric"] == metric]
        for verdict, part in rows.groupby(verdicts[rows.index], sort=True):
            _interval(ax, part["human_minus_model"], [y_of[str(m)] for m in part["em_model"]], part["lo"],
                      part["hi"], VERDICT_COLOURS.get(verdict, style.PALETTE[4]))
    _forest_panels(axes, metrics, models, "human minus model")
    handles = [plt.Line2D([], [], marker="o", ls="", color=c, label=v) for v, c in VERDICT_COLOURS.items()
               if v in set(verdicts)]
    if handles:
        fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False, bbox_to_anchor=(0.5, -0.02))
    _source(fig, caption_source)
    fig.tight_layout(rect=(0, 0.04, 1, 0.96))
    return fig


# 7. Simulation ---------------------------------------------------------------------------------

def simulation_calibration(null_rates: pd.DataFrame, planted: pd.DataFrame, caption_source: str,
                           nominal_coverage: float = 0.95, coverage_bar: float = 0.90) -> plt.Figure:
    """Two panels from the validation by simulation. Left: each test's false-positive rate under
    the null generator, its binomial 95% band around the nominal level (grey bar) and the
    nominal alpha (dashed). Right: the coverage of the 95% intervals of each planted effect
    (dot) and its sign recovery (cross), with the nominal coverage (dashed) and the acceptance
    bar ``coverage_bar`` (dotted). Rows without a coverage (e.g. the power row) are left out.
    """
    style.apply()
    n = max(len(null_rates) if null_rates is not None else 0, len(planted) if planted is not None else 0)
    fig, (left, right) = plt.subplots(1, 2, figsize=(7.8, max(2.5, 0.42 * n + 1.2)))
    if _has(null_rates, "test", "false_positive_rate", "alpha"):
        rows = null_rates.iloc[::-1]
        y = np.arange(len(rows))
        if "band_lo" in rows and "band_hi" in rows:
            left.barh(y, rows["band_hi"] - rows["band_lo"], left=rows["band_lo"], height=0.5, color="#DDDDDD",
                      label="binomial 95% band")
        left.plot(rows["false_positive_rate"], y, "o", color=style.PALETTE[0], ms=4, label="false-positive rate")
        for a in sorted(set(rows["alpha"].dropna())):
            left.axvline(a, color=GREY, lw=0.8, ls="--", label="nominal alpha")
        left.set_yticks(y, [_wrap(t, 30) for t in rows["test"]])
        left.set_xlim(0, max(0.12, _finite_max(np.r_[rows["false_positive_rate"], rows.get("band_hi", 0)], 0.0) + 0.02))
        left.set_xlabel("false-positive rate under the null")
        left.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), frameon=False, fontsize=7, ncol=2)
        left.grid(axis="y", alpha=0)
    else:
        _no_data_axes(left, "null simulations")
    pl = planted[planted["coverage"].notna()] if _has(planted, "effect", "coverage") else None
    if pl is not None and len(pl):
        rows = pl.iloc[::-1]
        y = np.arange(len(rows))
        right.plot(rows["coverage"], y, "o", color=style.PALETTE[0], ms=4, label="coverage")
        if "sign_recovery" in rows:
            right.plot(rows["sign_recovery"], y, "x", color=style.PALETTE[1], ms=5, label="sign recovery")
        right.axvline(nominal_coverage, color=GREY, lw=0.8, ls="--", label="nominal coverage")
        right.axvline(coverage_bar, color=style.PALETTE[3], lw=0.8, ls=":", label="acceptance bar")
        right.set_yticks(y, [_wrap(t, 30) for t in rows["effect"]])
        lowest = float(np.nanmin(np.r_[rows["coverage"], rows.get("sign_recovery", 1.0), coverage_bar]))
        right.set_xlim(max(0.0, lowest - 0.05), 1.01)
        right.set_xlabel("share of planted-effect studies")
        right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), frameon=False, fontsize=7, ncol=2)
        right.grid(axis="y", alpha=0)
    else:
        _no_data_axes(right, "planted simulations")
    for ax in (left, right):
        ax.tick_params(labelsize=7)
    _source(fig, caption_source)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig


# 8. Rank intervals -----------------------------------------------------------------------------

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
    fig, ax = plt.subplots(figsize=(6.0, 0.28 * len(rows) + 1.0))
    ax.hlines(y, rows["rank_lo"] - 0.15, rows["rank_hi"] + 0.15, color=style.PALETTE[5], lw=5, alpha=0.7)
    ax.plot(rows["rank"], y, "o", color=style.PALETTE[0], ms=4)
    n = int(_finite_max(rows[["rank", "rank_hi"]].to_numpy(float), 1.0))
    ax.set_xlim(n + 0.7, 0.3)  # rank 1 on the right, as in a critical-difference diagram
    ax.set_xticks(range(1, n + 1))
    ax.set_yticks(y, rows["em_model"])
    ax.set_xlabel(f"rank on {metric_label(metric)} (1 = best; bar: 95% bootstrap interval)")
    ax.grid(axis="y", alpha=0)
    ax.set_title(caption_source, fontsize=7, loc="left", color=GREY)
    return fig


def read_table(path) -> pd.DataFrame:
    """Read a statistics CSV; a file with no columns at all (nothing to report) is an empty table."""
    try:
        return pd.read_csv(path)
    except pd.errors.EmptyDataError:
        return pd.DataFrame()

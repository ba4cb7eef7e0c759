"""The statistical figures: what each draws from a small table, the "no data" figure of an empty
table, and identical SVG bytes from two calls."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from eibench.report import stat_figures as sf
from eibench.report import style

SRC = "rule figure_x; data results/stats/x.csv"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def texts(fig: plt.Figure) -> list[str]:
    out = [t.get_text() for ax in fig.axes for t in ax.texts]
    out += [ax.get_title(loc="left") for ax in fig.axes]
    if fig._suptitle is not None:
        out.append(fig._suptitle.get_text())
    return out


def visible_axes(fig: plt.Figure) -> list[plt.Axes]:
    return [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]


def is_no_data(fig: plt.Figure) -> bool:
    return any(t.startswith(sf.NO_DATA) for t in texts(fig))


def ytick_labels(ax: plt.Axes) -> list[str]:
    return [t.get_text() for t in ax.get_yticklabels()]


def n_errorbars(ax: plt.Axes) -> int:
    """Points drawn with an interval: one data point per errorbar line."""
    return sum(len(c.lines[0].get_xdata()) for c in ax.containers if hasattr(c, "has_xerr") and c.has_xerr)


# Small tables ---------------------------------------------------------------------------------


def rank_pairs() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "metric_a": ["emotion_f1", "emotion_f1", "emotion_va"],
            "metric_b": ["emotion_va", "binary_om_acc", "binary_om_acc"],
            "tau": [0.8, -0.2, np.nan],
            "lo95": [0.5, -0.7, np.nan],
            "hi95": [1.0, 0.4, np.nan],
            "verdict": ["related", "inconclusive", "inconclusive"],
        }
    )


def intervals() -> pd.DataFrame:
    rows = []
    for model, role, base in (
        ("sim-01", "model", 0.6),
        ("sim-02", "model", 0.8),
        ("human_1", "human", 0.7),
        ("chance", "baseline", 0.3),
    ):
        for metric in ("composite", "emotion_f1", "binary_om_acc", "tracking"):
            rows.append(
                {
                    "em_model": model,
                    "role": role,
                    "metric": metric,
                    "estimate": base,
                    "lo": base - 0.05,
                    "hi": base + 0.05,
                }
            )
    return pd.DataFrame(rows)


def discriminability_table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "metric": ["emotion_f1", "pairwise_acc"],
            "reliability": [0.9, 0.97],
            "reliability_lo": [0.85, 0.95],
            "reliability_hi": [0.93, 0.98],
            "snr": [3.0, 9.0],
            "snr_lo": [2.5, 8.0],
            "snr_hi": [3.5, 10.0],
            "share_pairs_separated": [0.4, 0.9],
        }
    )


def diagnosis_table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "metric": ["emotion_f1", "binary_om_acc"],
            "adjusted_effect": [-0.2, 0.05],
            "adjusted_lo": [-0.3, -0.01],
            "adjusted_hi": [-0.1, 0.11],
            "p_permutation": [0.0004, 0.3],
        }
    )


def topics_table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "metric": ["composite"] * 3 + ["tracking"],
            "category": ["Family", "Romantic relationships", "Studies", "Family"],
            "mean": [70.0, 63.0, 69.0, 0.6],
            "lo": [68.0, 61.0, 67.0, 0.5],
            "hi": [72.0, 65.0, 71.0, 0.7],
            "p_hardest": [0.0, 0.98, 0.02, 0.5],
            "is_reference": [False, True, False, False],
        }
    )


def drift_table() -> pd.DataFrame:
    rows = []
    for metric in ("emotion_f1", "binary_om_acc"):
        for model in ("sim-01", "sim-02", "all compared models"):
            rows.append(
                {
                    "metric": metric,
                    "em_model": model,
                    "slope": -0.1,
                    "slope_lo": -0.15,
                    "slope_hi": -0.05,
                    "mean_early": 0.6,
                    "mean_middle": 0.55,
                    "mean_late": 0.5,
                }
            )
    return pd.DataFrame(rows)


def humans_table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "metric": ["binary_hp_acc"] * 3 + ["emotion_f1"] * 3,
            "em_model": ["sim-01", "sim-02", "sim-03"] * 2,
            "human_minus_model": [0.2, -0.1, 0.0, 0.05, 0.1, -0.02],
            "lo": [0.1, -0.15, -0.05, -0.01, 0.05, -0.08],
            "hi": [0.3, -0.05, 0.05, 0.11, 0.15, 0.04],
            "verdict": [
                "humans better",
                "model better",
                "no difference",
                "no difference",
                "humans better",
                "no difference",
            ],
        }
    )


def null_rates_table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "test": ["diagnosis: participant permutation test", "turn drift: Page's trend test"],
            "false_positive_rate": [0.045, 0.09],
            "alpha": [0.05, 0.05],
            "band_lo": [0.02, 0.02],
            "band_hi": [0.08, 0.08],
        }
    )


def planted_table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "effect": ["diagnosis effect", "romantic effect", "power: share of models"],
            "planted": [-0.08, -3.7, np.nan],
            "mean_estimate": [-0.08, -3.8, 0.99],
            "sign_recovery": [1.0, 0.97, np.nan],
            "coverage": [0.93, 0.88, np.nan],
        }
    )


def rank_table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "em_model": ["sim-01", "sim-02", "sim-03", "sim-01"],
            "metric": ["composite", "composite", "composite", "emotion_f1"],
            "rank": [2, 1, 3, 1],
            "rank_lo": [1, 1, 2, 1],
            "rank_hi": [3, 2, 3, 2],
        }
    )


#: Every drawing function with a small table, and with empty tables.
CASES = {
    "rank_correlations": (
        lambda: sf.rank_correlation_heatmap(rank_pairs(), SRC),
        lambda: sf.rank_correlation_heatmap(pd.DataFrame(), SRC),
    ),
    "profiles": (lambda: sf.capability_profiles(intervals(), SRC), lambda: sf.capability_profiles(pd.DataFrame(), SRC)),
    "discriminability": (
        lambda: sf.discriminability(discriminability_table(), SRC),
        lambda: sf.discriminability(pd.DataFrame(), SRC),
    ),
    "subgroups": (
        lambda: sf.subgroups_topics(diagnosis_table(), topics_table(), SRC),
        lambda: sf.subgroups_topics(pd.DataFrame(), pd.DataFrame(), SRC),
    ),
    "drift": (lambda: sf.drift(drift_table(), SRC), lambda: sf.drift(pd.DataFrame(), SRC)),
    "humans": (
        lambda: sf.humans_vs_models(humans_table(), SRC),
        lambda: sf.humans_vs_models(humans_table().iloc[:0], SRC),
    ),
    "simulation": (
        lambda: sf.simulation_calibration(null_rates_table(), planted_table(), SRC),
        lambda: sf.simulation_calibration(pd.DataFrame(), pd.DataFrame(), SRC),
    ),
    "rank_intervals": (lambda: sf.rank_intervals(rank_table(), SRC), lambda: sf.rank_intervals(pd.DataFrame(), SRC)),
}


# Shared behaviour ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CASES))
def test_two_calls_give_identical_svg_bytes(name, tmp_path):
    draw, _ = CASES[name]
    style.save(draw(), tmp_path / "a.svg")
    style.save(draw(), tmp_path / "b.svg")
    first = (tmp_path / "a.svg").read_bytes()
    assert first.startswith(b"<?xml") and b"<svg" in first
    assert first == (tmp_path / "b.svg").read_bytes()


@pytest.mark.parametrize("name", sorted(CASES))
def test_names_the_rule_and_says_when_there_is_no_data(name, tmp_path):
    full, empty = CASES[name]
    fig = full()
    assert SRC in texts(fig)
    assert not is_no_data(fig)
    plt.close(fig)
    fig = empty()
    assert SRC in texts(fig)
    assert is_no_data(fig)
    style.save(fig, tmp_path / "empty.svg")  # an empty figure still saves
    assert (tmp_path / "empty.svg").stat().st_size > 0


def leaderboard_table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "em_model": ["sim-01", "sim-02", "human_1", "chance"],
            "role": ["model", "model", "human", "baseline"],
            "composite": [60.0, 80.0, 70.0, 30.0],
            "composite_lo": [55.0, 76.0, 60.0, 28.0],
            "composite_hi": [64.0, 83.0, 79.0, 32.0],
            "rank": pd.array([2, 1, pd.NA, pd.NA], dtype="Int64"),
            "n_conversations": [40, 40, 12, 40],
        }
    )


def _overlaps(labels) -> list[tuple[str, str]]:
    boxes = [(t.get_text(), t.get_window_extent()) for t in labels if t.get_visible() and t.get_text()]
    return [(a, b) for i, (a, ba) in enumerate(boxes) for b, bb in boxes[i + 1 :] if ba.overlaps(bb)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_tick_labels_overlap(name):
    fig = CASES[name][0]()
    fig.canvas.draw()
    for ax in visible_axes(fig):
        assert _overlaps(ax.get_xticklabels()) == [], (name, ax.get_title())
        assert _overlaps(ax.get_yticklabels()) == [], (name, ax.get_title())
    plt.close(fig)


def test_leaderboard_forest_gives_identical_svg_bytes_twice(tmp_path):
    style.save(sf.forest(leaderboard_table(), "composite", SRC), tmp_path / "a.svg")
    style.save(sf.forest(leaderboard_table(), "composite", SRC), tmp_path / "b.svg")
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()


def test_leaderboard_forest_draws_each_block_apart_with_its_number_of_conversations():
    fig = sf.forest(leaderboard_table(), "composite", SRC)
    axes = visible_axes(fig)
    # the human rater is in its own panel, headed with its n, never among the ranked models
    assert [ax.get_title(loc="left") for ax in axes] == [
        "Models, ranked: 40 conversations each",
        "Baselines (references), not ranked: 40 conversations each",
        "Human raters, not ranked: 12 conversations each",
    ]
    assert [ytick_labels(ax) for ax in axes] == [["sim-01", "sim-02"], ["chance"], ["human_1"]]  # best on top
    assert [n_errorbars(ax) for ax in axes] == [2, 1, 1]
    assert axes[0].get_xlim() == axes[2].get_xlim()  # one shared axis: the blocks' values compare
    colours = [tuple(c.lines[0].get_color() for c in ax.containers) for ax in axes]
    assert colours == [
        (style.ROLE_COLOURS["model"],),
        (style.ROLE_COLOURS["baseline"],),
        (style.ROLE_COLOURS["human"],),
    ]
    assert {t.get_text() for t in fig.legends[0].get_texts()} == {"model", "human", "baseline"}
    assert SRC in texts(fig)


def test_leaderboard_forest_without_counts_or_ranks_ranks_the_models_and_names_the_blocks():
    board = leaderboard_table().drop(columns=["rank", "n_conversations"])
    axes = visible_axes(sf.forest(board, "composite", SRC))
    assert [ax.get_title(loc="left") for ax in axes] == [
        "Ranked",
        "Baselines (references), not ranked",
        "Human raters, not ranked",
    ]


def test_leaderboard_forest_of_an_empty_board_says_no_data():
    assert is_no_data(sf.forest(leaderboard_table().iloc[:0], "composite", SRC))


# What each figure draws ----------------------------------------------------------------------------


def test_heatmap_has_one_cell_text_per_pair_and_greys_a_missing_tau():
    fig = sf.rank_correlation_heatmap(rank_pairs(), SRC)
    ax = fig.axes[0]
    cells = [t.get_text() for t in ax.texts]
    assert sorted(cells) == sorted(["0.80\n[.50, 1.00]\nrelated", "-0.20\n[-.70, .40]\n?", "n/a"])
    assert all(t.get_fontsize() >= style.MIN_PT for t in ax.texts)
    # rows and columns in registry order, with the registry labels (strict lower triangle)
    assert ytick_labels(ax) == ["Emotion VA\nsimilarity", "Binary OM\naccuracy"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["Emotion F1", "Emotion VA\nsimilarity"]
    image = ax.collections[-1].get_array().reshape(2, 2)
    assert image[0, 0] == pytest.approx(0.8)  # emotion_va row, emotion_f1 column
    assert image[1, 0] == pytest.approx(-0.2)
    assert np.ma.is_masked(image[0, 1]) and np.ma.is_masked(image[1, 1])  # upper triangle; no tau
    untestable = rank_pairs().assign(verdict="not testable")
    fig = sf.rank_correlation_heatmap(untestable, SRC)
    assert {t.get_text() for t in fig.axes[0].texts} == {"too few\nmodels"}  # no tau printed
    assert np.ma.getmaskarray(fig.axes[0].collections[-1].get_array()).all()  # nor coloured by it
    grey = ax.collections[0].get_array().reshape(2, 2)
    assert not np.ma.is_masked(grey[1, 1]) and np.ma.is_masked(grey[0, 0])  # the pair without a tau is grey
    assert len(fig.axes) == 1 and len(ax.child_axes) == 1  # the heatmap, its colour bar inset in the empty corner
    assert sf._short(-0.25) == "-.25" and sf._short(0.0) == ".00" and sf._short(1.0) == "1.00"


def test_profiles_one_panel_per_principal_metric_models_ordered_by_composite():
    fig = sf.capability_profiles(intervals(), SRC)
    axes = visible_axes(fig)
    # principal metrics present: emotion_f1 and binary_om_acc (tracking is not principal)
    assert [ax.get_title().replace("\n", " ") for ax in axes] == ["Emotion F1", "Binary OM accuracy"]
    assert ytick_labels(axes[0]) == ["chance", "sim-01", "human_1", "sim-02"]  # best at the top
    assert all(n_errorbars(ax) == 4 for ax in axes)
    assert {t.get_text() for t in fig.legends[0].get_texts()} == {"model", "human", "baseline"}
    fig = sf.capability_profiles(intervals(), SRC, metrics=("binary_om_acc",))
    assert [ax.get_title().replace("\n", " ") for ax in visible_axes(fig)] == ["Binary OM accuracy"]
    assert is_no_data(sf.capability_profiles(intervals(), SRC, metrics=("draft_judge",)))


def test_profiles_draw_the_cohorts_principal_metrics_and_say_which_have_no_values():
    """A cohort's configured principal metrics (ESConv's are not the registry's) each get a
    panel; one the table has no value of gets an empty panel saying so, not no panel."""
    fig = sf.capability_profiles(intervals(), SRC, metrics=("binary_om_acc", "panas_items_adjusted", "emotion_f1"))
    axes = visible_axes(fig)
    titles = [ax.get_title().replace("\n", " ").replace("- ", "-") for ax in axes]  # wrapped titles
    assert titles == ["Binary OM accuracy", "PANAS items baseline-adjusted", "Emotion F1"]
    assert [n_errorbars(ax) for ax in axes] == [4, 0, 4]
    assert [t.get_text().replace("\n", " ") for t in axes[1].texts] == [sf.NO_VALUES] and not axes[0].texts
    assert not is_no_data(fig)
    # none with a value: the "no data" figure names them
    fig = sf.capability_profiles(intervals(), SRC, metrics=("panas_items_adjusted", "post_chat_ratings"))
    assert is_no_data(fig)
    assert any("PANAS items baseline-adjusted, Post-chat ratings normalised" in t for t in texts(fig))


def test_discriminability_three_panels_most_discriminating_on_top():
    fig = sf.discriminability(discriminability_table(), SRC)
    assert len(fig.axes) == 3
    assert ytick_labels(fig.axes[0]) == ["Emotion F1", "Pairwise accuracy"]  # y = 0 at the bottom
    assert n_errorbars(fig.axes[0]) == 2 and n_errorbars(fig.axes[1]) == 2
    bars = fig.axes[2].patches
    assert [b.get_width() for b in bars] == [0.4, 0.9]


def test_subgroups_two_panels_with_p_values_and_only_the_topic_metric():
    fig = sf.subgroups_topics(diagnosis_table(), topics_table(), SRC)
    left, right = fig.axes
    assert n_errorbars(left) == 2
    assert ytick_labels(left) == ["Binary OM accuracy\np = 0.300", "Emotion F1\np < 0.001"]
    assert ytick_labels(right) == [
        "Romantic relationships\nP(hardest) 0.98",
        "Studies\nP(hardest) 0.02",
        "Family\nP(hardest) 0.00",
    ]  # hardest at the bottom
    assert n_errorbars(right) == 3
    # the reference category (Romantic relationships, row 0) is drawn as an open dot, in the legend
    open_dots = [ln for ln in right.lines if ln.get_markerfacecolor() == "white"]
    assert len(open_dots) == 1 and list(open_dots[0].get_ydata()) == [0]
    assert "reference category" in {t.get_text() for t in right.get_legend().get_texts()}
    # a failed fit of the topic metric gives no contrast: no reference category is marked
    failed = topics_table().assign(effect_vs_reference=np.nan)
    right = sf.subgroups_topics(diagnosis_table(), failed, SRC).axes[1]
    assert not [ln for ln in right.lines if ln.get_markerfacecolor() == "white"] and right.get_legend() is None
    fitted = failed.assign(effect_vs_reference=[7.0, 0.0, 6.0, np.nan])
    right = sf.subgroups_topics(diagnosis_table(), fitted, SRC).axes[1]
    assert len([ln for ln in right.lines if ln.get_markerfacecolor() == "white"]) == 1
    # A topic without an interval (one conversation with a value) gets no P(hardest) either.
    one = topics_table()
    one.loc[one["category"] == "Studies", ["lo", "hi"]] = np.nan
    labels = ytick_labels(sf.subgroups_topics(diagnosis_table(), one, SRC).axes[1])
    assert labels[1] == "Studies" and labels[0].endswith("P(hardest) 0.98")
    # ESConv build: 5 of 2,000 resamples printed as "P(hardest) 0.00", which reads as none, though
    # the text never prints such a share as 0 (0.0025 is 0.003); an exact 0 stays 0.00
    rare = topics_table()
    rare.loc[rare["category"] == "Family", "p_hardest"] = 0.0025
    labels = ytick_labels(sf.subgroups_topics(diagnosis_table(), rare, SRC).axes[1])
    assert labels[-1] == "Family\nP(hardest) 0.003"
    # one panel empty, the other drawn
    fig = sf.subgroups_topics(diagnosis_table(), topics_table(), SRC, topic_metric="holistic")
    assert n_errorbars(fig.axes[0]) == 2
    assert any(t.get_text().startswith(sf.NO_DATA) for t in fig.axes[1].texts)
    # no effect estimated (no diagnosis recorded): the left panel says so, not empty intervals
    nothing = diagnosis_table().assign(adjusted_effect=np.nan, adjusted_lo=np.nan, adjusted_hi=np.nan)
    fig = sf.subgroups_topics(nothing, topics_table(), SRC)
    assert n_errorbars(fig.axes[0]) == 0
    assert [t.get_text().replace("\n", " ") for t in fig.axes[0].texts] == [
        f"{sf.NO_DATA}: no diagnosis effect estimable"
    ]


def test_the_subgroups_no_data_text_stays_inside_its_panel():
    """ESConv records no diagnosis: the left panel's "no data" text must not run over its
    spines into the topic labels (it did at the figure's print width)."""
    nothing = diagnosis_table().assign(adjusted_effect=np.nan, adjusted_lo=np.nan, adjusted_hi=np.nan)
    topics = pd.concat([topics_table().assign(category=topics_table()["category"] + f" {k}") for k in range(3)])
    fig = sf.subgroups_topics(nothing, topics, SRC)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    left = fig.axes[0]
    (text,) = left.texts
    box, axes_box = text.get_window_extent(renderer), left.get_window_extent(renderer)
    assert axes_box.x0 < box.x0 and box.x1 < axes_box.x1, (box, axes_box)


def test_drift_one_panel_per_metric_pooled_row_on_top():
    fig = sf.drift(drift_table(), SRC)
    axes = visible_axes(fig)
    assert [ax.get_title() for ax in axes] == ["Emotion F1", "Binary OM accuracy"]
    assert ytick_labels(axes[0])[-1] == sf.POOLED
    assert all(n_errorbars(ax) == 3 for ax in axes)


def test_drift_labels_a_metric_without_values():
    """Release build on ESConv's chats: claim C4b names emotion F1, so rule stats_drift analyses
    it, but the cohort has no emotion annotation (n_turns 0, every slope NaN). Its panel said
    nothing; it now says that the metric has no values, as the capability profiles do, and
    draws no axis."""
    table = drift_table().assign(n_turns=100)
    empty = table["metric"] == "emotion_f1"
    table.loc[empty, ["slope", "slope_lo", "slope_hi", "mean_early", "mean_middle", "mean_late"]] = np.nan
    table.loc[empty, "n_turns"] = 0
    fig = sf.drift(table, SRC)
    axes = visible_axes(fig)
    assert [ax.get_title() for ax in axes] == ["Emotion F1", "Binary OM accuracy"]
    assert [t.get_text().replace("\n", " ") for t in axes[0].texts] == [sf.NO_VALUES] and not axes[1].texts
    assert n_errorbars(axes[1]) == 3 and list(axes[0].get_xticks()) == []
    assert sf.drift_metrics_with_values(table) == {"binary_om_acc"}
    assert sf.drift_metrics_with_values(table.drop(columns="n_turns")) == {"binary_om_acc"}  # by the slopes


def test_humans_points_coloured_by_verdict():
    fig = sf.humans_vs_models(humans_table(), SRC)
    axes = visible_axes(fig)
    assert [ax.get_title() for ax in axes] == ["Emotion F1", "Binary HP accuracy"]  # registry order
    assert all(n_errorbars(ax) == 3 for ax in axes)
    colours = {c.lines[0].get_color() for c in axes[1].containers}
    assert colours == {sf.VERDICT_COLOURS[v] for v in ("humans better", "model better", "no difference")}
    assert {t.get_text() for t in fig.legends[0].get_texts()} == {
        "humans better (Holm p ≤ 0.05)",
        "model better (Holm p ≤ 0.05)",
        "no difference",
    }


def test_humans_colour_follows_the_test_an_interval_excluding_zero_is_not_no_difference():
    """The verdict is Holm-adjusted; the interval drawn is not. A comparison that Holm calls "no
    difference" but whose drawn interval excludes 0 gets its own colour and legend entry."""
    table = humans_table()
    table.loc[4, "verdict"] = "no difference"  # emotion_f1, sim-02: interval [0.05, 0.15] excludes 0
    fig = sf.humans_vs_models(table, SRC)
    emotion = visible_axes(fig)[0]
    by_y = {
        int(c.lines[0].get_ydata()[i]): c.lines[0].get_color()
        for c in emotion.containers
        for i in range(len(c.lines[0].get_ydata()))
    }
    assert by_y[1] == sf.UNADJUSTED_COLOUR  # sim-02 (models bottom to top: sim-03, sim-02, sim-01)
    assert by_y[0] == by_y[2] == sf.VERDICT_COLOURS["no difference"]  # intervals that include 0
    assert sf.UNADJUSTED_ONLY in {t.get_text() for t in fig.legends[0].get_texts()}
    for _, r in table.iterrows():  # no grey point whose interval excludes 0
        if sf.human_colour(r) == sf.VERDICT_COLOURS["no difference"]:
            assert r["lo"] <= 0 <= r["hi"]


def test_simulation_draws_bands_and_skips_rows_without_coverage():
    fig = sf.simulation_calibration(null_rates_table(), planted_table(), SRC)
    left, right = fig.axes
    assert len(left.patches) == 2  # one binomial band per test
    assert ytick_labels(right) == ["romantic effect", "diagnosis effect"]  # the power row has no coverage
    vlines = {
        round(line.get_xdata()[0], 3)
        for line in right.lines
        if len(set(line.get_xdata())) == 1 and len(line.get_xdata()) == 2
    }
    assert vlines == {0.95}  # the nominal coverage, and no other reference line (no 0.90 bar)
    assert right.get_xlim()[0] < 0.88  # the lowest coverage is in view


def _tested_planted() -> pd.DataFrame:
    """The planted table with the binomial test of each coverage, as rule
    stats_simulation_summary writes it: one coverage below nominal, one consistent, one a share
    over models (no test)."""
    return pd.DataFrame(
        {
            "effect": ["diagnosis effect", "drift slope", "human minus model"],
            "sign_recovery": [1.0, 0.99, 0.9],
            "coverage": [0.91, 0.95, 0.93],
            "coverage_lo": [0.86, 0.91, np.nan],
            "coverage_hi": [0.945, 0.975, np.nan],
            "coverage_p": [0.014, 1.0, np.nan],
            "coverage_vs_nominal": ["below nominal", "consistent with nominal", np.nan],
        }
    )


def test_coverage_dots_follow_the_binomial_test_with_their_interval_and_every_mark_is_in_the_legend():
    fig = sf.simulation_calibration(null_rates_table(), _tested_planted(), SRC)
    right = fig.axes[1]
    dots = {
        round(float(line.get_xdata()[0]), 2): line
        for line in right.lines
        if line.get_marker() == "o" and len(line.get_xdata()) == 1
    }
    assert dots[0.91].get_color() == sf.COVERAGE_COLOURS["below nominal"]
    assert dots[0.95].get_color() == sf.COVERAGE_COLOURS["consistent with nominal"]
    assert dots[0.93].get_markerfacecolor() == "white"  # no binomial test: an open dot
    # A Clopper-Pearson bar for each tested coverage (two), none for the share over models.
    bars = [c for c in right.containers if c.has_xerr]
    assert len(bars) == 2
    spans = sorted(tuple(np.round(seg[:, 0], 3)) for c in bars for seg in c.lines[2][0].get_segments())
    assert spans == [(0.86, 0.945), (0.91, 0.975)]
    legend = {t.get_text() for t in right.get_legend().get_texts()}
    assert legend == {
        sf.coverage_labels(0.05)["below nominal"],
        sf.coverage_labels(0.05)["consistent with nominal"],
        sf.UNTESTED_COVERAGE,
        "sign recovery",
        "nominal coverage 0.95",
    }


def test_the_coverage_legend_names_the_tests_level():
    """The legend said 'p ≤ 0.05' whatever statistics.alpha; it now takes the level of the tests."""
    fig = sf.simulation_calibration(null_rates_table().assign(alpha=0.01), _tested_planted(), SRC)
    legend = {t.get_text() for t in fig.axes[1].get_legend().get_texts()}
    assert "coverage below nominal\n(one-sided p ≤ 0.01)" in legend


def _coverage_colours(planted: pd.DataFrame) -> tuple[dict[float, str], set[str]]:
    """The colour of each coverage dot of the right panel, and the legend's texts."""
    right = sf.simulation_calibration(null_rates_table(), planted, SRC).axes[1]
    colours = {
        round(float(x), 2): line.get_color()
        for line in right.lines
        if line.get_marker() == "o"
        for x in line.get_xdata()
    }
    return colours, {t.get_text() for t in right.get_legend().get_texts()}


@pytest.mark.parametrize("studies", [8, 200])
def test_coverage_dots_take_no_consistent_colour_over_too_few_studies(studies):
    # Over 8 studies a coverage not significantly below nominal is no evidence of a calibrated
    # interval (coverage.too_few_studies): the figure must not colour it "consistent". One
    # significantly below nominal is evidence of under-coverage however few the studies: it
    # keeps its colour. Over 200 every verdict shows.
    colours, legend = _coverage_colours(_tested_planted().assign(n_simulations=studies))
    assert colours[0.91] == sf.COVERAGE_COLOURS["below nominal"]
    if studies == 8:
        assert colours[0.95] != sf.COVERAGE_COLOURS["below nominal"]
        assert "coverage over 8 studies\n(too few to show nominal)" in legend
        assert sf.coverage_labels(0.05)["consistent with nominal"] not in legend
    else:
        assert colours[0.95] == sf.COVERAGE_COLOURS["consistent with nominal"]
        assert not any("too few" in t for t in legend)


def test_over_too_few_studies_no_coverage_below_nominal_leaves_no_verdict_colour():
    colours, legend = _coverage_colours(_tested_planted().iloc[1:].assign(n_simulations=40))
    assert colours[0.95] != sf.COVERAGE_COLOURS["below nominal"]
    assert not any(label in legend for label in sf.coverage_labels(0.05).values())


def test_rank_intervals_best_on_top_and_only_the_metric():
    fig = sf.rank_intervals(rank_table(), SRC)
    ax = fig.axes[0]
    assert ytick_labels(ax) == ["sim-03", "sim-01", "sim-02"]
    assert ax.get_xlim()[0] > ax.get_xlim()[1]  # rank one on the right
    assert is_no_data(sf.rank_intervals(rank_table(), SRC, metric="pairwise_acc"))


def test_read_table_of_an_empty_file_is_an_empty_table(tmp_path):
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "newline.csv").write_text("\n")  # what write_csv makes of a table without columns
    assert sf.read_table(tmp_path / "newline.csv").empty
    (tmp_path / "header.csv").write_text("metric,em_model,human_minus_model,lo,hi,verdict\n")
    assert sf.read_table(tmp_path / "empty.csv").empty
    table = sf.read_table(tmp_path / "header.csv")
    assert table.empty and "verdict" in table.columns
    assert is_no_data(sf.humans_vs_models(table, SRC))


def test_a_baseline_compared_as_a_model_is_named_a_baseline_in_the_profiles_legend():
    """Under statistics.baselines_as_models the analyses give the baselines the role 'model';
    the figure names them as the leaderboard does."""
    table = intervals()
    table = table[table["role"] != "human"].assign(role="model")  # as the stats write them on ESConv
    roles = {"sim-01": "model", "sim-02": "model", "chance": "baseline"}
    relabelled = sf.with_roles(table, roles)
    assert dict(zip(relabelled["em_model"], relabelled["role"])) == roles
    fig = sf.capability_profiles(relabelled, SRC)
    assert {t.get_text() for t in fig.legends[0].get_texts()} == {"model", "baseline"}
    only = sf.with_roles(table[table["em_model"] == "chance"], roles)
    fig = sf.capability_profiles(only, SRC)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["baseline"]


def test_all_nan_tables_draw_without_a_runtime_warning():
    """A cohort whose tests all came out NaN (no data for them): the figures draw, and no
    "All-NaN slice encountered" reaches the console."""
    import warnings

    null = null_rates_table().assign(false_positive_rate=np.nan, band_lo=np.nan, band_hi=np.nan)
    ranks = rank_table().assign(rank=np.nan, rank_lo=np.nan, rank_hi=np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        fig = sf.simulation_calibration(null, planted_table(), SRC)
        assert fig.axes[0].get_xlim() == (0.0, 0.12)
        assert is_no_data(sf.rank_intervals(ranks, SRC))
    assert sf._finite_max([np.nan, 2.0, np.inf], 0.0) == 2.0 and sf._finite_max([np.nan], 7.0) == 7.0


def test_subgroups_draw_no_diagnosis_effect_when_the_claims_cannot_test_it():
    """Small cohort: 3 participants with a diagnosis and 2 without, the permutation test cannot
    reach alpha and the diagnosis claims are 'not testable'; the mixed models still gave
    estimates, but the left panel gives the reason, with no interval or p-value."""
    reason = "3 participants with a diagnosis and 2 without: the smallest p of the permutation test is 0.100"
    fig = sf.subgroups_topics(diagnosis_table(), topics_table(), SRC, diagnosis_untestable=reason)
    left = fig.axes[0]
    assert n_errorbars(left) == 0 and ytick_labels(left) == []
    (text,) = left.texts
    assert text.get_text().replace("\n", " ") == f"diagnosis contrast not testable: {reason}"
    assert n_errorbars(fig.axes[1]) == 3  # the topics are drawn as before


def test_subgroups_print_no_p_hardest_for_a_topic_too_small_to_test():
    """Release cohort: topics of 1 to 3 conversations got 'P(hardest)' and an interval although
    claim C5 needs at least 5 conversations in a topic (testability.MIN_CONVERSATIONS)."""
    topics = topics_table().assign(n_conversations=[7, 3, 6, 7])
    right = sf.subgroups_topics(diagnosis_table(), topics, SRC).axes[1]
    assert ytick_labels(right) == [
        "Romantic relationships\n3 conversations: too few",
        "Studies\nP(hardest) 0.02",
        "Family\nP(hardest) 0.00",
    ]
    (bars,) = [c for c in right.containers if getattr(c, "has_xerr", False)]
    widths = [seg[1][0] - seg[0][0] for seg in bars.lines[2][0].get_segments()]
    assert widths[0] == 0 and min(widths[1:]) > 0  # Romantic relationships: its mean alone
    # the other topics must have as many: 4 + 1 conversations leave the one of 4 untested
    topics = topics_table().assign(n_conversations=[5, 4, 1, 7])
    labels = ytick_labels(sf.subgroups_topics(diagnosis_table(), topics, SRC).axes[1])
    assert labels == [
        "Romantic relationships\n4 conversations: too few",
        "Studies\n1 conversation: too few",
        "Family\nP(hardest) 0.00",
    ]


def test_a_test_left_out_of_the_design_is_labelled_not_a_blank_row():
    """Release build on ESConv's chats: 5 of the 9 tests of the left panel had no study (no
    diagnosis recorded, no human raters) and drew blank rows, unexplained; each now says so."""
    rates = null_rates_table()
    rates.loc[0, ["false_positive_rate", "band_lo", "band_hi"]] = np.nan
    fig = sf.simulation_calibration(rates, planted_table(), SRC)
    left = fig.axes[0]
    labels = [t for t in left.texts if t.get_text() == sf.NOT_RUN]
    assert len(labels) == 1 and labels[0].get_position()[1] == 1  # the first test, drawn on top

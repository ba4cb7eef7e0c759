# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Two models compared, metric by metric, with paired intervals
#
# Reads `results/` only. Is model A better than model B, and on which metrics? Both models
# answered the same conversations, so the right interval is the one of the *paired*
# difference: per conversation, A's score minus B's, averaged, with a cluster bootstrap that
# resamples conversations (or participants, as the run was configured) and draws the same
# resamples for both models. Two separate intervals that overlap say little; the paired
# interval keeps the dependence between the two models (a hard conversation is hard for both).
#
# Set `MODEL_A` and `MODEL_B` to any two evaluated models (default: the two best-ranked
# models of the leaderboard under the run's mode and rule set) and `RESULTS` to another run's
# results folder if needed.

# %%
import json
from io import StringIO
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import yaml
from eibench.metrics.registry import BY_NAME
from eibench.report import style
from eibench.stats.load import available, load_study, resamples
from eibench.stats.uncertainty import paired_differences
from IPython.display import SVG, display

RESULTS = Path("results") if Path("results").exists() else Path("../results")
MODEL_A = MODEL_B = None  # None: the two best-ranked models
LEVEL = 0.95

# %% [markdown]
# ## The run's statistics settings
#
# The bootstrap is seeded. To draw exactly the resamples of the pipeline, take the seed, the
# number of resamples, the cluster, the mode and the rule set from the provenance record of the
# job that wrote `results/stats/uncertainty/paired_differences.csv` (in `results/manifest.json`);
# when the manifest has no record, fall back to `config/config.yaml` next to `results/`.

# %%
PAIRED_CSV = RESULTS / "stats" / "uncertainty" / "paired_differences.csv"
manifest = json.loads((RESULTS / "manifest.json").read_text(encoding="utf-8"))
owner = {f["path"]: f["job"] for f in manifest["files"]}.get("results/stats/uncertainty/paired_differences.csv")
if owner is not None:
    params = manifest["jobs"][owner]["params"]
    SEED, STATS, SOURCE = params["seed"], params["stats"], "results/manifest.json"
else:
    config = yaml.safe_load((RESULTS.parent / "config" / "config.yaml").read_text(encoding="utf-8"))
    SEED, STATS, SOURCE = config["seed"], config["statistics"], "config/config.yaml"
MODE, RULE_SET = STATS["mode"], STATS["rule_set"]
print(
    f"from {SOURCE}: seed {SEED}, {STATS['n_bootstrap']} resamples of {STATS['cluster']}s, "
    f"mode {MODE}, rule set {RULE_SET}"
)

# %% [markdown]
# ## The two models on the leaderboard

# %%
board = pd.read_csv(RESULTS / "scores" / "leaderboard.csv")
board = board[(board["mode"] == MODE) & (board["rule_set"] == RULE_SET)]
# The evaluated models by rank, then the baselines by composite: a cohort compared with baselines
# only (e.g. ESConv) has no evaluated model, and a run of one model of your own (docs/
# release-format.md) compares it with the best baseline.
ranked = (
    board[board["role"] == "model"].sort_values("rank")["em_model"].tolist()
    + board[board["role"] == "baseline"].sort_values("composite", ascending=False)["em_model"].tolist()
)
assert len(ranked) >= 2 or (MODEL_A and MODEL_B), (
    f"this notebook compares two models; the run has {ranked}: add a baseline to the config's models "
    "(docs/configuration.md) or set MODEL_A and MODEL_B"
)
MODEL_A = MODEL_A or ranked[0]
MODEL_B = MODEL_B or next(m for m in ranked if m != MODEL_A)
print(f"A = {MODEL_A}, B = {MODEL_B}")
board[board["em_model"].isin([MODEL_A, MODEL_B])][
    ["rank", "em_model", "composite", "composite_lo", "composite_hi", "tracking", "evaluation", "holistic"]
]

# %% [markdown]
# ## Paired differences A - B with the library
#
# `load_study` builds the per-conversation values of every model and metric (the sufficient
# statistics of the means); `resamples` draws the cluster-bootstrap weights exactly as the
# statistics rules do (seeded from the seed, the mode, the rule set and the cluster), and
# `paired_differences` gives, per metric, the mean of A - B over the conversations both
# answered, its percentile interval and a two-sided bootstrap p-value (unadjusted).

# %%
roles = dict(zip(board["em_model"], board["role"]))
study = load_study(
    RESULTS / "scores" / "conversation_scores.parquet",
    RESULTS / "scores" / "turn_scores.parquet",
    RESULTS / "tables" / "gold" / "conversations.parquet",
    RESULTS / "tables" / "gold" / "participants.parquet",
    roles,
    STATS,
)
weights = resamples(study, STATS, SEED)
a, b = study.models.index(MODEL_A), study.models.index(MODEL_B)
METRICS = available(study, ["composite", "tracking", "evaluation", "holistic", *STATS["principal_metrics"]], [a, b])
ours = paired_differences(study, METRICS, weights, [a, b], LEVEL)
ours.insert(1, "label", [BY_NAME[m].label for m in ours["metric"]])
up = np.array([BY_NAME[m].higher_is_better for m in ours["metric"]])
ours["better"] = np.where(
    ours["lo"] > 0, np.where(up, MODEL_A, MODEL_B), np.where(ours["hi"] < 0, np.where(up, MODEL_B, MODEL_A), "-")
)
print(f"{len(study.conversations)} conversations, {len(weights)} resamples")
display(ours)

# %% [markdown]
# Read a row as: on this metric, A scores `difference` more than B on average over the
# conversations both answered; `better` names the model whose advantage the interval (95% by
# default, `LEVEL`) excludes zero for (`-`: the interval covers 0, no difference shown). The
# p-values are not adjusted for the number of metrics; those of the pre-registered claims
# (`results/stats/claims.csv`) are.

# %% [markdown]
# ## The same rows in the pipeline's `paired_differences.csv`
#
# The statistics rule compares every pair of evaluated models, each pair once, in the order of
# the models' names; a row for (B, A) is turned around here (difference and interval negated).
# With the same seed and resamples the notebook and the pipeline agree to the printed precision.

# %%
pipeline = pd.read_csv(PAIRED_CSV)
pair = pipeline[pipeline["model_a"].isin([MODEL_A, MODEL_B]) & pipeline["model_b"].isin([MODEL_A, MODEL_B])].copy()
flip = pair["model_a"] == MODEL_B
pair.loc[flip, ["difference", "lo", "hi"]] = -pair.loc[flip, ["difference", "hi", "lo"]].to_numpy()
pair.loc[flip, ["model_a", "model_b"]] = [MODEL_A, MODEL_B]
check = ours.merge(pair, on=["metric", "model_a", "model_b"], suffixes=("", "_pipeline"))
check[
    [
        "metric",
        "difference",
        "difference_pipeline",
        "lo",
        "lo_pipeline",
        "hi",
        "hi_pipeline",
        "p_boot",
        "p_boot_pipeline",
    ]
]

# %%
# The point estimates do not depend on the resamples; the intervals do, so they are compared
# exactly only when the settings came from the job that wrote the file (and at its 95% level),
# else within a quarter of the interval's width. The pipeline compares evaluated models only.
if roles[MODEL_A] == roles[MODEL_B] == "model":
    assert len(check) == len(pair) > 0, "every pipeline row of the pair has a notebook row"
    assert np.allclose(check["difference"], check["difference_pipeline"], rtol=1e-8, atol=1e-9, equal_nan=True)
    assert (check["n_conversations"] == check["n_conversations_pipeline"]).all()
    exact = owner is not None and LEVEL == 0.95
    if LEVEL == 0.95:  # the pipeline's level
        tol = 1e-8 if exact else 0.25 * (check["hi_pipeline"] - check["lo_pipeline"]).abs()
        for col in ("lo", "hi"):
            assert (np.abs(check[col] - check[f"{col}_pipeline"]) <= tol + 1e-8 * check[col].abs()).all(), col
    if exact:
        assert np.allclose(check["p_boot"], check["p_boot_pipeline"], atol=1e-9, equal_nan=True)
    print("notebook and pipeline agree" + (" exactly" if exact else " within bootstrap tolerance"))
else:
    print("the pipeline's paired differences compare evaluated models only (role 'model')")

# %% [markdown]
# ## Why pairing matters
#
# For the composite: the interval of A - B from the paired resamples, against the naive
# interval that treats the two models' intervals as independent (the square root of the sum
# of the squared standard errors of the leaderboard). Positive correlation between the models
# over conversations makes the paired interval narrower.

# %%
comp = study.values["composite"][[a, b]]
both = np.isfinite(comp).all(axis=0)
r = float(np.corrcoef(comp[0, both], comp[1, both])[0, 1])
se = board.set_index("em_model").loc[[MODEL_A, MODEL_B], "composite_se"].to_numpy()
row = ours.set_index("metric").loc["composite"]
naive = 2 * 1.959963984540054 * float(np.sqrt((se**2).sum()))
print(f"correlation of A and B over conversations: {r:.2f}")
print(f"paired 95% interval width: {row['hi'] - row['lo']:.2f} points; independent (naive) width: {naive:.2f} points")

# %% [markdown]
# ## The differences in one picture
#
# Each metric's difference and interval as a share of the metric's range (composite: 0-100
# points; proportions: 0-1; Kendall tau and the PANAS skill score: -1 to 1), so metrics on
# different scales share one axis. Right of zero: A is better.

# %%
style.apply()
span = np.array([BY_NAME[m].high - BY_NAME[m].low for m in ours["metric"]])
sign = np.where(up, 1.0, -1.0)  # so that right of zero is always "A better"
est, lo, hi = (sign * ours[c].to_numpy() / span for c in ("difference", "lo", "hi"))
lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)
y = np.arange(len(ours))[::-1]
fig, ax = plt.subplots(figsize=(6, 0.3 * len(ours) + 1))
colour = np.where(lo > 0, style.PALETTE[0], np.where(hi < 0, style.PALETTE[3], "grey"))
ax.hlines(y, lo, hi, colors=colour)
ax.scatter(est, y, c=colour, zorder=3)
ax.axvline(0, color="black", linewidth=0.8)
ax.set_yticks(y, ours["label"])
ax.set_xlabel(f"{MODEL_A} - {MODEL_B} (share of the metric's range; > 0: {MODEL_A} better)")
ax.set_title(f"Paired differences, {LEVEL:.0%} cluster-bootstrap intervals ({MODE}, {RULE_SET})")
buffer = StringIO()
fig.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
plt.close(fig)
SVG(buffer.getvalue())

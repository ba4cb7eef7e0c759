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
# # One model's failures, turn by turn
#
# Reads `results/` only. Set `MODEL` to any evaluated model (default: the last-ranked model
# under the parity rule set) and `RESULTS` to another run's results folder if needed.

# %%
from pathlib import Path

import pandas as pd

RESULTS = Path("results") if Path("results").exists() else Path("../results")
MODE, RULE_SET = "default", "parity"
board = pd.read_csv(RESULTS / "scores" / "leaderboard.csv")
board = board[(board["mode"] == MODE) & (board["rule_set"] == RULE_SET)]
# The evaluated models; a cohort compared with baselines only (e.g. ESConv) has none: its baselines.
candidates = board[board["role"] == "model"] if (board["role"] == "model").any() else board[board["role"] == "baseline"]
MODEL = candidates.sort_values("rank")["em_model"].iloc[-1]
print("model:", MODEL)
board[["rank", "em_model", "role", "composite", "composite_lo", "composite_hi", "tracking", "evaluation", "holistic"]]

# %% [markdown]
# ## The model's conversations, worst first

# %%
conv = pd.read_parquet(RESULTS / "scores" / MODEL / MODE / "conversation.parquet")
conv = conv[conv["rule_set"] == RULE_SET]
worst = conv.sort_values("composite").head(5)
worst[["conversation_id", "composite", "tracking", "evaluation", "holistic", "n_turns_scored"]]

# %% [markdown]
# ## Turn by turn in its worst conversation

# %%
turns = pd.read_parquet(RESULTS / "scores" / MODEL / MODE / "turn.parquet")
turns = turns[turns["rule_set"] == RULE_SET]
worst_id = worst["conversation_id"].iloc[0]
cols = [
    "turn_number",
    "rel_position",
    "emotion_f1",
    "emotion_va",
    "binary_om_acc",
    "binary_hp_acc",
    "pairwise_acc",
    "kendall_tau",
]
turns[turns["conversation_id"] == worst_id][cols]

# %% [markdown]
# ## Gold against predicted emotion tags in that conversation

# %%
gold_tags = pd.read_parquet(RESULTS / "tables" / "gold" / "mood_tags.parquet")
pred_tags = pd.read_parquet(RESULTS / "tables" / "predictions" / MODEL / MODE / "em_emotion_tags.parquet")
gold_words = gold_tags[gold_tags["conversation_id"] == worst_id].groupby("turn_number")["emotion"].agg(", ".join)
pred_words = (
    pred_tags[pred_tags["conversation_id"] == worst_id]
    .groupby("turn_number")["emotion"]
    .agg(lambda s: ", ".join(map(str, s)))
)
# object dtype: a turn without tags on one side is an empty string, not a new category
pd.DataFrame({"gold": gold_words.astype(object), "predicted": pred_words.astype(object)}).fillna("")

# %% [markdown]
# ## Accuracy by relative position in the conversation (all of the model's turns)

# %%
bins = pd.cut(turns["rel_position"], [-0.01, 1 / 3, 2 / 3, 1.0], labels=["early", "middle", "late"])
turns.groupby(bins, observed=True)[["emotion_f1", "binary_om_acc", "binary_hp_acc", "pairwise_acc"]].mean()

# %% [markdown]
# ## Parity rules that touched this model's score

# %%
rules = pd.read_parquet(RESULTS / "scores" / MODEL / MODE / "rule_counts.parquet")
rules[(rules["rule_set"] == RULE_SET) & (rules["count"] > 0)][["rule", "count", "description"]]

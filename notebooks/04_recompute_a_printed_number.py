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
# # A printed number recomputed from the raw files, with plain pandas
#
# For reviewers: the paper's leaderboard table prints the emotion F1 of every model. This
# notebook recomputes it for the leading model from the raw files alone, the cohort's
# conversation files and the model's EM output files (the release format,
# `docs/release-format.md`), with `json` and `pandas` and none of the project's code, and
# checks that it equals the number the paper printed (`results/paper/numbers.json`, key
# `emotion_f1.<model>`, and the table `results/paper/tables/leaderboard.csv`).
#
# The definition (`docs/metrics.md`, "Emotion tracking"): per turn, G and P are the sets of gold
# and predicted emotion words, trimmed and lower-cased; F1 = 2 |G ∩ P| / (|G| + |P|), and 1 when
# both are empty. A conversation's value is the mean over its turns; the model's value is the
# mean over its conversations. The paper prints the parity rule set's values, under which a gold
# turn the model's output lacks is skipped.
#
# Set `MODEL` to any model of the run (default: the leading one, `top_model`) and `RESULTS` to
# another run's results folder if needed.

# %%
import json
from pathlib import Path

import pandas as pd

RESULTS = Path("results") if Path("results").exists() else Path("../results")
ROOT = RESULTS.parent  # the paths in the manifest are relative to the repository
numbers = json.loads((RESULTS / "paper" / "numbers.json").read_text(encoding="utf-8"))
MODEL = numbers["entries"]["top_model"]["value"]
MODE = numbers["meta"]["mode"]
printed = numbers["entries"][f"emotion_f1.{MODEL}"]
print(f"model {MODEL}, mode {MODE}: the paper prints emotion F1 = {printed['display']} (rule {printed['rule']})")

# %% [markdown]
# ## The raw files
#
# The conversation files are the input of the run's ingest job, as its provenance record in
# `results/manifest.json` names them (a folder of the release format, wherever the cohort
# came from); the model's EM output files are those its scoring job read, as its record names
# them too.

# %%
manifest = json.loads((RESULTS / "manifest.json").read_text(encoding="utf-8"))
ingest = next(job for job in manifest["jobs"] if job["rule"] == "ingest_conversations")
cohort_folders = [ROOT / p for p in ingest["input"]]
conversation_files = sorted(f for folder in cohort_folders for f in Path(folder).glob("*.json"))
# The model's EM output files: the folders its scoring job read (results/predictions/... for a
# model the run collected, the researcher's own folder for a model of kind outputs_dir).
score = next(
    job
    for job in manifest["jobs"]
    if job["rule"] == "score_model" and job["wildcards"] == {"model": MODEL, "mode": MODE}
)
# (shard folders, or an outputs_dir model's files one by one; the gold tables are Parquet)
output_files = sorted(
    f
    for p in score["input"]
    for f in ((ROOT / p).glob("*.json") if (ROOT / p).is_dir() else [ROOT / p] if p.endswith(".json") else [])
)
print(
    f"{len(conversation_files)} conversation files in {', '.join(map(str, ingest['input']))}; "
    f"{len(output_files)} EM output files of {MODEL}"
)


# %%
def words(tags) -> frozenset:
    """The set of emotion words of a list of tags, trimmed and lower-cased."""
    return frozenset(str(tag["emotion"]).strip().lower() for tag in tags or [])


gold_rows = []
for path in conversation_files:
    conversation = json.loads(path.read_text(encoding="utf-8"))
    for turn in conversation["turns"]:
        gold_rows.append(
            {
                "conversation_id": str(conversation["conversationId"]),
                "turn": int(turn["turnNumber"]),
                "gold": words(turn.get("moodShiftTags")),
            }
        )
# A conversation id may be written as a number in one file and a string in the other.
predicted_rows = []
for path in output_files:
    output = json.loads(path.read_text(encoding="utf-8"))
    for turn in output["turns"]:
        predicted_rows.append(
            {
                "conversation_id": str(output["conversationId"]),
                "turn": int(turn["turnNumber"]),
                "predicted": words(turn.get("em_emotion_tags")),
            }
        )
gold, predicted = pd.DataFrame(gold_rows), pd.DataFrame(predicted_rows)
# A cohort without a single mood-shift tag (an adapted public corpus such as ESConv) has no
# emotion F1: the "1 when both are empty" rule would give every model a perfect score, so the
# scorer leaves the metric undefined for such a cohort (docs/metrics.md) and the paper prints none.
cohort_has_tags = bool(gold["gold"].map(len).sum())
# The printed numbers use the parity rule set, under which a gold turn missing from the EM
# output is skipped (docs/metrics.md, "Rule sets"): an inner join.
turns = gold.merge(predicted, on=["conversation_id", "turn"], how="inner", validate="one_to_one")
print(
    f"{len(gold)} gold turns, {len(predicted)} predicted turns, {len(turns)} scored "
    f"({len(gold) - len(turns)} gold turns without a prediction skipped)"
)
turns.head()

# %% [markdown]
# ## Emotion F1, turn by turn, then per conversation, then per model


# %%
def f1(g: frozenset, p: frozenset) -> float:
    if not g and not p:
        return 1.0
    return 2 * len(g & p) / (len(g) + len(p))


turns["f1"] = [f1(g, p) for g, p in zip(turns["gold"], turns["predicted"])]
per_conversation = turns.groupby("conversation_id")["f1"].mean()
recomputed = per_conversation.mean() if cohort_has_tags else float("nan")
print(f"recomputed emotion F1 of {MODEL}: {recomputed:.10f} over {len(per_conversation)} conversations")
per_conversation.describe()

# %% [markdown]
# ## The check
#
# `numbers.json` stores the value of the score tables, which are written with ten significant
# digits (`eibench.tables.write_csv`, `%.10g`); the paper prints it rounded.

# %%
table = pd.read_csv(RESULTS / "paper" / "tables" / "leaderboard.csv", dtype=str).set_index("Model")
if cohort_has_tags:
    assert float(f"{recomputed:.10g}") == printed["value"], (recomputed, printed["value"])

    # The text prints as many decimals as the interval supports (two significant digits of its
    # half-width, docs/statistics.md) and the table its own column's decimals: compare each at
    # the decimals it printed.
    def at(shown: str) -> str:
        return f"{recomputed:.{len(shown.partition('.')[2])}f}"

    in_table = table.loc[MODEL, "Emotion F1"]
    assert at(printed["display"]) == printed["display"], (recomputed, printed["display"])
    assert at(in_table) == in_table, (recomputed, in_table)
    print(
        f"equal: {recomputed:.10g} recomputed; {printed['display']} in the text and {in_table} in the leaderboard table"
    )
else:
    # The table prints the cohort's principal metrics: emotion F1 only where it is one of them.
    in_table = table.loc[MODEL, "Emotion F1"] if "Emotion F1" in table else printed["display"]
    assert printed["value"] is None and printed["display"] == in_table, printed
    print(f"the cohort has no mood-shift tag: no emotion F1, and the paper prints {printed['display']}")

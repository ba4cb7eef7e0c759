"""Rule paper_numbers: the numbers file and the display tables the manuscript reads."""

import json

import pandas as pd

from eibench.metrics.registry import BY_NAME
from eibench.report.numbers import Numbers, fmt
from eibench.runlog import rule_log
from eibench.tables import write_csv, write_text

SCRIPT = "workflow/scripts/paper_numbers.py"

with rule_log(snakemake) as log:  # noqa: F821
    p = snakemake.params
    conv = pd.read_parquet(snakemake.input.conversations)
    turns = pd.read_parquet(snakemake.input.turns)
    people = pd.read_parquet(snakemake.input.participants)
    board = pd.read_csv(snakemake.input.leaderboard)
    nums = Numbers()
    nums.meta = {"cohort": p.cohort, "simulation": p.cohort == "synthetic", "mode": p.mode,
                 "config_digest": p.config_digest}

    data = "ingest_conversations"
    nums.add("n_conversations", int(len(conv)), data, "workflow/scripts/ingest_conversations.py")
    nums.add("n_turns", int(len(turns)), data, "workflow/scripts/ingest_conversations.py")
    nums.add("n_participants", int(len(people)), data, "workflow/scripts/ingest_conversations.py")
    nums.add("n_diagnosed", int(people["has_diagnosis"].sum()), data, "workflow/scripts/ingest_conversations.py")
    nums.add("n_subtopics", int(conv["subtopic"].nunique()), data, "workflow/scripts/ingest_conversations.py")
    nums.add("n_categories", int(conv["category"].nunique()), data, "workflow/scripts/ingest_conversations.py")
    per = turns.groupby("conversation_id").size()
    nums.add("turns_min", int(per.min()), data, "workflow/scripts/ingest_conversations.py")
    nums.add("turns_max", int(per.max()), data, "workflow/scripts/ingest_conversations.py")
    nums.add("turns_median", float(per.median()), data, "workflow/scripts/ingest_conversations.py", digits=1)

    main = board[(board["mode"] == p.mode) & (board["rule_set"] == "parity")]
    models = main[main["role"] == "model"]
    humans = main[main["role"] == "human"]
    agg = "aggregate_scores"
    nums.add("n_models", int(len(models)), agg, "workflow/scripts/aggregate_scores.py")
    nums.add("n_humans", int(len(humans)), agg, "workflow/scripts/aggregate_scores.py")
    nums.add("n_human_conversations", int(humans["n_conversations"].max()) if len(humans) else 0, agg,
             "workflow/scripts/aggregate_scores.py")
    top = models.iloc[0]
    nums.add("top_model", str(top["em_model"]), agg, "workflow/scripts/aggregate_scores.py")
    nums.add("top_composite", float(top["composite"]), agg, "workflow/scripts/aggregate_scores.py",
             ci=(float(top["composite_lo"]), float(top["composite_hi"])))
    bottom = models.iloc[-1]
    nums.add("bottom_model", str(bottom["em_model"]), agg, "workflow/scripts/aggregate_scores.py")
    nums.add("bottom_composite", float(bottom["composite"]), agg, "workflow/scripts/aggregate_scores.py",
             ci=(float(bottom["composite_lo"]), float(bottom["composite_hi"])))
    for _, r in main.iterrows():
        for metric in ("composite", "emotion_f1"):
            digits = 1 if metric == "composite" else 3
            nums.add(f"{metric}.{r['em_model']}", float(r[metric]), agg, "workflow/scripts/aggregate_scores.py",
                     digits=digits, ci=(float(r[f"{metric}_lo"]), float(r[f"{metric}_hi"])))

    # Display table of the leaderboard (strings, as printed).
    cols = ["composite", "tracking", "evaluation", "holistic", "emotion_f1", "binary_om_acc", "binary_hp_acc", "pairwise_acc"]
    table = pd.DataFrame({
        "Rank": [str(int(x)) if pd.notna(x) else "–" for x in main["rank"]],
        "Model": main["em_model"],
        **{BY_NAME[c].label: [f"{fmt(v, 1 if c == 'composite' else 3)}" for v in main[c]] for c in cols},
        "Conversations": main["n_conversations"].astype(int).astype(str),
    })
    write_csv(table, snakemake.output.leaderboard_table)
    write_text(nums.to_json(), snakemake.output.numbers)
    log.info("wrote %d numbers", len(nums.entries))

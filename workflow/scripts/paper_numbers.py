"""Rule paper_numbers: the numbers file and the display tables the manuscript reads."""


import pandas as pd
from eibench.metrics.availability import BY_NAME as BY_KIND
from eibench.metrics.availability import KINDS
from eibench.metrics.registry import BY_NAME
from eibench.report.cohort_numbers import add_cohort
from eibench.report.esconv_numbers import add_esconv
from eibench.report.numbers import Numbers, fmt
from eibench.report.operating_numbers import add_operating
from eibench.report.replication_numbers import add_replication
from eibench.report.reproducibility import files_digest, statement
from eibench.report.stats_numbers import add_statistics
from eibench.runlog import rule_log
from eibench.tables import write_csv, write_text
from scipy.stats import kendalltau

SCRIPT = "workflow/scripts/paper_numbers.py"
OPERATING = ("claims", "models", "margins", "participants", "conversations")

with rule_log(snakemake) as log:  # noqa: F821
    p = snakemake.params
    conv = pd.read_parquet(snakemake.input.conversations)
    turns = pd.read_parquet(snakemake.input.turns)
    people = pd.read_parquet(snakemake.input.participants)
    board = pd.read_csv(snakemake.input.leaderboard)
    nums = Numbers()
    # The simulation disclosure follows what is simulated (the conversations, or any model or
    # rater: eibench.cohorts.simulated), not the cohort's name.
    nums.meta = {"cohort": p.cohort, "simulation": p.simulated["any"], "simulated_cohort": p.simulated["cohort"],
                 "simulated_models": list(p.simulated["models"]), "mode": p.mode, "config_digest": p.config_digest}

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
    models = main[main["role"].isin(p.ranked_roles)]
    humans = main[main["role"] == "human"]
    agg = "aggregate_scores"
    nums.add("n_models", int(len(models)), agg, "workflow/scripts/aggregate_scores.py")
    nums.add("n_humans", int(len(humans)), agg, "workflow/scripts/aggregate_scores.py")
    nums.add("n_human_conversations", int(humans["n_conversations"].max()) if len(humans) else 0, agg,
             "workflow/scripts/aggregate_scores.py")
    nums.add("n_ranked_baselines", int((models["role"] == "baseline").sum()), agg, "workflow/scripts/aggregate_scores.py")
    if models.empty:
        raise ValueError("no evaluated model (kind simulated, openai_compatible, anthropic or outputs_dir) in the "
                         "config: the paper ranks evaluated models; add one to 'models', or set "
                         "statistics.baselines_as_models: true to rank the baselines (a cohort without models)")
    top = models.iloc[0]
    nums.add("top_model", str(top["em_model"]), agg, "workflow/scripts/aggregate_scores.py")
    nums.add("top_role", str(p.model_roles[top["em_model"]]), agg, "workflow/scripts/aggregate_scores.py")
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

    # Parity against strict: does the stricter reading of missing answers change any rank?
    strict = board[(board["mode"] == p.mode) & (board["rule_set"] == "strict") & board["role"].isin(p.ranked_roles)]
    ranks = models.set_index("em_model")["rank"].astype(int).to_frame("parity").join(
        strict.set_index("em_model")["rank"].astype(int).rename("strict"))
    moved = sorted(ranks.index[ranks["parity"] != ranks["strict"]])
    tau = float(kendalltau(ranks["parity"], ranks["strict"]).statistic) if len(ranks) > 1 else float("nan")
    nums.add("strict_rank_tau", tau, agg, "workflow/scripts/paper_numbers.py", note="Kendall tau-b, parity vs strict composite ranks")
    nums.add("strict_changes_ranking", bool(moved), agg, "workflow/scripts/paper_numbers.py")
    nums.add("strict_moved_models", ", ".join(moved) if moved else "none", agg, "workflow/scripts/paper_numbers.py")
    nums.add("n_strict_moved", len(moved), agg, "workflow/scripts/paper_numbers.py")

    # Parity rules that fired, summed over the evaluated models (the paper reports them).
    rules = pd.read_csv(snakemake.input.rule_counts)
    rules = rules[(rules["rule_set"] == "parity") & (rules["mode"] == p.mode) & rules["em_model"].isin(models["em_model"])]
    fired = (rules.groupby(["rule", "description"], as_index=False)["count"].sum()
             .query("count > 0 and not rule.str.startswith('panas_prediction_')")  # those count strategies, not rules
             .sort_values(["count", "rule"], ascending=[False, True]))
    write_csv(fired.rename(columns={"rule": "Rule", "description": "What it does", "count": "Times (all models)"}),
              snakemake.output.rules_table)
    nums.add("n_rules_fired", int(len(fired)), agg, "workflow/scripts/aggregate_scores.py")
    # Kinds of annotation the cohort lacks altogether: their metrics are undefined, not parity defaults.
    flagged = {r.split(":", 1)[1] for r in rules["rule"] if r.startswith("annotation_absent_from_cohort:")}
    absent = [k.name for k in KINDS if k.name in flagged]
    nums.add("n_absent_kinds", len(absent), agg, "workflow/scripts/score_model.py")
    nums.add("absent_kinds", "; ".join(BY_KIND[k].description for k in absent) if absent else "none", agg,
             "workflow/scripts/score_model.py")
    add_cohort(nums, p.about, p.model_kinds, models)
    if p.cohort == "esconv":
        add_esconv(nums, snakemake.input.esconv_counts)

    # Invalid answers (after the repair attempts), per model.
    invalid = pd.read_csv(snakemake.input.invalid)
    invalid = invalid[invalid["mode"] == p.mode]
    per_model = invalid.groupby("em_model", as_index=False)[["asked", "invalid"]].sum()
    per_model["rate"] = per_model["invalid"] / per_model["asked"].where(per_model["asked"] > 0)
    total_invalid = int(per_model["invalid"].sum())
    nums.add("n_invalid_answers", total_invalid, agg, "workflow/scripts/aggregate_scores.py")
    nums.add("any_invalid_answers", total_invalid > 0, agg, "workflow/scripts/aggregate_scores.py")
    nums.add("n_models_with_invalid", int((per_model["invalid"] > 0).sum()), agg, "workflow/scripts/aggregate_scores.py")
    worst = per_model.sort_values(["rate", "em_model"], ascending=[False, True]).iloc[0]
    nums.add("worst_invalid_model", str(worst["em_model"]) if total_invalid else "none", agg,
             "workflow/scripts/aggregate_scores.py")
    nums.add("worst_invalid_rate", float(worst["rate"]) * 100 if total_invalid else 0.0, agg,
             "workflow/scripts/aggregate_scores.py", digits=2)
    by_task = invalid.pivot_table(index="em_model", columns="task", values="invalid", aggfunc="sum").reindex(
        main["em_model"])
    table_invalid = pd.DataFrame({"Model": by_task.index, **{t: by_task[t].astype(int).astype(str) for t in by_task.columns},
                                  "Rate (%)": [fmt(100 * r, 2) for r in per_model.set_index("em_model").loc[by_task.index, "rate"]]})
    write_csv(table_invalid, snakemake.output.invalid_table)

    # Display table of the leaderboard (strings, as printed).
    cols = ["composite", "tracking", "evaluation", "holistic", "emotion_f1", "binary_om_acc", "binary_hp_acc", "pairwise_acc"]
    table = pd.DataFrame({
        "Rank": [str(int(x)) if pd.notna(x) else "–" for x in main["rank"]],
        "Model": main["em_model"],
        **{BY_NAME[c].label: [f"{fmt(v, 1 if c == 'composite' else 3)}" for v in main[c]] for c in cols},
        "Conversations": main["n_conversations"].astype(int).astype(str),
    })
    strict_all = board[(board["mode"] == p.mode) & (board["rule_set"] == "strict")].set_index("em_model")
    table.insert(3, "Composite (strict)", [fmt(strict_all.loc[m, "composite"], 1) for m in main["em_model"]])
    # Rank intervals of the composite over the cluster-bootstrap resamples (rule stats_uncertainty).
    rank_iv = pd.read_csv(snakemake.input.rank_intervals)
    rank_iv = rank_iv[rank_iv["metric"] == "composite"].set_index("em_model")
    table.insert(1, "Rank 95%", [f"{rank_iv.loc[m, 'rank_lo']:.0f}–{rank_iv.loc[m, 'rank_hi']:.0f}"
                                 if m in rank_iv.index and pd.notna(rank_iv.loc[m, "rank_lo"]) else "–"
                                 for m in main["em_model"]])
    write_csv(table, snakemake.output.leaderboard_table)

    stats_tables = add_statistics(nums, {k: snakemake.input[k] for k in (
        "claims", "rank_summary", "rank_pairs", "discriminability", "comparisons", "diagnosis", "romantic", "topics",
        "page", "humans_paired", "agreement", "alt_test", "profiles", "null_rates", "planted")})
    for name in ("claims", "discriminability", "null_rates", "planted"):
        write_csv(stats_tables[name], snakemake.output[f"{name}_table"])
    write_csv(add_operating(nums, {k: snakemake.input[f"operating_{k}"] for k in OPERATING}), snakemake.output.operating_table)
    # The reproducibility statement: source tree, command, configuration, versions, input checksums.
    inputs = {"cohort": files_digest(snakemake.input.cohort_files)}
    inputs |= {label: files_digest(paths) for label, paths in sorted(p.prediction_sets.items())}
    rows = statement(p.git, p.versions, p.config_digest, inputs, p.command, p.library_digest)
    for row in rows:
        nums.add(row["key"], row["value"], "paper_numbers", SCRIPT)
    nums.meta["replications"] = list(p.replications)
    for name in p.replications:
        add_replication(nums, name, snakemake.input[f"replication_{name}"])
    nums.meta["reproducibility"] = [{"item": r["item"], "key": r["key"]} for r in rows if r["item"]]
    write_text(nums.to_json(), snakemake.output.numbers)
    log.info("wrote %d numbers", len(nums.entries))

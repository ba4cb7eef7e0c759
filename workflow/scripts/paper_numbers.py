"""Rule paper_numbers: the numbers file and the display tables the manuscript reads."""

from eibench.forkserver.client import hand_off

hand_off()  # run this job in a fork of the run's warm server, if it has one (eibench/forkserver)

import json
from pathlib import Path

import pandas as pd
from eibench.predict.record import read_record
from eibench.predict.summary import answers_source, combine_summaries
from eibench.report.board_numbers import (
    add_data_counts,
    add_gap_defaults,
    add_gold_base_rate,
    add_invalid,
    add_leaderboard,
    add_partial_annotations,
    add_rules_fired,
    add_strict_comparison,
    annotation_gaps,
    conversations_without,
    gap_defaults,
    leaderboard_table,
    main_rows,
)
from eibench.report.claim_schemes_numbers import add_claim_schemes
from eibench.report.claim_units import claim_units
from eibench.report.cohort_numbers import add_baselines, add_cohort, add_file_names, add_post_chat_ratings
from eibench.report.coverage import add_coverage
from eibench.report.esconv_numbers import add_esconv, add_mean_drop_reference
from eibench.report.local_model_numbers import add_local_model
from eibench.report.numbers import Numbers
from eibench.report.operating_numbers import add_operating
from eibench.report.preregistration import add_preregistration
from eibench.report.replication_numbers import add_replication
from eibench.report.reproducibility import add_reproducibility
from eibench.report.stats_numbers import STATS_TABLES, add_statistics
from eibench.report.truth_numbers import add_truth, add_truth_models
from eibench.report.uncertainty_numbers import add_uncertainty
from eibench.runlog import rule_log
from eibench.tables import write_csv, write_text

OPERATING = ("claims", "models", "margins", "participants", "conversations")

with rule_log(snakemake) as log:  # noqa: F821
    p, i, o = snakemake.params, snakemake.input, snakemake.output
    nums = Numbers(scripts=dict(p.rule_scripts))
    # The simulation disclosure follows what is simulated (the conversations, or any model or
    # rater: eibench.cohorts.simulated), not the cohort's name.
    nums.meta = {
        "cohort": p.cohort,
        "simulation": p.simulated["any"],
        "simulated_cohort": p.simulated["cohort"],
        "simulated_models": list(p.simulated["models"]),
        "mode": p.mode,
        "config_digest": p.config_digest,
    }
    conversations, turns = pd.read_parquet(i.conversations), pd.read_parquet(i.turns)
    add_data_counts(
        nums,
        conversations,
        turns,
        pd.read_parquet(i.participants),
        pd.read_parquet(i.mood_tags, columns=["in_panas", "intensity_clamped"]),
    )
    add_gold_base_rate(
        nums,
        pd.read_parquet(i.binary_judgements, columns=["conversation_id", "turn_number", "question_id", "gold_om"]),
        turns,
    )
    survey = pd.read_parquet(i.survey_answers, columns=["conversation_id"])
    gaps = annotation_gaps(
        conversations,
        turns,
        survey,
        pd.read_parquet(i.four_branch, columns=["conversation_id"]),
        pd.read_parquet(i.panas_totals, columns=["conversation_id", "phase", "positive", "negative"]),
    )
    add_partial_annotations(nums, [text for _, text in gaps])
    board = pd.read_csv(i.leaderboard)
    main = main_rows(board, p.mode)
    # The primary scheme's intervals, where they are of the leaderboard's mode and rule set.
    schemes = pd.read_csv(i.unc_schemes)
    same = p.uncertainty["mode"] == p.mode and p.uncertainty["rule_set"] == "parity"
    primary = schemes[schemes["scheme"] == p.uncertainty["primary"]] if same else None
    models = add_leaderboard(nums, main, p.ranked_roles, p.model_roles, primary)
    add_strict_comparison(nums, board, models, p.mode, p.ranked_roles)
    rule_counts = pd.read_csv(i.rule_counts)
    write_csv(add_rules_fired(nums, rule_counts, models, p.mode), o.rules_table)
    # The defaults that filled the cohort's gaps in this run, with the survey score they set.
    no_survey = conversations_without(conversations, survey)
    add_gap_defaults(
        nums,
        gap_defaults(
            [key for key, _ in gaps],
            rule_counts,
            models,
            p.mode,
            pd.read_parquet(
                i.conversation_scores, columns=["em_model", "mode", "rule_set", "conversation_id", "conversation_wide"]
            ),
            {"survey": no_survey.tolist()},
        ),
    )
    # Each live model's collection summaries by mode (rule collect_live): where its answers came from.
    summaries = {
        m: {mode: combine_summaries(json.loads(Path(f).read_text()) for f in files) for mode, files in modes.items()}
        for m, modes in p.live_summaries.items()
    }
    live = {
        m: (p.live_served[m], answers_source(combine_summaries(by_mode.values()))) for m, by_mode in summaries.items()
    }
    add_cohort(nums, p.about, p.model_kinds, models, live)
    add_baselines(nums, p.baseline_methods, bool(conversations["participant_id"].dropna().duplicated().any()))
    add_file_names(nums, conversations)
    add_post_chat_ratings(nums, pd.read_parquet(i.post_chat_ratings, columns=["conversation_id", "item"]))
    # The mode of the statistics, which Table 1's counts of conversations with a value follow
    # (rule aggregate_scores).
    nums.add("stats.mode", p.uncertainty["mode"], "paper_numbers")
    if p.cohort == "esconv":
        add_esconv(nums, i.esconv_counts)
        add_mean_drop_reference(nums, pd.read_parquet(i.panas_items), models)
    if p.local_model:  # a real model's committed answers: paper/sections/local_model.typ
        if p.local_model["chance"] is None:
            raise ValueError(
                "the local-model section tests the model against the chance baseline: add "
                "{name: chance, kind: baseline, method: chance} to models"
            )
        add_local_model(
            nums,
            p.local_model["name"],
            p.local_model["model_id"],
            read_record(i.local_record),
            pd.read_parquet(i.conversation_scores),
            pd.read_csv(i.invalid),
            p.local_model["metric"],
            p.local_model["chance"],
            p.seed,
            p.mode,
            n_bootstrap=p.n_bootstrap,
            alpha=p.alpha,
            collection=summaries[p.local_model["name"]][p.mode],
            served=p.live_served[p.local_model["name"]],
            rule_counts=rule_counts,
        )
    write_csv(add_invalid(nums, pd.read_csv(i.invalid), main, p.mode), o.invalid_table)
    write_csv(leaderboard_table(board, main, pd.read_csv(i.rank_intervals), p.mode, p.principal), o.leaderboard_table)
    stats_tables = add_statistics(nums, {k: i[k] for k in STATS_TABLES})
    stats_tables["claims"].insert(3, "Units", claim_units(stats_tables["claims"]["ID"], p.claims))
    stats_tables["planted"]["p, coverage below nominal"] = add_coverage(nums, pd.read_csv(i.planted), alpha=p.alpha)
    for name in ("claims", "discriminability", "null_rates", "planted"):
        write_csv(stats_tables[name], o[f"{name}_table"])
    add_uncertainty(
        nums, {k[4:]: v for k, v in i.items() if k.startswith("unc_")}, p.uncertainty, p.uncertainty["n_bootstrap"]
    )
    add_claim_schemes(nums, i.unc_claims, p.uncertainty)
    if getattr(i, "null_claims", None):  # the truth section: planted and null cohorts' verdicts (truth.smk)
        truth_table, truth_detail = add_truth(
            nums,
            pd.read_csv(i.claims, keep_default_na=False, na_values=[""]),
            pd.read_csv(i.null_claims, keep_default_na=False, na_values=[""]),
            p.claims,
            p.truth_simulation["planted"],
            p.truth_simulation["null"],
            pd.read_csv(i.truth_estimands, keep_default_na=False, na_values=[""]),
        )
        write_csv(truth_table, o.truth_table)
        write_csv(truth_detail, o.truth_detail_table)
        per_metric, per_model = add_truth_models(nums, pd.read_csv(i.truth_models))
        write_csv(per_metric, o.truth_metrics_table)
        write_csv(per_model, o.truth_models_table)
    write_csv(add_preregistration(nums, p.preregistration), o.preregistration_table)
    write_csv(
        add_operating(nums, {k: i[f"operating_{k}"] for k in OPERATING}, alpha=p.alpha, config_claims=p.claims),
        o.operating_table,
    )
    add_reproducibility(
        nums, p.git, p.versions, p.config_digest, p.command, p.library_digest, i.cohort_files, p.prediction_sets
    )
    nums.meta["replications"] = list(p.replications)
    for name in p.replications:
        add_replication(nums, name, i[f"replication_{name}"])
    write_text(nums.to_json(), o.numbers)
    log.info("wrote %d numbers", len(nums.entries))

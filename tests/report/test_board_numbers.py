"""The leaderboard, strict-rule, rules-fired and invalid-answer numbers of rule paper_numbers
(eibench.report.board_numbers), and the rule-to-script map the numbers file names scripts from."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from eibench.report import board_numbers as bn
from eibench.report.numbers import Numbers, plural
from eibench.workflow_paths import rule_scripts

SCRIPTS = {r: f"workflow/scripts/{r}.py" for r in ("aggregate_scores", "paper_numbers", "score_model")}


def _board() -> pd.DataFrame:
    rows = []
    for rule_set, order in (("parity", ["a", "b", "c"]), ("strict", ["b", "a", "c"])):
        for rank, m in enumerate(order, 1):
            comp = {"a": 60.0, "b": 55.0, "c": 40.0}[m] - (0 if rule_set == "parity" else 1 + 6 * (m == "a"))
            rows.append(
                {
                    "mode": "m",
                    "rule_set": rule_set,
                    "em_model": m,
                    "role": "human" if m == "c" else "model",
                    "rank": float(rank) if m != "c" else np.nan,
                    "composite": comp,
                    "composite_lo": comp - 2,
                    "composite_hi": comp + 2,
                    "emotion_f1": 0.5,
                    "emotion_f1_lo": 0.4,
                    "emotion_f1_hi": 0.6,
                    "n_conversations": 30 if m == "c" else 200,
                    **{c: 0.5 for c in bn.TABLE_METRICS if c not in ("composite", "emotion_f1")},
                }
            )
    return pd.DataFrame(rows)


def test_leaderboard_numbers_take_the_parity_rows_of_the_mode():
    nums, board = Numbers(scripts=SCRIPTS), _board()
    main = bn.main_rows(board, "m")
    models = bn.add_leaderboard(nums, main, ("model",), {"a": "model", "b": "model", "c": "human"})
    e = nums.entries
    assert list(models["em_model"]) == ["a", "b"]
    assert (e["n_models"]["value"], e["n_humans"]["value"], e["n_human_conversations"]["value"]) == (2, 1, 30)
    assert e["top_model"]["value"] == "a" and e["top_composite"]["ci_display"] == "[58.0, 62.0]"
    assert e["bottom_model"]["value"] == "b" and e["composite.c"]["display"] == "40.0"
    assert e["top_model"]["script"] == "workflow/scripts/aggregate_scores.py"


def test_no_compared_model_is_an_error_that_names_the_fix():
    main = bn.main_rows(_board(), "m")
    with pytest.raises(ValueError, match="baselines_as_models"):
        bn.add_leaderboard(Numbers(scripts=SCRIPTS), main, ("baseline",), {})


def test_strict_comparison_names_the_models_that_move():
    nums, board = Numbers(scripts=SCRIPTS), _board()
    models = bn.add_leaderboard(nums, bn.main_rows(board, "m"), ("model",), {"a": "model", "b": "model"})
    bn.add_strict_comparison(nums, board, models, "m", ("model",))
    e = nums.entries
    assert e["strict_moved_models"]["value"] == "a, b" and e["n_strict_moved"]["value"] == 2
    assert e["strict_rank_tau"]["value"] == pytest.approx(-1.0)
    assert e["strict_rank_tau"]["rule"] == "paper_numbers"


def test_one_model_has_no_rank_correlation():
    nums, board = Numbers(scripts=SCRIPTS), _board()
    board = board[board["em_model"] != "b"]
    models = bn.add_leaderboard(nums, bn.main_rows(board, "m"), ("model",), {"a": "model"})
    bn.add_strict_comparison(nums, board, models, "m", ("model",))
    assert math.isnan(nums.entries["strict_rank_tau"]["value"])
    assert nums.entries["strict_moved_models"]["value"] == "a"  # its strict rank (2) counts b, left out here


def test_rules_fired_are_summed_and_absent_kinds_named():
    rules = pd.DataFrame(
        {
            "rule_set": ["parity"] * 5 + ["strict"],
            "mode": ["m"] * 6,
            "em_model": ["a", "b", "a", "z", "a", "a"],
            "rule": [
                "r1",
                "r1",
                "panas_prediction_x",
                "r2",
                "annotation_absent_from_cohort:pairwise_comparisons",
                "r3",
            ],
            "description": ["one", "one", "strategy", "two", "absent", "three"],
            "count": [2, 3, 9, 5, 1, 4],
        }
    )
    nums = Numbers(scripts=SCRIPTS)
    table = bn.add_rules_fired(nums, rules, pd.DataFrame({"em_model": ["a", "b"]}), "m")
    assert list(table["Rule"]) == ["r1", "annotation_absent_from_cohort:pairwise_comparisons"]
    assert list(table["Times (compared models)"]) == [5, 1]
    assert nums.entries["n_absent_kinds"]["value"] == 1 and nums.entries["n_rules_fired"]["value"] == 2
    assert nums.entries["absent.pairwise_comparisons"]["value"] is True
    assert nums.entries["absent.four_branch"]["value"] is False


def test_invalid_answers_per_model_and_the_worst_rate():
    invalid = pd.DataFrame(
        {
            "mode": ["m"] * 4,
            "em_model": ["a", "a", "b", "b"],
            "task": ["t1", "t2", "t1", "t2"],
            "asked": [10, 10, 20, 0],
            "invalid": [1, 1, 0, 0],
            "requests": [2, 10, 2, 0],
            "invalid_requests": [1, 1, 0, 0],
        }
    )
    nums = Numbers(scripts=SCRIPTS)
    table = bn.add_invalid(nums, invalid, pd.DataFrame({"em_model": ["b", "a"]}), "m")
    e = nums.entries
    assert e["n_invalid_answers"]["value"] == 2 and e["n_models_with_invalid"]["value"] == 1
    assert e["worst_invalid_model"]["value"] == "a" and e["worst_invalid_rate"]["display"] == "10.00"
    assert list(table["Model"]) == ["b", "a"] and list(table["Rate (% of answers)"]) == ["0.00", "10.00"]
    # the rate per answer has each model's own denominator, printed beside it; per request, the
    # same unit for every model (Table 14 gave SmolLM2's rate over 720 answers a task, the
    # baselines' over 120, without saying so)
    assert list(table["Answers"]) == ["20", "20"] and list(table["Requests"]) == ["2", "12"]
    assert list(table["Rate (% of requests)"]) == ["0.00", "16.67"]
    # b was never asked t2 (0 asked): no count, not a zero
    assert list(table["t1"]) == ["0", "1"] and list(table["t2"]) == ["–", "1"]
    # ... a task a answered and b none of: named, since b's scores for it are the rules' defaults
    assert e["unanswered.n_models"]["value"] == 1 and e["unanswered.described"]["value"] == "t2: b"


def test_a_task_no_model_answered_is_no_gap():
    """A task no compared model answers (its annotation kind absent from the cohort) is not a
    model's gap; a task answered by some models and not by two names both, in the table's order."""
    invalid = pd.DataFrame(
        {
            "mode": ["m"] * 6,
            "em_model": ["a", "a", "b", "b", "c", "c"],
            "task": ["pairwise", "post_chat_ratings"] * 3,
            "asked": [0, 10, 0, 0, 0, 0],
            "invalid": [0] * 6,
            "requests": [0, 10, 0, 0, 0, 0],
            "invalid_requests": [0] * 6,
        }
    )
    nums = Numbers(scripts=SCRIPTS)
    bn.add_invalid(nums, invalid, pd.DataFrame({"em_model": ["c", "a", "b"]}), "m")
    e = nums.entries
    assert e["unanswered.n_models"]["value"] == 2 and e["unanswered.described"]["value"] == "post_chat_ratings: c and b"
    nums = Numbers(scripts=SCRIPTS)
    bn.add_invalid(nums, invalid[invalid["em_model"] == "a"], pd.DataFrame({"em_model": ["a"]}), "m")
    assert nums.entries["unanswered.n_models"]["value"] == 0 and nums.entries["unanswered.described"]["value"] == "none"


def test_no_invalid_answer_names_no_model():
    invalid = pd.DataFrame(
        {
            "mode": ["m"],
            "em_model": ["a"],
            "task": ["t1"],
            "asked": [5],
            "invalid": [0],
            "requests": [1],
            "invalid_requests": [0],
        }
    )
    nums = Numbers(scripts=SCRIPTS)
    bn.add_invalid(nums, invalid, pd.DataFrame({"em_model": ["a"]}), "m")
    assert nums.entries["worst_invalid_model"]["value"] == "none"
    assert nums.entries["any_invalid_answers"]["value"] is False


def test_leaderboard_table_prints_rank_intervals_and_strict_composites():
    board = _board()
    iv = pd.DataFrame(
        {"metric": ["composite", "composite"], "em_model": ["a", "b"], "rank_lo": [1.0, 1.0], "rank_hi": [2.0, np.nan]}
    )
    table = bn.leaderboard_table(board, bn.main_rows(board, "m"), iv, "m")
    assert list(table["Rank"]) == ["1", "2", "–"] and list(table["Rank 95%"]) == ["1–2", "–", "–"]
    assert list(table["Composite (strict)"]) == ["53.0", "54.0", "39.0"]


def test_leaderboard_table_puts_the_human_raters_apart_each_block_with_its_n():
    """Models first (ranked), then the unranked baselines, then the human raters, whatever
    their composites; each block's heading names its number of conversations."""
    board = _board()
    extra = board[board["em_model"] == "b"].assign(em_model="base", role="baseline", rank=np.nan, composite=10.0)
    board = pd.concat([board, extra], ignore_index=True)
    main = bn.main_rows(board, "m").sort_values("composite", ascending=False)  # c (human, 40) above base (10)
    iv = pd.DataFrame({"metric": ["composite"], "em_model": ["a"], "rank_lo": [1.0], "rank_hi": [2.0]})
    table = bn.leaderboard_table(board, main, iv, "m")
    assert list(table["Model"]) == ["a", "b", "base", "c"]
    assert list(table.columns[:4]) == ["Block", "Rank", "Rank 95%", "Model"]
    assert list(table["Block"]) == [
        "Models, ranked: 200 conversations each",
        "Models, ranked: 200 conversations each",
        "Baselines (references), not ranked: 200 conversations each",
        "Human raters, not ranked: 30 conversations each",
    ]
    assert list(table["Conversations"]) == ["200", "200", "200", "30"] and table["Rank"].iloc[-1] == "–"


def test_leaderboard_table_prints_the_cohorts_principal_metrics():
    """The table's metric columns are the composite, the pillars and the configured principal
    metrics (ESConv's three), not the registry's; one without any value prints en dashes."""
    board = _board().assign(binary_om_acc=0.7, post_chat_ratings=0.8)  # no panas_items_adjusted column
    iv = pd.DataFrame({"metric": ["composite"], "em_model": ["a"], "rank_lo": [1.0], "rank_hi": [2.0]})
    principal = ["binary_om_acc", "panas_items_adjusted", "post_chat_ratings"]
    table = bn.leaderboard_table(board, bn.main_rows(board, "m"), iv, "m", principal)
    pillars = ["Emotion tracking pillar", "Evaluation quality pillar", "Holistic pillar"]
    metrics = ["Binary OM accuracy", "PANAS items baseline-adjusted", "Post-chat ratings normalised"]
    assert list(table.columns[6:-1]) == [*pillars, *metrics]
    assert list(table["PANAS items baseline-adjusted"]) == ["–"] * 3
    assert list(table["Post-chat ratings normalised"]) == ["0.800"] * 3
    assert "Emotion F1" not in table


def test_leaderboard_table_keeps_its_four_principal_columns_for_the_registrys_ten():
    """The synthetic study's ten principal metrics do not fit the page: the table keeps the four
    it always printed, in the configured order; a short list is printed whole."""
    from eibench.metrics.registry import PRINCIPAL

    four = ("emotion_f1", "binary_om_acc", "binary_hp_acc", "pairwise_acc")
    assert (
        bn.table_metrics() == bn.table_metrics(PRINCIPAL) == ("composite", "tracking", "evaluation", "holistic", *four)
    )
    assert bn.table_metrics(["kendall_tau", "pairwise_acc"])[4:] == ("kendall_tau", "pairwise_acc")
    many = ["four_branch", "pairwise_acc", "kendall_tau", "panas_adjusted", "conversation_wide", "emotion_va"]
    assert bn.table_metrics(many)[4:] == ("four_branch", "pairwise_acc", "kendall_tau", "panas_adjusted")
    # the judged draft is reported apart: never a leaderboard column (it would print dashes)
    assert bn.table_metrics(["draft_judge", "binary_om_acc"])[4:] == ("binary_om_acc",)


def test_ranked_baselines_stay_in_the_ranked_block_and_an_n_range_is_printed():
    assert bn.block_of("baseline", ranked=True) == "ranked" and bn.block_of("human", ranked=False) == "human"
    assert bn.block_of("baseline", ranked=False) == "baseline"
    label = bn.block_label("ranked", pd.Series(["model", "baseline"]), pd.Series([200, 180]))
    assert label == "Models and baselines, ranked: 180–200 conversations each"
    assert bn.block_label("human", pd.Series(["human"] * 2), pd.Series([25, 30])).startswith(
        "Human raters, not ranked: 25–30"
    )


def test_numbers_name_the_script_from_the_rule_map():
    nums = Numbers(scripts={"r": "workflow/scripts/r.py"})
    nums.add("x", 1, "r")
    assert nums.entries["x"]["script"] == "workflow/scripts/r.py"
    with pytest.raises(ValueError, match="'unknown' has no script"):
        nums.add("y", 1, "unknown")
    with pytest.raises(ValueError, match="runs workflow/scripts/r.py, not workflow/scripts/old.py"):
        nums.add("z", 1, "r", "workflow/scripts/old.py")


def _rule(name: str, script: str | None, basedir: Path) -> SimpleNamespace:
    return SimpleNamespace(
        name=name, script=script, basedir=SimpleNamespace(get_path_or_uri=lambda secret_free: str(basedir))
    )


def test_rule_scripts_resolve_relative_to_the_rule_file(tmp_path):
    rules = [
        _rule("b", "../scripts/b.py", tmp_path / "workflow/rules"),
        _rule("all", None, tmp_path),
        _rule("a", "workflow/scripts/a.py", tmp_path),
    ]
    assert rule_scripts(rules, tmp_path) == {"a": "workflow/scripts/a.py", "b": "workflow/scripts/b.py"}


def test_the_top_and_bottom_intervals_are_the_primary_schemes_when_given():
    """The abstract prints the leader's and the last model's interval: the primary resampling
    scheme's (schemes.csv) when the caller gives it, with a note; the board's otherwise."""
    nums, main = Numbers(scripts=SCRIPTS), bn.main_rows(_board(), "m")
    primary = pd.DataFrame({"em_model": ["a", "b"], "lo": [55.0, 50.5], "hi": [64.0, 59.5]})
    bn.add_leaderboard(nums, main, ("model",), {"a": "model", "b": "model", "c": "human"}, primary)
    e = nums.entries
    assert e["top_composite"]["ci"] == [55.0, 64.0] and e["bottom_composite"]["ci"] == [50.5, 59.5]
    assert "primary resampling scheme" in e["top_composite"]["note"]
    assert e["composite.a"]["ci"] == [58.0, 62.0]  # every row's own number keeps the board's interval


def test_a_profile_without_traits_records_no_diagnosis():
    from eibench.release.tidy import diagnosis_recorded

    # "" is a profile that gives an empty list of traits (no diagnosis); None gives no traits at all
    people = pd.DataFrame({"traits": ["anxiety", "none", "", None], "has_diagnosis": [True, False, False, False]})
    assert list(diagnosis_recorded(people)) == [True, True, True, False]
    nums = Numbers(scripts=SCRIPTS | {"ingest_conversations": "workflow/scripts/ingest_conversations.py"})
    conv = pd.DataFrame({"subtopic": ["x"], "category": ["y"], "provider": [" Simulated"]})
    turns = pd.DataFrame({"conversation_id": ["c1", "c1"]})
    tags = pd.DataFrame({"in_panas": [True, False, True], "intensity_clamped": [False, True, True]})
    bn.add_data_counts(nums, conv, turns, people, tags)
    assert (nums.entries["n_diagnosis_recorded"]["value"], nums.entries["n_diagnosed"]["value"]) == (3, 1)
    counts = [nums.entries[k]["value"] for k in ("n_gold_tags", "n_tags_outside_panas", "n_intensities_clamped")]
    assert counts == [3, 1, 2]
    assert nums.entries["n_provider_simulated"]["value"] == 1


def test_a_count_of_one_takes_the_singular():
    """The words after a count agree with it: the singular for one, the plural otherwise (zero
    included), in a block's heading and in the annotation gaps of a one-conversation cohort."""
    assert [plural(k, "turn", "turns") for k in (0, 1, 2)] == ["turns", "turn", "turns"]
    assert (
        bn.block_label("human", pd.Series(["human"]), pd.Series([1])) == "Human raters, not ranked: 1 conversation each"
    )
    assert bn.block_label("human", pd.Series(["human"] * 2), pd.Series([1, 3])).endswith(": 1–3 conversations each")
    conv = pd.DataFrame({"conversation_id": ["c1"]})
    turns = pd.DataFrame({"n_binary": [2, 0], "n_pairwise": [1, 1]})
    panas = pd.DataFrame({"conversation_id": ["c1"], "phase": ["pre"], "positive": [30.0], "negative": [12.0]})
    gaps = bn.partial_annotations(conv, turns, conv, conv, panas)
    assert gaps == [
        "1 of the 1 conversation has PANAS totals on one side of the chat only",
        "1 of the 2 turns has no behaviour judgements",
    ]


def test_annotations_missing_in_some_conversations_are_counted_kind_by_kind():
    """A kind some conversations (or turns) have and others lack is a gap the parity defaults
    fill; a kind none has is absent, not partial, and one all have is whole: neither is listed."""
    conv = pd.DataFrame({"conversation_id": ["c1", "c2", "c3"]})
    turns = pd.DataFrame({"n_binary": [2, 0, 3, 1], "n_pairwise": [0, 0, 0, 0]})
    survey = pd.DataFrame({"conversation_id": ["c1", "c1", "c3"]})
    four_branch = pd.DataFrame({"conversation_id": ["c1", "c2", "c3"]})
    # c1: totals before and after; c2: before only; c3: after only (a post row whose negative
    # total is missing still gives one); a conversation with none on either side is not filled
    panas = pd.DataFrame(
        {
            "conversation_id": ["c1", "c1", "c2", "c3"],
            "phase": ["pre", "post", "pre", "post"],
            "positive": [30.0, 31.0, 31.0, 20.0],
            "negative": [None, 12.0, 12.0, None],
        }
    )
    gaps = bn.partial_annotations(conv, turns, survey, four_branch, panas)
    assert gaps == [
        "1 of the 3 conversations has no post-chat survey answers",
        "2 of the 3 conversations have PANAS totals on one side of the chat only",
        "1 of the 4 turns has no behaviour judgements",
    ]
    # pre-chat totals only, in every conversation: each is filled (40 after), not an absent kind
    pre_only = pd.DataFrame({"conversation_id": ["c1", "c2", "c3"], "phase": "pre", "positive": 30.0, "negative": 12.0})
    assert "3 of the 3 conversations have PANAS totals on one side of the chat only" in bn.partial_annotations(
        conv, turns, survey, four_branch, pre_only
    )
    nums = Numbers(scripts=SCRIPTS | {"ingest_conversations": "workflow/scripts/ingest_conversations.py"})
    bn.add_partial_annotations(nums, gaps)
    assert nums.entries["partial.n_kinds"]["value"] == 3
    assert nums.entries["partial.described"]["value"] == (
        "1 of the 3 conversations has no post-chat survey answers, 2 of the 3 conversations have PANAS "
        "totals on one side of the chat only and 1 of the 4 turns has no behaviour judgements"
    )
    bn.add_partial_annotations(nums := Numbers(scripts=nums.scripts), [])
    assert (nums.entries["partial.n_kinds"]["value"], nums.entries["partial.described"]["value"]) == (0, "none")


def test_gap_defaults_name_only_the_defaults_of_the_cohorts_gaps_that_fired():
    """The release cohort's case: no conversation has pairwise comparisons (an absent kind, so
    its default cannot fire), 14 lack a survey and 3 have PANAS totals on one side. The examples
    are the defaults that filled those gaps, with the survey score they set, and none other."""
    models = pd.DataFrame({"em_model": ["a", "b"]})
    fired = {
        "conversation_wide_gold_missing_scored_as_empty": 14,
        "panas_total_missing_taken_as_40": 6,
        "panas_adjusted_null_part_half": 3,
        "pairwise_turn_without_comparisons": 0,
        "binary_om_turn_without_judgements": 0,
    }
    rules = pd.DataFrame(
        [
            {"em_model": m, "mode": "default", "rule_set": rs, "rule": r, "count": k}
            for m in ("a", "b", "other")
            for rs in ("parity", "strict")
            for r, k in fired.items()
        ]
    )
    scores = pd.DataFrame(
        {
            "em_model": ["a", "a", "b", "b"],
            "mode": "default",
            "rule_set": "parity",
            "conversation_id": ["c1", "c2", "c1", "c2"],
            "conversation_wide": [0.25, 0.9, 0.25, 0.4],
        }
    )
    out = bn.gap_defaults(["survey", "panas_one_side"], rules, models, "default", scores, {"survey": ["c1"]})
    assert out == [
        "a conversation without a post-chat survey is scored against empty answers, which gives this "
        "conversation a post-chat survey score of 0.25 for every compared model",
        "a PANAS total missing on one side of the chat is taken as 40",
        "a conversation whose baseline-adjusted PANAS score is undefined gets the composite's PANAS part 0.5",
    ]
    assert not any("comparisons" in d for d in out)
    # a gap whose default did not fire (here the pairwise one) is not named, even when asked for
    assert bn.gap_defaults(["pairwise", "binary"], rules, models, "default") == []
    fired_pairwise = rules.assign(count=np.where(rules["rule"] == "pairwise_turn_without_comparisons", 5, 0))
    assert bn.gap_defaults(["pairwise"], fired_pairwise, models, "default") == [
        "a turn without comparisons has pairwise accuracy one"
    ]
    # scores that differ give their range
    two = bn.gap_defaults(["survey"], rules, models, "default", scores, {"survey": ["c1", "c2"]})
    assert two[0].endswith(
        "which gives these conversations a post-chat survey score between 0.25 and 0.90 over the compared models"
    )
    nums = Numbers(scripts=SCRIPTS)
    bn.add_gap_defaults(nums, out)
    assert nums.entries["partial.n_defaults"]["value"] == 3
    bn.add_gap_defaults(nums := Numbers(scripts=SCRIPTS), [])
    assert nums.entries["partial.defaults"]["value"] == "none"


def test_the_paper_prints_no_fixed_example_of_a_parity_default():
    """The data section and Appendix A.1 name the defaults of the cohort's gaps
    (partial.defaults), not fixed examples that may not fire on the cohort."""
    text = (Path(__file__).resolve().parents[2] / "paper" / "main.typ").read_text()
    assert "a turn without comparisons has pairwise" not in text
    assert "without a survey is scored against empty answers" not in text
    assert "a turn without judgements or\ncomparisons scores full marks" not in text
    assert text.count('#n("partial.defaults")') == 2


def test_the_claims_without_a_simulated_test_are_those_of_kinds_the_simulation_lacks():
    """Section 7 names the claims whose kind of test the simulation has none of (computed from
    the configured claims and simulation.SIMULATED_KINDS), here the synthetic study's C4b and C6."""
    import yaml
    from eibench.report.stats_numbers import claims_without_simulated_test
    from eibench.stats.simulation import SIMULATED_KINDS

    assert not {"turn_flat", "profile_flips"} & SIMULATED_KINDS
    root = Path(__file__).resolve().parents[2]
    claims = pd.DataFrame(yaml.safe_load((root / "config" / "config.yaml").read_text())["statistics"]["claims"])
    assert claims_without_simulated_test(claims) == ["C4b (flat drift)", "C6 (profile flips)"]
    assert claims_without_simulated_test(claims[claims["test"] == "turn_drift"]) == []


def test_answers_read_as_no_are_counted_over_the_compared_models():
    rules = pd.DataFrame(
        {
            "rule_set": ["parity"] * 6 + ["strict"],
            "mode": ["m"] * 6 + ["m"],
            "em_model": ["a", "b", "a", "z", "a", "a", "a"],
            "rule": [
                "binary_om_prediction_missing",
                "binary_hp_pw_prediction_na",
                "binary_om_pw_prediction_unrecognised",
                "binary_hp_prediction_invalid",  # model z is not compared
                "binary_om_turn_without_judgements",  # a default, not an answer read as no
                "pairwise_pick_missing",
                "binary_om_prediction_missing",  # the strict rule set
            ],
            "description": ["d"] * 7,
            "count": [2, 3, 4, 50, 60, 70, 80],
        }
    )
    nums = Numbers(scripts=SCRIPTS)
    bn.add_rules_fired(nums, rules, pd.DataFrame({"em_model": ["a", "b"]}), "m")
    assert nums.entries["partial.n_read_as_no"]["value"] == 9


def test_a_claim_tested_in_part_says_so_in_its_verdict_cell():
    from eibench.report.stats_numbers import _verdict_cell

    assert _verdict_cell("inconclusive", "3 of its 6 pairs tested") == "inconclusive (only 3 of its 6 pairs tested)"
    # claims.csv read back: a claim tested whole has an empty scope, read as NaN or "".
    assert _verdict_cell("supported", float("nan")) == "supported"
    assert _verdict_cell("supported", "") == "supported"
    # a test that ran but gave no estimate says why (claims.csv ``note``)
    assert _verdict_cell("inconclusive", "", "mixed model did not converge") == (
        "inconclusive (mixed model did not converge)"
    )
    assert _verdict_cell("inconclusive", "3 of 6 pairs tested", "x") == "inconclusive (only 3 of 6 pairs tested; x)"
    assert _verdict_cell("supported", "", float("nan")) == "supported"


def test_the_diagnosis_contrast_is_untestable_only_when_every_diagnosis_claim_is():
    from eibench.report.stats_numbers import untestable_reason

    why = "not testable: 3 participants with a diagnosis and 2 without: the smallest p is 0.100"
    claims = pd.DataFrame(
        {
            "id": ["C2", "C3", "C3b"],
            "test": ["discriminability_difference", "diagnosis_effect", "diagnosis_effect"],
            "verdict": ["not testable", "not testable", "not testable"],
            "detail": ["not testable: other", why, why],
        }
    )
    assert untestable_reason(claims, "diagnosis_effect") == why.removeprefix("not testable: ")
    one_tested = claims.assign(verdict=["not testable", "inconclusive", "not testable"])
    assert untestable_reason(one_tested, "diagnosis_effect") is None
    assert untestable_reason(claims, "turn_drift") is None  # no claim of that test


def test_the_diagnosis_metrics_without_an_estimate_are_named_with_their_fit():
    from eibench.report.stats_numbers import no_estimate_metrics

    diag = pd.DataFrame(
        {
            "metric": ["binary_om_acc", "emotion_f1", "evaluation"],
            "adjusted_effect": [float("nan"), -0.05, float("nan")],
            "mixed_model_note": ["did not converge (MixedLM optimization failed)", "", "singular fit (x)"],
        }
    ).set_index("metric")
    assert (
        no_estimate_metrics(diag)
        == "Binary OM accuracy (did not converge) and Evaluation quality pillar (singular fit)"
    )
    assert no_estimate_metrics(diag.assign(adjusted_effect=0.1)) == "none"


def test_topics_too_small_to_test_count_both_sides():
    from eibench.report.stats_numbers import testable_topics

    topics = pd.DataFrame({"category": list("abcd"), "n_conversations": [7, 3, 5, 2]})
    assert testable_topics(topics).tolist() == [True, False, True, False]
    assert testable_topics(topics.assign(n_conversations=[6, 4, 0, 0])).tolist() == [False, False, False, False]


def test_a_bootstrap_p_of_zero_prints_the_bound_of_its_resamples():
    from eibench.report.numbers import fmt_p_bounded

    assert fmt_p_bounded(0.0, 0.016) == "< 0.016"
    assert fmt_p_bounded(0.0, 2 / 500) == "< 0.004"
    assert fmt_p_bounded(0.0, 2 / 600) == "< 0.004"  # rounded up, never down
    assert fmt_p_bounded(0.0, 0.001) == "< 0.001"  # 2,000 resamples: as before
    assert fmt_p_bounded(0.0, float("nan")) == "< 0.001"  # no bound known (a permutation p is never 0)
    assert fmt_p_bounded(0.03, 0.004) == "0.030"
    assert fmt_p_bounded(float("nan"), float("nan")) == "–"


def test_the_diagnosis_reasons_are_given_once_each():
    """Release build on ESConv's chats: C3's reason joins "emotion_f1 has no value" and "no
    participant's diagnosis is recorded", C3b's is the latter alone; joined whole, the topics
    section and figure subgroups said the second twice."""
    from eibench.report.stats_numbers import reason_parts, untestable_reason

    absent = "emotion_f1 has no value in this cohort (its annotation kind is absent)"
    unrecorded = "no participant's diagnosis is recorded: the profiles of all 1300 give no traits"
    claims = pd.DataFrame(
        {
            "id": ["C3", "C3b"],
            "test": ["diagnosis_effect", "diagnosis_effect"],
            "verdict": ["not testable", "not testable"],
            "detail": [f"not testable: {absent}; {unrecorded}", f"not testable: {unrecorded}"],
        }
    )
    assert untestable_reason(claims, "diagnosis_effect") == f"{absent}; {unrecorded}"
    assert reason_parts("a (x; y); b;  c ") == ["a (x; y)", "b", "c"]


def test_the_gold_base_rate_of_behaviour_judgements():
    """What answering no throughout earns, pooled over the gold yes/no judgements (na and
    missing are not scored), and whether no is the more common answer of every question."""
    judgements = pd.DataFrame(
        {
            "question_id": ["B1", "B1", "B1", "B2", "B2", "B2", "B2"],
            "gold_om": ["no", "no", "yes", "no", "yes", "na", None],
        }
    )
    nums = Numbers(scripts={"ingest_conversations": "workflow/scripts/ingest_conversations.py"})
    bn.add_gold_base_rate(nums, judgements)
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert e["gold.n_om_judgements"] == 5
    assert e["gold.pct_om_no"] == pytest.approx(60.0) and e["gold.pct_om_yes"] == pytest.approx(40.0)
    assert e["gold.om_no_every_question"] is False  # B2 is a tie
    nums = Numbers(scripts={"ingest_conversations": "workflow/scripts/ingest_conversations.py"})
    bn.add_gold_base_rate(nums, judgements.iloc[:3])
    assert nums.entries["gold.om_no_every_question"]["value"] is True
    nums = Numbers(scripts={"ingest_conversations": "workflow/scripts/ingest_conversations.py"})
    bn.add_gold_base_rate(nums, judgements.iloc[5:])
    assert nums.entries["gold.n_om_judgements"]["value"] == 0
    assert (
        math.isnan(nums.entries["gold.pct_om_no"]["value"])
        and nums.entries["gold.om_no_every_question"]["value"] is False
    )


def test_the_gold_base_rate_by_third_of_the_turns():
    """The release audit: every compared entry's behaviour accuracy rose from early to late turns,
    the constant all-no baseline's too, because the gold's share of yes fell (16.7 % to 12.0 %)."""
    judgements = pd.DataFrame(
        {
            "conversation_id": ["a", "a", "a", "a", "b"],
            "turn_number": [1, 1, 2, 3, 3],
            "question_id": ["B1", "B2", "B1", "B1", "B1"],
            "gold_om": ["yes", "no", "yes", "no", "na"],
        }
    )
    turns = pd.DataFrame(
        {"conversation_id": ["a", "a", "a", "b"], "turn_number": [1, 2, 3, 3], "rel_position": [0.0, 0.5, 1.0, 1.0]}
    )
    nums = Numbers(scripts={"ingest_conversations": "workflow/scripts/ingest_conversations.py"})
    bn.add_gold_base_rate(nums, judgements, turns)
    e = {k: v["value"] for k, v in nums.entries.items()}
    assert e["gold.pct_om_yes_early"] == pytest.approx(50.0)  # turn 1: yes, no
    assert e["gold.pct_om_yes_middle"] == pytest.approx(100.0)  # turn 2: yes
    assert e["gold.pct_om_yes_late"] == pytest.approx(0.0)  # turn 3: no (b's na is not scored)


def test_the_gold_base_rate_by_third_is_written_without_judgements():
    """A cohort without behaviour judgements (mood tags only) still gets the three keys the
    paper reads, as missing values."""
    nums = Numbers(scripts={"ingest_conversations": "workflow/scripts/ingest_conversations.py"})
    empty = pd.DataFrame({"conversation_id": [], "turn_number": [], "question_id": [], "gold_om": []})
    turns = pd.DataFrame({"conversation_id": ["a"], "turn_number": [1], "rel_position": [0.0]})
    bn.add_gold_base_rate(nums, empty.astype({"turn_number": "int64"}), turns)
    for third in ("early", "middle", "late"):
        assert math.isnan(nums.entries[f"gold.pct_om_yes_{third}"]["value"])

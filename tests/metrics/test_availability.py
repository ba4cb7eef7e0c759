"""A cohort without a kind of annotation: its metrics are undefined, never a parity default.

The fixture cohort here has behaviour judgements (observed only) and nothing else, the shape of
the adapted ESConv cohort (docs/esconv.md)."""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest
from eibench.metrics.availability import KINDS, absent_kinds, conversations_with_values, undefined_metrics
from eibench.metrics.registry import ANALYSABLE, data_dictionary
from eibench.metrics.score import model_summary, score_rule_sets
from eibench.release.read import list_json_files, read_conversations, read_em_outputs
from eibench.release.tidy import em_tables, gold_tables
from eibench.release.write import write_json

from ..conftest import RELEASE

JUDGEMENTS = [{"questionId": "B1", "observedBehavior": "yes"}, {"questionId": "B2", "observedBehavior": "no"}]


def _tables(tmp_path, n_conversations=2):
    (tmp_path / "g").mkdir()
    (tmp_path / "e").mkdir()
    for c in range(1, n_conversations + 1):
        turns = [
            {"turnNumber": t, "userMessage": "u", "llmResponse": "r", "annotations": {"binaryJudgements": JUDGEMENTS}}
            for t in (1, 2)
        ]
        write_json({"conversationId": f"c{c}", "turns": turns}, tmp_path / "g" / f"c{c}.json")
        # Answers B1 right and B2 wrong at every turn: OM accuracy 0.5.
        em = [
            {
                "turnNumber": t,
                "em_emotion_tags": [],
                "em_binary_om_assessment": {"B1": "yes", "B2": "yes"},
                "em_binary_human_prediction": {"B1": "yes", "B2": "yes"},
                "em_pairwise_selections": {},
            }
            for t in (1, 2)
        ]
        write_json(
            {"conversationId": f"c{c}", "em_model": "m", "mode": "default", "turns": em}, tmp_path / "e" / f"c{c}.json"
        )
    gold = gold_tables(read_conversations(list_json_files(tmp_path / "g")))
    em = em_tables(read_em_outputs(list_json_files(tmp_path / "e"), "m", "default"))
    return gold, em


def test_a_complete_release_lacks_only_the_extension():
    # Every kind of the published instrument; post-chat ratings are an extension (ESConv has them).
    gold = gold_tables(read_conversations(list_json_files(RELEASE / "valid")))
    assert absent_kinds(gold) == ("post_chat_ratings",)


def test_absent_kinds_are_named(tmp_path):
    gold, _ = _tables(tmp_path)
    assert absent_kinds(gold) == (
        "mood_tags",
        "preferred_behaviour",
        "pairwise_comparisons",
        "panas_totals",
        "panas_items",
        "survey",
        "four_branch",
        "post_chat_ratings",
    )


@pytest.mark.parametrize("rule_set", ["parity", "strict"])
def test_metrics_of_absent_kinds_are_nan_and_the_composite_renormalises(tmp_path, rule_set):
    gold, em = _tables(tmp_path)
    s = score_rule_sets(gold, em, (rule_set,))[rule_set]
    undefined = undefined_metrics(absent_kinds(gold))
    for frame in (s.turn, s.conversation):
        for name in undefined:
            if name in frame:
                assert frame[name].isna().all(), (rule_set, name)
    c = s.conversation
    assert (c["binary_om_acc"] == 0.5).all()
    # Tracking and holistic undefined; evaluation = its binary half only (HP undefined, no pairwise).
    assert c["tracking"].isna().all() and c["holistic"].isna().all()
    assert (c["evaluation"] == 0.5).all() and (c["composite"] == 50.0).all()
    assert (c["composite_parts"] == 1).all()
    rules = dict(zip(s.rule_counts["rule"], s.rule_counts["description"]))
    assert (
        "annotation_absent_from_cohort:mood_tags" in rules
        and "moodShiftTags" in rules["annotation_absent_from_cohort:mood_tags"]
    )
    # Parity rules of an absent kind would only count its absence at every turn: not reported.
    assert not [r for r in rules if r.startswith(("pairwise_", "kendall_tau_", "four_branch_", "binary_hp_"))]
    assert "binary_om_turn_without_judgements" in rules
    reasons = set(s.missing.query("metric == 'pairwise_acc'")["reason"])
    assert reasons == {"the cohort has no pairwise comparisons (pairwiseComparisons) in any conversation"}
    summary = model_summary(s.turn, s.conversation, 2).set_index("metric")["mean"]
    assert math.isnan(summary["hp_f1"]) and summary["om_precision"] == 0.5


def test_a_kind_present_in_one_conversation_keeps_the_parity_default(tmp_path):
    gold, em = _tables(tmp_path)
    # Give one (unscored) conversation a pairwise comparison: the kind is present in the cohort.
    extra = gold["pairwise_comparisons"].iloc[:0].copy()
    extra.loc[0] = {
        "conversation_id": "c9",
        "turn_number": 1,
        "position": 0,
        "question_id": "general",
        "response_a": "original",
        "response_b": "alternate",
        "winner": "A",
        "winner_label": "original",
    }
    gold["pairwise_comparisons"] = extra.astype(gold["pairwise_comparisons"].dtypes.to_dict())
    assert "pairwise_comparisons" not in absent_kinds(gold)
    s = score_rule_sets(gold, em, ("parity",))["parity"]
    assert (s.conversation["pairwise_acc"] == 1.0).all()  # the official default for a turn without comparisons


def test_every_kind_names_existing_metrics():
    from eibench.metrics.registry import METRICS

    names = {m.name for m in METRICS}
    for kind in KINDS:
        assert set(kind.metrics) <= names, kind.name


def test_conversations_with_values_count_what_the_cohort_can_score(tmp_path):
    """Table 1's column: per metric, the conversations in which some model has a value; a kind
    the cohort lacks gives 0; a metric that is no column (a pooled statistic) is refused."""
    gold, em = _tables(tmp_path, n_conversations=3)
    conv = score_rule_sets(gold, em, ("parity",))["parity"].conversation
    counts = conversations_with_values(conv, ANALYSABLE)
    assert counts["binary_om_acc"] == counts["composite"] == 3
    assert counts["emotion_f1"] == counts["pairwise_acc"] == counts["four_branch"] == 0
    with pytest.raises(KeyError, match="om_f1"):
        conversations_with_values(conv, ["binary_om_acc", "om_f1"])
    # Conversations, not rows: two models with a value in c1 count it once; c3 has none.
    two = pd.DataFrame(
        {
            "conversation_id": ["c1", "c2", "c3", "c1", "c2", "c3"],
            "em_model": ["a", "a", "a", "b", "b", "b"],
            "x": [0.5, None, None, 0.1, 0.2, None],
        }
    )
    assert conversations_with_values(two, ["x"]) == {"x": 2}
    # Only the rows of the mode and rule set asked for: c3's value under strict does not count.
    three = pd.concat([two.assign(mode="default", rule_set="parity"), two.assign(mode="default", rule_set="strict")])
    three.loc[(three["rule_set"] == "strict") & (three["conversation_id"] == "c3"), "x"] = 0.3
    assert conversations_with_values(three, ["x"], "default", "parity") == {"x": 2}
    assert conversations_with_values(three, ["x"], "default", "strict") == {"x": 3}
    assert conversations_with_values(three, ["x"], "verbose", "parity") == {"x": 0}
    assert conversations_with_values(two.iloc[:0], ["x"]) == {"x": 0}
    table = data_dictionary(None, counts).set_index("name")["n_conversations_with_values"]
    assert table["emotion_f1"] == 0 and table["binary_om_acc"] == 3 and pd.isna(table["om_f1"])
    assert data_dictionary()["n_conversations_with_values"].isna().all()


def test_the_item_level_panas_definitions_hold_for_a_cohort_with_fewer_items():
    """Table 1 prints the data dictionary's definitions on every cohort; ESConv's conversations
    have one PANAS item each (public/esconv.py, EMOTION_PANAS), so the item-level PANAS
    definitions name no fixed number of items."""
    table = data_dictionary().set_index("name")
    for name in ("panas_items_adjusted", "panas_items_normalized"):
        definition = table.loc[name, "definition"]
        assert "items" in definition and not re.search(r"\b\d+ items", definition), definition

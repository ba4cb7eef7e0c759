"""Post-chat ratings (the release-format extension ESConv fills): hand fixtures for the metric,
its rule sets, the holistic pillar it enters, and proof that a cohort without them scores
exactly as before."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from eibench.metrics.composite import HOLISTIC_WEIGHTS, PILLAR_WEIGHTS, add_pillars
from eibench.metrics.score import score_rule_sets
from eibench.release.read import list_json_files, read_conversations, read_em_outputs
from eibench.release.tidy import em_tables, gold_tables
from eibench.release.write import write_json

from ..conftest import RELEASE

JUDGEMENTS = [{"questionId": "B1", "observedBehavior": "yes"}, {"questionId": "B2", "observedBehavior": "no"}]


def _cohort(tmp_path, gold_ratings: dict[str, dict | None], predicted: dict[str, dict | None]):
    """Conversations with two judged turns (the EM answers B1 right, B2 wrong: OM accuracy 0.5),
    the given gold ``postChatRatings`` and predicted ratings (None: field left out)."""
    (tmp_path / "g").mkdir()
    (tmp_path / "e").mkdir()
    for cid, ratings in gold_ratings.items():
        turns = [
            {"turnNumber": t, "userMessage": "u", "llmResponse": "r", "annotations": {"binaryJudgements": JUDGEMENTS}}
            for t in (1, 2)
        ]
        conv = {"conversationId": cid, "turns": turns}
        if ratings is not None:
            conv["postChatRatings"] = ratings
        write_json(conv, tmp_path / "g" / f"{cid}.json")
        em = [
            {
                "turnNumber": t,
                "em_emotion_tags": [],
                "em_binary_om_assessment": {"B1": "yes", "B2": "yes"},
                "em_binary_human_prediction": {},
                "em_pairwise_selections": {},
            }
            for t in (1, 2)
        ]
        out = {"conversationId": cid, "em_model": "m", "mode": "default", "turns": em}
        if predicted.get(cid) is not None:
            out["post_conversation"] = {"predicted_post_chat_ratings": predicted[cid]}
        write_json(out, tmp_path / "e" / f"{cid}.json")
    gold = gold_tables(read_conversations(list_json_files(tmp_path / "g")))
    em = em_tables(read_em_outputs(list_json_files(tmp_path / "e"), "m", "default"))
    return gold, em


def _scores(tmp_path, gold_ratings, predicted, rule_set):
    gold, em = _cohort(tmp_path, gold_ratings, predicted)
    s = score_rule_sets(gold, em, (rule_set,))[rule_set]
    return s.conversation.set_index("conversation_id"), dict(zip(s.rule_counts["rule"], s.rule_counts["count"]))


@pytest.mark.parametrize("rule_set", ["parity", "strict"])
def test_mae_and_normalised_score_by_hand(tmp_path, rule_set):
    c, _ = _scores(tmp_path, {"c1": {"empathy": 4, "relevance": 2}}, {"c1": {"empathy": 5, "relevance": 2}}, rule_set)
    assert c.loc["c1", "post_chat_ratings_mae"] == pytest.approx(0.5)
    assert c.loc["c1", "post_chat_ratings"] == pytest.approx(1 - 0.5 / 4)


@pytest.mark.parametrize("rule_set, expected_error", [("parity", abs(1 - 3)), ("strict", abs(1 - 5))])
def test_a_missing_prediction_is_the_midpoint_under_parity_and_the_worst_under_strict(
    tmp_path, rule_set, expected_error
):
    c, counts = _scores(tmp_path, {"c1": {"empathy": 1, "relevance": 3}}, {"c1": {"relevance": 3}}, rule_set)
    assert c.loc["c1", "post_chat_ratings_mae"] == pytest.approx(expected_error / 2)
    assert counts["post_chat_ratings_prediction_missing"] == 1


def test_a_prediction_outside_the_scale_is_clamped(tmp_path):
    c, _ = _scores(tmp_path, {"c1": {"empathy": 5, "relevance": 1}}, {"c1": {"empathy": 7, "relevance": -2}}, "strict")
    assert c.loc["c1", "post_chat_ratings_mae"] == 0.0


@pytest.mark.parametrize("rule_set", ["parity", "strict"])
def test_a_conversation_without_gold_ratings_is_undefined_under_both_rule_sets(tmp_path, rule_set):
    # Unlike four-branch (parity score 1 without gold): no official scorer defines this case.
    c, counts = _scores(
        tmp_path, {"c1": {"empathy": 4}, "c2": None}, {"c1": {"empathy": 4}, "c2": {"empathy": 4}}, rule_set
    )
    assert c.loc["c1", "post_chat_ratings"] == 1.0 and math.isnan(c.loc["c2", "post_chat_ratings"])
    assert counts["post_chat_ratings_no_gold"] == 1
    # c2 keeps its composite from the evaluation pillar alone.
    assert c.loc["c2", "composite"] == 50.0 and c.loc["c2", "composite_parts"] == 1


def test_the_ratings_are_the_holistic_pillar_of_a_cohort_that_has_only_them(tmp_path):
    c, counts = _scores(
        tmp_path, {"c1": {"empathy": 4, "relevance": 2}}, {"c1": {"empathy": 3, "relevance": 2}}, "parity"
    )
    score = 1 - (1 / 4) / 2
    assert c.loc["c1", "holistic"] == pytest.approx(score)
    expected = (
        100
        * (PILLAR_WEIGHTS["evaluation"] * 0.5 + PILLAR_WEIGHTS["holistic"] * score)
        / (PILLAR_WEIGHTS["evaluation"] + PILLAR_WEIGHTS["holistic"])
    )
    assert c.loc["c1", "composite"] == round(expected, 2)
    assert c.loc["c1", "composite_parts"] == 2
    assert "annotation_absent_from_cohort:post_chat_ratings" not in counts


def test_a_cohort_without_ratings_keeps_the_published_formula():
    """The valid release fixtures have every published kind and no post-chat ratings: the
    holistic pillar and composite equal 0.4/0.3/0.3 and 0.24/0.49/0.27 exactly."""
    gold = gold_tables(read_conversations(list_json_files(RELEASE / "valid")))
    em = em_tables(read_em_outputs(list_json_files(RELEASE / "em_valid"), "model-x", "default"))
    conv = score_rule_sets(gold, em, ("parity",))["parity"].conversation
    assert conv["post_chat_ratings"].isna().all()
    published = {k: w for k, w in HOLISTIC_WEIGHTS.items() if k != "post_chat_ratings"}
    assert published == {"panas_part": 0.4, "conversation_wide": 0.3, "four_branch": 0.3}
    parts = conv[list(published)].to_numpy(float)
    w = np.array(list(published.values()))
    present = ~np.isnan(parts)
    holistic = np.nansum(parts * w, axis=1) / (present * w).sum(axis=1)
    assert np.array_equal(conv["holistic"].to_numpy(float), holistic, equal_nan=True)


def test_their_absence_is_not_reported_as_a_missing_kind():
    """An extension is absent from every cohort of the published instrument: its metrics are NaN
    with a reason, but no rule count says the cohort lacks it (the paper's rule table and
    'absent kinds' stay those of the published instrument)."""
    gold = gold_tables(read_conversations(list_json_files(RELEASE / "valid")))
    em = em_tables(read_em_outputs(list_json_files(RELEASE / "em_valid"), "model-x", "default"))
    s = score_rule_sets(gold, em, ("parity", "strict"))
    for scores in s.values():
        assert not [r for r in scores.rule_counts["rule"] if "post_chat_ratings" in r]
        reasons = set(scores.missing.query("metric == 'post_chat_ratings'")["reason"])
        assert reasons == {
            "the cohort has no post-chat ratings of the assistant (postChatRatings, an extension) in any conversation"
        }


def test_a_table_written_before_the_extension_reads_the_part_as_missing():
    """add_pillars on a conversation table without the post_chat_ratings column (a rescored
    table from before the extension) gives the composite of the published formula."""
    gold = gold_tables(read_conversations(list_json_files(RELEASE / "valid")))
    em = em_tables(read_em_outputs(list_json_files(RELEASE / "em_valid"), "model-x", "default"))
    conv = score_rule_sets(gold, em, ("parity",))["parity"].conversation
    old = add_pillars(conv.drop(columns=["post_chat_ratings", "post_chat_ratings_mae"]))
    assert "post_chat_ratings" not in old.columns
    for column in ("holistic", "composite", "composite_equal", "composite_parts"):
        pd.testing.assert_series_equal(old[column], conv[column])


def test_a_rating_given_twice_is_an_error(tmp_path):
    from eibench.release.read import ReleaseFormatError

    write_json(
        {
            "conversationId": "c1",
            "postChatRatings": {"Empathy": 3, "empathy": 5},
            "turns": [{"turnNumber": 1, "userMessage": "u", "llmResponse": "r"}],
        },
        tmp_path / "c1.json",
    )
    with pytest.raises(ReleaseFormatError, match="given twice"):
        read_conversations(list_json_files(tmp_path))


def test_the_registry_marks_every_part_of_the_composite():
    """The registry's ``in_composite`` (the data dictionary's column, which picks Table 1's rows)
    is true of what the composite is made of: a cohort with post-chat ratings has a holistic
    pillar of them (HOLISTIC_WEIGHTS), yet the registry said post_chat_ratings was no part of
    the composite, so Table 1 left out a third of the headline score on such a cohort."""
    from eibench.metrics.composite import COMPOSITE_PARTS, EXTENSION_PARTS
    from eibench.metrics.registry import METRICS, data_dictionary

    tracking = {"emotion_f1", "emotion_va"}  # the tracking pillar's parts (metrics.score)
    parts = (set(COMPOSITE_PARTS) - {"tracking"}) | tracking | {"composite"}
    assert {m.name for m in METRICS if m.in_composite} == parts
    assert set(EXTENSION_PARTS) <= {m.name for m in METRICS if m.extension}
    assert not {m.name for m in METRICS if m.extension} - {"post_chat_ratings", "post_chat_ratings_mae"}
    table = data_dictionary().set_index("name")
    assert table.loc["post_chat_ratings", "in_composite"] and table.loc["post_chat_ratings", "extension"]
    assert not table.loc["four_branch", "extension"]
    equal = table.loc["composite_equal", "definition"]
    assert "post-chat ratings" in equal  # its conversation-level average includes them too

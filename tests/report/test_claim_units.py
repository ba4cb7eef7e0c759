"""The units column of the claims table (eibench.report.claim_units)."""

from __future__ import annotations

import pytest
import yaml
from eibench.report.claim_units import claim_unit, claim_units

from ..conftest import REPO


def test_every_declared_claim_of_every_config_has_a_unit():
    for name in ("config.yaml", "esconv.yaml"):
        claims = yaml.safe_load((REPO / "config" / name).read_text())["statistics"]["claims"]
        units = claim_units([c["id"] for c in claims], claims)
        assert len(units) == len(claims) and all(units)


def test_the_unit_names_the_metric_and_its_scale():
    assert claim_unit({"id": "C5", "test": "topic_hardest", "params": {"metric": "composite"}}) == (
        "Composite (points, 0 to 100): topic minus the other topics"
    )
    assert "Emotion F1 (proportion, 0 to 1)" in claim_unit(
        {"id": "C3", "test": "diagnosis_effect", "params": {"metric": "emotion_f1"}}
    )
    assert "tau-b" in claim_unit({"id": "C1", "test": "rank_independence", "params": {}})


def test_an_unknown_test_or_an_undeclared_claim_is_an_error():
    with pytest.raises(ValueError, match="'X1'.*'new_test'"):
        claim_unit({"id": "X1", "test": "new_test"})
    with pytest.raises(KeyError, match="C9"):
        claim_units(["C9"], [])


def test_a_rank_claim_over_one_pair_has_no_median():
    """ESConv's E3 names two metrics, one pair: its unit said 'median |Kendall tau-b| over metric
    pairs', a median of one value over pairs it does not have."""
    one = claim_unit({"id": "E3", "test": "rank_independence", "params": {"metrics": ["a", "b"]}})
    assert one == "|Kendall tau-b| of its one metric pair (0 to 1)"
    many = claim_unit({"id": "C1", "test": "rank_independence", "params": {"metrics": ["a", "b", "c"]}})
    assert many == "median |Kendall tau-b| over metric pairs (0 to 1)"


def test_a_human_claims_share_says_which_models_it_counts():
    """The estimate is the share of the compared models whose difference from the raters lies on
    the claimed side, on the raters' conversations: the quantity whose noise-free value the truth
    table sets beside it (it was the share the Holm-adjusted tests separate, another quantity)."""
    better = claim_unit({"id": "C7", "test": "humans_vs_models", "params": {"direction": "humans_better"}})
    worse = claim_unit({"id": "C7b", "test": "humans_vs_models", "params": {"direction": "models_better"}})
    assert (
        better == "share of the compared models the raters do better than on the conversations they labelled (0 to 1)"
    )
    assert worse == "share of the compared models the raters do worse than on the conversations they labelled (0 to 1)"

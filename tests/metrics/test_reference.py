"""The mean-drop reference predictor (docs/esconv.md, section 5) scores as the scorer would
score a model that made its predictions."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from eibench.metrics.reference import mean_drop_reference
from eibench.metrics.score import score_rule_sets
from eibench.release.read import list_json_files, read_conversations, read_em_outputs
from eibench.release.tidy import em_tables, gold_tables
from eibench.release.write import write_json

from ..conftest import RELEASE


def test_the_reference_is_the_scorers_panas_items_adjusted_of_its_predictions(tmp_path):
    gold = gold_tables(read_conversations(list_json_files(RELEASE / "valid")))
    items = gold["panas_items"]
    reference = mean_drop_reference(items).set_index("conversation_id")
    assert len(reference) == 2 and reference["score"].notna().all()  # the release's two conversations with pairs
    pre = items[items["phase"] == "pre"]
    for cid, rows in pre.groupby("conversation_id"):
        d = reference.loc[cid, "mean_drop"] if cid in reference.index else 0.0
        predicted = {r.item: float(np.clip(r.value - d, 1, 7)) for r in rows.itertuples()}
        write_json(
            {
                "conversationId": cid,
                "em_model": "ref",
                "mode": "default",
                "turns": [],
                "post_conversation": {"predicted_post_panas": {"items": predicted}},
            },
            tmp_path / f"{cid}.json",
        )
    em = em_tables(read_em_outputs(list_json_files(tmp_path), "ref", "default"))
    conv = score_rule_sets(gold, em, ("parity",))["parity"].conversation.set_index("conversation_id")
    scored = conv.loc[reference.index, "panas_items_adjusted"]
    assert np.allclose(scored.to_numpy(float), reference["score"].to_numpy(float), atol=1e-12, equal_nan=False)


def test_the_drop_is_left_one_conversation_out():
    rows = [
        ("a", "pre", "Upset", 6.0),
        ("a", "post", "Upset", 2.0),  # drop 4
        ("b", "pre", "Upset", 5.0),
        ("b", "post", "Upset", 4.0),  # drop 1
        ("c", "pre", "Afraid", 7.0),
        ("c", "post", "Afraid", 5.0),  # drop 2
        ("c", "pre", "Upset", 3.0),
        ("c", "post", "Upset", 3.0),  # drop 0: post equals pre, no score for this item
        ("d", "pre", "Upset", 4.0),  # no post value: not scored, no drop
    ]
    items = pd.DataFrame(rows, columns=["conversation_id", "phase", "item", "value"])
    out = mean_drop_reference(items).set_index("conversation_id")
    assert list(out.index) == ["a", "b", "c"] and list(out["n_items"]) == [1, 1, 2] and list(out["n_down"]) == [1, 1, 1]
    assert out.loc["a", "mean_drop"] == (1 + 2 + 0) / 3 and out.loc["c", "mean_drop"] == (4 + 1) / 2
    # a: predicted 6 - 1 = 5, post 2: raw 1 - 3/6 = 0.5, naive 1 - 4/6; (0.5 - 1/3) / (2/3) = 0.25.
    assert math.isclose(out.loc["a", "score"], 0.25)
    # c: Afraid predicted 7 - 2.5 = 4.5, post 5: raw 1 - 0.5/6, naive 1 - 2/6: (1.5/6) / (2/6) = 0.75.
    assert math.isclose(out.loc["c", "score"], 0.75)
    lone = mean_drop_reference(items[items["conversation_id"] == "a"])
    assert len(lone) == 1 and math.isnan(lone["mean_drop"].iloc[0]) and math.isnan(lone["score"].iloc[0])
    assert mean_drop_reference(items.iloc[:0]).empty and mean_drop_reference(items[items["phase"] == "pre"]).empty

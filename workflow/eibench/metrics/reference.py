"""Reference predictors that need no model: what a metric gives for a rule of thumb.

``mean_drop_reference`` is the one docs/esconv.md (section 5) asks an ESConv paper to report
beside the baselines: in every ESConv conversation with both values, the seeker's emotion
intensity went down, so the naive "no change" predictor that the baseline-adjusted PANAS score
adjusts for is always wrong, and a constant "it goes down by the mean drop" predictor is the
bar a model's ``panas_items_adjusted`` should be read against.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .holistic import baseline_adjusted

#: The PANAS items' scale, as the scorer clips a predicted item and bounds its error.
ITEM_LOW, ITEM_HIGH = 1.0, 7.0


def mean_drop_reference(panas_items: pd.DataFrame) -> pd.DataFrame:
    """The mean-drop predictor of the gold ``panas_items`` table (conversation_id, phase 'pre'
    or 'post', item, value on 1..7), scored as ``panas_items_adjusted``.

    For conversation c, every item with a pre-chat value v is predicted at v - d, clipped to
    1..7 as the parity and strict rule sets clip predicted items (the port setting,
    ``scoring.compat: port``, does not clip: this reference is the paper's, under parity),
    where d (item points) is the mean drop, pre minus post, over the item pairs of the *other*
    conversations (leave one conversation out: the predictor knows the population, not the
    person). Each pair is scored with the scorer's ``baseline_adjusted`` (maximum error 6) and a
    conversation's score is the mean over its items with a score (an item whose post equals its
    pre has none).

    One row per conversation with at least one item given both before and after the chat:
    conversation_id, n_items (such pairs), n_down (those whose post is below the pre),
    mean_drop (d; NaN when no other conversation has a pair) and score (-1..1; NaN without d or
    when every pair's post equals its pre). An empty table or one without pairs gives no rows.
    The predictor is given the pre-chat values, which a model is shown only when asked to
    predict the change."""
    columns = ["conversation_id", "n_items", "n_down", "mean_drop", "score"]
    pre = panas_items[panas_items["phase"] == "pre"].set_index(["conversation_id", "item"])["value"]
    post = panas_items[panas_items["phase"] == "post"].set_index(["conversation_id", "item"])["value"]
    pairs = pd.concat({"pre": pre, "post": post}, axis=1, join="inner").dropna()
    if pairs.empty:
        return pd.DataFrame(columns=columns).astype(
            {"n_items": "int64", "n_down": "int64", "mean_drop": float, "score": float}
        )
    pairs = pairs.reset_index()
    pairs["drop"] = pairs["pre"] - pairs["post"]
    pairs["down"] = pairs["drop"] > 0
    per_conv = pairs.groupby("conversation_id", sort=True)["drop"].agg(["sum", "count"])
    others_n = per_conv["count"].sum() - per_conv["count"]
    drop_of = (per_conv["sum"].sum() - per_conv["sum"]) / others_n.where(others_n > 0)
    d = pairs["conversation_id"].map(drop_of).to_numpy(float)
    pre_v, post_v = pairs["pre"].to_numpy(float), pairs["post"].to_numpy(float)
    predicted = np.clip(pre_v - d, ITEM_LOW, ITEM_HIGH)  # NaN stays NaN
    pairs["score"] = baseline_adjusted(post_v, pre_v, predicted, ITEM_HIGH - ITEM_LOW)
    out = pairs.groupby("conversation_id", sort=True).agg(
        n_items=("drop", "size"), n_down=("down", "sum"), score=("score", "mean")
    )
    out["mean_drop"] = drop_of
    return out.reset_index()[columns]

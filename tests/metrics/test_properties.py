"""Property tests of the metric kernels: bounds, symmetry, identity, monotonicity."""

from __future__ import annotations

import numpy as np
import pandas as pd
from eibench import instrument
from eibench.metrics.composite import add_pillars
from eibench.metrics.emotion import Tags, emotion_scores
from eibench.metrics.labels import fuzzy_f1, greedy_match_sum, optimal_match_sum, set_f1, va_similarity_matrix
from hypothesis import given, settings
from hypothesis import strategies as st

WORDS = [i.word for i in instrument.panas_items()] + ["exhausted"]
tags = st.lists(st.tuples(st.sampled_from(WORDS), st.one_of(st.none(), st.integers(1, 7))), max_size=5)


def _tags(items, vocab):
    frame = pd.DataFrame(
        {
            "emotion": pd.array([w for w, _ in items], dtype="string"),
            "tag_index": range(len(items)),
            "intensity": pd.array([i for _, i in items], dtype="Int64"),
        }
    )
    return Tags.from_table(frame, np.zeros(len(items), dtype=np.int64), vocab)


def _emotion(gold, pred, matching="optimal"):
    vocab = pd.Index(WORDS, dtype=object)
    out = emotion_scores(_tags(gold, vocab), _tags(pred, vocab), 1, vocab, matching)
    return {k: float(v[0]) for k, v in out.items()}


@settings(max_examples=300, deadline=None)
@given(tags, tags)
def test_bounds_and_symmetry(gold, pred):
    a, b = _emotion(gold, pred), _emotion(pred, gold)
    for metric, value in a.items():
        assert -1e-12 <= value <= 1 + 1e-12, metric
    assert abs(a["emotion_f1"] - b["emotion_f1"]) < 1e-12
    assert abs(a["emotion_va"] - b["emotion_va"]) < 1e-12
    assert abs(a["emotion_va_intensity"] - b["emotion_va_intensity"]) < 1e-12


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WORDS[:-1]), max_size=5), st.lists(st.sampled_from(WORDS[:-1]), max_size=5))
def test_va_is_one_exactly_when_the_multisets_match(gold, pred):
    va = _emotion([(w, 4) for w in gold], [(w, 4) for w in pred])["emotion_va"]
    assert (abs(va - 1.0) < 1e-12) == (sorted(gold) == sorted(pred))


@settings(max_examples=300, deadline=None)
@given(tags, tags)
def test_optimal_match_is_never_worse_than_greedy(gold, pred):
    sim = va_similarity_matrix([w for w, _ in gold], [w for w, _ in pred])
    assert optimal_match_sum(sim) >= greedy_match_sum(sim) - 1e-12
    opt, greedy = _emotion(gold, pred)["emotion_va"], _emotion(gold, pred, "greedy")["emotion_va"]
    assert opt >= greedy - 1e-12


@given(st.sets(st.sampled_from(WORDS)), st.sets(st.sampled_from(WORDS)))
def test_set_f1_bounds_and_symmetry(a, b):
    assert 0 <= set_f1(a, b) == set_f1(b, a) <= 1
    assert set_f1(a, a) == 1.0


@given(st.lists(st.text(max_size=20), max_size=4), st.lists(st.text(max_size=20), max_size=4))
def test_fuzzy_f1_bounds_and_symmetry(a, b):
    assert 0 <= fuzzy_f1(a, b) <= 1
    assert abs(fuzzy_f1(a, b) - fuzzy_f1(b, a)) < 1e-12


parts = st.floats(0, 1, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(st.lists(parts, min_size=8, max_size=8), st.integers(0, 7), st.floats(0, 1))
def test_composite_is_monotone_in_each_part(values, which, bump):
    names = [
        "tracking",
        "binary_om_acc",
        "binary_hp_acc",
        "pairwise_acc",
        "panas_part",
        "conversation_wide",
        "four_branch",
        "post_chat_ratings",
    ]
    base = pd.DataFrame([dict(zip(names, values))])
    higher = base.copy()
    higher[names[which]] = min(1.0, values[which] + bump)
    lo, hi = add_pillars(base).iloc[0], add_pillars(higher).iloc[0]
    assert hi["composite"] >= lo["composite"]
    assert hi["composite_equal"] >= lo["composite_equal"] - 1e-12
    assert 0 <= lo["composite"] <= 100

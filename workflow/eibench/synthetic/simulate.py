"""Simulated evaluated models: predictions drawn around the gold with planted effects.

For a model m, capability k (emotion, behaviour, preference, holistic), conversation c of
participant p and turn t at relative position r in [0, 1]:

    logit = base[k] + ability[m, k] + diagnosis[k] * has_diagnosis(p) + romantic[k] * romantic(c)
            + turn_drift[k] * (r - 0.5) + u[p, k] + w[c, k] (+ mode and wording shifts)
    accuracy = sigmoid(logit)

``ability[m, :]`` ~ N(0, diag(sd) R diag(sd)) per model, drawn from (seed, model name), so a
model's draws never depend on which other models are listed. ``u`` and ``w`` (participant and
conversation difficulty) are shared by all models. How each answer uses its accuracy is in
docs/synthetic-cohort.md. Behaviour -> binary OM answers; preference -> binary HP answers and
pairwise picks; emotion -> tags and intensities; holistic -> post PANAS, conversation-wide
answers and four-branch ratings.
"""

from __future__ import annotations

import bisect
import functools
import math
from collections import defaultdict
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from .. import instrument
from ..seeding import rng_for
from ..tables import with_none
from . import templates

CAPABILITIES = ("emotion", "behaviour", "preference", "holistic")
PROMPT_VERSION = "simulated-v1"


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


@dataclass(frozen=True)
class SimulatedModel:
    name: str
    profile: str  # "model" or "human"
    ability: dict[str, float]  # logits, per capability


def draw_ability(name: str, profile: str, sim: dict[str, Any], seed: int) -> SimulatedModel:
    """Draw a model's (or human rater's) latent abilities from (seed, name)."""
    rng = rng_for(seed, "ability", name)
    if profile == "human":
        mean = np.array([sim["human"]["ability_mean"][k] for k in CAPABILITIES])
        vec = mean + rng.normal(0.0, sim["human"]["rater_sd"], size=4)
    else:
        sd = np.array([sim["ability_sd"][k] for k in CAPABILITIES])
        corr = np.asarray(sim["ability_correlation"], dtype=float)
        vec = rng.multivariate_normal(np.zeros(4), corr * np.outer(sd, sd), method="eigh")
    return SimulatedModel(name, profile, {k: round(float(v), 6) for k, v in zip(CAPABILITIES, vec)})


def shared_effects(ids: Iterable[str], sd: float, seed: int, what: str) -> Mapping[str, Mapping[str, float]]:
    """Random difficulty per participant or conversation, shared by all models (logits),
    read-only: the same mapping is handed to every model and redraw of a process (each id's
    generator costs about 15 microseconds, and a job that redraws every model's outputs asked
    for the same 200 conversations' difficulties hundreds of times)."""
    return _shared_effects(tuple(sorted(ids)), sd, seed, what)


@functools.lru_cache(maxsize=8)
def _shared_effects(ids: tuple[str, ...], sd: float, seed: int, what: str) -> Mapping[str, Mapping[str, float]]:
    out = {}
    for i in ids:
        rng = rng_for(seed, what, i)
        out[i] = MappingProxyType({k: float(v) for k, v in zip(CAPABILITIES, rng.normal(0.0, sd, size=4))})
    return MappingProxyType(out)


def conversation_logits_of(
    sim: dict[str, Any],
    model: SimulatedModel,
    diagnosed: float,
    romantic: float,
    participant: Mapping[str, float],
    conversation: Mapping[str, float],
    omniscient: bool,
) -> dict[str, float]:
    """The logit of every capability in one conversation at its middle (relative position 0.5,
    where the turn drift is zero): base + ability + planted diagnosis and romantic effects
    (``diagnosed``, ``romantic``: 0 or 1) + the participant's and the conversation's shared
    difficulties + the omniscient bonus in the omniscient modes. The one place of this formula,
    for the simulator and for the expected values of the truth tables."""
    eff = sim["effects"]
    return {
        k: sim["base_logit"][k]
        + model.ability[k]
        + eff["diagnosis"][k] * diagnosed
        + eff["romantic"][k] * romantic
        + participant.get(k, 0.0)
        + conversation[k]
        + (sim["omniscient_bonus"][k] if omniscient else 0.0)
        for k in CAPABILITIES
    }


def human_subset(conversation_ids: list[str], n: int, seed: int) -> list[str]:
    """The conversations the human raters label: a seeded sample, the same for every rater."""
    ids = sorted(conversation_ids)
    rng = rng_for(seed, "human-subset")
    return sorted(str(x) for x in rng.choice(ids, size=min(n, len(ids)), replace=False))


class GoldRecords:
    """The gold tables indexed once by conversation and by (conversation, turn), as plain
    records (missing values None), so each conversation is simulated without DataFrame work.
    Building it costs about as much as simulating one model (0.4 s on the default cohort):
    a caller that simulates many models or draws builds it once (:func:`indexed`)."""

    def __init__(self, tables: dict[str, pd.DataFrame]):
        self.conversations = {r.conversation_id: r for r in with_none(tables["conversations"]).itertuples(index=False)}
        # A diagnosis not recorded (has_diagnosis null) gets no planted diagnosis effect.
        self.diagnosed = {
            r.participant_id: bool(r.has_diagnosis) if pd.notna(r.has_diagnosis) else False
            for r in tables["participants"].itertuples(index=False)
        }
        self.turns = self._by(tables["turns"], turn=False)
        self.tags = self._by(tables["mood_tags"], turn=True)
        self.binary = self._by(tables["binary_judgements"], turn=True)
        self.pairwise = self._by(tables["pairwise_comparisons"], turn=True)
        self.totals = self._by(tables["panas_totals"], turn=False)
        self.items = self._by(tables["panas_items"], turn=False)
        self.survey = self._by(tables["survey_answers"], turn=False)
        self.four = self._by(tables["four_branch"], turn=False)

    @staticmethod
    def _by(df: pd.DataFrame, turn: bool) -> dict[Any, list[Any]]:
        out: dict[Any, list[Any]] = defaultdict(list)
        for r in with_none(df).itertuples(index=False):
            out[(r.conversation_id, r.turn_number) if turn else r.conversation_id].append(r)
        return out


def indexed(tables: dict[str, pd.DataFrame] | GoldRecords) -> GoldRecords:
    """The gold tables indexed once (:class:`GoldRecords`); an index passes through."""
    return tables if isinstance(tables, GoldRecords) else GoldRecords(tables)


def _clamp(value: int, low: int, high: int) -> int:
    """``value`` limited to [low, high] (np.clip's result on whole numbers, without its per-call cost)."""
    return min(max(value, low), high)


ANSWERS_WHEN_NA = ("yes", "no", "na")


def _na_cdf(when_na: list[float]) -> list[float]:
    """The cumulative probabilities of ANSWERS_WHEN_NA, normalised as ``Generator.choice(...,
    p=when_na)`` normalises them, so that one uniform picks the same answer it would."""
    cdf = np.asarray(when_na, dtype=float).cumsum()
    cdf /= cdf[-1]
    return [float(x) for x in cdf]


def _answer(u: float, gold: Any, p: float, na_cdf: list[float]) -> str:
    """The simulated yes/no answer from one uniform ``u`` in [0, 1): the gold answer with
    probability ``p``, else the other one; where the gold is missing, an answer drawn by
    ``na_cdf`` (:func:`_na_cdf`: ``Generator.choice`` compares its one uniform the same way)."""
    if gold in ("yes", "no"):
        return gold if u < p else ("no" if gold == "yes" else "yes")
    return ANSWERS_WHEN_NA[bisect.bisect_right(na_cdf, u)]


def _noise_sd(sim: dict[str, Any], what: str, p: float) -> float:
    """sd of a simulated numeric answer's error: floor + slope x (1 - accuracy)."""
    n = sim["noise"][what]
    return n["floor"] + n["slope"] * (1 - p)


@functools.lru_cache(maxsize=None)
def _neighbour_cdf(word: str, kernel: float) -> list[float]:
    """The cumulative probabilities of the PANAS items as ``word``'s neighbour (weight
    exp(-distance / kernel) in the valence-arousal plane, itself excluded), normalised as
    ``Generator.choice(..., p=...)`` normalises them, so that one uniform picks the item it
    would (see :func:`_na_cdf`). The same floats for every call: computed once per word."""
    items = instrument.panas_items()
    me = instrument.panas_by_word()[word]
    dist = np.array(
        [math.hypot(i.valence - me.valence, i.arousal - me.arousal) if i.word != word else np.inf for i in items]
    )
    w = np.exp(-dist / kernel)
    cdf = (w / w.sum()).cumsum()
    cdf /= cdf[-1]
    return [float(x) for x in cdf]


def _neighbour(word: str, rng: np.random.Generator, kernel: float) -> str:
    """A PANAS item near ``word`` (:func:`_neighbour_cdf`), from one uniform of ``rng``; any
    item, uniformly, for a word outside the PANAS list."""
    items = instrument.panas_items()
    if word not in instrument.panas_by_word():
        return str(rng.choice([i.word for i in items]))
    return items[bisect.bisect_right(_neighbour_cdf(word, kernel), rng.random())].word


def _predict_tags(
    rng: np.random.Generator, gold_tags: list[Any], p: float, sim: dict[str, Any]
) -> list[dict[str, Any]]:
    words = list(dict.fromkeys(t.emotion for t in gold_tags))
    levels: dict[str, Any] = {}
    for t in gold_tags:
        levels.setdefault(t.emotion, t.intensity)
    out: list[dict[str, Any]] = []
    if not words:
        if rng.random() >= p:
            word = instrument.panas_items()[int(rng.integers(20))].word
            out.append({"emotion": word, "intensity": int(rng.integers(2, 6))})
        return out
    for word in words:
        u = rng.random()
        if u < p:
            label = word
        elif u < p + (1 - p) / 2:
            label = _neighbour(word, rng, sim["neighbour_kernel"])
        else:
            continue
        base = 4 if levels.get(word) is None else int(levels[word])
        level = _clamp(int(round(base + rng.normal(0, _noise_sd(sim, "intensity", p)))), 1, 7)
        if all(t["emotion"] != label for t in out):
            out.append({"emotion": label, "intensity": level})
    if rng.random() < (1 - p) * sim["false_tag_rate"]:
        word = instrument.panas_items()[int(rng.integers(20))].word
        if all(t["emotion"] != word for t in out):
            out.append({"emotion": word, "intensity": int(rng.integers(2, 6))})
    return out


def _predict_survey(
    rng: np.random.Generator, survey: list[Any], four: list[Any], p: float, sim: dict[str, Any]
) -> dict[str, Any]:
    options = instrument.survey_options()
    answers: dict[str, list[str]] = defaultdict(list)
    for r in sorted(survey, key=lambda r: (r.question, r.item_index)):
        answers[r.question].append(r.answer)
    q1 = answers.get("q1_lookingFor", [])
    if rng.random() >= p:
        q1 = list(q1[:-1]) + [str(rng.choice(options["q1_lookingFor"]))]
    q2 = next(iter(answers.get("q2_emotionClarity") or []), None)
    if q2 is None or rng.random() >= p:
        q2 = str(rng.choice(options["q2_emotionClarity"]))
    fit = list(options["q3_modelFit"])
    q3 = next(iter(answers.get("q3_modelFit") or []), None)
    if q3 is None or rng.random() >= p:
        level = fit.index(q3) if q3 in fit else 1
        q3 = fit[_clamp(int(level + rng.choice([-1, 1])), 0, len(fit) - 1)]
    follow = answers.get("q3_followUp_whatFeltOff", [])
    if rng.random() >= p:
        follow = [str(rng.choice(templates.WHAT_FELT_OFF))] if rng.random() < 0.6 else []
    gold_four = {r.branch: r.rating for r in four}
    four_pred = {
        b: _clamp(int(round(gold_four.get(b, 4.5) + rng.normal(0, _noise_sd(sim, "four_branch", p)))), 1, 7)
        for b in instrument.FOUR_BRANCHES
    }
    return {
        "q1_lookingFor": list(dict.fromkeys(q1)),
        "q2_emotionClarity": q2,
        "q3_modelFit": q3,
        "q3_followUp_whatFeltOff": list(follow),
        "fourBranchScores": four_pred,
    }


def _predict_panas(
    rng: np.random.Generator, totals: list[Any], items: list[Any], p: float, sim: dict[str, Any]
) -> dict[str, Any]:
    pred_totals: dict[str, int] = {}
    for row in (r for r in totals if r.phase == "post"):
        for key, gold in (("totalPositiveAffect", row.positive), ("totalNegativeAffect", row.negative)):
            base = 40 if gold is None else int(gold)
            pred_totals[key] = _clamp(int(round(base + rng.normal(0, _noise_sd(sim, "panas_total", p)))), 10, 70)
    pred_items = {
        r.item: _clamp(int(round(r.value + rng.normal(0, _noise_sd(sim, "panas_item", p)))), 1, 7)
        for r in items
        if r.phase == "post"
    }
    return {"items": pred_items, "totals": pred_totals}


def simulate_outputs(
    tables: dict[str, pd.DataFrame] | GoldRecords,
    model: SimulatedModel,
    mode: str,
    sim: dict[str, Any],
    seed: int,
    romantic_category: str,
    conversations: list[str] | None = None,
    redraw: int = 0,
) -> dict[str, dict[str, Any]]:
    """EM output files of one simulated model and mode: {file name: JSON-ready dict}.

    ``romantic_category`` is the topic category that carries the planted romantic effect;
    ``conversations`` limits the output to a subset (the human raters' subset); None = all.
    ``redraw`` > 0 draws the answers again from another seeded stream, keeping the model's
    abilities and the shared difficulties (a rerun of the same model: run-to-run noise);
    0 is the published draw. ``tables`` may be the gold already indexed (:func:`indexed`).
    """
    gold = indexed(tables)
    ids = sorted(gold.conversations) if conversations is None else sorted(conversations)
    u = shared_effects(sorted(gold.diagnosed), sim["participant_sd"], seed, "participant-difficulty")
    w = shared_effects(sorted(gold.conversations), sim["conversation_sd"], seed, "conversation-difficulty")
    eff = sim["effects"]
    omniscient = mode in ("omniscient", "verbose_omniscient")
    na_cdf = _na_cdf(list(sim["answers_when_gold_na"]))

    outputs: dict[str, dict[str, Any]] = {}
    for cid in ids:
        rng = (
            rng_for(seed, "predict", model.name, mode, cid)
            if not redraw
            else rng_for(seed, "predict", model.name, mode, cid, "redraw", str(redraw))
        )
        meta = gold.conversations[cid]
        pid = meta.participant_id
        diag = float(gold.diagnosed.get(pid, False))
        romantic = float(meta.category == romantic_category)
        fixed = conversation_logits_of(sim, model, diag, romantic, u.get(pid, {}), w[cid], omniscient)

        def accuracy(k: str, rel: float = 0.5, shift: float = 0.0, fixed: dict[str, float] = fixed) -> float:
            return sigmoid(fixed[k] + eff["turn_drift"][k] * (rel - 0.5) + shift)

        turns_out = []
        for turn in gold.turns.get(cid, []):
            t, rel = int(turn.turn_number), float(turn.rel_position)
            p_e, p_b, p_p = accuracy("emotion", rel), accuracy("behaviour", rel), accuracy("preference", rel)
            p_hp_wording = accuracy("preference", rel, sim["participant_wording_shift"])
            judgements, comparisons = gold.binary.get((cid, t), []), gold.pairwise.get((cid, t), [])
            # One uniform per answer, drawn at once in the order in which they were once drawn one
            # by one (each judgement's four answers, then each pick): rng.random(n) gives the same
            # numbers as n calls of rng.random(), so the outputs stay byte for byte the same.
            draws = rng.random(4 * len(judgements) + len(comparisons)).tolist()
            om, hp, om_w, hp_w = {}, {}, {}, {}
            for n, j in enumerate(judgements):
                q = j.question_id
                om[q] = _answer(draws[4 * n], j.gold_om, p_b, na_cdf)
                hp[q] = _answer(draws[4 * n + 1], j.gold_hp, p_p, na_cdf)
                om_w[q] = _answer(draws[4 * n + 2], j.gold_om, p_b, na_cdf)
                hp_w[q] = _answer(draws[4 * n + 3], j.gold_hp, p_hp_wording, na_cdf)
            picks = {}
            for c, draw in zip(comparisons, draws[4 * len(judgements) :]):
                if c.winner in ("A", "B"):
                    picks[str(c.position)] = c.winner if draw < p_p else ("B" if c.winner == "A" else "A")
                else:
                    picks[str(c.position)] = "A" if draw < 0.5 else "B"
            pred_tags = _predict_tags(rng, gold.tags.get((cid, t), []), p_e, sim)
            turns_out.append(
                {
                    "turnNumber": t,
                    "em_emotion_tags": pred_tags,
                    "em_drafted_response": templates.drafted_reply(
                        meta.subtopic or "this", pred_tags[0]["emotion"] if pred_tags else ""
                    ),
                    "em_binary_om_assessment": om,
                    "em_binary_human_prediction": hp,
                    "em_binary_om_assessment_hp": om_w,
                    "em_binary_human_prediction_hp": hp_w,
                    "em_pairwise_selections": picks,
                }
            )
        p_h = accuracy("holistic")
        post = {
            "panas_strategy": "absolute",
            "pre_panas_shown": omniscient,
            "predicted_post_panas": _predict_panas(rng, gold.totals.get(cid, []), gold.items.get(cid, []), p_h, sim),
            "predicted_panas_delta": None,
            "predicted_conversation_wide": _predict_survey(
                rng, gold.survey.get(cid, []), gold.four.get(cid, []), p_h, sim
            ),
        }
        outputs[f"{cid}.json"] = {
            "conversationId": cid,
            "source_file": meta.source_file,
            "em_model": model.name,
            "run_timestamp": "2026-05-21T00:00:00Z",
            "mode": mode,
            "prompt_version": PROMPT_VERSION,
            "turns": turns_out,
            "post_conversation": post,
            "api_cost": 0.0,
            "duration_seconds": 0.0,
        }
    return outputs

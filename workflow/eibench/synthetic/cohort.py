"""Seeded generator of a synthetic AttuneBench cohort in the release format.

``generate_cohort(params, seed)`` returns the conversation files (as JSON-ready dicts, keyed by
file name) and the planted truth of the cohort. The generative model, step by step, is in
docs/synthetic-cohort.md; ``params`` is the config's ``cohorts.synthetic`` section.

Units: PANAS items 1..7, totals 10..70; intensities 1..7; valence/arousal in [0, 1].
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import asdict, dataclass, field
from importlib import resources
from typing import Any

import numpy as np

from .. import instrument
from ..seeding import rng_for
from . import templates

TRAIT_LABELS = {"none": "none", "anxiety_depression": "anxiety/depression", "asd_adhd": "ASD/ADHD"}
#: The size of AttuneBench's published design (Lubrano et al. 2026), which the generator's
#: defaults copy (config/config.yaml, cohorts.synthetic): conversations and participants.
PUBLISHED_DESIGN = {"conversations": 200, "participants": 11}
OM_MODELS = ("om-a", "om-b", "om-c")


@dataclass
class Participant:
    participant_id: str
    trait_group: str
    age: int
    valence0: float
    pa_base: float
    na_base: float
    expressivity: float  # probability that a shift is named explicitly in the message


@dataclass
class CohortTruth:
    """What the generator planted, written beside the data (results/cohort/truth.json)."""

    seed: int
    params: dict[str, Any]
    participants: list[dict[str, Any]] = field(default_factory=list)
    conversations: list[dict[str, Any]] = field(default_factory=list)
    behaviour_base_rates: dict[str, float] = field(default_factory=dict)


def topics() -> list[tuple[str, str]]:
    """The (category, subtopic) pairs of the synthetic cohort (topics.csv)."""
    text = resources.files(__package__).joinpath("topics.csv").read_text(encoding="utf-8")
    return [(r["category"], r["subtopic"]) for r in csv.DictReader(io.StringIO(text, newline=""))]


def largest_remainder(shares: dict[str, float], total: int) -> dict[str, int]:
    """Split ``total`` into whole counts proportional to ``shares`` (Hamilton's method)."""
    raw = {k: v * total for k, v in shares.items()}
    counts = {k: int(math.floor(v)) for k, v in raw.items()}
    left = total - sum(counts.values())
    for k in sorted(raw, key=lambda k: (-(raw[k] - counts[k]), k))[:left]:
        counts[k] += 1
    return counts


def _participants(rng: np.random.Generator, params: dict[str, Any]) -> list[Participant]:
    n = params["n_participants"]
    counts = largest_remainder(params["trait_shares"], n)
    groups = [g for g in ("none", "anxiety_depression", "asd_adhd") for _ in range(counts[g])]
    rng.shuffle(groups)
    width = max(2, len(str(n)))
    pp = params["participants"]
    pa, na = pp["positive_affect"], pp["negative_affect"]
    out = []
    for i, group in enumerate(groups):
        diag = group != "none"
        out.append(
            Participant(
                participant_id=f"P{i + 1:0{width}d}",
                trait_group=group,
                age=int(rng.integers(pp["age"]["min"], pp["age"]["max"] + 1)),
                valence0=float(rng.uniform(*pp["valence"]["diagnosed" if diag else "none"])),
                pa_base=float(rng.normal(pa["mean"], pa["sd"])),
                na_base=float(rng.normal(na["mean_diagnosed"] if diag else na["mean"], na["sd"])),
                expressivity=float(rng.uniform(*pp["expressivity"])),
            )
        )
    return out


def _mood_tags(rng: np.random.Generator, valence: float, arousal: float, mood: dict[str, Any]) -> list[tuple[str, int]]:
    if rng.random() < mood["p_no_shift"]:
        return []
    items = instrument.panas_items()
    k_max = mood["max_tags"]
    k_weights = np.array([mood["tag_count_decay"] ** k for k in range(1, k_max + 1)])
    k = int(rng.choice(np.arange(1, k_max + 1), p=k_weights / k_weights.sum()))
    dist = np.array([math.hypot(i.valence - valence, i.arousal - arousal) for i in items])
    w = np.exp(-dist / mood["tag_kernel"])
    picks = rng.choice(len(items), size=min(k, len(items)), replace=False, p=w / w.sum())
    return [(items[j].name, int(1 + rng.binomial(6, 0.5))) for j in picks]


def _panas(rng: np.random.Generator, pa: float, na: float, item_sd: float) -> dict[str, int]:
    out = {}
    for item in instrument.panas_items():
        centre = (pa if item.affect == "positive" else na) / 10
        out[item.name] = int(np.clip(round(rng.normal(centre, item_sd)), 1, 7))
    return out


def _panas_block(items: dict[str, int], legacy: bool) -> dict[str, Any]:
    if legacy:  # older files: items under 'responses', totals left for the reader to sum
        return {"responses": dict(items)}
    by_name = {i.name: i for i in instrument.panas_items()}
    return {
        "items": dict(items),
        "totalPositiveAffect": sum(v for k, v in items.items() if by_name[k].affect == "positive"),
        "totalNegativeAffect": sum(v for k, v in items.items() if by_name[k].affect == "negative"),
    }


def _yes_no(rng: np.random.Generator, p_yes: float) -> str:
    return "yes" if rng.random() < p_yes else "no"


def _flip(value: str) -> str:
    return {"yes": "no", "no": "yes"}.get(value, value)


def _turn(
    rng: np.random.Generator,
    params: dict[str, Any],
    number: int,
    topic: str,
    valence: float,
    expressivity: float,
    base_rates: dict[str, float],
    legacy: bool,
) -> dict[str, Any]:
    arousal = float(rng.uniform(*params["mood"]["arousal"]))
    tags = _mood_tags(rng, valence, arousal, params["mood"])
    words = [w.lower() for w, _ in tags]
    explicit = bool(rng.random() < expressivity)
    shown = {q for q, p in base_rates.items() if rng.random() < p}
    mood_tags = []
    for word, level in tags:
        as_word = {2: "mild", 4: "moderate", 6: "intense"}.get(level)
        use_word = as_word is not None and (legacy or rng.random() < params["mood"]["p_intensity_word"])
        mood_tags.append({"emotion": word, "intensity": as_word if use_word else level})

    b = params["binary"]
    qids = list(instrument.binary_question_ids())
    k = int(rng.integers(b["questions_per_turn"]["min"], b["questions_per_turn"]["max"] + 1))
    asked = sorted(rng.choice(len(qids), size=k, replace=False))
    judgements = []
    for j in asked:
        q = qids[j]
        observed = "yes" if q in shown else "no"
        if rng.random() < b["p_na"]:
            observed = "na"
        llm = observed if rng.random() < b["llm_value_agreement"] else _flip(observed)
        preferred = observed if rng.random() >= b["p_preferred_differs"] else _flip(observed)
        if legacy:
            judgements.append({"questionId": q, "llmValue": llm, "did_occur": observed, "should_occur": preferred})
        else:
            judgements.append(
                {"questionId": q, "llmValue": llm, "observedBehavior": observed, "preferredBehavior": preferred}
            )

    pw = params["pairwise"]
    alternates = None
    comparisons: list[dict[str, Any]] = []
    selected: list[str] = []
    if rng.random() < pw["p_alternates"]:
        word = words[0] if words else ""
        alternates = {
            "llmImproved": templates.improved_reply(topic, word),
            "humanEdited": templates.edited_reply(topic),
        }
        if legacy:
            alternates = {"alternate1": alternates["llmImproved"], "alternate2": alternates["humanEdited"]}
        extra = list(instrument.pairwise_question_ids()[1:])
        n_extra = int(rng.integers(pw["extra_questions"]["min"], pw["extra_questions"]["max"] + 1))
        selected = sorted((str(q) for q in rng.choice(extra, size=n_extra, replace=False)), key=extra.index)
        quality = pw["reply_quality"]
        noise = {label: float(rng.normal(0, pw["quality_noise_sd"])) for label in ("original", "alternate", "human")}
        for question in ["general", *selected]:
            pair = [str(x) for x in rng.choice(["original", "alternate", "human"], size=2, replace=False)]
            qa, qb = quality[pair[0]] + noise[pair[0]], quality[pair[1]] + noise[pair[1]]
            winner: str | None = "A" if rng.random() < 1 / (1 + math.exp(-(qa - qb) * pw["preference_slope"])) else "B"
            if rng.random() < pw["p_null_winner"]:
                winner = None
            keys = ("response_1", "response_2") if legacy else ("responseA", "responseB")
            comparisons.append({"questionId": question, keys[0]: pair[0], keys[1]: pair[1], "winner": winner})

    return {
        "turnNumber": number,
        "userMessage": templates.user_message(rng, topic, words, explicit, first=number == 1),
        "llmResponse": templates.om_reply(shown, topic, words[0] if words else ""),
        "moodShiftTags": mood_tags,
        "annotations": {
            "binaryJudgements": judgements,
            "alternateResponses": alternates,
            "pairwiseComparisons": comparisons,
            "selectedPairwiseQuestions": selected,
        },
    }


def _conversation_wide(
    rng: np.random.Generator, quality: float, legacy: bool, survey: dict[str, Any]
) -> dict[str, Any]:
    options = instrument.survey_options()
    looking = list(options["q1_lookingFor"])
    k = 1 if rng.random() < survey["p_single_goal"] else 2
    w = np.array(survey["goal_weights"], dtype=float)
    k = min(k, int((w > 0).sum()))
    q1 = [looking[i] for i in sorted(rng.choice(len(looking), size=k, replace=False, p=w / w.sum()))]
    q2 = str(rng.choice(options["q2_emotionClarity"]))
    fit = options["q3_modelFit"]
    level = int(np.clip(round(rng.normal(1.5 - quality, survey["fit_sd"])), 0, len(fit) - 1))
    follow = []
    if level > 0:
        n = 1 if rng.random() < 0.7 else 2
        follow = [str(x) for x in rng.choice(templates.WHAT_FELT_OFF, size=n, replace=False)]
    fb = survey["four_branch"]
    four = {b: int(np.clip(round(rng.normal(fb["mean"] + quality, fb["sd"])), 1, 7)) for b in instrument.FOUR_BRANCHES}
    if legacy:
        return {"Q1": q1, "Q2": q2, "Q3": fit[level], "q3_followUp_whatFeltOff": follow, "fourBranchScores": four}
    return {
        "q1_lookingFor": q1,
        "q2_emotionClarity": q2,
        "q3_modelFit": fit[level],
        "q3_followUp_whatFeltOff": follow,
        "fourBranchScores": four,
    }


def generate_cohort(params: dict[str, Any], seed: int) -> tuple[dict[str, dict[str, Any]], CohortTruth]:
    """Generate the cohort: ({file name: conversation JSON}, planted truth)."""
    rng = rng_for(seed, "cohort")
    truth = CohortTruth(seed=seed, params=params)
    people = _participants(rng, params)
    truth.participants = [asdict(p) | {"traits": [TRAIT_LABELS[p.trait_group]]} for p in people]

    qids = instrument.binary_question_ids()
    a, b = params["binary"]["base_rate_beta"]
    base = rng.beta(a, b, size=len(qids))
    truth.behaviour_base_rates = {q: round(float(p), 6) for q, p in zip(qids, base)}

    n = params["n_conversations"]
    span = max(n, math.ceil(n * params["id_span"]))
    numbers = sorted(int(x) for x in rng.choice(np.arange(1, span + 1), size=n, replace=False))
    weights = rng.dirichlet(np.full(len(people), float(params["participants"]["concentration"])))
    owner = rng.choice(len(people), size=n, p=weights)
    all_topics = topics()

    files: dict[str, dict[str, Any]] = {}
    for number, who in zip(numbers, owner):
        person = people[int(who)]
        cid = f"conversation_{number}"
        crng = rng_for(seed, "cohort", cid)
        category, subtopic = all_topics[int(crng.integers(len(all_topics)))]
        n_turns = int(crng.integers(params["turns"]["min"], params["turns"]["max"] + 1))
        legacy = bool(crng.random() < params["p_legacy_format"])
        om = str(crng.choice(OM_MODELS))
        valence = person.valence0
        turns = []
        for t in range(1, n_turns + 1):
            valence = float(
                np.clip(valence + crng.normal(params["mood"]["drift"], params["mood"]["walk_sd"]), 0.02, 0.98)
            )
            turns.append(
                _turn(crng, params, t, subtopic, valence, person.expressivity, truth.behaviour_base_rates, legacy)
            )
        shift = (valence - person.valence0) * params["panas"]["valence_to_affect"]
        item_sd = params["panas"]["item_sd"]
        pre = _panas(crng, person.pa_base, person.na_base, item_sd)
        post = _panas(crng, person.pa_base + shift, person.na_base - shift, item_sd)
        quality = float(crng.normal(0, params["survey"]["conversation_quality_sd"]))
        conv = {
            "conversationId": cid,
            "metadata": {
                "conversationId": cid,
                "model": om,
                "provider": "simulated",
                "model_version": "1",
                "timestamp": f"2026-01-{1 + number % 28:02d}T12:00:00Z",
                "category": category,
                "subtopic": subtopic,
                "text": f"A simulated conversation about {subtopic}.",
                "conversation_visibility": "private",
                "turnCount": n_turns,
            },
            "participant_profile": {
                "schema_version": 1,
                "participant_id": person.participant_id,
                "age": person.age,
                "traits": [TRAIT_LABELS[person.trait_group]],
                "goals": [],
                "responses": {},
                "extra": {},
            },
            "prePanas": _panas_block(pre, legacy),
            "postPanas": _panas_block(post, legacy),
            "conversationWideQuestions": _conversation_wide(crng, quality, legacy, params["survey"]),
            "turns": turns,
        }
        files[f"{cid}.json"] = conv
        truth.conversations.append(
            {
                "conversation_id": cid,
                "participant_id": person.participant_id,
                "trait_group": person.trait_group,
                "category": category,
                "subtopic": subtopic,
                "romantic": category == params["romantic_category"],
                "n_turns": n_turns,
                "legacy_format": legacy,
            }
        )
    return files, truth

"""Validation of the statistics by simulation: are the tests calibrated, and do they recover
planted effects?

A score-level generator draws whole studies with the design of the real one
(``generator_design`` of the cohort's ``design.cohort_design``: each conversation's participant,
with that participant's diagnosis, topic category and number of turns, copied as they are;
the numbers of evaluated models and human raters and of the conversations the raters
answered) and linear planted effects on the score scale, so every planted value is known
exactly in the units the tests estimate (a planted effect whose group the cohort lacks, e.g.
romantic conversations, has no conversation to act on):

    value(model m, conversation c of participant p, turn at position r) =
        mean[k] + ability[m, cap(k)] + diagnosis[cap] x has_diagnosis(p) + romantic[cap] x romantic(c)
        + drift[cap] x (r - 0.5) + participant[p] + conversation[c] + noise

(turn-level metrics average their turns; conversation-level metrics take one value). The
composite is the cohort's: built from the parts of it the cohort has (``composite_parts``, of
``design.cohort_design``'s ``metrics_models``), in each conversation only from those it has
there (``parts_missing``, its ``composite_parts_missing``), with the weights renormalised over
them by the scorer's own code (metrics.composite.pillar_values). On ESConv it is
100 x (0.49 binary OM accuracy + 0.27 post-chat ratings) / 0.76, and 100 x binary OM accuracy
where a conversation has no ratings. Every
test of the paper runs on each simulated study exactly as on the real one: under the null
generator (no planted effect) its rejection rate at alpha should fall inside the binomial 95%
band of alpha; under the planted generator the share of correct signs and the coverage of
the planted values by the intervals are reported.

A test the cohort's design cannot support (``left_out``: the needs of the claim it validates,
testability.py, e.g. no diagnosed participants, no romantic conversations, a metric without
values, no human raters) is not run on any simulated study and is reported with its reason.
A Generator without a copied design (the defaults, used by the unit tests) draws one at
random: participants from a Dirichlet, categories uniform over nine, turns uniform in a range.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from ..metrics import composite
from ..metrics.composite import pillar_values
from .bootstrap import cluster_weights
from .discriminability import compare, discriminability
from .drift import turn_drift
from .humans import human_vs_models
from .ranks import oriented_means
from .study import Study
from .subgroups import conversation_means, mixed_model, participant_scores, permutation_test
from .testability import unmet_needs
from .topics import topic_effects

#: metric -> (capability, mean on the score scale, turn-level?)
METRICS = {
    "emotion_f1": ("emotion", 0.60, True),
    "emotion_va": ("emotion", 0.72, True),
    "binary_om_acc": ("behaviour", 0.75, True),
    "binary_hp_acc": ("preference", 0.60, True),
    "pairwise_acc": ("preference", 0.65, True),
    "kendall_tau": ("preference", 0.30, True),
    "panas_adjusted": ("holistic", 0.20, False),
    "conversation_wide": ("holistic", 0.70, False),
    "four_branch": ("holistic", 0.85, False),
    "cw_q1_f1": ("holistic", 0.75, False),
    # An extension part (metrics/composite.py EXTENSION_PARTS), drawn only for a design that has
    # it (``simulated_metrics``), last, so that a design without it draws as before; its mean is
    # binary OM accuracy's, the part it is averaged with on ESConv.
    "post_chat_ratings": ("holistic", 0.75, False),
}
#: The parts of the composite (metrics/composite.py pillar_values) and the simulated metrics each
#: is made of: tracking = 0.5 F1 + 0.5 VA (metrics/score.py), the PANAS part = (adjusted + 1) / 2.
COMPOSITE_PARTS = {
    part: {"tracking": ("emotion_f1", "emotion_va"), "panas_part": ("panas_adjusted",)}.get(part, (part,))
    for part in composite.COMPOSITE_PARTS
}
#: The parts of a design that names none (a Generator's default): the published instrument's,
#: without the post-chat-ratings extension, as in the synthetic cohort.
PUBLISHED_PARTS = tuple(p for p in COMPOSITE_PARTS if p != "post_chat_ratings")
CAPABILITIES = ("emotion", "behaviour", "preference", "holistic")
ROMANTIC = "Romantic relationships"
CATEGORIES = (
    "Family",
    "Finances and housing",
    "Friendships and social life",
    "Grief and loss",
    "Health and wellbeing",
    ROMANTIC,
    "Self-esteem and identity",
    "Studies",
    "Work and career",
)


#: The Generator fields of a copied design (``Generator.drawn`` drops them all).
COPIED_DESIGN = (
    "conversation_participant",
    "conversation_category",
    "participant_diagnosed",
    "participant_recorded",
    "turns_each",
    "parts_missing",
)


@dataclass(frozen=True)
class Generator:
    """Design and effects of one simulated study (score units)."""

    n_conversations: int = 200
    n_participants: int = 11
    n_diagnosed: int = 6
    n_models: int = 11
    n_humans: int = 3
    human_conversations: int = 30
    turns: tuple[int, int] = (3, 15)
    ability_sd: float = 0.05
    participant_sd: float = 0.03
    conversation_sd: float = 0.04
    noise_sd: float = 0.15  # per model x conversation
    turn_noise_sd: float = 0.25  # per model x turn
    diagnosis: tuple[tuple[str, float], ...] = ()
    romantic: tuple[tuple[str, float], ...] = ()
    drift: tuple[tuple[str, float], ...] = ()
    human_shift: tuple[tuple[str, float], ...] = ()
    # A copied design (all four or none): per conversation its participant code (-1 unknown) and
    # category (None unknown), per participant code whether they have a diagnosis, and
    # ``turns_each``, the turns of each conversation. They override the drawn design above.
    conversation_participant: tuple[int, ...] | None = None
    conversation_category: tuple[str | None, ...] | None = None
    participant_diagnosed: tuple[bool, ...] | None = None
    turns_each: tuple[int, ...] | None = None
    # Per participant code of a copied design: whether their diagnosis is recorded (None: every
    # one's). An unrecorded participant is simulated without the diagnosis effect and, as in the
    # cohort's own analyses, left out of the diagnosis tests (Study.diagnosis_known).
    participant_recorded: tuple[bool, ...] | None = None
    skip: frozenset[str] = frozenset()  # tests (TESTS keys) left out for this design
    # The parts of the composite this design has (COMPOSITE_PARTS keys), and of a copied design,
    # per part, the conversations without it (None, or none listed: every conversation has them).
    composite_parts: tuple[str, ...] = PUBLISHED_PARTS
    parts_missing: tuple[tuple[str, tuple[int, ...]], ...] | None = None
    # Pearson correlation of every pair of a model's four abilities (0: independent, the default);
    # drawn by simulation_batch.draw only (operating.py: the independence claim at its margin).
    ability_correlation: float = 0.0

    def effect(self, name: str, capability: str) -> float:
        return dict(getattr(self, name)).get(capability, 0.0)

    def drawn(self, **changes: Any) -> "Generator":
        """This generator with its copied design dropped, so that each study draws a design of
        its numbers (``n_conversations``, ``n_participants``, ...), with ``changes`` applied."""
        dropped: dict[str, Any] = dict.fromkeys(COPIED_DESIGN)
        return replace(self, **dropped, **changes)

    @property
    def n_recorded(self) -> int:
        """Participants whose diagnosis is recorded (diagnosed or not)."""
        if self.participant_recorded is None or self.conversation_participant is None:
            return self.n_participants
        return int(sum(self.participant_recorded))


def diagnosis_known(g: Generator, participant: np.ndarray) -> np.ndarray | None:
    """Per conversation of a design with participant codes ``participant`` (-1 unknown): whether
    its participant's diagnosis is recorded (False without a known participant); None when every
    participant's is (a drawn design, or a copied one without unrecorded participants)."""
    if g.participant_recorded is None or g.conversation_participant is None or all(g.participant_recorded):
        return None
    recorded = np.array(g.participant_recorded, dtype=bool)
    known = participant >= 0
    return known & (recorded[np.where(known, participant, 0)] if len(recorded) else False)


def simulated_metrics(g: Generator) -> list[str]:
    """The metrics a study of ``g`` draws, in METRICS' order: all but an extension part of the
    composite the design does not have."""
    return [m for m in METRICS if m in PUBLISHED_PARTS or m not in COMPOSITE_PARTS or m in g.composite_parts]


def parts_present(g: Generator, n: int) -> dict[str, np.ndarray]:
    """Per part of the composite (COMPOSITE_PARTS), per conversation of a study of ``n``: whether
    the design has it there."""
    present = {part: np.full(n, part in g.composite_parts) for part in COMPOSITE_PARTS}
    for part, missing in g.parts_missing or ():
        present[part][list(missing)] = False
    return present


def _parts(values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The parts of the composite from the simulated metrics (NaN for a metric not drawn)."""
    shape = values["binary_om_acc"].shape
    get = lambda m: values[m] if m in values else np.full(shape, np.nan)  # noqa: E731
    return {
        "tracking": 0.5 * get("emotion_f1") + 0.5 * get("emotion_va"),
        "binary_om_acc": get("binary_om_acc"),
        "binary_hp_acc": get("binary_hp_acc"),
        "pairwise_acc": get("pairwise_acc"),
        "panas_part": (get("panas_adjusted") + 1) / 2,
        "conversation_wide": get("conversation_wide"),
        "four_branch": get("four_branch"),
        "post_chat_ratings": get("post_chat_ratings"),
    }


def _derived(values: dict[str, np.ndarray], present: dict[str, np.ndarray] | None = None) -> None:
    """The pillars and the composite of simulated values (conversations on the last axis) by the
    scorer's code (metrics.composite.pillar_values, unrounded), from the parts ``present`` in
    each conversation (``parts_present``; default: the published parts everywhere)."""
    shape = values["binary_om_acc"].shape
    present = present or parts_present(Generator(), shape[-1])
    col = {part: np.where(present[part], v, np.nan).ravel() for part, v in _parts(values).items()}
    _, evaluation, holistic, _, raw = pillar_values(col)
    values["tracking"] = col["tracking"].reshape(shape)
    values["panas_part"] = col["panas_part"].reshape(shape)
    values["evaluation"] = evaluation.reshape(shape)
    values["holistic"] = holistic.reshape(shape)
    values["composite"] = raw.reshape(shape)


def _acts_on(g: Generator, name: str) -> np.ndarray | None:
    """The conversations of a copied design that the planted effect ``name`` moves (romantic:
    the romantic ones; diagnosis: those of a diagnosed participant); None for a drawn design."""
    if g.conversation_participant is None or g.conversation_category is None:
        return None
    n = len(g.conversation_participant)
    if name == "romantic":
        return np.array([c == ROMANTIC for c in g.conversation_category], dtype=bool)
    if name == "diagnosis" and g.participant_diagnosed is not None:
        participant = np.array(g.conversation_participant, dtype=int)
        diagnosed = np.array(g.participant_diagnosed, dtype=bool)
        known = participant >= 0
        return known & (diagnosed[np.where(known, participant, 0)] if len(diagnosed) else False)
    return np.ones(n, dtype=bool)


def composite_effects(g: Generator, name: str) -> np.ndarray:
    """The planted effect ``name`` on the composite in each conversation of ``g``'s design that it
    moves (one value for a drawn design): the scorer's renormalised weighted mean of the parts'
    planted shifts (the composite is linear in its parts for a fixed set of parts present)."""
    acts = _acts_on(g, name)
    n = 1 if acts is None else len(acts)
    present = parts_present(g if acts is not None else replace(g, parts_missing=None), n)

    def composite(values: dict[str, np.ndarray]) -> np.ndarray:
        return pillar_values({part: np.where(present[part], v, np.nan) for part, v in _parts(values).items()})[4]

    zero = {m: np.zeros(n) for m in METRICS}
    effect = composite({m: np.full(n, g.effect(name, METRICS[m][0])) for m in METRICS}) - composite(zero)
    return effect if acts is None or not acts.any() else effect[acts]


def composite_effect(g: Generator, name: str) -> float:
    """The planted effect ``name`` on the composite: one value when it is the same in every
    conversation it moves (``composite_effects``), NaN when it differs between conversations with
    different parts of the composite (e.g. an effect on post-chat ratings only, in a cohort where
    some conversations have none): the simulated contrast then has no single planted value."""
    effects = composite_effects(g, name)
    effects = effects[np.isfinite(effects)]
    if not len(effects):
        return float("nan")
    if np.ptp(effects) > 1e-9 * max(1.0, float(np.max(np.abs(effects)))):
        return float("nan")
    return float(effects[0])


#: Why ``composite_effect`` gives no planted value.
COMPOSITE_EFFECT_UNDEFINED = (
    "its planted effect on the composite differs between conversations with different parts of the "
    "composite, so no single planted value"
)


def simulate(g: Generator, rng: np.random.Generator) -> tuple[Study, dict[str, Any]]:
    """One simulated study and its true values."""
    n, P = g.n_conversations, g.n_participants
    if g.conversation_participant is not None:
        participant = np.array(g.conversation_participant, dtype=int)
        diagnosed_p = np.array(g.participant_diagnosed, dtype=bool)
        P = len(diagnosed_p)
        category = np.array(g.conversation_category, dtype=object)
        n_turns = np.array(g.turns_each, dtype=int)
    else:
        diagnosed_p = np.zeros(P, dtype=bool)
        diagnosed_p[rng.choice(P, size=g.n_diagnosed, replace=False)] = True
        participant = rng.choice(P, size=n, p=rng.dirichlet(np.full(P, 4.0)))
        category = rng.choice(np.array(CATEGORIES, dtype=object), size=n)
        n_turns = rng.integers(g.turns[0], g.turns[1] + 1, size=n)
    romantic = category == ROMANTIC
    known = participant >= 0
    diag = np.where(known, diagnosed_p[np.where(known, participant, 0)] if P else False, False)
    # A conversation without a known participant has no participant effect (row P is zeros).
    u = np.vstack([rng.normal(0, g.participant_sd, size=(P, 4)), np.zeros((1, 4))])
    participant_row = np.where(known, participant, P)
    w = rng.normal(0, g.conversation_sd, size=(n, 4))
    M = g.n_models + g.n_humans
    ability = rng.normal(0, g.ability_sd, size=(M, 4))
    for c, capability in enumerate(CAPABILITIES):
        ability[g.n_models :, c] += g.effect("human_shift", capability)
    human_convs = np.sort(rng.choice(n, size=min(g.human_conversations, n), replace=False))
    answers = np.ones((M, n), dtype=bool)
    answers[g.n_models :] = False
    answers[g.n_models :, human_convs] = True

    names = simulated_metrics(g)
    values = {m: np.full((M, n), np.nan) for m in names}
    turn_level: dict[str, list[np.ndarray]] = {"binary_om_acc": [], "emotion_f1": []}
    rel = [np.arange(t) / (t - 1) if t > 1 else np.zeros(1) for t in n_turns]
    for metric in names:
        capability, mean, per_turn = METRICS[metric]
        c = CAPABILITIES.index(capability)
        base = (
            mean
            + ability[:, c][:, None]
            + g.effect("diagnosis", capability) * diag[None, :]
            + g.effect("romantic", capability) * romantic[None, :]
            + u[participant_row, c][None, :]
            + w[:, c][None, :]
        )
        if not per_turn:
            values[metric] = np.where(answers, base + rng.normal(0, g.noise_sd, size=(M, n)), np.nan)
            continue
        drift = g.effect("drift", capability)
        grid = np.full((M, n), np.nan)
        for j in range(n):
            y = (
                base[:, j][:, None]
                + drift * (rel[j] - 0.5)[None, :]
                + rng.normal(0, g.turn_noise_sd, size=(M, len(rel[j])))
            )
            grid[:, j] = y.mean(axis=1)
            if metric in turn_level:
                turn_level[metric].append(y[answers[:, j]].ravel())
        values[metric] = np.where(answers, grid, np.nan)
    _derived(values, parts_present(g, n))
    models = [f"m{i:02d}" for i in range(g.n_models)] + [f"human_{i + 1}" for i in range(g.n_humans)]
    roles = {name: ("human" if name.startswith("human_") else "model") for name in models}
    ids = [f"c{j:04d}" for j in range(n)]
    # The turn table, in the order the loop above drew the turns: conversation, model, turn.
    model_col, conv_col, rel_col = [], [], []
    for j in range(n):
        who = np.flatnonzero(answers[:, j])
        model_col.append(np.repeat(who, len(rel[j])))
        conv_col.append(np.full(len(who) * len(rel[j]), j))
        rel_col.append(np.tile(rel[j], len(who)))
    turns = pd.DataFrame(
        {
            "em_model": np.array(models, dtype=object)[np.concatenate(model_col)],
            "conversation_id": np.array(ids, dtype=object)[np.concatenate(conv_col)],
            "rel_position": np.concatenate(rel_col),
            **{m: np.concatenate(v) for m, v in turn_level.items()},
        }
    )
    study = Study(
        models,
        roles,
        ids,
        participant,
        [f"P{p:02d}" for p in range(P)],
        diag,
        category,
        n_turns.astype(float),
        values,
        turns,
        diagnosis_known(g, participant),
    )
    truth = {"ability": ability, "diag_share": float(diag.mean()), "romantic_share": float(romantic.mean())}
    return study, truth


RUN_COLUMNS = {  # the columns of run_tests each group of tests fills
    "diagnosis": ("p_diagnosis_permutation", "p_diagnosis_mixed", "est_diagnosis", "lo_diagnosis", "hi_diagnosis"),
    "romantic": ("p_romantic_boot", "p_romantic_mixed", "est_romantic", "lo_romantic", "hi_romantic"),
    "drift": ("p_drift_slope", "p_page", "est_drift", "lo_drift", "hi_drift"),
    "rank": ("p_rank_tau",),
    "discriminability": ("p_discriminability",),
}


def run_tests(
    study: Study, n_bootstrap: int, rng: np.random.Generator, alpha: float, skip: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """Every test of the paper on one (simulated) study: p-values, estimates and intervals; the
    tests named in ``skip`` (keys of TESTS) are not run and their columns are NaN."""
    models = study.with_role("model")
    weights = cluster_weights(np.arange(study.n_conversations), n_bootstrap, rng)
    out: dict[str, Any] = {c: float("nan") for cols in RUN_COLUMNS.values() for c in cols}
    run = {
        group for group, cols in RUN_COLUMNS.items() if not all(t in skip for t, col in TESTS.items() if col in cols)
    }
    if "diagnosis" in run:
        conv = conversation_means(study, "emotion_f1", models)
        scores, diag = participant_scores(study, conv)
        out["p_diagnosis_permutation"] = permutation_test(scores, diag, rng)["p_value"]
        mm = mixed_model(study, conv)
        out.update(
            p_diagnosis_mixed=mm["p_value"], est_diagnosis=mm["estimate"], lo_diagnosis=mm["lo"], hi_diagnosis=mm["hi"]
        )
    if "romantic" in run:
        _, contrast = topic_effects(study, "composite", models, weights, ROMANTIC)
        out.update(
            p_romantic_boot=contrast["p_boot"],
            p_romantic_mixed=contrast["p_mixed"],
            est_romantic=contrast["adjusted"],
            lo_romantic=contrast["adjusted_lo"],
            hi_romantic=contrast["adjusted_hi"],
        )
    if "drift" in run:
        table, page = turn_drift(study, "binary_om_acc", models, weights)
        pooled = table.iloc[-1]
        out.update(
            p_drift_slope=float(pooled["p_slope"]),
            p_page=page["p_decreasing"],
            est_drift=float(pooled["slope"]),
            lo_drift=float(pooled["slope_lo"]),
            hi_drift=float(pooled["slope_hi"]),
        )
    if "rank" in run:
        means = oriented_means(study, ["emotion_f1", "binary_om_acc"], models)
        out["p_rank_tau"] = float(stats.kendalltau(means[:, 0], means[:, 1]).pvalue)
    if "discriminability" in run:
        # Two metrics of one capability with the same noise: equal discriminability by design.
        _, snr = discriminability(study, ["pairwise_acc", "binary_hp_acc"], models, weights, alpha, pairs=False)
        out["p_discriminability"] = compare(snr, "pairwise_acc", "binary_hp_acc")["p_boot"]
    for test in skip:  # a test of a group that ran for its other test
        out[TESTS[test]] = float("nan")
    return out


def human_tests(study: Study, g: Generator, n_bootstrap: int, rng: np.random.Generator, alpha: float) -> dict[str, Any]:
    """The human-vs-model comparisons on one (simulated) twin study, where every model's true
    difference from the humans is the planted human shift: the share of models declared
    different (the false-positive rate under the null), the mean estimated difference, and
    per model the share with the right sign and with an interval covering the planted shift."""
    weights = cluster_weights(np.arange(study.n_conversations), n_bootstrap, rng)
    if not study.with_role("human") or "human vs model: paired cluster bootstrap" in g.skip:
        return dict.fromkeys(
            ("p_human_vs_model", "humans_better_share", "est_human", "sign_human", "cover_human"), float("nan")
        )
    hv = human_vs_models(study, "binary_hp_acc", study.with_role("human"), study.with_role("model"), weights, alpha)
    shift = g.effect("human_shift", "preference")  # every model's true difference from the humans
    # The false-positive check uses one pre-specified comparison (the first model) per study, so
    # that each study is one Bernoulli trial; the shares below use every model.
    return {
        "p_human_vs_model": float(hv["p_boot"].iloc[0]),
        "humans_better_share": float((hv["verdict"] == "humans better").mean()),
        "est_human": float(hv["human_minus_model"].mean()),
        "sign_human": float((np.sign(hv["human_minus_model"]) == np.sign(shift)).mean()),
        "cover_human": float(((hv["lo"] <= shift) & (shift <= hv["hi"])).mean()),
    }


def simulate_and_test(g: Generator, n_bootstrap: int, seed_rng: np.random.Generator, alpha: float) -> dict[str, Any]:
    """One simulated study through every test. The human comparison runs on a twin study
    whose evaluated models and raters share one ability, so that under the null every model's
    difference from the humans is exactly the planted human shift (zero in the null)."""
    study, _ = simulate(g, seed_rng)
    out = run_tests(study, n_bootstrap, seed_rng, alpha, g.skip)
    twin, _ = simulate(replace(g, ability_sd=0.0), seed_rng)
    out.update(human_tests(twin, g, n_bootstrap, seed_rng, alpha))
    return out


#: The claim each simulated test validates, as testability.py checks it (the metrics are the ones
#: run_tests uses).
TEST_NEEDS = {
    "diagnosis": {"test": "diagnosis_effect", "params": {"metric": "emotion_f1"}},
    "romantic": {"test": "topic_hardest", "params": {"metric": "composite", "category": ROMANTIC}},
    "drift": {"test": "turn_drift", "params": {"metric": "binary_om_acc"}},
    "rank": {"test": "rank_independence", "params": {"metrics": ["emotion_f1", "binary_om_acc"], "margin": 1.0}},
    "discriminability": {
        "test": "discriminability_difference",
        "params": {"better": "pairwise_acc", "worse": "binary_hp_acc"},
    },
    "human": {"test": "humans_vs_models", "params": {"metric": "binary_hp_acc"}},
}


#: The kinds of claim (their ``test``) the simulation has a test for; a claim of any other kind
#: (turn_flat, profile_flips) is not validated by simulation.
SIMULATED_KINDS = frozenset(need["test"] for need in TEST_NEEDS.values())


def _group(test: str) -> str:
    for group, key in (
        ("diagnosis", "diagnosis"),
        ("romantic", "romantic"),
        ("drift", "turn drift"),
        ("rank", "rank independence"),
        ("discriminability", "discriminability"),
        ("human", "human"),
    ):
        if test.startswith(key):
            return group
    raise KeyError(test)


def left_out(design: dict[str, Any], alpha: float, claims: Sequence[Mapping[str, Any]] | None = None) -> dict[str, str]:
    """The tests (TESTS keys) this cohort's design cannot support, each with its reason.

    A simulated test checks the procedure of the cohort's claims of its kind
    (``TEST_NEEDS[...]["test"]``, of ``claims``: the config's ``statistics.claims``) on a pair of
    simulated metrics for which the null holds by construction (``run_tests``), not on the
    claim's own metrics. It runs when one of those claims is testable on the design
    (testability.py) and its metrics are simulated (``operating.simulated_claims``, as the
    operating characteristics decide), and is left out otherwise, with the first claim's
    reasons prefixed by its id: on ESConv the discriminability test is left out because E4's
    emotion-intensity metric is not simulated, not because of the synthetic study's metrics.
    A cohort with no claim of a kind, or no ``claims``, is checked against the synthetic
    study's claim of that kind (``TEST_NEEDS``), unprefixed."""
    from .operating import simulated_claims  # operating imports this module

    out = {}
    for test in TESTS:
        need = TEST_NEEDS[_group(test)]
        own = [dict(c) for c in claims or () if c["test"] == need["test"]]
        if own:
            _, not_simulated = simulated_claims(own)
            reasons = []
            for c in own:
                why = [not_simulated[c["id"]]] if c["id"] in not_simulated else unmet_needs(c, design, alpha)
                reasons.append([f"claim {c['id']}: " + "; ".join(why)] if why else [])
        else:
            reasons = [unmet_needs({"id": test, **need}, design, alpha)]
        if all(reasons):
            out[test] = "; ".join(reasons[0])
    return out


def generator_design(
    design: dict[str, Any], alpha: float, claims: Sequence[Mapping[str, Any]] | None = None
) -> dict[str, Any]:
    """Generator arguments that copy a cohort's design (``design.cohort_design``): every
    conversation's participant (and their diagnosis), category and turns as they are, the numbers
    of evaluated models and human raters and the conversations the raters answered, the parts of
    the composite the models have (``metrics_models``; a design without it: the published ones)
    and the conversations without some of them (``composite_parts_missing``), and the tests the
    design cannot support left out (``left_out`` of ``claims``)."""
    people = design["participant_diagnosed"]
    metrics = design.get("metrics_models")
    parts = PUBLISHED_PARTS if metrics is None else tuple(p for p in COMPOSITE_PARTS if p in metrics)
    missing = design.get("composite_parts_missing") or {}
    return {
        "n_conversations": design["n_conversations"],
        "n_participants": len(people),
        "n_diagnosed": int(sum(people)),
        "n_models": len(design["models"]),
        "n_humans": len(design["humans"]),
        "human_conversations": design["human_conversations"],
        "turns": (min(design["turns"]), max(design["turns"])),
        "conversation_participant": tuple(design["conversation_participant"]),
        "conversation_category": tuple(design["conversation_category"]),
        "participant_diagnosed": tuple(people),
        "participant_recorded": tuple(design.get("participant_diagnosis_recorded") or (True,) * len(people)),
        "turns_each": tuple(design["turns"]),
        "composite_parts": parts,
        "parts_missing": tuple((p, tuple(missing[p])) for p in parts if missing.get(p)),
        "skip": frozenset(left_out(design, alpha, claims)),
    }


def simulated_design(study: Study) -> dict[str, Any]:
    """The design keys a simulated study copies, from ``design.cohort_design`` (the metrics are
    not among them: a simulated study has every metric, and the tests of a metric the cohort
    lacks are left out instead)."""
    from .design import cohort_design

    d = cohort_design(study)
    return {
        "n_conversations": d["n_conversations"],
        "participants": d["participants"],
        "categories": d["categories"],
        "conversations_without_category": d["conversations_without_category"],
        "turns": d["turns"],
        "turn_positions": d["turn_positions"],
        "n_models": len(d["models"]),
        "n_humans": len(d["humans"]),
        "human_conversations": d["human_conversations"],
        "conversation_participant": d["conversation_participant"],
        "conversation_category": d["conversation_category"],
        "participant_diagnosed": d["participant_diagnosed"],
        "participant_diagnosis_recorded": d["participant_diagnosis_recorded"],
    }


def null_generator(design: dict[str, Any] | None = None) -> Generator:
    """No planted effect anywhere; the design of ``design`` (defaults: the published one)."""
    return Generator(**(design or {}))


def planted_generator(config: dict[str, Any], design: dict[str, Any] | None = None) -> Generator:
    """The planted effects of the config's statistics.simulation.planted (score units)."""
    p = config
    return Generator(
        **(design or {}),
        diagnosis=tuple(p["diagnosis"].items()),
        romantic=tuple(p["romantic"].items()),
        drift=tuple(p["turn_drift"].items()),
        human_shift=tuple(p["human_shift"].items()),
    )


TESTS = {  # test -> the p-value it reports in run_tests (null calibration)
    "diagnosis: participant permutation test": "p_diagnosis_permutation",
    "diagnosis: mixed model (Wald)": "p_diagnosis_mixed",
    "romantic contrast: cluster bootstrap": "p_romantic_boot",
    "romantic contrast: mixed model (Wald)": "p_romantic_mixed",
    "turn drift: slope, cluster bootstrap": "p_drift_slope",
    "turn drift: Page's trend test": "p_page",
    "rank independence: exact Kendall test": "p_rank_tau",
    "discriminability difference: bootstrap": "p_discriminability",
    "human vs model: paired cluster bootstrap": "p_human_vs_model",
}


def summarise_null(results: pd.DataFrame, alpha: float, left: dict[str, str] | None = None) -> pd.DataFrame:
    """Each test's false-positive rate with the binomial 95% band of alpha for this many
    studies, and the joint band (Bonferroni over the tests that ran: a test left out of this
    design, or that ran in no study, is not in the family): with nine tests, one rate outside
    its own band is expected by chance about a third of the time. ``left``: the tests left out
    for this design (``left_out``) and why; they have no rate (column ``left_out``)."""
    left = left or {}
    rows = []
    values = {}
    for test, column in TESTS.items():
        x = results[column].to_numpy(float) if test not in left else np.array([])
        values[test] = x[np.isfinite(x)]  # a study where the test could not run does not count
    tail = 0.025 / max(sum(len(x) > 0 for x in values.values()), 1)
    for test, x in values.items():
        n = len(x)
        rate = float(np.mean(x <= alpha)) if n else float("nan")  # rejection as in the verdicts
        lo, hi = (stats.binom.ppf(0.025, n, alpha) / n, stats.binom.ppf(0.975, n, alpha) / n) if n else (np.nan, np.nan)
        jlo, jhi = (
            (stats.binom.ppf(tail, n, alpha) / n, stats.binom.ppf(1 - tail, n, alpha) / n) if n else (np.nan, np.nan)
        )
        inside = (bool(lo <= rate <= hi), bool(jlo <= rate <= jhi)) if n else (None, None)  # None: not tested
        rows.append((test, n, rate, alpha, lo, hi, inside[0], jlo, jhi, inside[1], left.get(test, "")))
    return pd.DataFrame(
        rows,
        columns=[
            "test",
            "n_simulations",
            "false_positive_rate",
            "alpha",
            "band_lo",
            "band_hi",
            "within_band",
            "joint_band_lo",
            "joint_band_hi",
            "within_joint_band",
            "left_out",
        ],
    )


NOMINAL_COVERAGE = 0.95


def coverage_test(covered: int, n: int, nominal: float = NOMINAL_COVERAGE, alpha: float = 0.05) -> dict[str, Any]:
    """The coverage of ``covered`` of ``n`` intervals against the nominal level: Clopper-Pearson
    95% interval and two one-sided exact binomial tests (scipy.stats.binomtest), each at
    ``alpha``: ``coverage_p`` against under-coverage (alternative: the coverage is below
    ``nominal``; the question the paper asks of an interval, whether it is too narrow) and
    ``coverage_p_above`` against over-coverage (a conservative interval). The verdict is 'below
    nominal' when ``coverage_p`` <= alpha, 'above nominal' when ``coverage_p_above`` <= alpha,
    else 'consistent with nominal' (the two p-values sum to at least 1, so both cannot be at
    most alpha). Each test is one-sided because each verdict is a claim about one direction: a
    two-sided test spends half its level on the other one (184 of 200 at 0.95: one-sided p 0.044,
    two-sided 0.071). The interval is the two-sided Clopper-Pearson one, whatever the tests.
    NaNs and '' when n = 0."""
    if n == 0:
        return {
            "coverage_lo": float("nan"),
            "coverage_hi": float("nan"),
            "coverage_p": float("nan"),
            "coverage_p_above": float("nan"),
            "coverage_vs_nominal": "",
        }
    low = stats.binomtest(int(covered), int(n), nominal, alternative="less")
    high = stats.binomtest(int(covered), int(n), nominal, alternative="greater")
    ci = stats.binomtest(int(covered), int(n), nominal).proportion_ci(confidence_level=0.95, method="exact")
    if low.pvalue <= alpha:
        verdict = "below nominal"
    elif high.pvalue <= alpha:
        verdict = "above nominal"
    else:
        verdict = "consistent with nominal"
    return {
        "coverage_lo": float(ci.low),
        "coverage_hi": float(ci.high),
        "coverage_p": float(low.pvalue),
        "coverage_p_above": float(high.pvalue),
        "coverage_vs_nominal": verdict,
    }


#: The planted-recovery row that is a power, not a planted effect.
POWER_ROW = "power: share of models the humans are declared better than (Holm)"


def summarise_planted(
    results: pd.DataFrame, g: Generator, left: dict[str, str] | None = None, alpha: float = 0.05
) -> pd.DataFrame:
    """Per planted effect: its value, the mean estimate, the share of correct signs and the
    coverage of its intervals, with the coverage's Clopper-Pearson interval and one-sided exact
    binomial tests against the nominal 0.95 at ``alpha`` (``coverage_test``; each study is one
    Bernoulli trial, so the human row, a share over the models of a study, has none); ``left``: the tests left out for
    this design (column ``left_out``). ``g`` is the planted generator of the cohort's design, so
    that the planted effect on the composite is that of the cohort's composite
    (``composite_effect``). An effect simulated in no study has no planted value and no rates; one
    whose planted value is undefined for this design (``composite_effect`` NaN) has no number
    either, and its reason in ``left_out``."""
    left = left or {}
    source = {
        "diagnosis": "diagnosis: mixed model (Wald)",
        "romantic": "romantic contrast: mixed model (Wald)",
        "drift": "turn drift: slope, cluster bootstrap",
    }
    human = "human vs model: paired cluster bootstrap"
    truths = {
        "diagnosis effect on emotion F1 (mixed model)": ("diagnosis", g.effect("diagnosis", "emotion")),
        "romantic effect on the composite (mixed model)": ("romantic", composite_effect(g, "romantic")),
        "turn drift of binary OM accuracy (slope)": ("drift", g.effect("drift", "behaviour")),
    }
    rows, binomial = [], []
    for name, (key, truth) in truths.items():
        est, lo, hi = (results[f"{p}_{key}"].to_numpy(float) for p in ("est", "lo", "hi"))
        ok = np.isfinite(est) & np.isfinite(lo) & np.isfinite(hi)
        est, lo, hi = est[ok], lo[ok], hi[ok]
        reason = left.get(source[key], "")
        if not np.isfinite(truth):
            reason = "; ".join(r for r in (reason, COMPOSITE_EFFECT_UNDEFINED) if r)
        if not len(est) or not np.isfinite(truth):  # no number: not simulated, or nothing planted to compare
            rows.append((name, float("nan"), float("nan"), float("nan"), float("nan"), int(ok.sum()), reason))
            binomial.append(coverage_test(0, 0, alpha=alpha))
            continue
        sign = float(np.mean(np.sign(est) == np.sign(truth))) if truth != 0 else float("nan")
        covered = int(np.sum((lo <= truth) & (truth <= hi)))
        rows.append((name, truth, float(np.mean(est)), sign, covered / len(est), int(ok.sum()), reason))
        binomial.append(coverage_test(covered, len(est), alpha=alpha))
    shift = float(g.effect("human_shift", "preference"))
    n_human = int(results["est_human"].notna().sum())
    rows.append(
        (
            "human minus model, binary HP accuracy (paired bootstrap, per model)",
            shift if n_human else float("nan"),
            float(results["est_human"].mean()),
            float(results["sign_human"].mean()) if shift != 0 else float("nan"),
            float(results["cover_human"].mean()),
            n_human,
            left.get(human, ""),
        )
    )
    power = float(results["humans_better_share"].mean())
    rows.append(
        (
            POWER_ROW,
            float("nan"),
            power,
            float("nan"),
            float("nan"),
            int(results["humans_better_share"].notna().sum()),
            left.get(human, ""),
        )
    )
    binomial += [coverage_test(0, 0, alpha=alpha)] * 2
    table = pd.DataFrame(
        rows, columns=["effect", "planted", "mean_estimate", "sign_recovery", "coverage", "n_simulations", "left_out"]
    )
    return pd.concat([table.iloc[:, :5], pd.DataFrame(binomial), table.iloc[:, 5:]], axis=1)

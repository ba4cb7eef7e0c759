"""The validation by simulation vectorised across studies: many simulated studies of one design
as one array dimension, all tests run on them at once.

The generator is simulation.py's (same model, same planted effects, same per-study draws in
kind: random effects, abilities, the raters' conversations, noise); what changes:

- **one design per batch**: a Generator with a copied design (the pipeline's case) has it
  already; one without draws it once per batch from ``design_rng``;
- **shared resampling**: every study of a batch, null and planted alike, uses the same cluster
  bootstrap weights (``weights``), so a bootstrap statistic of S studies is one matrix product;
- **only the values the tests read** are drawn: a turn-level metric's conversation value is the
  mean of its turns' noise, drawn directly with sd / sqrt(turns) (the same distribution), except
  binary OM accuracy, whose turns the drift test reads;
- the mixed models are fitted by reml.fit_many (the same REML model as statsmodels, estimates
  equal to about 1e-7, standard errors to about 1e-4 relative; reml.py says why);
- the topic-effects model of every category (which the validation does not read) is not fitted.

Each study's draws come from its own generator (``rngs[s]``), so a study's values do not depend
on how the studies are split into batches or jobs. ``to_study`` turns study s of a batch into a
:class:`Study`, on which ``simulation.run_tests`` gives the same numbers (the test of this
module checks it). Memory: about 8 x S x (models x turns + 12 x models x conversations) bytes;
``run_batches`` splits the studies into chunks of ``chunk`` studies.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import combinations
from math import comb
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from scipy.stats import page_trend_test

from . import reml
from .bootstrap import bootstrap_p, cluster_weights
from .drift import _bin
from .multiplicity import adjust_present
from .ranks import _permutation_with_discordances
from .simulation import (
    CAPABILITIES,
    CATEGORIES,
    METRICS,
    ROMANTIC,
    RUN_COLUMNS,
    TESTS,
    Generator,
    _derived,
    diagnosis_known,
    parts_present,
    simulated_metrics,
)
from .study import Study
from .subgroups import MAX_EXACT, permutation_test


@dataclass
class Batch:
    """S simulated studies of one design: values [S, models + raters, conversations] per metric,
    the models' turn-level binary OM accuracy [S, models, turns] (turns of conversation 0 first),
    and the twin studies' binary HP accuracy (models and raters of one ability)."""

    g: Generator
    participant: np.ndarray
    participants: int
    diagnosed: np.ndarray
    category: np.ndarray
    n_turns: np.ndarray
    rel: np.ndarray  # relative position of every turn, conversation by conversation
    turn_conversation: np.ndarray
    values: dict[str, np.ndarray]
    om_turns: np.ndarray
    twin_hp: np.ndarray
    # Per conversation: whether its participant's diagnosis is recorded (simulation.diagnosis_known;
    # None: every one's).
    recorded: np.ndarray | None = None

    @property
    def n_models(self) -> int:
        return self.g.n_models

    @property
    def diagnosis_rows(self) -> np.ndarray:
        """Per conversation: whether it enters the diagnosis tests (its participant known, and
        their diagnosis recorded), as Study.diagnosis_recorded does for a cohort."""
        known = self.participant >= 0
        return known if self.recorded is None else known & self.recorded

    @cached_property
    def diagnosis_participants(self) -> tuple[list[int], np.ndarray]:
        """The participant codes that enter the diagnosis tests (with a conversation among
        ``diagnosis_rows``), and whether each has a diagnosis; the same for every study."""
        rows = self.diagnosis_rows
        present = [p for p in range(self.participants) if (rows & (self.participant == p)).any()]
        labels = np.array([bool(self.diagnosed[self.participant == p][0]) for p in present], dtype=bool)
        return present, labels

    @cached_property
    def turn_labels(self) -> tuple[pd.api.extensions.ExtensionArray, pd.api.extensions.ExtensionArray]:
        """The model and conversation of every row of a study's turn table (:func:`to_study`),
        the same for every study of the batch: built once as string arrays, since converting
        them per study was the largest cost of the per-study tests."""
        models = [f"m{i:02d}" for i in range(self.g.n_models)]
        ids = np.array([f"c{j:04d}" for j in range(len(self.participant))], dtype=object)
        return (
            pd.array(np.repeat(np.array(models, dtype=object), len(self.rel)), dtype="str"),
            pd.array(np.tile(ids[self.turn_conversation], len(models)), dtype="str"),
        )


def _design(g: Generator, rng: np.random.Generator):
    n, P = g.n_conversations, g.n_participants
    if g.conversation_participant is not None:
        participant = np.array(g.conversation_participant, dtype=int)
        diagnosed_p = np.array(g.participant_diagnosed, dtype=bool)
        category = np.array(g.conversation_category, dtype=object)
        n_turns = np.array(g.turns_each, dtype=int)
    elif P == 0:  # a design without participants (e.g. mood tags only): every conversation's is unknown (-1)
        diagnosed_p = np.zeros(0, dtype=bool)
        participant = np.full(n, -1, dtype=int)
        category = rng.choice(np.array(CATEGORIES, dtype=object), size=n)
        n_turns = rng.integers(g.turns[0], g.turns[1] + 1, size=n)
    else:
        diagnosed_p = np.zeros(P, dtype=bool)
        diagnosed_p[rng.choice(P, size=g.n_diagnosed, replace=False)] = True
        participant = rng.choice(P, size=n, p=rng.dirichlet(np.full(P, 4.0)))
        category = rng.choice(np.array(CATEGORIES, dtype=object), size=n)
        n_turns = rng.integers(g.turns[0], g.turns[1] + 1, size=n)
    return participant, diagnosed_p, category, n_turns


def draw(
    g: Generator,
    rngs: list[np.random.Generator],
    design_rng: np.random.Generator | None = None,
    design: tuple | None = None,
) -> Batch:
    """One study per generator in ``rngs``, all of ``g``'s design (``design``, else drawn from
    ``design_rng`` when ``g`` has no copied design)."""
    if design is None:
        design = _design(g, design_rng if design_rng is not None else np.random.default_rng(0))
    participant, diagnosed_p, category, n_turns = design
    P, n = len(diagnosed_p), len(participant)
    known = participant >= 0
    diag = np.where(known, diagnosed_p[np.where(known, participant, 0)] if P else False, False)
    romantic = category == ROMANTIC
    prow = np.where(known, participant, P)
    rel = np.concatenate([np.arange(t) / (t - 1) if t > 1 else np.zeros(1) for t in n_turns])
    turn_conv = np.repeat(np.arange(n), n_turns)
    starts = np.r_[0, np.cumsum(n_turns)[:-1]]
    M, Mm, S = g.n_models + g.n_humans, g.n_models, len(rngs)
    names = simulated_metrics(g)
    K, om = len(names), names.index("binary_om_acc")
    cap = np.array([CAPABILITIES.index(METRICS[m][0]) for m in names])
    mean = np.array([METRICS[m][1] for m in names])
    per_turn = np.array([METRICS[m][2] for m in names])
    # Per metric and conversation: the noise sd of the conversation value (a turn-level metric:
    # the mean of its turns' noise) and the mean drift over its turns (0 unless a turn is alone).
    sd = np.where(per_turn[:, None], g.turn_noise_sd / np.sqrt(n_turns)[None, :], g.noise_sd)
    mean_rel = np.add.reduceat(rel, starts) / n_turns
    drift = np.array([g.effect("drift", METRICS[m][0]) if METRICS[m][2] else 0.0 for m in names])
    offset = mean[:, None] + drift[:, None] * (mean_rel - 0.5)[None, :]  # [K, n]
    shift = np.array([g.effect("human_shift", c) for c in CAPABILITIES])
    fixed = np.stack([g.effect("diagnosis", c) * diag + g.effect("romantic", c) * romantic for c in CAPABILITIES])
    om_drift = g.effect("drift", "behaviour") * (rel - 0.5)
    grid = np.empty((S, K, M, n))
    om_turns = np.empty((S, Mm, len(rel)))
    twin = np.empty((S, M, n))
    pref = CAPABILITIES.index("preference")
    for s, rng in enumerate(rngs):
        u = np.vstack([rng.normal(0, g.participant_sd, size=(P, 4)), np.zeros((1, 4))])[prow]  # [n, 4]
        w = rng.normal(0, g.conversation_sd, size=(n, 4))
        ability = rng.normal(0, g.ability_sd, size=(M, 4))
        if g.ability_correlation:  # one factor shared by the four abilities (no extra draw when 0)
            r = g.ability_correlation
            ability = np.sqrt(1 - r) * ability + np.sqrt(r) * rng.normal(0, g.ability_sd, size=(M, 1))
        ability[Mm:] += shift
        human_convs = rng.choice(n, size=min(g.human_conversations, n), replace=False)
        answers = np.ones((M, n), dtype=bool)
        answers[Mm:] = False
        answers[Mm:, human_convs] = True
        conv_part = fixed + (u + w).T  # [4, n]
        base = ability.T[cap][:, :, None] + (offset + conv_part[cap])[:, None, :]  # [K, M, n]
        y = (
            base[om][:, turn_conv]
            - offset[om][turn_conv]
            + mean[om]
            + om_drift[None, :]
            + rng.normal(0, g.turn_noise_sd, size=(M, len(rel)))
        )
        om_turns[s] = y[:Mm]
        value = base + rng.standard_normal((K, M, n)) * sd[:, None, :]
        value[om] = np.add.reduceat(y, starts, axis=1) / n_turns[None, :]
        grid[s] = np.where(answers[None], value, np.nan)
        # The twin study (simulation.simulate_and_test): one ability for models and raters.
        tu = np.vstack([rng.normal(0, g.participant_sd, size=(P, 4)), np.zeros((1, 4))])[prow]
        tw = rng.normal(0, g.conversation_sd, size=(n, 4))
        twin_convs = rng.choice(n, size=min(g.human_conversations, n), replace=False)
        t_answers = np.ones((M, n), dtype=bool)
        t_answers[Mm:] = False
        t_answers[Mm:, twin_convs] = True
        t_ability = np.zeros(M)
        t_ability[Mm:] = shift[pref]
        hp = names.index("binary_hp_acc")
        t_base = offset[hp][None, :] + t_ability[:, None] + (fixed[pref] + tu[:, pref] + tw[:, pref])[None, :]
        twin[s] = np.where(t_answers, t_base + rng.normal(0, 1.0, size=(M, n)) * sd[hp][None, :], np.nan)
    values = {m: grid[:, k] for k, m in enumerate(names)}
    _derived(values, parts_present(g, n))
    return Batch(
        g,
        participant,
        P,
        diag,
        category,
        n_turns.astype(float),
        rel,
        turn_conv,
        values,
        om_turns,
        twin,
        diagnosis_known(g, participant),
    )


def to_study(batch: Batch, s: int, twin: bool = False, turns: bool = True) -> Study:
    """Study ``s`` of a batch as a :class:`Study` (``twin``: its twin study, binary HP accuracy
    only), for checking the vectorised tests against the per-study ones. ``turns=False`` leaves
    ``Study.turns`` None, for analyses that read the conversation values only (building the
    turn table is most of this function's time)."""
    g = batch.g
    models = [f"m{i:02d}" for i in range(g.n_models)] + [f"human_{i + 1}" for i in range(g.n_humans)]
    roles = {name: ("human" if name.startswith("human_") else "model") for name in models}
    ids = [f"c{j:04d}" for j in range(len(batch.participant))]
    values = {"binary_hp_acc": batch.twin_hp[s]} if twin else {m: v[s] for m, v in batch.values.items()}
    table = None
    if turns:
        em_model, conversation_id = batch.turn_labels
        table = pd.DataFrame(
            {
                "em_model": em_model,
                "conversation_id": conversation_id,
                "rel_position": np.tile(batch.rel, g.n_models),
                "binary_om_acc": batch.om_turns[s].ravel(),
            }
        )
    return Study(
        models,
        roles,
        ids,
        batch.participant,
        [f"P{p:02d}" for p in range(batch.participants)],
        batch.diagnosed,
        batch.category,
        batch.n_turns,
        values,
        table,
        batch.recorded,
    )


def _percentiles(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """bootstrap.percentile_interval along the last axis (np.quantile, vectorised, when no
    value is NaN: the same numbers as np.nanquantile, which loops over the rows)."""
    q = np.quantile if not np.isnan(x).any() else np.nanquantile
    lower, upper = q(x, [0.025, 0.975], axis=-1)  # one partition for both ends, as percentile_interval
    return lower, upper


def _matmul_t(x: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """x [..., n] @ weights.T [n, B] as one 2-D BLAS product (a stacked matmul with a transposed
    operand falls back to numpy's own loop, slower by two orders of magnitude at 10,000
    conversations)."""
    return (x.reshape(-1, x.shape[-1]) @ weights.T).reshape(x.shape[:-1] + (weights.shape[0],))


def _boot_means(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """[..., B] weighted means over the last axis of ``values`` (NaN skipped), as
    bootstrap.resampled_means."""
    ok = ~np.isnan(values)
    if ok.all():
        num, den = _matmul_t(values, weights), np.broadcast_to(weights.sum(axis=1), values.shape[:-1] + (len(weights),))
    else:
        num, den = _matmul_t(np.where(ok, values, 0.0), weights), _matmul_t(ok.astype(float), weights)
    return np.divide(num, den, out=np.full(num.shape, np.nan), where=den > 0)


def _diagnosis(batch: Batch, conv: np.ndarray, rngs) -> dict[str, np.ndarray]:
    S = conv.shape[0]
    rows = batch.diagnosis_rows
    present, labels = batch.diagnosis_participants
    scores = (
        np.stack([conv[:, batch.participant == p].mean(axis=1) for p in present], axis=1)
        if present
        else np.zeros((S, 0))
    )
    n, k = len(present), int(labels.sum())
    perm = np.full(S, np.nan)
    if 0 < k < n and comb(n, k) <= MAX_EXACT:
        groups = np.zeros((comb(n, k), n))
        for r, gsel in enumerate(combinations(range(n), k)):
            groups[r, list(gsel)] = 1.0
        observed = scores[:, labels].mean(axis=1) - scores[:, ~labels].mean(axis=1)
        inside = scores @ groups.T
        diff = inside / k - (scores.sum(axis=1)[:, None] - inside) / (n - k)
        perm = (np.abs(diff) >= np.abs(observed)[:, None] - 1e-12).mean(axis=1)
    elif 0 < k < n:  # Monte-Carlo relabelling, study by study
        perm = np.array([permutation_test(scores[s], labels, rngs[s])["p_value"] for s in range(S)])
    cats = sorted({c for c in batch.category[rows]}, key=str)
    cols = [np.ones(rows.sum()), batch.diagnosed[rows].astype(float)]
    if len(cats) > 1:
        cols += [(batch.category[rows] == c).astype(float) for c in cats[1:]]
    cols.append(batch.n_turns[rows])
    fit = reml.fit_many(np.column_stack(cols), batch.participant[rows], conv[:, rows], term=1)
    return {
        "p_diagnosis_permutation": perm,
        "p_diagnosis_mixed": fit["p_value"],
        "est_diagnosis": fit["estimate"],
        "lo_diagnosis": fit["lo"],
        "hi_diagnosis": fit["hi"],
    }


def _romantic(batch: Batch, conv: np.ndarray, weights: np.ndarray) -> dict[str, np.ndarray]:
    S = conv.shape[0]
    is_rom = batch.category == ROMANTIC
    both = np.stack(
        [_boot_means(conv[:, is_rom], weights[:, is_rom]), _boot_means(conv[:, ~is_rom], weights[:, ~is_rom])]
    )
    p_boot = bootstrap_p(both[0] - both[1], axis=-1)
    rows = batch.participant >= 0
    n_in = int(is_rom[rows].sum())
    if rows.sum() == 0 or n_in == 0 or n_in == rows.sum():
        fit = dict.fromkeys(("estimate", "lo", "hi", "p_value"), np.full(S, np.nan))
    else:
        X = np.column_stack([np.ones(rows.sum()), is_rom[rows].astype(float), batch.n_turns[rows]])
        fit = reml.fit_many(X, batch.participant[rows], conv[:, rows], term=1)
    return {
        "p_romantic_boot": p_boot,
        "p_romantic_mixed": fit["p_value"],
        "est_romantic": fit["estimate"],
        "lo_romantic": fit["lo"],
        "hi_romantic": fit["hi"],
    }


def _drift(batch: Batch, weights: np.ndarray) -> dict[str, np.ndarray]:
    y = batch.om_turns  # [S, Mm, T]
    Mm, n = y.shape[1], weights.shape[1]
    x = batch.rel
    starts = np.r_[0, np.cumsum(batch.n_turns.astype(int))[:-1]]
    per_conv = lambda v: np.add.reduceat(v, starts, axis=-1)  # noqa: E731 - sums per conversation
    sums = [
        np.full((1, n), 0.0) + Mm * per_conv(np.ones_like(x)),
        Mm * per_conv(x)[None, :],
        per_conv(y.sum(axis=1)),
        per_conv((y * x).sum(axis=1)),
        Mm * per_conv(x * x)[None, :],
    ]
    point_w = np.ones((1, n))

    def slope(w):
        sw, swx, swy, swxy, swxx = (s @ w.T for s in sums)  # [S or 1, B]
        mx, my = swx / sw, swy / sw
        sxx = swxx - sw * mx * mx
        return np.divide(
            swxy - sw * mx * my,
            sxx,
            out=np.full(np.broadcast(swy, sxx).shape, np.nan),
            where=np.broadcast_to(sxx > 0, np.broadcast(swy, sxx).shape),
        )

    boot = slope(weights)
    est = slope(point_w)[:, 0]
    lo, hi = _percentiles(boot)
    b = _bin(x)
    onehot = np.stack([(b == k).astype(float) for k in range(3)], axis=1)  # [T, 3]
    counts = onehot.sum(axis=0)
    bin_means = np.divide(y @ onehot, counts, out=np.full(y.shape[:2] + (3,), np.nan), where=counts > 0)
    page = np.full(len(y), np.nan)
    for s, data in enumerate(bin_means):
        ok = ~np.isnan(data).any(axis=1)
        if ok.sum() >= 2:
            page[s] = page_trend_test(data[ok], ranked=False, predicted_ranks=[3, 2, 1]).pvalue
    return {
        "p_drift_slope": bootstrap_p(boot, axis=-1),
        "p_page": page,
        "est_drift": est,
        "lo_drift": lo,
        "hi_drift": hi,
    }


def _log_f(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """[S, B] log F ratio of the models' resampled means (discriminability.log_f)."""
    means = _boot_means(values, weights)  # [S, Mm, B]
    ok = ~np.isnan(values)
    x = np.where(ok, values, 0.0)
    cnt = _matmul_t(ok.astype(float), weights)
    second = np.divide(_matmul_t(x**2, weights), cnt, out=np.full(cnt.shape, np.nan), where=cnt > 0)
    var = np.maximum(second - means**2, 0.0) * np.divide(cnt, cnt - 1, out=np.full(cnt.shape, np.nan), where=cnt > 1)
    se2 = np.divide(var, cnt, out=np.full(cnt.shape, np.nan), where=cnt > 0)
    observed, noise = np.nanvar(means, axis=1, ddof=1), np.nanmean(se2, axis=1)
    return np.log(np.divide(observed, noise, out=np.full(noise.shape, np.nan), where=noise > 0))


def _humans(batch: Batch, weights: np.ndarray, alpha: float) -> dict[str, np.ndarray]:
    g = batch.g
    v = batch.twin_hp
    S, Mm = v.shape[0], g.n_models
    shift = g.effect("human_shift", "preference")
    if not g.n_humans or "human vs model: paired cluster bootstrap" in g.skip:
        return {
            k: np.full(S, np.nan)
            for k in ("p_human_vs_model", "humans_better_share", "est_human", "sign_human", "cover_human")
        }
    hv = v[:, Mm:]
    rated = np.isfinite(hv).any(axis=1)
    human = np.where(rated, np.nansum(hv, axis=1) / np.maximum(np.isfinite(hv).sum(axis=1), 1), np.nan)
    diff = human[:, None, :] - v[:, :Mm]  # [S, Mm, n]
    boot = _boot_means(diff, weights)
    lo, hi = _percentiles(boot)
    p = bootstrap_p(boot, axis=-1)  # [S, Mm]
    point = np.nanmean(diff, axis=-1)
    holm = np.stack([adjust_present(row, "holm") for row in p])
    better = (holm <= alpha) & (point > 0)  # binary HP accuracy: higher is better
    return {
        "p_human_vs_model": p[:, 0],
        "humans_better_share": better.mean(axis=1),
        "est_human": point.mean(axis=1),
        "sign_human": (np.sign(point) == np.sign(shift)).mean(axis=1),
        "cover_human": ((lo <= shift) & (shift <= hi)).mean(axis=1),
    }


def _kendall_p(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """scipy.stats.kendalltau's p-value for each row pair of ``a``, ``b`` [S, n]. Without ties
    it depends on the number of discordant pairs only, so scipy is called once per count seen
    (on a permutation with that many inversions); a row with a tie is passed to scipy as it is."""
    i, j = np.triu_indices(a.shape[1], 1)
    product = np.sign(a[:, j] - a[:, i]) * np.sign(b[:, j] - b[:, i])
    tied = (product == 0).any(axis=1)
    discordant = (product < 0).sum(axis=1)
    n, cache, out = a.shape[1], {}, np.empty(len(a))
    for s in range(len(a)):
        if tied[s]:
            out[s] = stats.kendalltau(a[s], b[s]).pvalue
            continue
        d = int(discordant[s])
        if d not in cache:
            cache[d] = stats.kendalltau(np.arange(n), _permutation_with_discordances(n, d)).pvalue
        out[s] = cache[d]
    return out


def run_tests(batch: Batch, weights: np.ndarray, alpha: float, rngs=None) -> pd.DataFrame:
    """Every test of simulation.run_tests and simulation.human_tests on every study of the
    batch with the shared bootstrap ``weights`` [B, conversations]: one row per study, the
    columns of simulation.simulate_and_test (NaN for the tests in the generator's skip)."""
    g = batch.g
    S = batch.om_turns.shape[0]
    models = slice(0, g.n_models)
    out: dict[str, Any] = {c: np.full(S, np.nan) for cols in RUN_COLUMNS.values() for c in cols}
    run = {
        group for group, cols in RUN_COLUMNS.items() if not all(t in g.skip for t, col in TESTS.items() if col in cols)
    }
    if "diagnosis" in run:
        out.update(_diagnosis(batch, batch.values["emotion_f1"][:, models].mean(axis=1), rngs))
    if "romantic" in run:
        out.update(_romantic(batch, batch.values["composite"][:, models].mean(axis=1), weights))
    if "drift" in run:
        out.update(_drift(batch, weights))
    if "rank" in run:
        a = batch.values["emotion_f1"][:, models].mean(axis=2)
        b = batch.values["binary_om_acc"][:, models].mean(axis=2)
        out["p_rank_tau"] = _kendall_p(a, b)
    if "discriminability" in run:
        d = _log_f(batch.values["pairwise_acc"][:, models], weights) - _log_f(
            batch.values["binary_hp_acc"][:, models], weights
        )
        out["p_discriminability"] = bootstrap_p(d, axis=-1)
    for test in g.skip:
        if TESTS[test] in out:
            out[TESTS[test]] = np.full(S, np.nan)
    out.update(_humans(batch, weights, alpha))
    return pd.DataFrame({k: np.asarray(v, float) for k, v in out.items()})


#: Bytes of the arrays of one chunk of studies (``chunk_size``): far below the 2 GiB of a job.
CHUNK_BYTES = 256 * 2**20


def chunk_size(design: tuple, g: Generator, n_bootstrap: int) -> int:
    """Studies per chunk so that the chunk's arrays take at most about CHUNK_BYTES (at most 50:
    beyond that a chunk is no faster per study)."""
    participant, _, _, n_turns = design
    n, T, M = len(participant), int(np.sum(n_turns)), g.n_models + g.n_humans
    per_study = 8 * (3 * g.n_models * T + 14 * M * n + 4 * g.n_models * n_bootstrap)
    return int(max(1, min(50, CHUNK_BYTES // max(per_study, 1))))


def simulate_and_test_many(
    g: Generator,
    rngs: list[np.random.Generator],
    weights: np.ndarray,
    alpha: float,
    chunk: int | None = None,
    design_rng: np.random.Generator | None = None,
) -> pd.DataFrame:
    """Studies drawn from ``rngs`` (one generator each) through every test with the shared
    ``weights``, ``chunk`` studies at a time (default ``chunk_size``: memory is bounded by the
    chunk, time grows linearly with the number of studies)."""
    parts = []
    design = _design(g, design_rng if design_rng is not None else np.random.default_rng(0))  # one for all chunks
    chunk = chunk or chunk_size(design, g, weights.shape[0])
    for start in range(0, len(rngs), chunk):
        part = rngs[start : start + chunk]
        parts.append(run_tests(draw(g, part, design=design), weights, alpha, part))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def shared_weights(g: Generator, n_bootstrap: int, rng: np.random.Generator) -> np.ndarray:
    """The cluster-bootstrap weights every simulated study of this design shares."""
    return cluster_weights(
        np.arange(g.n_conversations if g.conversation_participant is None else len(g.conversation_participant)),
        n_bootstrap,
        rng,
    )

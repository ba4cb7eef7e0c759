"""EQ-Bench v2 (Paech, arXiv 2312.06281; github.com/EQ-bench/EQ-Bench at v2.3): recompute the stored
benchmark scores of 86 models from their per-item answers, and measure how reliably the items rank the
models as a function of the number of items (split-half and bootstrap sample-size curves).

Data: a directory laid out like the local mirror (``PROVENANCE.md`` there): ``per_item_answers.csv``,
``results_summary.csv`` and ``eq_bench_v2_questions_171.json``. The files are never part of the
repository; every function takes a directory or DataFrames.

Scoring (upstream ``lib/scoring.py``; checked against ``results_summary.csv``):

* per emotion ``d = |rating - reference|`` (rating points, 0-10 for sane answers; a model may answer
  outside the scale, e.g. 36, and ``d`` is then used as it is);
* ``d' = 0`` if ``d == 0``; ``d' = 6.5 / (1 + exp(-1.2 (d - 4)))`` if ``0 < d <= 5``; ``d' = d`` if ``d > 5``;
* item score ``= 10 - 0.7477 * sum(d')`` over the item's 4 emotions (at most 10; 0 is the expected
  value of random answering; unbounded below). An item is *parseable* in a pass only when all 4 of
  its reference emotions are rated; otherwise its item score is NaN and it is left out;
* per run and per pass (``first_pass``, ``revised``): pass score ``= 10 * mean item score`` over the
  pass's parseable items (0-100 scale; 0 when nothing is parseable);
* per run the *revised* pass is used when ``score_revised >= score_first_pass`` and it has at least
  95% as many parseable items as the first pass; otherwise the first pass;
* per model: the run scores are averaged (upstream divides the sum of per-run final scores by the
  number of iterations), then rounded to 2 decimals. All 86 stored models have exactly one run, so
  the mirror cannot distinguish "per run then averaged" from pooling the items of all runs; the
  upstream per-run-then-average order is implemented;
* a run is invalid below 83.33% parseable items (of 171).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import stats

ANSWERS_FILE = "per_item_answers.csv"
SUMMARY_FILE = "results_summary.csv"
QUESTIONS_FILE = "eq_bench_v2_questions_171.json"

ANSWER_COLUMNS = ("model_path", "run", "item", "emotion", "first_pass", "revised", "reference")
SUMMARY_COLUMNS = ("model_path", "benchmark_score", "n_questions_parseable")

N_ITEMS = 171
N_EMOTIONS = 4
ADJUST_CONST = 0.7477
VALID_SHARE = 0.8333
REVISED_MIN_PARSEABLE_RATIO = 0.95
PASSES = ("first_pass", "revised")


class EQBenchData(NamedTuple):
    """The mirror as tidy tables.

    ``answers``: one row per model, run, item and rated emotion (columns ``ANSWER_COLUMNS``; ratings and
    reference as floats, ``revised`` NaN for runs without revision). ``summary``: one row per model with
    the stored ``benchmark_score`` (0-100) and ``n_questions_parseable``. ``questions``: one row per
    item and emotion (``item``, ``emotion_index`` 1-4, ``emotion``, ``reference`` float 0-10, cast from
    strings where the JSON stores them as strings).
    """

    answers: pd.DataFrame
    summary: pd.DataFrame
    questions: pd.DataFrame


def _require_columns(frame: pd.DataFrame, required: tuple[str, ...], path: Path) -> None:
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{path}: missing column(s) {', '.join(repr(c) for c in missing)}; expected at least "
            f"{', '.join(required)} (found {', '.join(map(str, frame.columns))}). Fix: point load() at an "
            f"unmodified EQ-Bench mirror directory (see its PROVENANCE.md) or re-export {path.name} with "
            f"these columns."
        )


def questions_table(questions: dict) -> pd.DataFrame:
    """Tidy reference ratings from the parsed questions JSON (item id -> dict with
    ``reference_answer_fullscale`` holding ``emotion1..4`` and ``emotion1..4_score``).

    Scores stored as strings (``"6"``) are cast to float; a value that is not a number raises
    ``ValueError`` naming the item. Returns columns ``item`` (int), ``emotion_index`` (1-4),
    ``emotion`` and ``reference`` (float, 0-10), sorted by item and emotion index.
    """
    rows = []
    for key, entry in questions.items():
        ref = entry["reference_answer_fullscale"]
        for i in range(1, N_EMOTIONS + 1):
            raw = ref[f"emotion{i}_score"]
            try:
                value = float(raw)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"item {key}: reference emotion{i}_score {raw!r} is not a number") from exc
            rows.append({"item": int(key), "emotion_index": i, "emotion": ref[f"emotion{i}"], "reference": value})
    return pd.DataFrame(rows).sort_values(["item", "emotion_index"], ignore_index=True)


def load(directory: str | Path) -> EQBenchData:
    """Read the three mirror files from ``directory`` into tidy DataFrames (see ``EQBenchData``).

    Raises ``FileNotFoundError`` naming a missing file, and ``ValueError`` naming the file, the missing
    column(s) and the fix when a table lacks a required column. Checks that the ``reference`` column of
    the answers equals the questions JSON's ``reference_answer_fullscale`` (after casting strings) and
    raises ``ValueError`` on any disagreement or on an answer row whose (item, emotion) is not a
    reference emotion.
    """
    directory = Path(directory)
    paths = {name: directory / name for name in (ANSWERS_FILE, SUMMARY_FILE, QUESTIONS_FILE)}
    for path in paths.values():
        if not path.is_file():
            raise FileNotFoundError(f"{path}: file not found; pass the directory of the EQ-Bench mirror")

    answers = pd.read_csv(paths[ANSWERS_FILE])
    _require_columns(answers, ANSWER_COLUMNS, paths[ANSWERS_FILE])
    answers = answers.loc[:, list(ANSWER_COLUMNS)].copy()
    answers["run"] = answers["run"].astype(int)
    answers["item"] = answers["item"].astype(int)
    for col in ("first_pass", "revised", "reference"):
        answers[col] = pd.to_numeric(answers[col], errors="raise").astype(float)

    summary = pd.read_csv(paths[SUMMARY_FILE])
    _require_columns(summary, SUMMARY_COLUMNS, paths[SUMMARY_FILE])

    with open(paths[QUESTIONS_FILE], encoding="utf-8") as fh:
        questions = questions_table(json.load(fh))

    merged = answers.merge(questions, on=["item", "emotion"], how="left", suffixes=("", "_json"))
    unknown = merged["reference_json"].isna()
    if unknown.any():
        first = merged.loc[unknown].iloc[0]
        raise ValueError(
            f"{paths[ANSWERS_FILE]}: {int(unknown.sum())} row(s) rate an emotion that is not a reference "
            f"emotion of the item (first: item {first['item']}, emotion {first['emotion']!r})"
        )
    disagree = merged["reference"] != merged["reference_json"]
    if disagree.any():
        raise ValueError(
            f"{paths[ANSWERS_FILE]}: {int(disagree.sum())} row(s) whose 'reference' differs from "
            f"{QUESTIONS_FILE} reference_answer_fullscale"
        )
    return EQBenchData(answers=answers, summary=summary, questions=questions)


def scaled_difference(d: np.ndarray | float) -> np.ndarray:
    """The v2 penalty ``d'`` for absolute rating differences ``d >= 0`` (rating points).

    ``0`` when ``d == 0``; ``6.5 / (1 + exp(-1.2 (d - 4)))`` when ``0 < d <= 5`` (an S-curve: about
    0.06 at d = 1, 1.72 at d = 3, 5.01 at d = 5); ``d`` when ``d > 5`` (so the penalty jumps from
    5.01 to 5+ at d = 5 -> 6). NaN stays NaN.
    """
    d = np.asarray(d, dtype=float)
    with np.errstate(over="ignore"):
        logistic = 6.5 / (1.0 + np.exp(-1.2 * (d - 4.0)))
    return np.where(d == 0, 0.0, np.where(d <= 5, logistic, d))


def item_score_from_ratings(ratings, references) -> float:
    """v2 score of one item from its 4 ratings and 4 reference ratings (numbers or numeric strings).

    Returns ``10 - 0.7477 * sum(d')`` (at most 10), or NaN when any of the 4 ratings is missing (the
    item is then unparseable). Raises ``ValueError`` unless exactly 4 of each are given.
    """
    ratings = pd.to_numeric(pd.Series(list(ratings), dtype=object), errors="raise").astype(float).to_numpy()
    references = pd.to_numeric(pd.Series(list(references), dtype=object), errors="raise").astype(float).to_numpy()
    if len(ratings) != N_EMOTIONS or len(references) != N_EMOTIONS:
        raise ValueError(f"an item has {N_EMOTIONS} emotions; got {len(ratings)} ratings, {len(references)} references")
    if np.isnan(ratings).any():
        return math.nan
    return float(10.0 - ADJUST_CONST * scaled_difference(np.abs(ratings - references)).sum())


def item_scores(answers: pd.DataFrame) -> pd.DataFrame:
    """Per model, run, pass and item: the v2 item score.

    ``answers`` has ``ANSWER_COLUMNS`` (``reference`` may hold numeric strings; they are cast). Returns
    a long table with columns ``model_path``, ``run``, ``pass`` (``first_pass`` / ``revised``),
    ``item``, ``n_rated`` (0-4) and ``item_score`` (at most 10; NaN when fewer than 4 emotions are
    rated, i.e. the item is unparseable in that pass). Items absent from ``answers`` for a model are
    absent here too (they count as unparseable in ``benchmark_scores``). A pass that no row of a run
    rates (no revision) appears with ``n_rated`` 0 and NaN scores.
    """
    missing = [c for c in ANSWER_COLUMNS if c not in answers.columns]
    if missing:
        raise ValueError(f"answers: missing column(s) {', '.join(missing)}; expected {', '.join(ANSWER_COLUMNS)}")
    reference = pd.to_numeric(answers["reference"], errors="raise").astype(float)
    keys = answers[["model_path", "run", "item"]].reset_index(drop=True)
    frames = []
    for name in PASSES:
        rating = pd.to_numeric(answers[name], errors="raise").astype(float).to_numpy()
        penalty = scaled_difference(np.abs(rating - reference.to_numpy()))
        part = keys.assign(rated=~np.isnan(rating), penalty=np.where(np.isnan(rating), 0.0, penalty))
        grouped = part.groupby(["model_path", "run", "item"], sort=True).agg(
            n_rated=("rated", "sum"), n_rows=("rated", "size"), penalty=("penalty", "sum")
        )
        if (grouped["n_rows"] > N_EMOTIONS).any():
            raise ValueError(f"answers: more than {N_EMOTIONS} emotion rows for some model, run and item")
        score = 10.0 - ADJUST_CONST * grouped["penalty"]
        grouped["item_score"] = score.where(grouped["n_rated"] == N_EMOTIONS)
        frames.append(grouped.reset_index().assign(**{"pass": name}))
    out = pd.concat(frames, ignore_index=True)
    out["n_rated"] = out["n_rated"].astype(int)
    return out.loc[:, ["model_path", "run", "pass", "item", "n_rated", "item_score"]]


def run_scores(items: pd.DataFrame, n_items: int = N_ITEMS) -> pd.DataFrame:
    """Per model and run: both pass scores and the upstream choice between them.

    ``items`` is the output of ``item_scores``. Columns: ``score_first_pass``, ``score_revised``
    (10 * mean parseable item score, 0-100 scale, 0 when no item is parseable), ``n_parseable_first_pass``,
    ``n_parseable_revised``, ``chosen_pass`` (revised when its score is >= the first pass's and it has
    >= 95% as many parseable items), ``score`` (the chosen pass's score, unrounded), ``n_parseable_chosen``
    (what the upstream code at HEAD stores), ``n_parseable`` (the larger of the two counts; this is what
    ``results_summary.csv`` stores for all 86 models), ``parseable_share`` = ``n_parseable / n_items``
    (0-1) and ``valid`` (share >= 0.8333).
    """
    g = items.groupby(["model_path", "run", "pass"])["item_score"]
    wide = pd.DataFrame({"mean": g.mean(), "n": g.count()}).unstack("pass")
    out = pd.DataFrame(index=wide.index)
    for name in PASSES:
        mean = wide["mean"][name] if name in wide["mean"] else pd.Series(np.nan, index=wide.index)
        count = wide["n"][name] if name in wide["n"] else pd.Series(0, index=wide.index)
        out[f"score_{name}"] = (10.0 * mean).fillna(0.0)
        out[f"n_parseable_{name}"] = count.fillna(0).astype(int)
    use_revised = (out["score_revised"] >= out["score_first_pass"]) & (
        out["n_parseable_revised"] >= REVISED_MIN_PARSEABLE_RATIO * out["n_parseable_first_pass"]
    )
    out["chosen_pass"] = np.where(use_revised, "revised", "first_pass")
    out["score"] = np.where(use_revised, out["score_revised"], out["score_first_pass"])
    out["n_parseable_chosen"] = np.where(use_revised, out["n_parseable_revised"], out["n_parseable_first_pass"])
    out["n_parseable"] = np.maximum(out["n_parseable_first_pass"], out["n_parseable_revised"])
    out["parseable_share"] = out["n_parseable"] / n_items
    out["valid"] = out["parseable_share"] >= VALID_SHARE
    return out.reset_index()


def benchmark_scores(items: pd.DataFrame, summary: pd.DataFrame | None = None, n_items: int = N_ITEMS) -> pd.DataFrame:
    """Per model: the recomputed benchmark score next to the stored one.

    ``items`` from ``item_scores``; ``summary`` the stored table (``model_path``, ``benchmark_score``,
    ``n_questions_parseable``) or None. Columns: ``n_runs``; ``recomputed`` (mean over runs of the run
    scores, rounded to 2 decimals as upstream; 0-100 scale); ``recomputed_unrounded``; ``stored``;
    ``difference`` = recomputed - stored (NaN without a stored score); ``n_parseable`` (mean over runs)
    and ``stored_n_parseable``; ``parseable_share`` (0-1, mean over runs); ``valid`` (the run-averaged
    share >= 0.8333, as upstream checks the run-averaged count); ``all_runs_valid``; ``chosen_pass``
    (of the first run; ``mixed`` when runs differ).
    """
    runs = run_scores(items, n_items=n_items)
    g = runs.groupby("model_path")
    out = pd.DataFrame(
        {
            "n_runs": g.size(),
            "recomputed_unrounded": g["score"].mean(),
            "n_parseable": g["n_parseable"].mean(),
            "all_runs_valid": g["valid"].all(),
            "chosen_pass": g["chosen_pass"].agg(lambda s: s.iloc[0] if s.nunique() == 1 else "mixed"),
        }
    )
    out["recomputed"] = out["recomputed_unrounded"].round(2)
    out["parseable_share"] = out["n_parseable"] / n_items
    out["valid"] = out["parseable_share"] >= VALID_SHARE
    if summary is not None:
        stored = summary.set_index("model_path")
        out["stored"] = stored["benchmark_score"].reindex(out.index)
        out["stored_n_parseable"] = stored["n_questions_parseable"].reindex(out.index)
    else:
        out["stored"] = np.nan
        out["stored_n_parseable"] = np.nan
    out["difference"] = out["recomputed"] - out["stored"]
    cols = [
        "n_runs",
        "recomputed",
        "recomputed_unrounded",
        "stored",
        "difference",
        "chosen_pass",
        "n_parseable",
        "stored_n_parseable",
        "parseable_share",
        "valid",
        "all_runs_valid",
    ]
    return out.loc[:, cols].sort_values("recomputed", ascending=False)


def item_matrix(items: pd.DataFrame, n_items: int | None = None) -> pd.DataFrame:
    """Models x items matrix of the item scores that enter each model's benchmark score.

    For each model and run the pass chosen by ``run_scores`` is kept; runs are averaged per item
    (NaN-aware). Rows: ``model_path``; columns: item ids (all items seen, or 1..``n_items``). NaN marks
    an item unparseable (or absent) for that model.
    """
    runs = run_scores(items)[["model_path", "run", "chosen_pass"]].rename(columns={"chosen_pass": "pass"})
    kept = items.merge(runs, on=["model_path", "run", "pass"])
    wide = kept.pivot_table(index="model_path", columns="item", values="item_score", aggfunc="mean", dropna=False)
    if n_items is not None:
        wide = wide.reindex(columns=range(1, n_items + 1))
    wide.columns.name = "item"
    return wide


def _subset_scores(x: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Per draw and model: mean item score over the draw's items, NaN items skipped.

    ``x``: models x items; ``idx``: draws x k item indices. Returns draws x models. A model with no
    available item in a draw gets NaN.
    """
    sub = x[:, idx]  # models x draws x k
    with np.errstate(invalid="ignore", divide="ignore"):
        total = np.nansum(sub, axis=2)
        count = np.sum(~np.isnan(sub), axis=2)
        mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    return mean.T


def _rank_agreement(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise Kendall tau-b and Spearman rho between two draws x models score arrays (models with NaN
    in either row are omitted from that row's comparison)."""
    taus = np.empty(len(a))
    rhos = np.empty(len(a))
    for i, (u, v) in enumerate(zip(a, b)):
        ok = ~(np.isnan(u) | np.isnan(v))
        taus[i] = stats.kendalltau(u[ok], v[ok]).statistic
        rhos[i] = stats.spearmanr(u[ok], v[ok]).statistic
    return taus, rhos


def spearman_brown(r: float | np.ndarray, factor: float | np.ndarray) -> np.ndarray:
    """Spearman-Brown projection of a reliability ``r`` (correlation between parallel forms) to a test
    ``factor`` times as long: ``factor r / (1 + (factor - 1) r)``. Defined for 0 < r <= 1; NaN otherwise
    (a non-positive split-half correlation carries no length information)."""
    r = np.asarray(r, dtype=float)
    factor = np.asarray(factor, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = factor * r / (1.0 + (factor - 1.0) * r)
    return np.where((r > 0) & (r <= 1), out, np.nan)


def _interval(values: np.ndarray, level: float) -> tuple[float, float]:
    lo, hi = np.nanpercentile(values, [50 * (1 - level), 50 * (1 + level)])
    return float(lo), float(hi)


def ranking_reliability_curve(
    item_scores_wide: pd.DataFrame | np.ndarray,
    sizes,
    n_draws: int,
    rng: np.random.Generator,
    level: float = 0.95,
    full_length: int | None = None,
) -> pd.DataFrame:
    """Rank reliability of the model ranking as a function of the number of items ``k``.

    ``item_scores_wide``: models x items (e.g. ``item_matrix``), NaN = item unparseable for that model.
    NaN policy: a model's score on an item subset is its mean over the subset's *available* items,
    i.e. the benchmark's own rule (mean over parseable items); no item is dropped. (In the mirror, 103
    of 86 x 171 cells are missing but they touch 74 items: dropping every item missing for any model
    would discard 43% of the pool to repair 0.7% of the cells.) A model with
    no available item in a subset is left out of that draw's comparison.

    For each ``k`` in ``sizes`` and each of ``n_draws`` draws from ``rng`` (the caller seeds it):

    * ``split_half`` (only for ``2k <= n_items``): a random permutation of the items gives two
      disjoint subsets of ``k`` items; Kendall tau-b (``scipy.stats.kendalltau``) and Spearman rho
      between the two rankings. Reported: means and ``level`` percentile intervals over draws, and
      ``sb_rho_full`` = Spearman-Brown projection of the mean rho to ``full_length`` items (default
      all items), factor ``full_length / k``.
    * ``bootstrap`` (for ``k <= n_items``): ``k`` items drawn with replacement; Kendall tau-b and
      Spearman rho between the full-item ranking and the resample ranking; ``adjacent_stability`` =
      share of resamples in which a pair of models adjacent in the full ranking keeps its order,
      averaged over the adjacent pairs (ties count as not kept), with ``adjacent_stability_min`` the
      least stable pair's share.

    Returns one row per method and ``k``: ``method``, ``k``, ``n_draws``, ``tau_mean``, ``tau_lo``,
    ``tau_hi``, ``rho_mean``, ``rho_lo``, ``rho_hi``, ``sb_rho_full``, ``adjacent_stability``,
    ``adjacent_stability_min`` (NaN where not defined). All agreement values lie in [-1, 1];
    stabilities in [0, 1].
    """
    x = np.asarray(item_scores_wide, dtype=float)
    n_models, n_items = x.shape
    if n_models < 3:
        raise ValueError("need at least 3 models to measure ranking agreement")
    if n_draws < 1:
        raise ValueError("n_draws must be >= 1")
    full_length = n_items if full_length is None else full_length
    full = _subset_scores(x, np.arange(n_items)[None, :])[0]
    order = np.argsort(-full, kind="stable")
    rows = []
    for k in sorted({int(s) for s in sizes}):
        if k < 1:
            raise ValueError(f"sizes must be >= 1, got {k}")
        if 2 * k <= n_items:
            perm = np.argsort(rng.random((n_draws, n_items)), axis=1)
            a = _subset_scores(x, perm[:, :k])
            b = _subset_scores(x, perm[:, k : 2 * k])
            taus, rhos = _rank_agreement(a, b)
            rows.append(
                _row("split_half", k, n_draws, taus, rhos, level, sb=spearman_brown(np.nanmean(rhos), full_length / k))
            )
        if k <= n_items:
            idx = rng.integers(0, n_items, size=(n_draws, k))
            boot = _subset_scores(x, idx)
            taus, rhos = _rank_agreement(boot, np.broadcast_to(full, boot.shape))
            ordered = boot[:, order]
            kept = ordered[:, :-1] > ordered[:, 1:]
            pair_share = kept.mean(axis=0)
            rows.append(
                _row("bootstrap", k, n_draws, taus, rhos, level, stability=(pair_share.mean(), pair_share.min()))
            )
    return pd.DataFrame(rows)


def _row(method, k, n_draws, taus, rhos, level, sb=np.nan, stability=(np.nan, np.nan)) -> dict:
    tau_lo, tau_hi = _interval(taus, level)
    rho_lo, rho_hi = _interval(rhos, level)
    return {
        "method": method,
        "k": k,
        "n_draws": n_draws,
        "tau_mean": float(np.nanmean(taus)),
        "tau_lo": tau_lo,
        "tau_hi": tau_hi,
        "rho_mean": float(np.nanmean(rhos)),
        "rho_lo": rho_lo,
        "rho_hi": rho_hi,
        "sb_rho_full": float(sb),
        "adjacent_stability": float(stability[0]),
        "adjacent_stability_min": float(stability[1]),
    }


def items_needed(
    curve: pd.DataFrame, target: float = 0.9, method: str = "split_half", statistic: str = "tau_mean"
) -> float:
    """Smallest number of items at which ``statistic`` of ``method`` reaches ``target`` on the curve.

    Linear interpolation between the measured sizes; returns the measured ``k`` itself when the first
    measured size already reaches the target, and NaN when no measured size does (then see
    ``items_needed_projected``). Monotone curves are assumed; with Monte-Carlo noise the first
    crossing is used.
    """
    part = curve.loc[curve["method"] == method].sort_values("k")
    if part.empty:
        raise ValueError(f"no rows for method {method!r} in the curve")
    ks = part["k"].to_numpy(dtype=float)
    vals = part[statistic].to_numpy(dtype=float)
    hit = np.flatnonzero(vals >= target)
    if hit.size == 0:
        return math.nan
    j = int(hit[0])
    if j == 0:
        return float(ks[0])
    k0, k1, v0, v1 = ks[j - 1], ks[j], vals[j - 1], vals[j]
    return float(k0 + (target - v0) * (k1 - k0) / (v1 - v0))


def items_needed_projected(curve: pd.DataFrame, target: float = 0.9, statistic: str = "tau_mean") -> float:
    """Items needed for a split-half agreement ``target`` by Spearman-Brown extrapolation from the
    largest measured split-half size.

    For ``statistic='rho_mean'`` the Spearman rho is treated as a parallel-forms reliability. For
    ``'tau_mean'`` Kendall's tau is converted to a correlation with Greiner's relation
    ``r = sin(pi tau / 2)`` (exact for bivariate normal scores; an approximation here), projected, and
    the target converted the same way. Returns ``k * target_r (1 - r) / (r (1 - target_r))`` in items
    (may exceed the item pool; NaN when the measured agreement is not positive).
    """
    part = curve.loc[curve["method"] == "split_half"].sort_values("k")
    if part.empty:
        raise ValueError("no split_half rows in the curve")
    k = float(part["k"].iloc[-1])
    value = float(part[statistic].iloc[-1])
    if statistic.startswith("tau"):
        r, goal = math.sin(math.pi * value / 2), math.sin(math.pi * target / 2)
    else:
        r, goal = value, target
    if not 0 < r < 1 or not 0 < goal < 1:
        return math.nan
    return k * goal * (1 - r) / (r * (1 - goal))


def _to_r(value: float, statistic: str) -> float:
    return math.sin(math.pi * value / 2) if statistic.startswith("tau") else value


def _from_r(r: float, statistic: str) -> float:
    return 2 / math.pi * math.asin(r) if statistic.startswith("tau") else r


def projected_agreement(
    curve: pd.DataFrame, k_target: float, statistic: str = "tau_mean", from_k: int | None = None
) -> float:
    """Split-half agreement between two disjoint sets of ``k_target`` items, projected by Spearman-Brown
    from the measured split-half size ``from_k`` (default the largest).

    Same conversion as ``items_needed_projected`` (Greiner's ``r = sin(pi tau / 2)`` for tau). Returns a
    value in (0, 1), or NaN when the measured agreement is not positive. Used to ask, e.g., what two
    disjoint 200-item sets would agree to, and to validate the projection against a measured size.
    """
    part = curve.loc[curve["method"] == "split_half"].set_index("k").sort_index()
    if part.empty:
        raise ValueError("no split_half rows in the curve")
    k = int(part.index[-1]) if from_k is None else int(from_k)
    r = _to_r(float(part.loc[k, statistic]), statistic)
    projected = float(spearman_brown(r, k_target / k))
    return math.nan if math.isnan(projected) else _from_r(projected, statistic)

"""Cross-benchmark rank agreement between EQ-Bench (text models) and EmoBench-M (multimodal
models) where their model families overlap (docs/cross_benchmark.md).

The two benchmarks share no evaluated checkpoint: EQ-Bench v2 scores text chat models of
2023-early 2024, EmoBench-M multimodal systems of 2024-2026. What they can share is the
*language model* a system is built on. The versioned table ``model_families.csv`` (beside this
module) maps every model name of both benchmarks to keys at four levels, and the matching rule
of each level groups the models of both sides into *units* that share a key:

- ``exact``: the same evaluated system (column ``system``);
- ``backbone``: the same released language model, size and version included (``base_llm``; a
  chat or instruct tune shares the key of its pretrained base, e.g. Qwen-7B-Chat and
  Qwen2-Audio, whose language model starts from Qwen-7B);
- ``family``: the same family and generation, any size or minor version (``family``, e.g.
  ``llama-2``, ``qwen1``, ``mistral-7b``; Qwen2 and Qwen2.5 are different generations);
- ``developer``: the same developer of the language model (``developer``).

Only the developers' own releases count on the EQ-Bench side (``tuning == "official"``;
quantised copies included): a third-party fine-tune or merge measures its tuning, not the
family. Every EmoBench-M system counts: each is a multimodal system trained on top of its
language model. An empty key never matches.

A unit's score on each benchmark is the mean of its members' scores: on EQ-Bench the benchmark
score (0-100, recomputed from the per-item answers); on EmoBench-M the accuracy (percent) of a
measure: ``overall`` (mean of the three dimension means), or one dimension (FER, CEU, SCEA: mean
of its classification scenarios; LR, a generation task, left out as in the paper's own
averages). A member enters a measure only with all of its scenarios.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Mapping

import numpy as np
import pandas as pd
from scipy import stats

from ..stats.ranks import tau_b_matrix

MAPPING_FILE = Path(__file__).with_name("model_families.csv")
BENCHMARKS = ("eqbench", "emobench_m")
LEVELS = ("exact", "backbone", "family", "developer")
"""Matching levels from the finest to the coarsest."""
KEY_COLUMN = {"exact": "system", "backbone": "base_llm", "family": "family", "developer": "developer"}
MATCH_VALUES = (*LEVELS, "none")
TUNINGS = ("official", "third_party")
COLUMNS = (
    "benchmark",
    "model",
    "system",
    "base_llm",
    "family",
    "developer",
    "tuning",
    "modality",
    "match",
    "source",
    "note",
)
MEASURES = ("overall", "FER", "CEU", "SCEA")
MIN_UNITS = 3
"""Fewest units for which a rank agreement is computed (below it every statistic is NaN)."""


class MappingError(ValueError):
    """The mapping table is malformed or inconsistent; the message names the file, row, column
    and fix."""


# ----------------------------------------------------------------------------------------------
# the mapping table


def read_mapping(path: str | Path = MAPPING_FILE) -> tuple[str, pd.DataFrame]:
    """Read and validate the mapping table; return (version line, table).

    The first line is a comment ``# ... version N ...``; then a CSV header with ``COLUMNS``.
    Keys are stripped strings, empty when unknown. Raises :class:`MappingError` naming the file,
    the row (file line number), the column and the fix when a column is missing, a benchmark,
    tuning or match value is not one of the allowed ones, a (benchmark, model) is listed twice,
    or the stated ``match`` differs from what the keys give (:func:`match_levels`).
    """
    path = Path(path)
    if not path.is_file():
        raise MappingError(f"{path}: file not found; fix: restore workflow/eibench/public/model_families.csv")
    with open(path, encoding="utf-8") as fh:
        first = fh.readline().strip()
    if not first.startswith("#") or "version" not in first:
        raise MappingError(f"{path}: line 1 must be the comment '# ... version N ...'; fix: restore the version line")
    table = pd.read_csv(path, skiprows=1, dtype=str, keep_default_na=False)
    missing = [c for c in COLUMNS if c not in table.columns]
    if missing:
        raise MappingError(
            f"{path}: missing column(s) {', '.join(missing)}; fix: the header must list {', '.join(COLUMNS)}"
        )
    table = table.loc[:, list(COLUMNS)].apply(lambda s: s.str.strip())
    for column, allowed in (("benchmark", BENCHMARKS), ("tuning", TUNINGS), ("match", MATCH_VALUES)):
        bad = ~table[column].isin(allowed)
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            raise MappingError(
                f"{path}: line {i + 3}, column {column}: {table[column].iloc[i]!r} is not one of "
                f"{', '.join(allowed)}; fix: use one of them"
            )
    dup = table.duplicated(["benchmark", "model"])
    if dup.any():
        i = int(np.flatnonzero(dup.to_numpy())[0])
        raise MappingError(
            f"{path}: line {i + 3}: ({table['benchmark'].iloc[i]}, {table['model'].iloc[i]}) is listed twice; fix: "
            f"keep one row"
        )
    computed = match_levels(table)
    wrong = computed != table["match"]
    if wrong.any():
        i = int(np.flatnonzero(wrong.to_numpy())[0])
        raise MappingError(
            f"{path}: line {i + 3}, column match: {table['model'].iloc[i]!r} states "
            f"{table['match'].iloc[i]!r} but its keys give {computed.iloc[i]!r}; fix: correct the keys or "
            f"the match column ({int(wrong.sum())} row(s) disagree)"
        )
    return first.lstrip("# ").strip(), table


def version_number(version_line: str) -> int:
    """The N of "... version N ..." in the mapping's first line."""
    m = re.search(r"version (\d+)", version_line)
    if not m:
        raise MappingError(
            f"{MAPPING_FILE.name}: line 1 {version_line!r} names no 'version N'; fix: restore the version line"
        )
    return int(m.group(1))


def eligible(table: pd.DataFrame) -> pd.Series:
    """Rows that take part in matching: EQ-Bench rows of official releases, all EmoBench-M rows."""
    return (table["benchmark"] == "emobench_m") | (table["tuning"] == "official")


def match_levels(table: pd.DataFrame) -> pd.Series:
    """Per row, the finest level at which an eligible row of the other benchmark shares a
    non-empty key (``LEVELS`` order), else ``"none"`` (also for ineligible rows)."""
    ok = eligible(table)
    out = pd.Series("none", index=table.index, dtype=object)
    for level in reversed(LEVELS):  # finer levels overwrite coarser ones
        col = KEY_COLUMN[level]
        keys = {b: set(table.loc[ok & (table["benchmark"] == b) & (table[col] != ""), col]) for b in BENCHMARKS}
        other = table["benchmark"].map({"eqbench": "emobench_m", "emobench_m": "eqbench"})
        shared = pd.Series([k in keys[o] for k, o in zip(table[col], other)], index=table.index)
        hit = ok & (table[col] != "") & shared
        out[hit] = level
    return out


def pairs(table: pd.DataFrame) -> pd.DataFrame:
    """Every (EQ-Bench model, EmoBench-M model) pair of eligible rows sharing a key at some level.

    Columns: ``eqbench_model``, ``emobench_m_model``, ``level`` (the finest shared level), and
    per level ``<level>_key`` (the shared key, empty where not shared). Sorted by level, then names.
    """
    ok = eligible(table)
    eq = table[ok & (table["benchmark"] == "eqbench")]
    em = table[ok & (table["benchmark"] == "emobench_m")]
    cross = eq.merge(em, how="cross", suffixes=("_eq", "_em"))
    out = pd.DataFrame({"eqbench_model": cross["model_eq"], "emobench_m_model": cross["model_em"]})
    shared = []
    for level in LEVELS:
        col = KEY_COLUMN[level]
        same = (cross[f"{col}_eq"] == cross[f"{col}_em"]) & (cross[f"{col}_eq"] != "")
        out[f"{level}_key"] = np.where(same, cross[f"{col}_eq"], "")
        shared.append(same.to_numpy())
    any_shared = np.any(shared, axis=0)
    first = np.argmax(shared, axis=0)
    out["level"] = np.array(LEVELS)[first]
    out = out[any_shared].copy()
    out["level"] = pd.Categorical(out["level"], LEVELS, ordered=True)
    out = out.sort_values(["level", "eqbench_model", "emobench_m_model"]).reset_index(drop=True)
    out["level"] = out["level"].astype(str)
    return out.loc[:, ["eqbench_model", "emobench_m_model", "level", *[f"{lv}_key" for lv in LEVELS]]]


def units(table: pd.DataFrame, level: str) -> dict[str, dict[str, list[str]]]:
    """The units of one matching rule: key -> {benchmark: [member model names]} for every key
    that eligible rows of both benchmarks share at ``level``; sorted by key."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    col = KEY_COLUMN[level]
    ok = eligible(table) & (table[col] != "")
    out = {}
    for key, group in table[ok].groupby(col, sort=True):
        members = {b: sorted(group.loc[group["benchmark"] == b, "model"]) for b in BENCHMARKS}
        if all(members.values()):
            out[str(key)] = members
    return out


# ----------------------------------------------------------------------------------------------
# scores


def emobench_m_measures(scores: pd.DataFrame, dimension_of: Mapping[str, str]) -> pd.DataFrame:
    """Models x ``MEASURES`` (percent) from models x scenarios accuracies (LR left out): each
    dimension the mean of its classification scenarios, ``overall`` the mean of the three
    dimensions; NaN where a needed scenario is missing. Works on [..., models, scenarios] arrays
    too via :func:`_measures_array`."""
    cols = [c for c in scores.columns if dimension_of.get(c) and c != "LR"]
    arr = _measures_array(scores[cols].to_numpy(dtype=float), [dimension_of[c] for c in cols])
    return pd.DataFrame(arr, index=scores.index, columns=list(MEASURES))


def _measures_array(x: np.ndarray, dims: list[str]) -> np.ndarray:
    """[..., models, scenarios] -> [..., models, 4] (overall, FER, CEU, SCEA); NaN-propagating."""
    parts = [x[..., [i for i, d in enumerate(dims) if d == dim]].mean(axis=-1) for dim in MEASURES[1:]]
    dim_means = np.stack(parts, axis=-1)
    return np.concatenate([dim_means.mean(axis=-1, keepdims=True), dim_means], axis=-1)


def unit_scores(
    members: dict[str, dict[str, list[str]]], eq_scores: pd.Series, em_scores: pd.DataFrame, measure: str
) -> pd.DataFrame:
    """Per unit: the mean member score on each benchmark for one EmoBench-M ``measure``.

    ``eq_scores``: EQ-Bench model -> score; ``em_scores``: EmoBench-M model x ``MEASURES``. A
    member without a score is left out; a unit left with no member on either side is dropped.
    Columns: ``unit``, ``n_eqbench``, ``n_emobench_m``, ``eqbench``, ``emobench_m``.
    """
    rows = []
    for key, m in members.items():
        eq = eq_scores.reindex(m["eqbench"]).dropna()
        em = em_scores[measure].reindex(m["emobench_m"]).dropna()
        if len(eq) and len(em):
            rows.append((key, len(eq), len(em), float(eq.mean()), float(em.mean())))
    return pd.DataFrame(rows, columns=["unit", "n_eqbench", "n_emobench_m", "eqbench", "emobench_m"])


def _unit_means(draws: np.ndarray, names: list[str], groups: list[list[str]]) -> np.ndarray:
    """[draws, models] -> [draws, units]: each unit the mean of its member columns (only those:
    a missing score of a non-member never reaches a unit)."""
    pos = {n: i for i, n in enumerate(names)}
    return np.stack([draws[:, [pos[m] for m in g]].mean(axis=1) for g in groups], axis=1)


# ----------------------------------------------------------------------------------------------
# agreement


def _interval(values: np.ndarray, level: float) -> tuple[float, float, float]:
    """Percentile interval over the finite values and their share of all values."""
    ok = np.isfinite(values)
    if not ok.any():
        return math.nan, math.nan, 0.0
    lo, hi = np.percentile(values[ok], [50 * (1 - level), 50 * (1 + level)])
    return float(lo), float(hi), float(ok.mean())


def _tau_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Kendall tau-b between a[i] and b[i] for every row i ([draws, units] each)."""
    return tau_b_matrix(np.stack([a, b], axis=-1))[..., 0, 1]


def _tau_statistic(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    """Kendall tau-b along ``axis`` (scipy's vectorised statistic convention)."""
    a, b = np.moveaxis(a, axis, -1), np.moveaxis(b, axis, -1)
    return _tau_rows(a, np.broadcast_to(b, a.shape))


def _rho_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman rho (average ranks) between a[i] and b[i] for every row i."""
    ra, rb = stats.rankdata(a, axis=-1), stats.rankdata(b, axis=-1)
    ra = ra - ra.mean(axis=-1, keepdims=True)
    rb = rb - rb.mean(axis=-1, keepdims=True)
    den = np.sqrt((ra**2).sum(axis=-1) * (rb**2).sum(axis=-1))
    return np.divide((ra * rb).sum(axis=-1), den, out=np.full(den.shape, np.nan), where=den > 0)


def rank_agreement(
    x,
    y,
    n_bootstrap: int,
    n_permutations: int,
    rng: np.random.Generator,
    level: float = 0.95,
    x_draws: np.ndarray | None = None,
    y_draws: np.ndarray | None = None,
) -> dict:
    """Rank agreement between two score vectors over the same units.

    Returns ``n``, ``tau`` (Kendall tau-b, scipy), ``rho`` (Spearman), ``p_permutation``
    (two-sided permutation test of tau over re-pairings, scipy ``permutation_test``: exact when
    n! <= ``n_permutations``, ``p_exact``; else Monte Carlo), the *model* interval
    ``tau_lo_models``/``tau_hi_models`` (percentile interval of tau-b over ``n_bootstrap``
    resamples of the units with replacement; resamples with all units tied are undefined,
    ``share_defined_models`` says how many were defined) and, when ``x_draws``/``y_draws``
    ([draws, n] re-measured scores, e.g. an item bootstrap) are given, the *measurement* interval
    ``tau_lo_items``/``tau_hi_items`` and ``rho_lo_items``/``rho_hi_items``. Everything is NaN
    below ``MIN_UNITS`` units. All agreement values lie in [-1, 1].
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("x and y must be 1-d and of the same length")
    n = len(x)
    nan = math.nan
    out = {
        "n": n,
        "tau": nan,
        "rho": nan,
        "p_permutation": nan,
        "p_exact": False,
        "tau_lo_models": nan,
        "tau_hi_models": nan,
        "share_defined_models": nan,
        "tau_lo_items": nan,
        "tau_hi_items": nan,
        "rho_lo_items": nan,
        "rho_hi_items": nan,
    }
    if n < MIN_UNITS:
        return out
    out["tau"] = float(stats.kendalltau(x, y, variant="b").statistic)
    out["rho"] = float(stats.spearmanr(x, y).statistic)
    if np.isfinite(out["tau"]):
        # only x is permuted (y held fixed): n! distinct pairings, as scipy documents for correlations
        res = stats.permutation_test(
            (x,),
            lambda a, axis=-1: _tau_statistic(a, y, axis),
            permutation_type="pairings",
            n_resamples=n_permutations,
            alternative="two-sided",
            vectorized=True,
            rng=rng,
        )
        out["p_permutation"] = float(res.pvalue)
        out["p_exact"] = bool(math.factorial(n) <= n_permutations)
    idx = rng.integers(0, n, size=(n_bootstrap, n))
    out["tau_lo_models"], out["tau_hi_models"], out["share_defined_models"] = _interval(
        _tau_rows(x[idx], y[idx]), level
    )
    if x_draws is not None and y_draws is not None:
        out["tau_lo_items"], out["tau_hi_items"], _ = _interval(_tau_rows(x_draws, y_draws), level)
        out["rho_lo_items"], out["rho_hi_items"], _ = _interval(_rho_rows(x_draws, y_draws), level)
    return out


def measurement_draws(
    eq_items: pd.DataFrame,
    em_scores: pd.DataFrame,
    n: Mapping[str, int],
    dimension_of: Mapping[str, str],
    n_draws: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Re-measured scores of both benchmarks, for the measurement intervals.

    EQ-Bench: the 171 items drawn with replacement (the same items for every model), each model's
    score 10 x its mean item score over the drawn items it answered -> [draws, eq models].
    EmoBench-M: every scenario accuracy redrawn as Binomial(n_s, p)/n_s (independently; the
    items are not public), the measures recomputed -> [draws, em models, 4]; missing scenarios
    stay missing. ``eq_items``: models x items (NaN = unparseable); ``em_scores``: models x
    scenarios (percent, LR may be present and is left out).
    """
    x = eq_items.to_numpy(dtype=float)
    idx = rng.integers(0, x.shape[1], size=(n_draws, x.shape[1]))
    sub = x[:, idx]  # models x draws x items
    with np.errstate(invalid="ignore"):
        eq = 10.0 * (np.nansum(sub, axis=2) / np.sum(~np.isnan(sub), axis=2)).T
    cols = [c for c in em_scores.columns if dimension_of.get(c) and c != "LR"]
    s = em_scores[cols].to_numpy(dtype=float)
    nn = np.array([n[c] for c in cols], dtype=np.int64)
    missing = np.isnan(s)
    k = rng.binomial(
        np.broadcast_to(nn, s.shape), np.clip(np.where(missing, 0.0, s) / 100.0, 0, 1), size=(n_draws, *s.shape)
    )
    redrawn = np.where(missing, np.nan, 100.0 * k / nn)
    return eq, _measures_array(redrawn, [dimension_of[c] for c in cols])


def caveats(rule: str, n_units: int) -> str:
    """The plain caveats that apply to one row of the agreement table, '; '-separated."""
    notes = []
    if n_units < MIN_UNITS:
        notes.append(f"{n_units} unit(s): fewer than {MIN_UNITS}, no agreement computed")
    else:
        floor = 2 / math.factorial(n_units) if n_units <= 12 else 0.0
        notes.append(
            f"only {n_units} units: the two-sided permutation p cannot fall below {floor:.3g}"
            if n_units < 10
            else f"{n_units} units: few for a rank correlation"
        )
    if rule != "exact":
        notes.append("text models against multimodal systems further trained on other modalities")
        notes.append(
            {
                "backbone": "the same language model, not the same checkpoint",
                "family": "the same family and generation, not the same model or size",
                "developer": "the same developer across model generations and years",
            }[rule]
        )
    notes.append("a unit's score averages whichever of its models each benchmark evaluated")
    return "; ".join(notes)


def agreement_table(
    table: pd.DataFrame,
    eq_scores: pd.Series,
    em_scores: pd.DataFrame,
    eq_draws: np.ndarray,
    em_draws: np.ndarray,
    n_bootstrap: int,
    n_permutations: int,
    rng: np.random.Generator,
    level: float = 0.95,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rank agreement per matching rule (``LEVELS``) and EmoBench-M measure (``MEASURES``).

    ``eq_scores``: EQ-Bench model -> score, aligned with the columns of ``eq_draws`` [draws,
    models]; ``em_scores``: EmoBench-M model x ``MEASURES``, aligned with ``em_draws`` [draws,
    models, measures]. Returns (agreement, unit_table): agreement has one row per rule and
    measure with ``rule``, ``measure``, ``n_units``, ``n_eqbench_models``, ``n_emobench_m_models``
    and the fields of :func:`rank_agreement`; unit_table one row per rule, measure and unit.
    """
    rows, unit_rows = [], []
    eq_names, em_names = list(eq_scores.index), list(em_scores.index)
    for rule in LEVELS:
        members = units(table, rule)
        for mi, measure in enumerate(MEASURES):
            u = unit_scores(members, eq_scores, em_scores, measure)
            eq_groups = [[m for m in members[k]["eqbench"] if np.isfinite(eq_scores.get(m, np.nan))] for k in u["unit"]]
            em_groups = [
                [m for m in members[k]["emobench_m"] if np.isfinite(em_scores[measure].get(m, np.nan))]
                for k in u["unit"]
            ]
            xd = _unit_means(eq_draws, eq_names, eq_groups) if len(u) else None
            yd = _unit_means(em_draws[:, :, mi], em_names, em_groups) if len(u) else None
            res = rank_agreement(
                u["eqbench"].to_numpy(), u["emobench_m"].to_numpy(), n_bootstrap, n_permutations, rng, level, xd, yd
            )
            n_units = res.pop("n")
            rows.append(
                {
                    "rule": rule,
                    "measure": measure,
                    "n_units": n_units,
                    "n_eqbench_models": int(u["n_eqbench"].sum()),
                    "n_emobench_m_models": int(u["n_emobench_m"].sum()),
                    **res,
                    "caveats": caveats(rule, n_units),
                }
            )
            for _, r in u.iterrows():
                unit_rows.append(
                    {
                        "rule": rule,
                        "measure": measure,
                        **r.to_dict(),
                        "eqbench_members": "; ".join(members[r["unit"]]["eqbench"]),
                        "emobench_m_members": "; ".join(members[r["unit"]]["emobench_m"]),
                    }
                )
    return pd.DataFrame(rows), pd.DataFrame(unit_rows)


RULE_LABELS = {
    "exact": "same system",
    "backbone": "same language model",
    "family": "same family, generation",
    "developer": "same developer",
}

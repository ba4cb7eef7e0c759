"""EmoBench-M published results (Hu et al., arXiv 2502.04424): recomputed averages, rank
independence of its dimensions and scenarios, per-scenario discriminability and human-model gaps.

Only the published figures are public (the items are not), so everything here works on the
transcribed per-scenario tables of a local mirror directory (see its PROVENANCE.md):

- ``published_results_latest.csv``: long (model, params, dimension, scenario, metric, value),
  the 27-model tables of the latest revision; ACC and WAF per scenario, the Laughter Reasoning
  (LR) generation metrics, and the printed per-dimension ``Avg``.
- ``published_results_v2_acc.csv``: wide, the earlier 19-model accuracy table plus the Random and
  Human rows, with the printed FER_avg, CEU_avg and HU_SD_avg.
- ``readme_leaderboard.csv``: the README leaderboard (FER / CEU / SCEA / Avg).
- ``scenarios.csv``: the 13 scenarios, their dimension and test size n.

Conventions. Scores are percentages (0-100) as printed; sampling errors are computed on the
proportion scale and reported in percentage points. The stock-comment scenario is called "SEA"
everywhere (the latest tables' name); the v2 table and scenarios.csv call it "SCEA", which is also
the name of the third dimension. A model is identified by ``model_id`` ("name params" in the
latest table, the printed name in the v2 table and README).

Averages (established from the data by :func:`infer_coverage`):
- latest tables: each dimension's Avg is the mean of its scenarios' values of the same metric;
  the SCEA Avg is the mean of HU and SD only (LR, a generation task, is excluded);
- v2 table: FER_avg and CEU_avg are the means of the five scenarios, HU_SD_avg of HU and SD;
- README: FER and CEU as in the v2 table, SCEA is the mean of HU, SD and LR Total (LR
  included), and Avg is the mean of the three printed dimension averages.
Known print error: Qwen2.5-VL-72B FER average printed 53.0 in the v2 table (and carried into
the README) while its scenarios' mean is 54.78.

Sampling error. Each scenario's accuracy is treated as a binomial proportion over its n test items
(scenarios.csv n_test), se = sqrt(p (1 - p) / n). LR has no accuracy: its LR Total (logic +
multimodal judge score, 0-100) is treated as a pseudo-proportion Total/100 over n = 80 items, an
approximation flagged in every output (``binomial_exact`` False).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Mapping

import numpy as np
import pandas as pd
from scipy import stats

from ..stats.multiplicity import adjust
from ..stats.ranks import kendall_w as _kendall_w_scores
from ..stats.ranks import tau_b_matrix

TOLERANCE = 0.05
"""Largest |printed - recomputed| (percentage points) that counts as rounding."""
_EPS = 1e-9  # floating-point slack: a rounding difference of exactly 0.05 is not flagged

DIMENSIONS = ("FER", "CEU", "SCEA")
LR = "LR"
LR_METRIC = "Total"
LR_N = 80

FILES = {
    "scenarios": "scenarios.csv",
    "latest": "published_results_latest.csv",
    "v2": "published_results_v2_acc.csv",
    "readme": "readme_leaderboard.csv",
}
_SCENARIO_COLUMNS = ["dimension", "scenario_abbrev", "scenario", "source_dataset", "task", "n_test", "labels"]
_LATEST_COLUMNS = ["model", "params", "dimension", "scenario", "metric", "value"]
_V2_SCENARIOS = ["SOER", "SPER", "OSA", "EIA", "SCEA", "FGDEA", "PEA", "FCDEA", "CEIA", "MPDER", "HU", "SD"]
_V2_LR = {"LR_B4": "B-4", "LR_RL": "R-L", "LR_BS": "BS", "LR_logic": "logic", "LR_mm": "mm", "LR_total": "Total"}
_V2_AVERAGES = {"FER_avg": "FER", "CEU_avg": "CEU", "HU_SD_avg": "SCEA"}
_V2_COLUMNS = ["model", "group", *_V2_SCENARIOS, *_V2_LR, *_V2_AVERAGES]
_README_COLUMNS = ["method", "FER", "CEU", "SCEA", "Avg"]

STOCK_ALIASES = {"SCEA (SEA in latest tables)": "SEA", "SCEA": "SEA"}
"""The stock-comment scenario's printed names -> "SEA" (avoids the clash with the dimension)."""
README_MODEL_ALIASES = {"Qwen2.5-VL-78B-Instruct": "Qwen2.5-VL-72B-Instruct"}
"""README label typo: its "Qwen2.5-VL-78B-Instruct" row carries the v2 table's Qwen2.5-VL-72B
figures (FER 53.0, CEU 47.9); there is no 78B Qwen2.5-VL."""
KNOWN_PRINT_ERRORS = {("v2", "Qwen2.5-VL-72B-Instruct", "FER"), ("readme", "Qwen2.5-VL-72B-Instruct", "FER")}
"""(table, model_id, average) printed wrongly in the paper: Qwen2.5-VL-72B FER printed 53.0,
scenario mean 54.78 (the README copies the v2 value)."""
MISLABELLED_ROW = "InternVL2.5(as labelled; 38B row absent) 32B"
"""The latest SCEA table's 32B row labelled InternVL2.5 (kept as printed). The FER and CEU tables
have InternVL2.5-38B and Qwen2.5-VL-32B but the SCEA table neither, and the row's LR figures
(BLEU-4 14.4, BERTScore 90.9) look like the Qwen rows, not InternVL2.5's (BLEU-4 0.0, BERTScore
15-18); it is probably Qwen2.5-VL-32B. It has no FER/CEU scores, so it drops out of the
complete-case analyses."""

HUMAN, RANDOM = "Human", "Random"


class EmoBenchMFormatError(ValueError):
    """A mirror file is missing or malformed; the message names the file, the column and the fix."""


@dataclass(frozen=True)
class EmoBenchM:
    """The mirror's tables in tidy form (all scores in percent, 0-100).

    - ``scenarios``: dimension, scenario (SEA for the stock scenario), name, source, task,
      n (int > 0), binomial_exact (False for LR), labels; 13 rows in the published order.
    - ``latest``: model_id, model, params, dimension, scenario, metric, value: per-scenario scores
      (ACC, WAF; LR: B-4, R-L, BS, logic, mm, Total).
    - ``latest_printed``: model_id, model, params, dimension, metric, value: the printed Avg rows.
    - ``v2``: model_id, group, dimension, scenario, metric, value: per-scenario scores (ACC;
      LR metrics as above), including the Random and Human rows (group "ref").
    - ``v2_printed``: model_id, group, dimension, average, value: FER_avg, CEU_avg, HU_SD_avg
      (NaN rows, e.g. Human's, dropped).
    - ``readme``: model_id (README label, aliases applied), label, average (FER, CEU, SCEA, Avg),
      value.
    """

    scenarios: pd.DataFrame
    latest: pd.DataFrame
    latest_printed: pd.DataFrame
    v2: pd.DataFrame
    v2_printed: pd.DataFrame
    readme: pd.DataFrame

    @property
    def n(self) -> dict[str, int]:
        """Test size per scenario (LR: 80)."""
        return dict(zip(self.scenarios["scenario"], self.scenarios["n"].astype(int)))

    @property
    def dimension_of(self) -> dict[str, str]:
        """Scenario -> dimension."""
        return dict(zip(self.scenarios["scenario"], self.scenarios["dimension"]))


# ----------------------------------------------------------------------------------------------
# loading and validation


def _read(directory: Path, key: str, columns: list[str]) -> pd.DataFrame:
    path = directory / FILES[key]
    if not path.is_file():
        raise EmoBenchMFormatError(
            f"{path}: file missing; fix: point to the EmoBench-M mirror directory holding "
            f"{', '.join(FILES.values())} (see its PROVENANCE.md)"
        )
    frame = pd.read_csv(path)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise EmoBenchMFormatError(
            f"{path.name}: missing column(s) {', '.join(missing)} (found {', '.join(map(str, frame.columns))}); "
            f"fix: restore the header as transcribed in the mirror (expected {', '.join(columns)})"
        )
    return frame


def _numeric(frame: pd.DataFrame, column: str, file: str, allow_nan: bool = False) -> pd.Series:
    values = pd.to_numeric(frame[column], errors="coerce")
    bad = values.isna() & (frame[column].notna() if allow_nan else True)
    if bad.any():
        raise EmoBenchMFormatError(
            f"{file}: column {column} has non-numeric or empty values in row(s) "
            f"{[int(i) + 2 for i in np.flatnonzero(bad.to_numpy())][:5]} (file line numbers); fix: transcribe a number"
        )
    out_of_range = values.notna() & ((values < 0) | (values > 100))
    if out_of_range.any():
        raise EmoBenchMFormatError(
            f"{file}: column {column} has values outside [0, 100] (e.g. {values[out_of_range].iloc[0]}); "
            f"fix: scores are percentages as printed"
        )
    return values.astype(float)


def load(directory: str | Path) -> EmoBenchM:
    """Read and validate the mirror in ``directory``; return the tidy :class:`EmoBenchM`.

    Raises :class:`EmoBenchMFormatError` naming the file, the column and the fix when a file is
    missing, a required column is absent, a score is not a number in [0, 100], a test size is
    not a positive integer, a scenario is unknown, or a (model, scenario, metric) is duplicated.
    Extra columns are ignored.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise EmoBenchMFormatError(f"{directory}: not a directory; fix: pass the EmoBench-M mirror directory")

    sc = _read(directory, "scenarios", _SCENARIO_COLUMNS)
    n = pd.to_numeric(sc["n_test"], errors="coerce")
    if n.isna().any() or (n <= 0).any() or (n != n.round()).any():
        raise EmoBenchMFormatError(
            f"{FILES['scenarios']}: column n_test must hold positive integers; fix: the test size"
        )
    scenario = sc["scenario_abbrev"].astype(str).str.strip().replace(STOCK_ALIASES)
    dims = set(sc["dimension"]) - set(DIMENSIONS)
    if dims:
        raise EmoBenchMFormatError(
            f"{FILES['scenarios']}: column dimension has {sorted(dims)}; fix: one of {DIMENSIONS}"
        )
    scenarios = pd.DataFrame(
        {
            "dimension": sc["dimension"],
            "scenario": scenario,
            "name": sc["scenario"],
            "source": sc["source_dataset"],
            "task": sc["task"],
            "n": n.astype(int),
            "binomial_exact": scenario != LR,
            "labels": sc["labels"],
        }
    )
    if scenarios["scenario"].duplicated().any() or LR not in set(scenarios["scenario"]):
        raise EmoBenchMFormatError(
            f"{FILES['scenarios']}: column scenario_abbrev must list 13 distinct scenarios incl. LR"
        )
    known = set(scenarios["scenario"])

    # latest: long
    lt = _read(directory, "latest", _LATEST_COLUMNS)
    lt["value"] = _numeric(lt, "value", FILES["latest"])
    lt["scenario"] = lt["scenario"].astype(str).str.strip().replace(STOCK_ALIASES)
    lt["model_id"] = lt["model"].astype(str) + " " + lt["params"].astype(str)
    unknown = set(lt["scenario"]) - known - {"Avg"}
    if unknown:
        raise EmoBenchMFormatError(
            f"{FILES['latest']}: column scenario has unknown value(s) {sorted(unknown)}; fix: use scenarios.csv "
            f"abbreviations or Avg"
        )
    key = ["model_id", "dimension", "scenario", "metric"]
    if lt.duplicated(key).any():
        dup = lt[lt.duplicated(key)].iloc[0]
        raise EmoBenchMFormatError(
            f"{FILES['latest']}: duplicated (model, params, scenario, metric) {tuple(dup[key])}; fix: drop it"
        )
    cols = ["model_id", "model", "params", "dimension", "scenario", "metric", "value"]
    latest = lt.loc[lt["scenario"] != "Avg", cols].reset_index(drop=True)
    latest_printed = lt.loc[lt["scenario"] == "Avg", [c for c in cols if c != "scenario"]].reset_index(drop=True)
    wrong_dim = latest["scenario"].map(dict(zip(scenarios["scenario"], scenarios["dimension"]))) != latest["dimension"]
    if wrong_dim.any():
        raise EmoBenchMFormatError(
            f"{FILES['latest']}: column dimension disagrees with scenarios.csv for "
            f"{latest[wrong_dim].iloc[0].to_dict()}"
        )

    # v2: wide
    v2w = _read(directory, "v2", _V2_COLUMNS)
    for c in [*_V2_SCENARIOS, *_V2_LR, *_V2_AVERAGES]:
        v2w[c] = _numeric(v2w, c, FILES["v2"], allow_nan=True)
    if v2w["model"].duplicated().any():
        raise EmoBenchMFormatError(f"{FILES['v2']}: column model has duplicates; fix: one row per model")
    for who in (HUMAN,):
        if who not in set(v2w["model"]):
            raise EmoBenchMFormatError(f"{FILES['v2']}: column model lacks the {who} row; fix: transcribe it")
    dim_of = dict(zip(scenarios["scenario"], scenarios["dimension"]))
    rows = []
    for _, r in v2w.iterrows():
        for c in _V2_SCENARIOS:
            s = STOCK_ALIASES.get(c, c)
            rows.append((r["model"], r["group"], dim_of[s], s, "ACC", r[c]))
        for c, metric in _V2_LR.items():
            rows.append((r["model"], r["group"], "SCEA", LR, metric, r[c]))
    v2 = pd.DataFrame(rows, columns=["model_id", "group", "dimension", "scenario", "metric", "value"])
    v2 = v2.dropna(subset=["value"]).reset_index(drop=True)
    v2p = v2w.melt(id_vars=["model", "group"], value_vars=list(_V2_AVERAGES), var_name="average", value_name="value")
    v2p["dimension"] = v2p["average"].map(_V2_AVERAGES)
    v2_printed = (
        v2p.dropna(subset=["value"])
        .rename(columns={"model": "model_id"})[["model_id", "group", "dimension", "average", "value"]]
        .reset_index(drop=True)
    )

    # README: wide
    rm = _read(directory, "readme", _README_COLUMNS)
    for c in _README_COLUMNS[1:]:
        rm[c] = _numeric(rm, c, FILES["readme"])
    rml = rm.melt(id_vars=["method"], value_vars=_README_COLUMNS[1:], var_name="average", value_name="value")
    rml["label"] = rml["method"]
    rml["model_id"] = rml["method"].replace(README_MODEL_ALIASES)
    readme = rml[["model_id", "label", "average", "value"]].reset_index(drop=True)
    return EmoBenchM(scenarios, latest, latest_printed, v2, v2_printed, readme)


# ----------------------------------------------------------------------------------------------
# averages

LATEST_RULE = {"FER": ("FER", False), "CEU": ("CEU", False), "SCEA": ("SCEA", False)}
"""latest tables: dimension -> (scenarios' dimension, include LR Total?)."""
V2_RULE = {"FER_avg": ("FER", False), "CEU_avg": ("CEU", False), "HU_SD_avg": ("SCEA", False)}
README_RULE = {"FER": ("FER", False), "CEU": ("CEU", False), "SCEA": ("SCEA", True)}


def _scenario_means(
    scores: pd.DataFrame, scenarios: pd.DataFrame, dimension: str, metric: str, include_lr: bool
) -> pd.DataFrame:
    """Mean per model_id of a dimension's accuracy-type scenarios (``metric``), plus LR Total
    when ``include_lr``; columns model_id, recomputed, covers. Models lacking any covered
    scenario get NaN."""
    acc = [s for s in scenarios.loc[scenarios["dimension"] == dimension, "scenario"] if s != LR]
    parts = scores[(scores["scenario"].isin(acc)) & (scores["metric"] == metric)]
    covers = list(acc)
    if include_lr:
        parts = pd.concat([parts, scores[(scores["scenario"] == LR) & (scores["metric"] == LR_METRIC)]])
        covers.append(f"{LR} {LR_METRIC}")
    wide = parts.pivot_table(index="model_id", columns="scenario", values="value", aggfunc="first")
    need = acc + ([LR] if include_lr else [])
    wide = wide.reindex(columns=need)
    out = pd.DataFrame({"model_id": wide.index, "recomputed": wide.mean(axis=1, skipna=False).to_numpy()})
    out["covers"] = "+".join(covers)
    return out


def recompute_averages(data: EmoBenchM, tolerance: float = TOLERANCE) -> pd.DataFrame:
    """Every printed average of the three tables against the mean of the scores it covers.

    Rules (see the module docstring; :func:`infer_coverage` shows the evidence): latest tables'
    dimension Avg = mean of the dimension's scenarios of the same metric (ACC or WAF), SCEA = mean
    of HU and SD (LR excluded); v2 FER_avg / CEU_avg / HU_SD_avg likewise; README FER / CEU from
    the v2 scenarios, README SCEA = mean of HU, SD and LR Total, README Avg = mean of the README's
    three printed dimension averages (so an error in a printed dimension average stays flagged
    where it occurs and is not flagged again in Avg; ``avg_from_recomputed`` shows the overall
    mean the scenarios would give).

    Returns one row per printed average: table (latest | v2 | readme), model_id, dimension,
    metric, covers, printed, recomputed, difference (printed - recomputed, percentage points),
    flagged (|difference| > ``tolerance`` + 1e-9; a rounding difference of exactly 0.05 is not
    flagged), known_print_error (listed in :data:`KNOWN_PRINT_ERRORS`), avg_from_recomputed
    (README Avg rows only). A printed average whose model lacks a covered scenario in the source
    table gets recomputed NaN and is not flagged.
    """
    rows = []
    sc = data.scenarios
    for (dim, metric), grp in data.latest_printed.groupby(["dimension", "metric"], sort=False):
        dimension, lr = LATEST_RULE[dim]
        rec = _scenario_means(data.latest, sc, dimension, metric, lr)
        merged = grp.merge(rec, on="model_id", how="left")
        for _, r in merged.iterrows():
            rows.append(("latest", r["model_id"], dim, metric, r["covers"], r["value"], r["recomputed"], np.nan))
    for avg, grp in data.v2_printed.groupby("average", sort=False):
        dimension, lr = V2_RULE[avg]
        rec = _scenario_means(data.v2, sc, dimension, "ACC", lr)
        merged = grp.merge(rec, on="model_id", how="left")
        for _, r in merged.iterrows():
            rows.append(("v2", r["model_id"], dimension, "ACC", r["covers"], r["value"], r["recomputed"], np.nan))
    readme = data.readme.pivot_table(index="model_id", columns="average", values="value", aggfunc="first")
    recomputed_dims = {}
    for dim, (dimension, lr) in README_RULE.items():
        rec = _scenario_means(data.v2, sc, dimension, "ACC", lr).set_index("model_id")
        recomputed_dims[dim] = rec["recomputed"]
        for model_id, printed in readme[dim].items():
            r = rec["recomputed"].get(model_id, np.nan)
            covers = rec["covers"].iloc[0]
            rows.append(("readme", model_id, dim, "ACC", covers, printed, r, np.nan))
    avg_recomputed = pd.DataFrame(recomputed_dims).reindex(readme.index).mean(axis=1, skipna=False)
    for model_id, printed in readme["Avg"].items():
        rows.append(
            (
                "readme",
                model_id,
                "Avg",
                "ACC",
                "printed FER+CEU+SCEA",
                printed,
                readme.loc[model_id, list(DIMENSIONS)].mean(),
                avg_recomputed.get(model_id, np.nan),
            )
        )
    out = pd.DataFrame(
        rows,
        columns=["table", "model_id", "dimension", "metric", "covers", "printed", "recomputed", "avg_from_recomputed"],
    )
    out["recomputed"] = out["recomputed"].astype(float)
    out["difference"] = out["printed"] - out["recomputed"]
    out["flagged"] = (out["difference"].abs() > tolerance + _EPS).fillna(False).astype(bool)
    out["known_print_error"] = [
        (t, m, d) in KNOWN_PRINT_ERRORS for t, m, d in zip(out["table"], out["model_id"], out["dimension"])
    ]
    return out[
        [
            "table",
            "model_id",
            "dimension",
            "metric",
            "covers",
            "printed",
            "recomputed",
            "difference",
            "flagged",
            "known_print_error",
            "avg_from_recomputed",
        ]
    ]


def infer_coverage(data: EmoBenchM, tolerance: float = TOLERANCE) -> pd.DataFrame:
    """The evidence for the averaging rules: for each printed SCEA average (latest ACC / WAF, v2
    HU_SD_avg, README SCEA) and the README Avg, the candidate coverages with the share of models
    whose printed value recomputes within ``tolerance`` and the largest |difference|.

    Candidates: SCEA = mean(HU, SD) or mean(HU, SD, LR Total); README Avg = mean of the printed
    dimension averages, or mean of the 13 scenario scores (LR Total included), or of the 12
    accuracy scenarios. Columns: table, average, metric, candidate, n_models, share_within,
    max_abs_difference, chosen (the candidate with the largest share_within; ties to the first).
    """
    sc = data.scenarios
    rows = []

    def add(table: str, average: str, metric: str, candidate: str, printed: pd.Series, recomputed: pd.Series) -> None:
        diff = (printed - recomputed.reindex(printed.index)).dropna()
        rows.append(
            (
                table,
                average,
                metric,
                candidate,
                len(diff),
                float(np.mean(diff.abs() <= tolerance + _EPS)),
                float(diff.abs().max()),
            )
        )

    for metric in ("ACC", "WAF"):
        printed = data.latest_printed[
            (data.latest_printed["dimension"] == "SCEA") & (data.latest_printed["metric"] == metric)
        ]
        printed = printed.set_index("model_id")["value"]
        for lr in (False, True):
            rec = _scenario_means(data.latest, sc, "SCEA", metric, lr)
            add("latest", "SCEA", metric, rec["covers"].iloc[0], printed, rec.set_index("model_id")["recomputed"])
    pv2 = data.v2_printed[data.v2_printed["average"] == "HU_SD_avg"].set_index("model_id")["value"]
    prm = data.readme[data.readme["average"] == "SCEA"].set_index("model_id")["value"]
    for lr in (False, True):
        rec = _scenario_means(data.v2, sc, "SCEA", "ACC", lr).set_index("model_id")
        add("v2", "HU_SD_avg", "ACC", rec["covers"].iloc[0], pv2, rec["recomputed"])
        add("readme", "SCEA", "ACC", rec["covers"].iloc[0], prm, rec["recomputed"])
    wide_rm = data.readme.pivot_table(index="model_id", columns="average", values="value", aggfunc="first")
    add("readme", "Avg", "ACC", "printed FER+CEU+SCEA", wide_rm["Avg"], wide_rm[list(DIMENSIONS)].mean(axis=1))
    v2acc = data.v2[(data.v2["metric"] == "ACC") | ((data.v2["scenario"] == LR) & (data.v2["metric"] == LR_METRIC))]
    wide = v2acc.pivot_table(index="model_id", columns="scenario", values="value", aggfunc="first")
    add("readme", "Avg", "ACC", "13 scenarios (LR Total)", wide_rm["Avg"], wide.mean(axis=1, skipna=False))
    add(
        "readme",
        "Avg",
        "ACC",
        "12 accuracy scenarios",
        wide_rm["Avg"],
        wide.drop(columns=[LR]).mean(axis=1, skipna=False),
    )
    out = pd.DataFrame(
        rows, columns=["table", "average", "metric", "candidate", "n_models", "share_within", "max_abs_difference"]
    )
    best = out.groupby(["table", "average", "metric"], sort=False)["share_within"].transform("max")
    first = (
        out.assign(_b=out["share_within"] == best)
        .groupby(["table", "average", "metric"], sort=False)["_b"]
        .transform(lambda s: s & (s.cumsum() == 1))
    )
    out["chosen"] = first.astype(bool)
    return out


# ----------------------------------------------------------------------------------------------
# score matrices


def score_matrix(data: EmoBenchM, table: str = "latest", metric: str = "ACC", complete: bool = True) -> pd.DataFrame:
    """Models x 13 scenarios (published order) of percent scores: ``metric`` (ACC or WAF) for the
    12 classification scenarios and LR Total for LR. ``table``: "latest" (model rows) or "v2"
    (its 19 models; the Random and Human rows are left out). ``complete`` drops models lacking any
    scenario (in the latest tables: Qwen2.5-VL-32B and InternVL2.5-38B have no SCEA row and the
    mislabelled 32B row has only SCEA, leaving 25 of 27 + 1 rows)."""
    if table == "latest":
        scores = data.latest
    elif table == "v2":
        scores = data.v2[data.v2["group"] != "ref"]
    else:
        raise ValueError(f"table must be 'latest' or 'v2', got {table!r}")
    keep = ((scores["scenario"] != LR) & (scores["metric"] == metric)) | (
        (scores["scenario"] == LR) & (scores["metric"] == LR_METRIC)
    )
    wide = scores[keep].pivot_table(index="model_id", columns="scenario", values="value", aggfunc="first", sort=False)
    wide = wide.reindex(columns=list(data.scenarios["scenario"]))
    wide.columns.name = None
    return wide.dropna() if complete else wide


def dimension_scores(scores: pd.DataFrame, dimension_of: Mapping[str, str], include_lr: bool = False) -> pd.DataFrame:
    """Per model the mean of each dimension's scenarios (percent); LR is left out of SCEA unless
    ``include_lr`` (the latest tables' convention). Columns in :data:`DIMENSIONS` order (those
    present)."""
    cols = {}
    for dim in DIMENSIONS:
        members = [s for s in scores.columns if dimension_of.get(s) == dim and (include_lr or s != LR)]
        if members:
            cols[dim] = scores[members].mean(axis=1)
    return pd.DataFrame(cols, index=scores.index)


def binomial_se(percent: np.ndarray | pd.DataFrame | float, n: np.ndarray | float) -> np.ndarray:
    """Binomial standard error in percentage points of a percent accuracy over n items:
    100 * sqrt(p (1 - p) / n), p = percent / 100 (0 at p = 0 or 1; n must be > 0)."""
    p = np.asarray(percent, dtype=float) / 100.0
    n = np.asarray(n, dtype=float)
    if np.any(n <= 0):
        raise ValueError("n must be positive")
    return 100.0 * np.sqrt(np.clip(p * (1 - p), 0, None) / n)


def _redraw(scores: np.ndarray, n: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Parametric bootstrap draws [n_boot, n_models, n_scenarios] of percent scores: each
    Binomial(n_s, p)/n_s; mean p, se sqrt(p(1-p)/n_s)."""
    p = np.clip(scores / 100.0, 0, 1)
    k = rng.binomial(np.broadcast_to(n, p.shape).astype(np.int64), p, size=(n_boot, *p.shape))
    return 100.0 * k / n


# ----------------------------------------------------------------------------------------------
# rank independence


def kendall_w(scores: np.ndarray | pd.DataFrame) -> dict[str, float]:
    """Kendall's W of the rankings of the models (rows) by each rater (columns: scenarios or
    dimensions) of ``scores``, with average ranks and the tie correction, and the chi-square
    test chi2 = m (n - 1) W on n - 1 degrees of freedom (scipy). W in [0, 1]: 1 when every
    column ranks the models the same; ~0 when rankings are unrelated. Needs n >= 2 models and
    m >= 2 columns (otherwise NaN)."""
    x = np.asarray(scores, dtype=float)
    n, m = x.shape
    if n < 2 or m < 2:
        return {"W": np.nan, "chi2": np.nan, "df": max(n - 1, 0), "p_value": np.nan, "m": m, "n": n}
    w = _kendall_w_scores(x)
    chi2 = m * (n - 1) * w
    return {"W": w, "chi2": chi2, "df": n - 1, "p_value": float(stats.chi2.sf(chi2, n - 1)), "m": m, "n": n}


@dataclass(frozen=True)
class RankIndependence:
    """``tau``: level (dimension | scenario), a, b, n_models, tau (tau-b, scipy), p_value (scipy,
    no multiplicity correction), ci_low, ci_high (percentile interval of the parametric
    bootstrap), ci_low_basic, ci_high_basic (basic interval 2 tau - q, which undoes the
    bootstrap's attenuation towards 0 to first order; clipped to [-1, 1]), boot_median,
    approximate (LR involved: pseudo-binomial). ``w``: level, m, n, W, chi2, df, p_value, ci_low,
    ci_high, ci_low_basic, ci_high_basic (clipped to [0, 1]), boot_median."""

    tau: pd.DataFrame
    w: pd.DataFrame


def rank_independence(
    scores: pd.DataFrame,
    n: Mapping[str, int],
    dimension_of: Mapping[str, str],
    n_boot: int = 2000,
    level: float = 0.95,
    seed: int = 0,
    include_lr_in_scea: bool = False,
) -> RankIndependence:
    """Kendall tau-b between the models' rankings for every pair of dimensions and of scenarios,
    and Kendall's W across the scenarios and across the dimensions.

    ``scores``: models x scenarios, percent (complete cases, e.g. :func:`score_matrix`); ``n``:
    test size per scenario; ``dimension_of``: scenario -> dimension. Dimension scores are the
    means of their scenarios (LR left out of SCEA unless ``include_lr_in_scea``).

    Intervals: the models are fixed (not a sample from a population of models), so resampling
    models would answer the wrong question. The uncertainty that matters is the test items'
    sampling error: a parametric bootstrap redraws every score as Binomial(n_s, p)/n_s (mean p,
    se sqrt(p(1-p)/n_s)), recomputes the dimension means, tau-b and W, ``n_boot`` times; the
    interval is the (1 - level)/2 percentile interval. LR Total is redrawn as a pseudo-proportion
    over 80 items (``approximate``). Redrawn scores carry extra noise, so the bootstrap
    distribution is pulled towards 0 relative to the observed tau (and W): the percentile interval
    is the range a replication with fresh items of the same size would give; the basic interval
    (2 * observed - quantiles) estimates where the noise-free value lies.
    """
    x = scores.to_numpy(dtype=float)
    if np.isnan(x).any():
        raise ValueError("scores has missing values; pass complete cases (score_matrix(complete=True))")
    cols = list(scores.columns)
    missing = [c for c in cols if c not in n]
    if missing:
        raise ValueError(f"no test size n for scenario(s) {missing}")
    nn = np.array([n[c] for c in cols], dtype=float)
    rng = np.random.default_rng(seed)
    draws = _redraw(x, nn, n_boot, rng)  # [B, models, scenarios]
    lo_q, hi_q = 100 * (1 - level) / 2, 100 * (1 + level) / 2

    dims = [d for d in DIMENSIONS if any(dimension_of.get(c) == d for c in cols)]
    members = {
        d: [i for i, c in enumerate(cols) if dimension_of.get(c) == d and (include_lr_in_scea or c != LR)] for d in dims
    }
    dim_obs = np.stack([x[:, members[d]].mean(axis=1) for d in dims], axis=-1)
    dim_boot = np.stack([draws[:, :, members[d]].mean(axis=2) for d in dims], axis=-1)

    rows = []
    w_rows = []
    for lev, names, obs, boot in (("dimension", dims, dim_obs, dim_boot), ("scenario", cols, x, draws)):
        tb = tau_b_matrix(boot)  # [B, k, k]
        for i, j in combinations(range(len(names)), 2):
            res = stats.kendalltau(obs[:, i], obs[:, j], variant="b")
            t = tb[:, i, j]
            t = t[np.isfinite(t)]
            approx = LR in (names[i], names[j]) or (
                lev == "dimension" and include_lr_in_scea and "SCEA" in (names[i], names[j])
            )
            qlo, qhi = float(np.percentile(t, lo_q)), float(np.percentile(t, hi_q))
            tau_obs = float(res.statistic)
            rows.append(
                (
                    lev,
                    names[i],
                    names[j],
                    obs.shape[0],
                    tau_obs,
                    float(res.pvalue),
                    qlo,
                    qhi,
                    max(-1.0, 2 * tau_obs - qhi),
                    min(1.0, 2 * tau_obs - qlo),
                    float(np.median(t)),
                    approx,
                )
            )
        wo = kendall_w(obs)
        wb = np.array([_kendall_w_scores(b) for b in boot])
        wb = wb[np.isfinite(wb)]
        qlo, qhi = float(np.percentile(wb, lo_q)), float(np.percentile(wb, hi_q))
        w_rows.append(
            (
                lev,
                wo["m"],
                wo["n"],
                wo["W"],
                wo["chi2"],
                wo["df"],
                wo["p_value"],
                qlo,
                qhi,
                max(0.0, 2 * wo["W"] - qhi),
                min(1.0, 2 * wo["W"] - qlo),
                float(np.median(wb)),
            )
        )
    tau = pd.DataFrame(
        rows,
        columns=[
            "level",
            "a",
            "b",
            "n_models",
            "tau",
            "p_value",
            "ci_low",
            "ci_high",
            "ci_low_basic",
            "ci_high_basic",
            "boot_median",
            "approximate",
        ],
    )
    w = pd.DataFrame(
        w_rows,
        columns=[
            "level",
            "m",
            "n",
            "W",
            "chi2",
            "df",
            "p_value",
            "ci_low",
            "ci_high",
            "ci_low_basic",
            "ci_high_basic",
            "boot_median",
        ],
    )
    return RankIndependence(tau=tau, w=w)


# ----------------------------------------------------------------------------------------------
# discriminability


@dataclass(frozen=True)
class Discriminability:
    """``summary``: one row per scenario (level "scenario") and per dimension (level
    "dimension"): level, unit, dimension, n (items; dimension rows: summed), n_models, n_pairs,
    mean_se (pp), share_separated (|diff| > z * sqrt(se_a^2 + se_b^2)), share_separated_holm (Holm
    over the unit's pairs at ``alpha``; NaN unless ``holm``), between_var (pp^2, ddof 1),
    mean_sampling_var (pp^2), snr (between_var / mean_sampling_var), binomial_exact.
    ``pairs``: level, unit, a, b, difference, se_diff, z, p_value, separated."""

    summary: pd.DataFrame
    pairs: pd.DataFrame


def discriminability(
    scores: pd.DataFrame,
    n: Mapping[str, int],
    dimension_of: Mapping[str, str] | None = None,
    z: float = 1.959963984540054,
    holm: bool = False,
    alpha: float = 0.05,
    include_lr_in_scea: bool = False,
) -> Discriminability:
    """How well each scenario (and each dimension average) separates the models, given the
    binomial sampling error of its n items.

    ``scores``: models x scenarios, percent; NaN entries are skipped (a model missing from a
    scenario is not compared there). se of a model's accuracy p: 100 sqrt(p(1-p)/n) pp; a pair is
    separated when |p_a - p_b| > z sqrt(se_a^2 + se_b^2) (two-sided 95% by default; with
    ``holm``, also Holm-adjusted two-sided normal p-values <= ``alpha`` within each unit). Two
    models both at 0% or 100% have se 0: separated only if they differ. SNR = between-model
    variance of the accuracies (ddof 1) over the mean sampling variance se^2: ~1 means the
    spread is what sampling noise alone would give. Dimension rows (when ``dimension_of`` is
    given) use the mean of the dimension's scenarios with se sqrt(sum se_s^2) / k (independent
    test sets); LR is left out of SCEA unless ``include_lr_in_scea``. LR's own row uses the
    pseudo-binomial approximation (binomial_exact False).
    """
    units: list[tuple[str, str, str | None, float, pd.Series, pd.Series, bool]] = []
    for c in scores.columns:
        v = scores[c].dropna()
        se = pd.Series(binomial_se(v.to_numpy(), n[c]), index=v.index)
        units.append(("scenario", c, dimension_of.get(c) if dimension_of else None, float(n[c]), v, se, c != LR))
    if dimension_of:
        for dim in DIMENSIONS:
            members = [c for c in scores.columns if dimension_of.get(c) == dim and (include_lr_in_scea or c != LR)]
            if not members:
                continue
            sub = scores[members].dropna()
            ses = np.stack([binomial_se(sub[c].to_numpy(), n[c]) for c in members], axis=1)
            se = pd.Series(np.sqrt((ses**2).sum(axis=1)) / len(members), index=sub.index)
            units.append(
                ("dimension", dim, dim, float(sum(n[c] for c in members)), sub.mean(axis=1), se, LR not in members)
            )
    rows, pair_rows = [], []
    for lev, unit, unit_dim, nn, v, se, exact in units:
        vals, ses, names = v.to_numpy(float), se.to_numpy(float), list(v.index)
        i, j = np.triu_indices(len(vals), k=1)
        diff = vals[i] - vals[j]
        sed = np.sqrt(ses[i] ** 2 + ses[j] ** 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            zz = np.where(sed > 0, diff / sed, np.where(diff != 0, np.sign(diff) * np.inf, 0.0))
        pv = 2 * stats.norm.sf(np.abs(zz))
        sep = np.abs(zz) > z
        share_holm = float(np.mean(adjust(pv, "holm") <= alpha)) if (holm and len(pv)) else np.nan
        between = float(np.var(vals, ddof=1)) if len(vals) > 1 else np.nan
        msv = float(np.mean(ses**2)) if len(ses) else np.nan
        rows.append(
            (
                lev,
                unit,
                unit_dim,
                nn,
                len(vals),
                len(diff),
                float(np.mean(ses)) if len(ses) else np.nan,
                float(np.mean(sep)) if len(sep) else np.nan,
                share_holm,
                between,
                msv,
                between / msv if msv and msv > 0 else np.nan,
                exact,
            )
        )
        for a, b, d, s, zv, p, sp in zip(i, j, diff, sed, zz, pv, sep):
            pair_rows.append((lev, unit, names[a], names[b], d, s, zv, p, bool(sp)))
    summary = pd.DataFrame(
        rows,
        columns=[
            "level",
            "unit",
            "dimension",
            "n",
            "n_models",
            "n_pairs",
            "mean_se",
            "share_separated",
            "share_separated_holm",
            "between_var",
            "mean_sampling_var",
            "snr",
            "binomial_exact",
        ],
    )
    pairs = pd.DataFrame(
        pair_rows, columns=["level", "unit", "a", "b", "difference", "se_diff", "z", "p_value", "separated"]
    )
    return Discriminability(summary=summary, pairs=pairs)


# ----------------------------------------------------------------------------------------------
# human-model gaps


@dataclass(frozen=True)
class HumanGaps:
    """``pairs``: scenario, dimension, model_id, human, model, gap (human - model, pp), se (pp),
    ci_low, ci_high, below (model < human), significantly_below (ci_low > 0),
    significantly_above (ci_high < 0). ``summary`` per scenario: scenario, dimension, n,
    human_n, human, random, best_model, best_model_id, n_models, mean_gap, median_gap, min_gap,
    max_gap, share_below, share_significantly_below, share_significantly_above, human_below_random."""

    pairs: pd.DataFrame
    summary: pd.DataFrame


def human_gaps(
    data: EmoBenchM, table: str = "v2", human_n: int | None = None, z: float = 1.959963984540054
) -> HumanGaps:
    """Human accuracy minus each model's, per classification scenario.

    Human and Random come from the v2 table (the only one with a Human row); the models from
    ``table`` ("v2": its 19 models, the like-for-like comparison; "latest": the 27-model tables,
    ACC). The number of items behind the human figures is not published: by default the scenario's
    test size n is used (``human_n`` overrides it; note that every printed human accuracy is an
    even integer, consistent with e.g. 50 items, which would widen the intervals). The interval is
    gap +- z sqrt(se_h^2 + se_m^2) with binomial se of each proportion. LR is left out: its Human
    row (Total 100) is the reference answers scored by construction, not a measured accuracy.
    """
    human = data.v2[(data.v2["model_id"] == HUMAN) & (data.v2["metric"] == "ACC")].set_index("scenario")["value"]
    random = data.v2[(data.v2["model_id"] == RANDOM) & (data.v2["metric"] == "ACC")].set_index("scenario")["value"]
    scores = score_matrix(data, table=table, metric="ACC", complete=False).drop(columns=[LR])
    n = data.n
    dim_of = data.dimension_of
    rows, summ = [], []
    for s in scores.columns:
        if s not in human.index:
            continue
        h = float(human[s])
        hn = human_n if human_n is not None else n[s]
        v = scores[s].dropna()
        se = np.sqrt(binomial_se(h, hn) ** 2 + binomial_se(v.to_numpy(), n[s]) ** 2)
        gap = h - v.to_numpy()
        lo, hi = gap - z * se, gap + z * se
        for m, mv, g, e, a, b in zip(v.index, v.to_numpy(), gap, se, lo, hi):
            rows.append((s, dim_of[s], m, h, mv, g, e, a, b, bool(mv < h), bool(a > 0), bool(b < 0)))
        summ.append(
            (
                s,
                dim_of[s],
                n[s],
                hn,
                h,
                float(random.get(s, np.nan)),
                float(v.max()),
                v.idxmax(),
                len(v),
                float(gap.mean()),
                float(np.median(gap)),
                float(gap.min()),
                float(gap.max()),
                float(np.mean(v < h)),
                float(np.mean(lo > 0)),
                float(np.mean(hi < 0)),
                bool(h < random.get(s, -np.inf)),
            )
        )
    pairs = pd.DataFrame(
        rows,
        columns=[
            "scenario",
            "dimension",
            "model_id",
            "human",
            "model",
            "gap",
            "se",
            "ci_low",
            "ci_high",
            "below",
            "significantly_below",
            "significantly_above",
        ],
    )
    summary = pd.DataFrame(
        summ,
        columns=[
            "scenario",
            "dimension",
            "n",
            "human_n",
            "human",
            "random",
            "best_model",
            "best_model_id",
            "n_models",
            "mean_gap",
            "median_gap",
            "min_gap",
            "max_gap",
            "share_below",
            "share_significantly_below",
            "share_significantly_above",
            "human_below_random",
        ],
    )
    return HumanGaps(pairs=pairs, summary=summary)

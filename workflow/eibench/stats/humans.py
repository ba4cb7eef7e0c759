"""The human baseline: the human raters against the models on exactly the items the humans
labelled, agreement among the humans, and the leave-one-annotator-out alternative-annotator
test.

- Paired comparisons: per metric, the mean over the human raters of their per-conversation
  score against each model's score on the same conversations (the humans' subset), with a
  cluster-bootstrap interval and p-value; Holm's correction across models.
- Agreement: Krippendorff's alpha among the human raters, per kind of answer, with a distance
  that fits it: nominal for yes/no answers and pairwise picks, MASI for emotion tag sets,
  interval for four-branch ratings; for the four-branch ratings also the intraclass
  correlation ICC(A,1) (pingouin).
- Alternative-annotator test (Calderon, Reichart and Dror 2025): for each human j left out, on
  every item j answered, does the model agree with the other humans at least as well as j
  does? A one-sided paired t-test (pingouin) of the per-item win indicators with margin epsilon; the
  model passes when it wins for at least half of the humans (winning rate omega >= 0.5).
"""

from __future__ import annotations

import warnings
from itertools import combinations
from typing import Any, Callable, Collection, Iterable, Mapping, cast

import numpy as np
import pandas as pd

from ..metrics.registry import BY_NAME
from .bootstrap import bootstrap_p, percentile_interval, resampled_means
from .multiplicity import adjust_present, reject
from .study import Study


def human_vs_models(
    study: Study, metric: str, humans: list[int], models: list[int], weights: np.ndarray, alpha: float = 0.05
) -> pd.DataFrame:
    """Per model: mean human score - model score over the humans' conversations."""
    values = study.values[metric]
    human = np.full(values.shape[1], np.nan)
    if humans:
        rated = np.isfinite(values[humans]).any(axis=0)  # conversations at least one human labelled
        human[rated] = np.nanmean(values[humans][:, rated], axis=0)
    rows: list[list[Any]] = []
    p: list[float] = []
    for m in models:
        diff = human - values[m]  # NaN outside the humans' subset
        boot = resampled_means(diff[None, :], weights)[:, 0]
        lo, hi = percentile_interval(boot)
        p.append(float(bootstrap_p(boot)))
        rows.append(
            [
                metric,
                study.models[m],
                float(np.nanmean(diff)),
                float(lo),
                float(hi),
                p[-1],
                int(np.isfinite(diff).sum()),
            ]
        )
    adjusted = adjust_present(p, "holm") if p else np.array([])
    sign = 1 if BY_NAME[metric].higher_is_better else -1  # a lower error is better
    for row, q in zip(rows, adjusted):
        row.append(float(q))
        better = sign * row[2]
        row.append(
            "humans better"
            if q <= alpha and better > 0
            else "model better"
            if q <= alpha and better < 0
            else "no difference"
        )
    return pd.DataFrame(
        rows,
        columns=[
            "metric",
            "em_model",
            "human_minus_model",
            "lo",
            "hi",
            "p_boot",
            "n_conversations",
            "p_holm",
            "verdict",
        ],
    )


def claimed_side(metric: str, direction: str) -> int:
    """+1 when a positive human-minus-model difference of ``metric`` lies on the side a
    ``humans_vs_models`` claim with ``direction`` ('humans_better' or 'models_better') predicts,
    else -1 (a metric whose lower values are better turns the sign)."""
    return (1 if BY_NAME[metric].higher_is_better else -1) * (1 if direction == "humans_better" else -1)


def share_on_claimed_side(difference: np.ndarray, metric: str, direction: str) -> float:
    """The share (0 to 1) of the models whose human-minus-model ``difference`` lies strictly on
    the claimed side (:func:`claimed_side`): a ``humans_vs_models`` claim's estimate, and on
    noise-free values its estimand. NaN without a model."""
    if not len(difference):
        return float("nan")
    return float((claimed_side(metric, direction) * np.asarray(difference, dtype=float) > 0).mean())


# ----------------------------------------------------------------- Krippendorff's alpha
def masi(a: frozenset, b: frozenset) -> float:
    """MASI distance of two sets (Passonneau 2006): 1 - Jaccard x monotonicity weight."""
    if not a and not b:
        return 0.0
    inter, union = len(a & b), len(a | b)
    if a == b:
        m = 1.0
    elif a <= b or b <= a:
        m = 2 / 3
    elif inter:
        m = 1 / 3
    else:
        m = 0.0
    return 1.0 - (inter / union) * m


def krippendorff_alpha(units: dict[object, list[object]], distance) -> float:
    """Krippendorff's alpha of ``units`` (unit -> the values the coders gave; units with fewer
    than two values are not pairable) for a distance function delta(a, b) >= 0."""
    pairable = [v for v in units.values() if len(v) >= 2]
    n = sum(len(v) for v in pairable)
    if n < 2:
        return float("nan")
    observed = sum(sum(distance(a, b) for a, b in combinations(v, 2)) * 2 / (len(v) - 1) for v in pairable) / n
    values = [x for v in pairable for x in v]
    distinct: dict[Any, int] = {}
    for x in values:
        distinct[x] = distinct.get(x, 0) + 1
    keys = list(distinct)
    if distance is masi:  # as many distinct tag sets as labelled turns: the pairs are vectorised
        expected = _masi_expected(cast(list[frozenset], keys), np.array([distinct[k] for k in keys], dtype=float)) / (
            n * (n - 1)
        )
    else:
        expected = sum(distinct[a] * distinct[b] * distance(a, b) for a in keys for b in keys) / (n * (n - 1))
    return 1.0 - observed / expected if expected > 0 else float("nan")


def _masi_expected(sets: list[frozenset], counts: np.ndarray, block: int = 1024) -> float:
    """sum over every ordered pair of distinct sets (a, b) of count(a) x count(b) x MASI(a, b),
    the expected-disagreement sum of Krippendorff's alpha, as :func:`masi` computes each pair
    but on arrays: the sets as rows of an indicator matrix, their intersections a matrix
    product, rows in blocks so that memory stays ``block`` x len(sets)."""
    vocab = {x: i for i, x in enumerate(sorted({x for s in sets for x in s}, key=repr))}
    member = np.zeros((len(sets), len(vocab)))
    for row, s in enumerate(sets):
        member[row, [vocab[x] for x in s]] = 1.0
    size = member.sum(axis=1)
    total = 0.0
    for start in range(0, len(sets), block):
        inter = member[start : start + block] @ member.T  # whole numbers, exact in floating point
        sa, sb = size[start : start + block, None], size[None, :]
        union = sa + sb - inter
        weight = np.where(
            (inter == sa) & (inter == sb),
            1.0,
            np.where(inter == np.minimum(sa, sb), 2 / 3, np.where(inter > 0, 1 / 3, 0.0)),
        )
        jaccard = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
        d = np.where(union > 0, 1.0 - jaccard * weight, 0.0)  # two empty sets: distance 0
        total += float(counts[start : start + block] @ d @ counts)
    return total


def nominal(a: object, b: object) -> float:
    return float(a != b)


def interval(a: float, b: float) -> float:
    return float((a - b) ** 2)


def human_agreement(human_tables: dict[str, dict[str, pd.DataFrame]]) -> pd.DataFrame:
    """Krippendorff's alpha among the human raters for each kind of answer they gave.

    ``human_tables``: rater -> that rater's tidy EM tables (em_binary, em_pairwise,
    em_emotion_tags, em_turns, em_four_branch).
    """
    kinds: dict[str, tuple[dict, Callable[[Any, Any], float]]] = {
        "binary_hp": ({}, nominal),
        "pairwise": ({}, nominal),
        "emotion_tags": ({}, masi),
        "four_branch": ({}, interval),
    }
    for tables in human_tables.values():
        for unit, value in hp_answers(tables).items():
            kinds["binary_hp"][0].setdefault(unit, []).append(value)
        for unit, value in pairwise_picks(tables).items():
            kinds["pairwise"][0].setdefault(unit, []).append(value)
        tags = tables["em_emotion_tags"]
        sets = {
            k: frozenset(g["emotion"].astype(str))
            for k, g in tags.groupby(["conversation_id", "turn_number"], observed=True)
        }
        for cid, t in zip(tables["em_turns"]["conversation_id"].astype(str), tables["em_turns"]["turn_number"]):
            kinds["emotion_tags"][0].setdefault((cid, t), []).append(sets.get((cid, t), frozenset()))
        f = tables["em_four_branch"]
        f = f[f["source"] == "post"]
        for cell, rating in zip(
            zip(f["conversation_id"].astype(str), f["branch"].astype(str)), f["rating"].astype(float)
        ):
            kinds["four_branch"][0].setdefault(cell, []).append(float(rating))
    rows = []
    for kind, (units, distance) in kinds.items():
        pairable = sum(1 for v in units.values() if len(v) >= 2)
        rows.append((kind, krippendorff_alpha(units, distance), pairable, len(human_tables)))
    table = pd.DataFrame(rows, columns=["answers", "krippendorff_alpha", "units", "raters"])
    ratings = pd.concat(
        [
            t["em_four_branch"].loc[t["em_four_branch"]["source"] == "post"].assign(rater=rater)
            for rater, t in human_tables.items()
        ],
        ignore_index=True,
    )
    icc, complete = icc_absolute_agreement(
        pd.DataFrame(
            {
                "unit": ratings["conversation_id"].astype(str) + "/" + ratings["branch"].astype(str),
                "rater": ratings["rater"],
                "rating": ratings["rating"].astype(float),
            }
        )
    )
    # The ICC needs numbers on an interval scale: the four-branch ratings only.
    table["icc_a1"] = np.where(table["answers"] == "four_branch", icc, np.nan)
    table["icc_units"] = np.where(table["answers"] == "four_branch", complete, 0)
    return table


def icc_absolute_agreement(ratings: pd.DataFrame) -> tuple[float, int]:
    """ICC(A,1) of interval ratings (pingouin ``intraclass_corr``): two-way random effects,
    absolute agreement, one rater (McGraw and Wong 1996; Shrout and Fleiss' ICC(2,1)).

    ``ratings``: columns ``unit``, ``rater``, ``rating``; one rating per unit and rater (a
    duplicate is averaged). Only the units that every rater rated enter (listwise, as pingouin
    requires a balanced design). Returns (ICC, number of those units); the ICC is NaN with
    fewer than two raters or two complete units, or when the complete units have no variance
    at all (every rating equal). Range (-1, 1]; 1 = the raters agree exactly.
    """
    wide = ratings.pivot_table(index="unit", columns="rater", values="rating", aggfunc="mean").dropna(how="any")
    n, k = wide.shape
    if n < 2 or k < 2 or np.ptp(wide.to_numpy()) == 0:
        return float("nan"), int(n) if k >= 2 else 0
    long = wide.reset_index().melt(id_vars="unit", var_name="rater", value_name="rating")
    import pingouin  # here, not at the top: it imports seaborn and matplotlib (2 s per job)

    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        # pingouin 0.7 calls DataFrame.dropna(inplace=True), which pandas 3 deprecates; and exact
        # agreement (no residual variance) divides by zero in its F tests, which are not used.
        warnings.filterwarnings("ignore", message="The inplace keyword", category=DeprecationWarning)
        out = pingouin.intraclass_corr(long, targets="unit", raters="rater", ratings="rating").set_index("Type")
    return float(out.loc["ICC(A,1)", "ICC"]), int(n)


# ----------------------------------------------------------------- alternative-annotator test
def mean_of(values: list[float]) -> float:
    """np.mean of a non-empty list of floats, bit for bit, without its per-call cost on the few
    values of one item (alt_test calls it hundreds of thousands of times): below 8 values numpy
    adds them in order, as sum() does; from 8 on it adds pairwise, so np.mean is called."""
    return sum(values) / len(values) if len(values) < 8 else float(np.mean(values))


def same_answer(a: Any, b: Any) -> float:
    """alt_test's default similarity: 1.0 for equal answers, else 0.0."""
    return float(a == b)


#: Per annotator (sorted by name): each item of theirs that another annotator also answered, as
#: (item, the other annotators' answers in name order, this annotator's mean similarity to them).
LeftOut = list[list[tuple[Any, list[Any], float]]]


def leave_one_out(annotations: Mapping[str, Mapping[Any, Any]], similarity=same_answer) -> LeftOut:
    """What :func:`alt_test` compares each model with, which does not depend on the model:
    computed once for all the models of :func:`alt_tests`."""
    names = sorted(annotations)
    out: LeftOut = []
    for j in names:
        rows = []
        for item, answer in annotations[j].items():
            others = [annotations[k][item] for k in names if k != j and item in annotations[k]]
            if others:
                rows.append((item, others, mean_of([similarity(answer, o) for o in others])))
        out.append(rows)
    return out


def alt_test(
    annotations: Mapping[str, Mapping[Any, Any]],
    model: Mapping[Any, Any],
    epsilon: float,
    similarity=same_answer,
    alpha: float = 0.05,
    left_out: LeftOut | None = None,
) -> dict[str, float]:
    """Leave-one-annotator-out test: can the model replace one of the annotators?

    ``annotations``: annotator -> {item: answer}; ``model``: {item: answer}. For each
    annotator j and each item j answered that at least one other annotator and the model also
    answered: S_model = mean similarity of the model with the others, S_j = same for j; the
    model wins the item when S_model >= S_j, j wins when S_j >= S_model. H0: mean(model wins)
    - mean(j wins) <= -epsilon, one-sided paired t-test; Benjamini-Yekutieli across annotators.
    ``left_out``: :func:`leave_one_out` of ``annotations`` and ``similarity``, when the caller
    tests several models against the same annotators (computed here otherwise).
    """
    if left_out is None:
        left_out = leave_one_out(annotations, similarity)
    pvalues, rho = [], []
    for rows in left_out:
        wins_m, wins_j = [], []
        for item, others, s_j in rows:
            if item not in model:
                continue
            s_model = mean_of([similarity(model[item], o) for o in others])
            wins_m.append(float(s_model >= s_j))
            wins_j.append(float(s_j >= s_model))
        if len(wins_m) < 2:
            pvalues.append(1.0)
            rho.append(np.nan)
            continue
        d = np.array(wins_m) - np.array(wins_j) + epsilon
        if np.allclose(d, d[0]):
            p = 0.0 if d[0] > 0 else 1.0
        else:
            import pingouin  # imported where used (see icc_absolute_agreement)

            p = float(pingouin.ttest(d, 0.0, alternative="greater")["p_val"].iloc[0])
        pvalues.append(p)
        rho.append(float(np.mean(wins_m)))
    rejected = reject(pvalues, alpha, "fdr_by") if pvalues else np.array([], dtype=bool)
    omega = float(np.mean(rejected)) if len(left_out) else float("nan")
    return {
        "winning_rate": omega,
        "advantage_probability": float(np.nanmean(rho)) if rho else float("nan"),
        "passes": bool(omega >= 0.5),
        "n_annotators": len(left_out),
        "epsilon": epsilon,
    }


#: Metrics on which the human raters are compared with the models (rule stats_humans), besides
#: those the ``humans_vs_models`` claims name.
HUMAN_METRICS = (
    "binary_hp_acc",
    "pairwise_acc",
    "emotion_f1",
    "binary_om_acc",
    "cw_q1_f1",
    "conversation_wide",
    "composite",
)


def compared_metrics(claims: list[dict]) -> list[str]:
    """:data:`HUMAN_METRICS` and the metric of every ``humans_vs_models`` claim, sorted, once each."""
    return sorted(set(HUMAN_METRICS) | {c["params"]["metric"] for c in claims if c["test"] == "humans_vs_models"})


def _of_conversations(table: pd.DataFrame, conversations: Collection[str] | None) -> pd.DataFrame:
    """The rows of ``table`` in ``conversations`` (all of them when None)."""
    return table if conversations is None else table[table["conversation_id"].isin(list(conversations))]


def hp_answers(
    tables: dict[str, pd.DataFrame], conversations: Collection[str] | None = None
) -> dict[tuple[str, int, str], str]:
    """A rater's (or model's) answers to the "what the participant preferred" binary questions in
    observer wording: (conversation, turn, question) -> yes / no / na; other values left out;
    with ``conversations``, only those of these conversations."""
    b = _of_conversations(tables["em_binary"], conversations)
    b = b[(b["target"] == "hp") & (b["wording"] == "observer") & b["value"].isin(["yes", "no", "na"])]
    # .tolist(): iterating a column element by element was most of this function's time
    return dict(
        zip(
            zip(
                b["conversation_id"].astype(str).tolist(),
                b["turn_number"].tolist(),
                b["question_id"].astype(str).tolist(),
            ),
            b["value"].astype(str).tolist(),
        )
    )


def pairwise_picks(
    tables: dict[str, pd.DataFrame], conversations: Collection[str] | None = None
) -> dict[tuple[str, int, str], str]:
    """A rater's (or model's) pairwise picks: (conversation, turn, pair key) -> A / B; ties and
    missing picks left out; with ``conversations``, only those of these conversations."""
    t = _of_conversations(tables["em_pairwise"], conversations)
    t = t[t["pick"].isin(["A", "B"])]
    return dict(
        zip(
            zip(t["conversation_id"].astype(str).tolist(), t["turn_number"].tolist(), t["key"].astype(str).tolist()),
            t["pick"].astype(str).tolist(),
        )
    )


#: The EM tables the alternative-annotator test reads of a model (:func:`alt_tests`).
ALT_TEST_TABLES = ("em_binary", "em_pairwise")


def alt_tests(
    human_tables: dict[str, dict[str, pd.DataFrame]],
    model_tables: Iterable[tuple[str, dict[str, pd.DataFrame]]],
    epsilon: float,
    alpha: float,
) -> pd.DataFrame:
    """The alternative-annotator test (:func:`alt_test`) of every model against the human raters,
    on their binary "preferred" answers and on their pairwise picks: one row per (answers, model),
    binary_hp rows first, models in ``model_tables`` order. Empty with fewer than two human
    raters (the test leaves one out).

    ``model_tables``: (model, its tables) pairs (a mapping's ``.items()``); a model needs only
    ``ALT_TEST_TABLES``. Pairs are taken one at a time, so a generator that reads each model's
    tables when asked holds one model in memory, not all of them."""
    if len(human_tables) < 2:
        return pd.DataFrame()
    tasks = (("binary_hp", hp_answers), ("pairwise", pairwise_picks))
    annotations = {task: {h: extract(t) for h, t in human_tables.items()} for task, extract in tasks}
    # The test looks a model's answer up only for an item a rater answered: the model's answers
    # elsewhere are left out before they become dict entries (at 50x the published cohort, the
    # raters label 1,500 of 10,000 conversations).
    rated = {item[0] for by_rater in annotations.values() for answers in by_rater.values() for item in answers}
    left_out = {task: leave_one_out(by_rater) for task, by_rater in annotations.items()}
    by_task: dict[str, list[dict[str, Any]]] = {task: [] for task, _ in tasks}
    for name, tables in model_tables:
        for task, extract in tasks:
            result = alt_test(annotations[task], extract(tables, rated), epsilon, alpha=alpha, left_out=left_out[task])
            by_task[task].append({"answers": task, "em_model": name, **result})
    return pd.DataFrame([row for task, _ in tasks for row in by_task[task]])

"""The numbers and display tables of the cohort's counts, the leaderboard, the strict rule set, the
parity rules that fired and the invalid answers: what rule paper_numbers adds before the
statistics (stats_numbers), the cohort's description (cohort_numbers) and the reproducibility
statement.

Inputs are the tidy tables as read by the rule (results/ingest/*.parquet, results/scores/
leaderboard.csv, rule_counts.csv, invalid_answers.csv); every function is pure but for adding
entries to the :class:`Numbers` it is given. Missing values print as an en dash.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import kendalltau

from ..metrics.availability import BY_NAME as BY_KIND
from ..metrics.availability import KINDS
from ..metrics.registry import BY_NAME, PRINCIPAL
from ..release.tidy import diagnosis_recorded
from ..stats.drift import _bin as drift_bin
from ..synthetic.cohort import PUBLISHED_DESIGN
from .cohort_numbers import joined
from .leaderboard import APART
from .numbers import Numbers, fmt, plural

INGEST, AGG, OWN = "ingest_conversations", "aggregate_scores", "paper_numbers"

#: The first leaderboard columns of the paper's table: the composite and the pillars.
TABLE_COMPOSITES = ("composite", "tracking", "evaluation", "holistic")
#: The principal metrics the table prints when a cohort has more than fit the page (the
#: synthetic study's ten): these, one or two per pillar; the others are in the capability
#: profiles (figure_profiles). Their number is the most principal columns the table prints.
TABLE_PRINCIPAL = ("emotion_f1", "binary_om_acc", "binary_hp_acc", "pairwise_acc")


def table_metrics(principal: Sequence[str] | None = None) -> tuple[str, ...]:
    """Leaderboard columns of the paper's table, in order: the composite, the pillars, then the
    cohort's principal metrics (``statistics.principal_metrics``; default the registry's), in
    their configured order, but those the leaderboard reports apart (``leaderboard.APART``). At
    most ``len(TABLE_PRINCIPAL)`` of them fit the page: when there
    are more, those of :data:`TABLE_PRINCIPAL` come first, then the others in order."""
    # the judged draft is reported apart, not on the leaderboard (leaderboard.APART)
    principal = [m for m in dict.fromkeys(principal or PRINCIPAL) if m not in APART]
    chosen = [m for m in TABLE_PRINCIPAL if m in principal] + [m for m in principal if m not in TABLE_PRINCIPAL]
    chosen = chosen[: len(TABLE_PRINCIPAL)]
    return TABLE_COMPOSITES + tuple(m for m in principal if m in chosen and m not in TABLE_COMPOSITES)


#: The table's columns for the registry's principal metrics (the synthetic study's).
TABLE_METRICS = table_metrics()


def add_data_counts(
    nums: Numbers, conv: pd.DataFrame, turns: pd.DataFrame, people: pd.DataFrame, tags: pd.DataFrame
) -> None:
    """Counts of the cohort: conversations, turns, participants (those whose profile records
    traits, where a diagnosis would be, and those with a diagnosis), subtopics, categories,
    turns per conversation (min, max, median), the size of AttuneBench's published design
    (``design.published_*``, for the simulation study's abstract), and the gold mood tags (``tags``, the gold
    mood_tags table): all of them, those naming a word outside the PANAS list and those whose
    intensity was outside 1..7 and clamped into it; and the conversations whose original
    assistant's provider is "simulated" (metadata.provider). A participant without traits has no recorded
    diagnosis, which is not the same as none (their ``diagnosis_group`` and ``has_diagnosis``
    are null)."""
    nums.add("n_conversations", int(len(conv)), INGEST)
    nums.add("n_turns", int(len(turns)), INGEST)
    nums.add("n_participants", int(len(people)), INGEST)
    for unit, size in PUBLISHED_DESIGN.items():
        nums.add(f"design.published_{unit}", size, INGEST, note=f"{unit} of AttuneBench's published design")
    nums.add("n_diagnosis_recorded", int(diagnosis_recorded(people).sum()), INGEST)
    nums.add("n_diagnosed", int(people["has_diagnosis"].sum()), INGEST)
    nums.add("n_subtopics", int(conv["subtopic"].nunique()), INGEST)
    nums.add("n_categories", int(conv["category"].nunique()), INGEST)
    per = turns.groupby("conversation_id").size()
    nums.add("turns_min", int(per.min()), INGEST)
    nums.add("turns_max", int(per.max()), INGEST)
    nums.add("turns_median", float(per.median()), INGEST, digits=1)
    nums.add("n_gold_tags", int(len(tags)), INGEST)
    nums.add("n_tags_outside_panas", int((~tags["in_panas"].astype(bool)).sum()), INGEST)
    nums.add("n_intensities_clamped", int(tags["intensity_clamped"].astype(bool).sum()), INGEST)
    nums.add(
        "n_provider_simulated",
        int((conv["provider"].astype(str).str.strip().str.lower() == "simulated").sum()) if "provider" in conv else 0,
        INGEST,
        note="conversations whose metadata.provider (the original assistant's) is 'simulated'",
    )


#: Per kind of gap, the parity rules (rule_counts.csv; ``*`` for the behaviour tasks' prefixes)
#: that fill it, each with how the paper words its default and the conversation score it sets
#: (the range of which over the compared models is printed), if any.
GAP_DEFAULTS: dict[str, tuple[tuple[str, str, str | None], ...]] = {
    "survey": (
        (
            "conversation_wide_gold_missing_scored_as_empty",
            "a conversation without a post-chat survey is scored against empty answers",
            "conversation_wide",
        ),
    ),
    "panas_one_side": (
        ("panas_total_missing_taken_as_40", "a PANAS total missing on one side of the chat is taken as 40", None),
        (
            "panas_adjusted_null_part_half",
            "a conversation whose baseline-adjusted PANAS score is undefined gets the composite's PANAS part 0.5",
            None,
        ),
    ),
    "four_branch": (
        ("four_branch_no_gold", "a conversation without four-branch ratings scores one on them", "four_branch"),
    ),
    "binary": (
        (
            "binary_*_turn_without_judgements",
            "a turn without behaviour judgements has accuracy one with the observer wording and zero with "
            "the participant wording",
            None,
        ),
    ),
    "pairwise": (("pairwise_turn_without_comparisons", "a turn without comparisons has pairwise accuracy one", None),),
}


#: How the paper names the scores of :data:`GAP_DEFAULTS`.
SCORE_LABELS = {"conversation_wide": "post-chat survey score", "four_branch": "four-branch score"}


def add_gold_base_rate(nums: Numbers, judgements: pd.DataFrame, turns: pd.DataFrame | None = None) -> None:
    """The base rate behaviour accuracy is read against, from the gold binary_judgements table
    (``question_id``, ``gold_om``: observed, else llmValue, normalised; with ``turns``, the gold
    turns table, also ``conversation_id`` and ``turn_number``): ``gold.n_om_judgements``
    (the yes/no ones: na and missing are not scored), ``gold.pct_om_yes`` and ``gold.pct_om_no``
    (pooled over them, one decimal; NaN without any) and ``gold.om_no_every_question`` (no is
    the more common answer of every question, a tie not counted as more common): answering no
    throughout is then right on ``gold.pct_om_no`` % of the judgements, and a baseline that gives
    the population's most common answers answers no everywhere. With ``turns``, the same share of
    yes in the early, middle and late thirds of the conversations as the drift analysis bins
    them (``gold.pct_om_yes_<early|middle|late>``, NaN in a third without judgements): a drift
    of the gold moves the accuracy of a predictor that answers alike throughout."""
    scored = judgements["gold_om"].isin(["yes", "no"]).to_numpy()
    if turns is not None:  # every key written, NaN without judgements: the paper reads them unguarded
        position = (
            judgements[["conversation_id", "turn_number"]]
            .merge(
                turns[["conversation_id", "turn_number", "rel_position"]],
                on=["conversation_id", "turn_number"],
                how="left",
            )["rel_position"]
            .to_numpy(float)
        )
        third = np.where(np.isfinite(position), drift_bin(np.nan_to_num(position)), -1)
        for k, name in enumerate(("early", "middle", "late")):
            sel = scored & (third == k)
            yes = (judgements["gold_om"].to_numpy(object)[sel] == "yes").sum()
            nums.add(
                f"gold.pct_om_yes_{name}",
                100.0 * yes / sel.sum() if sel.sum() else float("nan"),
                INGEST,
                digits=1,
                note=f"share of yes among the gold yes/no behaviour judgements of the {name} third of the turns",
            )
    om = judgements.loc[scored, ["question_id", "gold_om"]]
    n = int(len(om))
    no = int((om["gold_om"] == "no").sum())
    nums.add("gold.n_om_judgements", n, INGEST, note="gold yes/no judgements of the OM's behaviour")
    nums.add("gold.pct_om_yes", 100.0 * (n - no) / n if n else float("nan"), INGEST, digits=1)
    nums.add("gold.pct_om_no", 100.0 * no / n if n else float("nan"), INGEST, digits=1)
    counts = om.groupby("question_id")["gold_om"].value_counts().unstack(fill_value=0)
    every = bool(n) and bool((counts.get("no", 0) > counts.get("yes", 0)).all())
    nums.add(
        "gold.om_no_every_question",
        every,
        INGEST,
        note="no is the more common gold answer of every behaviour question",
    )


def conversations_without(conv: pd.DataFrame, table: pd.DataFrame) -> pd.Series:
    """The ids of the conversations of ``conv`` (the gold conversations table) that have no row
    in ``table`` (a gold table with a ``conversation_id`` column, e.g. survey_answers)."""
    return conv.loc[~conv["conversation_id"].isin(table["conversation_id"]), "conversation_id"]


def annotation_gaps(
    conv: pd.DataFrame, turns: pd.DataFrame, survey: pd.DataFrame, four_branch: pd.DataFrame, panas: pd.DataFrame
) -> list[tuple[str, str]]:
    """The kinds of annotation that some conversations (or turns) of the cohort have and others
    lack, each as its key (one of :data:`GAP_DEFAULTS`) and '<k> of the <n> conversations have no <kind>'
    (or turns; 'has' for one, the singular for a total of one): what the parity rules fill with
    the public scorer's defaults (:data:`GAP_DEFAULTS`). ``panas`` is the gold panas_totals
    table: a conversation with totals before the chat and none after it, or the reverse, has a
    gap (with none on either side it is left out of the PANAS scores, not filled). A kind no conversation has is absent
    (``availability``), not partial, and is left out here; so are mood tags (a turn without a
    mood shift is an annotation, not a gap), the PANAS items and the post-chat ratings (never
    given a default)."""
    given = panas[panas[["positive", "negative"]].notna().any(axis=1)]
    pre, post = (set(given.loc[given["phase"] == phase, "conversation_id"]) for phase in ("pre", "post"))
    one_side = conv["conversation_id"].isin(pre ^ post)

    def without(table: pd.DataFrame) -> int:
        return len(conversations_without(conv, table))

    n_conv, n_turns = len(conv), len(turns)
    # (key, unit (singular), of how many, how many lack it, what they have, whether all lacking it is an absent kind)
    gaps = (
        ("survey", "conversation", n_conv, without(survey), "no post-chat survey answers", True),
        (
            "panas_one_side",
            "conversation",
            n_conv,
            int(one_side.sum()),
            "PANAS totals on one side of the chat only",
            False,
        ),
        ("four_branch", "conversation", n_conv, without(four_branch), "no four-branch ratings", True),
        ("binary", "turn", n_turns, int((turns["n_binary"] == 0).sum()), "no behaviour judgements", True),
        ("pairwise", "turn", n_turns, int((turns["n_pairwise"] == 0).sum()), "no pairwise comparisons", True),
    )
    return [
        (key, f"{k} of the {n} {plural(n, unit, unit + 's')} {plural(k, 'has', 'have')} {what}")
        for key, unit, n, k, what, all_is_absent in gaps
        if k > 0 and not (all_is_absent and k == n)
    ]


def partial_annotations(
    conv: pd.DataFrame, turns: pd.DataFrame, survey: pd.DataFrame, four_branch: pd.DataFrame, panas: pd.DataFrame
) -> list[str]:
    """The descriptions of ``annotation_gaps``."""
    return [text for _, text in annotation_gaps(conv, turns, survey, four_branch, panas)]


def add_partial_annotations(nums: Numbers, gaps: list[str]) -> None:
    """``partial.n_kinds`` and ``partial.described`` ('none' without a gap) from
    ``partial_annotations``."""
    nums.add("partial.n_kinds", len(gaps), INGEST)
    nums.add("partial.described", joined(gaps) or "none", INGEST)


def _score_range(values: pd.Series) -> str:
    """A score in the conversations of a gap, over the compared models: its one value 'for every
    compared model', else its range ('' without a value), as the sentence continues."""
    values = values.dropna()
    if values.empty:
        return ""
    lo, hi = fmt(float(values.min())), fmt(float(values.max()))
    return f"of {lo} for every compared model" if lo == hi else f"between {lo} and {hi} over the compared models"


def gap_defaults(
    kinds: Sequence[str],
    rules: pd.DataFrame,
    models: pd.DataFrame,
    mode: str,
    scores: pd.DataFrame | None = None,
    gap_conversations: Mapping[str, Sequence[str]] | None = None,
) -> list[str]:
    """The parity defaults that filled the cohort's gaps (``kinds``: keys of ``annotation_gaps``)
    in this run: those of :data:`GAP_DEFAULTS` that fired (``rules``: rule_counts.csv, parity,
    ``mode``, the compared ``models``), in the gaps' order, each worded as the paper prints it. A
    default that did not fire (its annotation absent from the cohort, or a scorer setting that
    leaves the gap undefined) is not named. Where ``scores`` (conversation_scores, the compared
    models' rows of ``mode`` and parity) and the conversations of the gap are given, the score
    the default set there is added: one value for every compared model, or its range over the
    conversations and models."""
    rules = rules[
        (rules["rule_set"] == "parity") & (rules["mode"] == mode) & rules["em_model"].isin(models["em_model"])
    ]
    fired = rules.groupby("rule")["count"].sum()
    out = []
    for kind in kinds:
        for rule, words, column in GAP_DEFAULTS[kind]:
            prefix, star, suffix = rule.partition("*")
            matched = [r for r in fired.index if r.startswith(prefix) and r.endswith(suffix)] if star else [rule]
            if int(fired.reindex(matched).fillna(0).sum()) <= 0:
                continue
            ids = (gap_conversations or {}).get(kind)
            if column and scores is not None and ids is not None and column in scores:
                chosen = scores[
                    (scores["mode"] == mode)
                    & (scores["rule_set"] == "parity")
                    & scores["em_model"].isin(models["em_model"])
                    & scores["conversation_id"].isin(ids)
                ]
                value = _score_range(chosen[column])
                label = SCORE_LABELS.get(column, column)
                these = plural(len(ids), "this conversation", "these conversations")
                words = f"{words}, which gives {these} a {label} {value}" if value else words
            out.append(words)
    return out


def add_gap_defaults(nums: Numbers, defaults: list[str]) -> None:
    """``partial.n_defaults`` and ``partial.defaults`` ('none' without one) from ``gap_defaults``."""
    nums.add("partial.n_defaults", len(defaults), AGG, note="parity defaults that filled the cohort's gaps")
    nums.add("partial.defaults", "; ".join(defaults) or "none", AGG)


def main_rows(board: pd.DataFrame, mode: str) -> pd.DataFrame:
    """The leaderboard rows the paper reports: ``mode``, parity rule set, in leaderboard order."""
    return board[(board["mode"] == mode) & (board["rule_set"] == "parity")]


def add_leaderboard(
    nums: Numbers,
    main: pd.DataFrame,
    ranked_roles: Sequence[str],
    model_roles: Mapping[str, str],
    primary: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Counts of compared models and human raters, the top and bottom model with their
    composite, and every row's composite and emotion F1 with their intervals. Returns the
    compared models' rows. ValueError when no model is compared (the paper ranks models).

    The leaderboard's intervals are normal ones over conversations (``leaderboard.leaderboard``);
    ``primary``, the rows of the primary resampling scheme in ``schemes.csv`` (em_model, lo,
    hi), gives the top and bottom composites the interval the paper's statistics use instead
    (the abstract prints them): a cohort whose conversations share participants gets wider ones."""
    models = main[main["role"].isin(ranked_roles)]
    humans = main[main["role"] == "human"]
    nums.add("n_models", int(len(models)), AGG)
    nums.add("n_humans", int(len(humans)), AGG)
    nums.add("n_human_conversations", int(humans["n_conversations"].max()) if len(humans) else 0, AGG)
    nums.add("n_ranked_baselines", int((models["role"] == "baseline").sum()), AGG)
    nums.add("n_baselines", int((main["role"] == "baseline").sum()), AGG)
    if models.empty:
        raise ValueError(
            "no evaluated model (kind simulated, openai_compatible, anthropic or outputs_dir) in the "
            "config: the paper ranks evaluated models; add one to 'models', or set "
            "statistics.baselines_as_models: true to rank the baselines (a cohort without models)"
        )
    top, bottom = models.iloc[0], models.iloc[-1]
    bounds = primary.set_index("em_model")[["lo", "hi"]] if primary is not None else None

    def interval(row: pd.Series) -> dict[str, Any]:
        """The ``ci`` (and its ``note``) of a composite: the primary scheme's, else the board's."""
        if bounds is not None and row["em_model"] in bounds.index:
            lo, hi = bounds.loc[row["em_model"]]
            note = "interval: the primary resampling scheme's (rule stats_resampling, stats/uncertainty/schemes.csv)"
            return {"ci": (float(lo), float(hi)), "note": note}
        return {"ci": (float(row["composite_lo"]), float(row["composite_hi"]))}

    nums.add("top_model", str(top["em_model"]), AGG)
    nums.add("top_role", str(model_roles[top["em_model"]]), AGG)
    nums.add("top_composite", float(top["composite"]), AGG, **interval(top))
    nums.add("bottom_model", str(bottom["em_model"]), AGG)
    nums.add("bottom_composite", float(bottom["composite"]), AGG, **interval(bottom))
    for _, r in main.iterrows():
        for metric in ("composite", "emotion_f1"):
            nums.add(
                f"{metric}.{r['em_model']}",
                float(r[metric]),
                AGG,
                digits=1 if metric == "composite" else 3,
                ci=(float(r[f"{metric}_lo"]), float(r[f"{metric}_hi"])),
            )
    return models


def add_strict_comparison(
    nums: Numbers, board: pd.DataFrame, models: pd.DataFrame, mode: str, ranked_roles: Sequence[str]
) -> None:
    """Parity against strict: Kendall tau-b between the two rule sets' composite ranks of the
    compared ``models`` (NaN with fewer than two) and the models whose rank moves."""
    strict = board[(board["mode"] == mode) & (board["rule_set"] == "strict") & board["role"].isin(ranked_roles)]
    ranks = (
        models.set_index("em_model")["rank"]
        .astype(int)
        .to_frame("parity")
        .join(strict.set_index("em_model")["rank"].astype(int).rename("strict"))
    )
    moved = sorted(ranks.index[ranks["parity"] != ranks["strict"]])
    tau = float(kendalltau(ranks["parity"], ranks["strict"]).statistic) if len(ranks) > 1 else float("nan")
    nums.add("strict_rank_tau", tau, OWN, note="Kendall tau-b, parity vs strict composite ranks")
    nums.add("strict_changes_ranking", bool(moved), OWN)
    nums.add("strict_moved_models", ", ".join(moved) if moved else "none", OWN)
    nums.add("n_strict_moved", len(moved), OWN)


#: The parity rules that read a yes/no behaviour answer as "no": one missing, answered "na",
#: marked invalid, or unrecognised (null or not yes/no/na), for any of the four tasks.
READ_AS_NO = r"binary_(?:om|hp)(?:_pw)?_prediction_(?:missing|na|invalid|unrecognised)"


def add_rules_fired(nums: Numbers, rules: pd.DataFrame, models: pd.DataFrame, mode: str) -> pd.DataFrame:
    """The parity rules that fired, summed over the compared models (``rules``: rule_counts.csv),
    and the kinds of annotation the cohort lacks altogether (their metrics are undefined, not
    parity defaults), and the yes/no answers the parity rules read as "no" (``READ_AS_NO``).
    Returns the display table of the rules fired, most frequent first."""
    rules = rules[
        (rules["rule_set"] == "parity") & (rules["mode"] == mode) & rules["em_model"].isin(models["em_model"])
    ]
    fired = (
        rules.groupby(["rule", "description"], as_index=False)["count"]
        .sum()
        .query("count > 0 and not rule.str.startswith('panas_prediction_')")  # those count strategies, not rules
        .sort_values(["count", "rule"], ascending=[False, True])
    )
    nums.add("n_rules_fired", int(len(fired)), AGG)
    read_as_no = rules["rule"].str.fullmatch(READ_AS_NO)
    nums.add(
        "partial.n_read_as_no",
        int(rules.loc[read_as_no, "count"].sum()),
        AGG,
        note="yes/no answers of the compared models that were missing, 'na' or unparseable, read as 'no'",
    )
    flagged = {r.split(":", 1)[1] for r in rules["rule"] if r.startswith("annotation_absent_from_cohort:")}
    absent = [k.name for k in KINDS if k.name in flagged]
    nums.add("n_absent_kinds", len(absent), "score_model")
    nums.add("absent_kinds", "; ".join(BY_KIND[k].description for k in absent) if absent else "none", "score_model")
    # Per kind, for the sentences that depend on which one is absent (no pairwise comparison:
    # that task is not asked at all, rule collect's invalid_answers.csv asked = 0).
    for k in KINDS:
        nums.add(f"absent.{k.name}", k.name in absent, "score_model")
    return fired.rename(columns={"rule": "Rule", "description": "What it does", "count": "Times (compared models)"})


def add_unanswered(nums: Numbers, asked: pd.DataFrame) -> None:
    """The tasks some compared model answered and another gave no answer to at all (``asked``:
    answers per model and task; 0 or missing: none), e.g. the post-chat ratings that a model's
    output files lack: its scores for them are the scoring rules' treatment of missing answers
    (at the parity rules' defaults), which its composite then holds. ``unanswered.n_models`` (the
    models with such a task), ``unanswered.described`` ('post_chat_ratings: a, b and c', one
    clause per task joined by '; ', 'none' without one)."""
    answered = asked.fillna(0) > 0
    by_task = {
        str(t): [str(m) for m in answered.index if not answered.at[m, t]]
        for t in answered.columns
        if answered[t].any() and not answered[t].all()
    }
    models = {m for names in by_task.values() for m in names}
    nums.add("unanswered.n_models", len(models), AGG)
    nums.add(
        "unanswered.described",
        "; ".join(f"{t}: {joined(names)}" for t, names in sorted(by_task.items())) or "none",
        AGG,
        note="tasks some compared models answered and these gave no answer to at all",
    )


def add_invalid(nums: Numbers, invalid: pd.DataFrame, main: pd.DataFrame, mode: str) -> pd.DataFrame:
    """Invalid answers after the repair attempts (``invalid``: invalid_answers.csv): their total,
    the models with any, the worst model and its rate (percent of asked). Returns the display
    table: invalid answers per model (``main``'s order) and task; the answers asked and the rate
    per answer, whose denominator is each model's own (a model asked more questions a turn, as a
    live model asked all behaviour questions where a baseline answers those with gold, has more
    answers); and the requests and the rate per request, the same unit for every model
    (invalid.invalid_answers)."""
    invalid = invalid[invalid["mode"] == mode]
    per_model = invalid.groupby("em_model", as_index=False)[["asked", "invalid", "requests", "invalid_requests"]].sum()
    per_model["rate"] = per_model["invalid"] / per_model["asked"].where(per_model["asked"] > 0)
    per_model["request_rate"] = per_model["invalid_requests"] / per_model["requests"].where(per_model["requests"] > 0)
    total = int(per_model["invalid"].sum())
    nums.add("n_invalid_answers", total, AGG)
    nums.add("any_invalid_answers", total > 0, AGG)
    nums.add("n_models_with_invalid", int((per_model["invalid"] > 0).sum()), AGG)
    worst = per_model.sort_values(["rate", "em_model"], ascending=[False, True]).iloc[0]
    nums.add("worst_invalid_model", str(worst["em_model"]) if total else "none", AGG)
    nums.add("worst_invalid_rate", float(worst["rate"]) * 100 if total else 0.0, AGG, digits=2)
    by_task = invalid.pivot_table(index="em_model", columns="task", values="invalid", aggfunc="sum").reindex(
        main["em_model"]
    )
    asked = invalid.pivot_table(index="em_model", columns="task", values="asked", aggfunc="sum").reindex(
        index=by_task.index, columns=by_task.columns
    )
    totals = per_model.set_index("em_model").loc[by_task.index]
    add_unanswered(nums, asked)
    return pd.DataFrame(
        {
            "Model": by_task.index,
            # a task the model gave no answer to (not asked of it: its annotation kind absent
            # from the cohort; or absent from the files it was read from) has no count: "–"
            **{
                t: [str(int(k)) if a > 0 else "–" for k, a in zip(by_task[t], asked[t].fillna(0))]
                for t in by_task.columns
            },
            "Answers": [str(int(a)) for a in totals["asked"]],
            "Rate (% of answers)": [fmt(100 * r, 2) for r in totals["rate"]],
            "Requests": [str(int(a)) for a in totals["requests"]],
            "Rate (% of requests)": [fmt(100 * r, 2) for r in totals["request_rate"]],
        }
    )


#: The blocks of the printed leaderboard, in order: the ranked rows, the unranked baselines
#: (references), the human raters (each scored on its own subset of the conversations).
BLOCKS = ("ranked", "baseline", "human")


def block_of(role: str, ranked: bool) -> str:
    """The block of a leaderboard row (:data:`BLOCKS`): a ranked row is in the ranked block
    whatever its role (baselines are ranked on a cohort without evaluated models), an unranked
    human rater in the humans' block, any other unranked row in the baselines' block."""
    if ranked:
        return "ranked"
    return "human" if role == "human" else "baseline"


def _n_range(n: pd.Series) -> str:
    lo, hi = int(n.min()), int(n.max())
    return f"{lo}" if lo == hi else f"{lo}–{hi}"


def block_label(block: str, roles: pd.Series, n: pd.Series) -> str:
    """The printed heading of a block, with its rows' number of conversations (one value, or
    the range when the rows differ), e.g. 'Human raters, not ranked: 30 conversations each'."""
    # the singular only for the one value 1 (a range ends above one)
    each = f"{_n_range(n)} {plural(int(n.max()), 'conversation', 'conversations')} each"
    if block == "ranked":
        kinds = set(roles)
        name = "Models" if kinds == {"model"} else "Baselines" if kinds == {"baseline"} else "Models and baselines"
        return f"{name}, ranked: {each}"
    if block == "human":
        return f"Human raters, not ranked: {each}"
    return f"Baselines (references), not ranked: {each}"


def leaderboard_table(
    board: pd.DataFrame,
    main: pd.DataFrame,
    rank_intervals: pd.DataFrame,
    mode: str,
    principal: Sequence[str] | None = None,
) -> pd.DataFrame:
    """The leaderboard as printed (strings), in blocks (column ``Block``, the block's heading
    with its number of conversations: :func:`block_label`): the ranked rows, then the unranked
    baselines, then the human raters, who answer only a subset of the conversations and are
    never ranked among the models; each block in leaderboard order. Per row: rank, its 95%
    interval over the bootstrap resamples (``rank_intervals``: rank_intervals.csv, composite
    rows), model, composite under parity and strict, pillars and the cohort's ``principal``
    metrics (:func:`table_metrics`; a metric without any value is a column of en dashes, never
    left out), and conversations scored."""
    blocks = [block_of(r, pd.notna(k)) for r, k in zip(main["role"], main["rank"])]
    order = sorted(range(len(main)), key=lambda j: BLOCKS.index(blocks[j]))  # stable: leaderboard order within
    main = main.iloc[order].reset_index(drop=True)
    nan = pd.Series(float("nan"), index=main.index)  # a metric the board has no column of
    blocks = [blocks[j] for j in order]
    labels = {
        b: block_label(b, main["role"][[x == b for x in blocks]], main["n_conversations"][[x == b for x in blocks]])
        for b in set(blocks)
    }
    table = pd.DataFrame(
        {
            "Block": [labels[b] for b in blocks],
            "Rank": [str(int(x)) if pd.notna(x) else "–" for x in main["rank"]],
            "Model": main["em_model"],
            **{
                BY_NAME[c].label: [fmt(v, 1 if c == "composite" else 3) for v in main.get(c, nan)]
                for c in table_metrics(principal)
            },
            "Conversations": main["n_conversations"].astype(int).astype(str),
        }
    )
    strict_all = board[(board["mode"] == mode) & (board["rule_set"] == "strict")].set_index("em_model")
    table.insert(4, "Composite (strict)", [fmt(strict_all.loc[m, "composite"], 1) for m in main["em_model"]])
    iv = rank_intervals[rank_intervals["metric"] == "composite"].set_index("em_model")
    table.insert(
        2,
        "Rank 95%",
        [
            f"{iv.loc[m, 'rank_lo']:.0f}–{iv.loc[m, 'rank_hi']:.0f}"
            if m in iv.index and iv.loc[m, ["rank_lo", "rank_hi"]].notna().all()
            else "–"
            for m in main["em_model"]
        ],
    )
    return table

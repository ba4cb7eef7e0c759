"""The fast scorer against the plain reference scorer (tests/oracle), on many seeded synthetic
cohorts damaged in every documented way: every metric, model, conversation and turn must
agree to 1e-9, under both rule sets."""

from __future__ import annotations

import copy
import math
import random

import pandas as pd
import pytest
from eibench.metrics.score import model_summary, score_model, score_rule_sets
from eibench.release.read import list_json_files, read_conversations, read_em_outputs
from eibench.release.tidy import em_tables, gold_tables
from eibench.release.write import write_json
from eibench.synthetic.cohort import generate_cohort
from eibench.synthetic.simulate import draw_ability, simulate_outputs

from ..oracle.reference_scorer import reference_model_means, reference_pooled, reference_scores
from .perturb import perturb_em, perturb_gold

TOL = 1e-9
SEEDS = range(12)


def _same(a: float, b: float) -> bool:
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= TOL


def _cohort(seed: int, default_config: dict, tmp_path):
    params = copy.deepcopy(default_config["cohorts"]["synthetic"])
    params.update(n_conversations=25, n_participants=5, p_legacy_format=0.3)
    params["turns"] = {"min": 1, "max": 8}
    params["binary"]["questions_per_turn"] = {"min": 0, "max": 8}
    params["pairwise"]["extra_questions"] = {"min": 0, "max": 4}
    files, _ = generate_cohort(params, seed)
    rng = random.Random(seed)
    gold_dir = tmp_path / "conversations"
    gold_dir.mkdir()
    for name, conv in files.items():
        write_json(perturb_gold(conv, rng), gold_dir / name)
    gold_files = list_json_files(gold_dir)
    gold = gold_tables(read_conversations(gold_files))
    sim = default_config["simulation"]
    models = []
    for name, profile in (("sim-a", "model"), ("human_1", "human")):
        model = draw_ability(name, profile, sim, seed)
        outs = simulate_outputs(gold, model, "default", sim, seed, params["romantic_category"])
        keep = sorted(outs)[: (None if profile == "model" else 12)]
        em_dir = tmp_path / name
        em_dir.mkdir()
        for key in keep:
            write_json(perturb_em(outs[key], rng), em_dir / key)
        models.append((name, list_json_files(em_dir)))
    return gold_files, gold, models


@pytest.mark.parametrize("seed", SEEDS)
def test_fast_scorer_matches_the_oracle(seed, default_config, tmp_path):
    gold_files, gold, models = _cohort(seed, default_config, tmp_path)
    for name, em_files in models:
        em = em_tables(read_em_outputs(em_files, name, "default"))
        both = score_rule_sets(gold, em)  # the pipeline's path: both rule sets in one pass
        for rule_set in ("parity", "strict"):
            fast = both[rule_set]
            ref_turns, ref_convs = reference_scores(gold_files, em_files, rule_set)
            _compare_turns(fast.turn, ref_turns, f"{name}/{rule_set}")
            _compare_conversations(fast.conversation, ref_convs, f"{name}/{rule_set}")
            _compare_model(fast, ref_turns, ref_convs, len(gold["conversations"]), f"{name}/{rule_set}")


def _compare_turns(fast: pd.DataFrame, ref: list[dict], where: str) -> None:
    ref_df = pd.DataFrame(ref)
    assert len(fast) == len(ref_df), where
    merged = fast.merge(
        ref_df, on=["conversation_id", "turn_number"], suffixes=("", "_ref"), how="outer", indicator=True
    )
    assert (merged["_merge"] == "both").all(), (
        where,
        merged[merged["_merge"] != "both"][["conversation_id", "turn_number"]],
    )
    metrics = [c for c in ref_df.columns if c not in ("conversation_id", "turn_number")]
    for metric in metrics:
        bad = [
            (r.conversation_id, r.turn_number, getattr(r, metric), getattr(r, f"{metric}_ref"))
            for r in merged.itertuples()
            if not _same(getattr(r, metric), getattr(r, f"{metric}_ref"))
        ]
        assert not bad, (where, metric, bad[:5])


def _compare_conversations(fast: pd.DataFrame, ref: list[dict], where: str) -> None:
    ref_df = pd.DataFrame(ref)
    assert sorted(fast["conversation_id"]) == sorted(ref_df["conversation_id"]), where
    merged = fast.merge(ref_df, on="conversation_id", suffixes=("", "_ref"))
    for metric in [c for c in ref_df.columns if c != "conversation_id"]:
        bad = [
            (r.conversation_id, getattr(r, metric), getattr(r, f"{metric}_ref"))
            for r in merged.itertuples()
            if not _same(getattr(r, metric), getattr(r, f"{metric}_ref"))
        ]
        assert not bad, (where, metric, bad[:5])


def _compare_model(fast, ref_turns, ref_convs, n_cohort: int, where: str) -> None:
    summary = model_summary(fast.turn, fast.conversation, n_cohort).query("subset == 'all'").set_index("metric")["mean"]
    for metric, value in reference_model_means(ref_convs).items():
        if metric in summary.index:
            assert _same(summary[metric], value), (where, metric, summary[metric], value)
    for metric, value in reference_pooled(ref_turns).items():
        assert _same(summary[metric], value), (where, metric, summary[metric], value)


def test_the_sweep_reaches_every_parity_rule(default_config, tmp_path_factory):
    """The damaged cohorts must actually fire the rules they are meant to test."""
    fired: dict[str, int] = {}
    for seed in SEEDS:
        _, gold, models = _cohort(seed, default_config, tmp_path_factory.mktemp(f"s{seed}"))
        for name, em_files in models:
            em = em_tables(read_em_outputs(em_files, name, "default"))
            for row in score_model(gold, em, "parity").rule_counts.itertuples():
                fired[row.rule] = fired.get(row.rule, 0) + row.count
    never = sorted(rule for rule, count in fired.items() if count == 0)
    assert not never, never

"""ESConv selected as the cohort: the whole workflow, from the mirror to its paper section, and
the quick failures when its data or its models cannot be used."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from ..paper.test_language import page_texts
from ..paper.test_reader import check_figures_and_tables, check_numbers, check_sections, render_and_read
from ..workflow.conftest import copy_repo, snakemake
from .conftest import SHARED_DATA, mirror

pytestmark = pytest.mark.workflow

POWER = "power: share of models the humans are declared better than (Holm)"

# Quick settings for a test run (the statistics' defaults hold for `config/esconv.yaml` runs).
QUICK = """
cohorts:
  esconv: {limit: 12}
statistics:
  n_bootstrap: 200
  split_halves: 20
  simulation: {n_null: 8, n_planted: 8, n_bootstrap: 100, jobs: 2}
"""


def test_selecting_esconv_without_its_data_fails_at_once(tmp_path):
    work = copy_repo(tmp_path / "repo")
    # No mirror, and download URLs that cannot be reached (a closed port on the loopback
    # interface, so the test does not depend on the network of the machine it runs on).
    spec = json.loads(
        json.dumps(
            {
                "datasets": {
                    "esconv": {
                        "mirror": None,
                        "files": {
                            f: {"url": f"https://127.0.0.1:9/{f}"}
                            for f in ("train.json", "valid.json", "test.json", "strategy.json")
                        },
                    }
                }
            }
        )
    )
    (work / "config" / "offline.yaml").write_text(json.dumps(spec))
    run = snakemake(work, "--cores", "1", "--configfile", "config/esconv.yaml", "config/offline.yaml")
    assert run.returncode != 0
    out = run.stdout + run.stderr
    assert "cohort is 'esconv'" in out and "cannot be reached" in out
    assert "datasets.esconv.mirror" in out and "config/mirrors.yaml" in out
    assert not (work / "results").exists()


def test_simulated_models_are_refused_on_esconv(tmp_path):
    mirror("esconv")
    work = copy_repo(tmp_path / "repo")
    (work / "config" / "here.yaml").write_text(
        f"cohort: esconv\ndatasets:\n  esconv: {{mirror: {SHARED_DATA / 'esconv'}}}\n"
    )
    run = snakemake(work, "-n", "--cores", "1", "--configfile", "config/small.yaml", "config/here.yaml")
    assert run.returncode != 0
    out = run.stdout + run.stderr
    assert "simulated models (models[0-2], kind: simulated): sim-01, sim-02, sim-03" in out
    assert "simulated human raters (models[3], kind: simulated, profile: human): human_1" in out
    assert "--configfile config/mirrors.yaml config/esconv.yaml" in out
    assert not (work / "results").exists()


def test_the_esconv_cohort_builds_its_paper_section(tmp_path):
    mirror("esconv")
    work = copy_repo(tmp_path / "repo")
    (work / "config" / "quick.yaml").write_text(QUICK + f"datasets:\n  esconv: {{mirror: {SHARED_DATA / 'esconv'}}}\n")
    run = snakemake(work, "--cores", "2", "--configfile", "config/esconv.yaml", "config/quick.yaml", timeout=1800)
    assert run.returncode == 0, run.stderr[-4000:]

    counts = json.loads((work / "results/cohort/esconv/counts.json").read_text())
    assert counts["conversations"] == 36 and counts["conversations_per_split"] == {"train": 12, "valid": 12, "test": 12}

    # Nothing invented: the kinds ESConv lacks are undefined. Two parts are left: the behaviour
    # half of the evaluation pillar and the post-chat ratings (the holistic pillar), per conversation.
    conv = pd.read_parquet(work / "results/scores/conversation_scores.parquet").query("rule_set == 'parity'")
    for metric in ("emotion_f1", "tracking", "binary_hp_acc", "pairwise_acc", "four_branch", "panas_part"):
        assert conv[metric].isna().all(), metric
    rated = conv["post_chat_ratings"].notna()
    assert rated.any() and (~rated).any()  # ESConv's first conversations include some without ratings
    assert (conv.loc[rated, "holistic"] - conv.loc[rated, "post_chat_ratings"]).abs().max() < 1e-12
    assert conv.loc[~rated, "holistic"].isna().all()
    expected = (100 * (0.49 * conv["binary_om_acc"] + 0.27 * conv["post_chat_ratings"]) / 0.76).where(
        rated, 100 * conv["binary_om_acc"]
    )
    assert (conv["composite"] - expected.round(2)).abs().max() < 1e-9
    preds = pd.read_parquet(work / "results/tables/predictions/prior/default/em_post_chat_ratings.parquet")
    assert len(preds) == 2 * 36  # every conversation is asked: whether one person rated is not shown

    board = pd.read_csv(work / "results/scores/leaderboard.csv").query("rule_set == 'parity'")
    assert sorted(board["em_model"]) == ["chance", "lexicon", "prior"]
    assert board["rank"].notna().all()  # statistics.baselines_as_models ranks the baselines

    claims = pd.read_csv(work / "results/stats/claims.csv")
    assert list(claims["id"]) == ["E1", "E2", "E3", "E4"]
    assert set(claims["verdict"]) <= {"supported", "not supported", "inconclusive", "not testable"}
    assert claims.query("verdict == 'not testable'")["detail"].str.startswith("not testable: ").all()

    numbers = json.loads((work / "results/paper/numbers.json").read_text())
    assert numbers["meta"]["cohort"] == "esconv" and not numbers["meta"]["simulation"]
    entries = numbers["entries"]
    assert entries["esconv.n_conversations"]["value"] == 36
    assert entries["n_absent_kinds"]["value"] == 6
    assert entries["esconv.n_with_post_chat_ratings"]["value"] == conv.loc[rated, "conversation_id"].nunique() == 31
    assert not math.isnan(entries["top_composite"]["value"])

    reader = render_and_read(work / "paper/build/paper.pdf", tmp_path)
    source = (work / "paper/main.typ").read_text(encoding="utf-8")
    check_sections(reader, source, work)
    check_figures_and_tables(reader, source, work)
    check_numbers(reader, work, source)
    for heading in ("Claims on ESConv", "Rank independence with few models", "What ESConv cannot test"):
        assert reader.shows(heading), heading
    assert not reader.shows("Diagnosis subgroups") and not reader.shows("Simulation study")
    # Its own framing: real data in every page header, no simulation disclaimer, nothing simulated.
    heads = [h for h, _ in page_texts(work / "paper/build/paper.pdf")]
    assert "Real data" in heads[0] and "ESConv" in heads[0]
    assert not any("not findings" in h or "Simulation study" in h for h in heads)
    assert not reader.shows("simulated models") and not reader.shows("simulated participants")
    # The cohort named and cited from cohorts.esconv.about, its models counted by kind.
    assert entries["cohort.name"]["value"] == "ESConv" and entries["models.described"]["value"] == "3 offline baselines"
    assert not numbers["meta"]["simulated_cohort"] and numbers["meta"]["simulated_models"] == []
    # Table 1 counts, per metric, the conversations with a value, and the prose names the
    # composite's metrics ESConv cannot score (a note of the 6 December stop).
    dictionary = pd.read_csv(work / "results/scores/data_dictionary.csv").set_index("name")
    with_values = dictionary["n_conversations_with_values"]
    assert with_values["emotion_f1"] == with_values["pairwise_acc"] == 0 and with_values["binary_om_acc"] == 36
    assert with_values["post_chat_ratings"] == 31
    # The composite's holistic parts are listed with its other parts (registry in_composite), so
    # those ESConv lacks are named too; its post-chat ratings are listed, with their count.
    assert dictionary.loc[["panas_part", "conversation_wide", "four_branch", "post_chat_ratings"], "in_composite"].all()
    assert reader.shows(
        "Binary HP accuracy, Pairwise accuracy, PANAS composite part, Conversation-wide questions and Four-branch "
        "normalised have no value in any conversation of this cohort"
    )
    # The mean-drop reference predictor that docs/esconv.md (section 5) asks the paper to report.
    assert entries["esconv.reference.n_pairs"]["value"] == counts["with_post_panas"]
    assert entries["esconv.reference.n_down"]["value"] == counts["with_post_panas"]  # ESConv: always down
    assert -1 <= entries["esconv.reference.score"]["value"] <= 1
    compared = board.set_index("em_model")["panas_items_adjusted"]
    assert entries["esconv.reference.best_model"]["value"] == compared.idxmax()
    assert entries["esconv.reference.best_score"]["value"] == compared.max()
    assert reader.shows("A reference predictor that lowers the pre-chat intensity by the mean drop")
    assert reader.shows("is always wrong")
    for printed in (
        "The AttuneBench method on ESConv",
        entries["cohort.citation"]["display"],
        "The predictions come from 3 offline baselines only",
        "On this cohort the composite covers",
    ):
        assert reader.shows(printed), printed
    # What ESConv cannot support is not printed as if it could (reviewers' audits, 6 December):
    # no recorded diagnosis is not "no diagnosis"; no seeker identities, so each conversation is
    # counted as its own participant; three baselines give no rank verdict; the leader's interval
    # is the primary scheme's.
    assert entries["n_diagnosis_recorded"]["value"] == 0
    for printed in (
        "no traits: no diagnosis is recorded",
        "each counted as its own participant",
        "so each conversation counts as its own participant",
        "no pair gets a verdict",
        "resampling participants, then conversations",
    ):
        assert reader.shows(printed), printed
    assert not reader.shows("of whom report a diagnosis") and not reader.shows("then the references")
    assert not reader.shows("Here every participant has one conversation") and not reader.shows("by 36 participants")
    # The validation by simulation simulates this composite, not the published formula's
    # (-3.784 for E1's planted effect before), and prints no number for an effect it cannot
    # simulate here (a reviewer's audit, 6 December).
    design = json.loads((work / "results/stats/design.json").read_text())
    assert len(design["composite_parts_missing"]["post_chat_ratings"]) == 36 - 31
    table = pd.read_csv(
        work / "results/paper/tables/simulation_planted.csv", dtype=str, keep_default_na=False
    ).set_index("Planted effect")
    recovery = pd.read_csv(work / "results/stats/simulation/planted_recovery.csv").set_index("effect")
    ran = recovery[recovery["n_simulations"] > 0].index
    assert set(recovery.index.difference(ran)) >= {
        "diagnosis effect on emotion F1 (mixed model)",
        "human minus model, binary HP accuracy (paired bootstrap, per model)",
    }
    for effect in recovery.index.difference(ran):  # simulated in no study: no planted value, no rate
        assert (table.loc[effect] == "–").all(), effect
    romantic = "romantic effect on the composite (mixed model)"
    assert table.loc[romantic, "Planted value"] == ("-4.000" if romantic in ran else "–")
    assert not reader.shows("-3.784")
    n_ran = entries["sim.n_planted_effects"]["value"]
    assert n_ran == len(ran) - (POWER in ran) and entries["sim.n_planted_effects_all"]["value"] == 4
    verb = "is" if n_ran == 1 else "are"
    assert reader.shows(f"{n_ran} of the 4 planted effects {verb} estimated in the simulated studies")
    ranks = pd.read_csv(work / "results/stats/ranks/rank_correlations.csv")
    assert (ranks["verdict"] == "not testable").all()
    groups = pd.read_csv(work / "results/stats/uncertainty/breakdowns.csv").query("by == 'group'")
    assert set(groups["level"]) == {"diagnosis not recorded"}

"""The paper of the real local model's ESConv sample (config/local-llm.yaml: the first ten
training conversations cut to their first two turns, the baselines and SmolLM2 replayed from its
committed record): every sentence the audit of 7 December 2026 found false for this sample now
says what the sample is, checked in the built PDF."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ..paper.test_reader import check_numbers, render_and_read
from ..workflow.conftest import copy_repo, snakemake
from .conftest import SHARED_DATA, mirror

pytestmark = pytest.mark.workflow


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The built sample: (repository copy, reader of its PDF)."""
    mirror("esconv")
    tmp = tmp_path_factory.mktemp("esconv_sample")
    work = copy_repo(tmp / "repo")
    (work / "config" / "here.yaml").write_text(f"datasets:\n  esconv: {{mirror: {SHARED_DATA / 'esconv'}}}\n")
    configs = ("config/esconv.yaml", "config/local-llm.yaml", "config/here.yaml")
    run = snakemake(work, "--cores", "2", "--configfile", *configs, timeout=1800)
    assert run.returncode == 0, run.stderr[-4000:]
    return work, render_and_read(work / "paper/build/paper.pdf", tmp)


def test_the_sample_is_named_as_a_sample_of_whole_splits(sample):
    work, reader = sample
    counts = json.loads((work / "results/cohort/esconv/counts.json").read_text())
    n_train = counts["source_per_split"]["train"]
    assert counts["conversations_per_split"]["train"] == 10 < n_train
    assert reader.shows(f"a sample of ESConv: the first 10 of its {n_train} training dialogs")
    assert reader.shows("10 conversations with 2 turns each") and not reader.shows("2 to 2 turns")


def test_the_ratings_the_cut_dropped_are_not_described_as_used(sample):
    work, reader = sample
    counts = json.loads((work / "results/cohort/esconv/counts.json").read_text())
    assert counts["with_post_chat_ratings"] == 0 < counts["post_chat_ratings_cut"]
    assert reader.shows("so no conversation here has a holistic target")
    assert reader.shows(f"After the whole chat, {counts['post_chat_ratings_cut']} seekers of these conversations rated")
    for false in ("become the holistic target", "0 seekers rated", "now also holds the post-chat ratings"):
        assert not reader.shows(false), false


def test_a_language_model_among_the_baselines_makes_the_ranked_rows_models(sample):
    _, reader = sample
    assert reader.shows("Rank of each ranked model") and not reader.shows("Rank of each ranked baseline")
    assert reader.shows("slope of each metric per model") and not reader.shows("per baseline (blue)")


def test_analyses_with_nothing_to_vary_say_so(sample):
    _, reader = sample
    assert reader.shows("The composite has one pillar on this cohort")
    assert not reader.shows("Dirichlet of concentration")
    assert reader.shows("cannot be read from one size")
    # each conversation is its own participant: the few-clusters caveat is about every scheme
    assert reader.shows("each its own participant, every scheme resamples few clusters")
    assert reader.shows("every topic has fewer than")


def test_a_drift_claim_without_middle_turns_is_not_testable_and_gets_no_p(sample):
    """Two-turn conversations have no middle turns, so Page's trend test over early, middle and
    late turns has no block: claim E2 was 'inconclusive', its Page p printed '–', and the
    operating table gave it a power of 0.00 over simulated studies where the test cannot run."""
    work, reader = sample
    claims = pd.read_csv(work / "results/stats/claims.csv").set_index("id")
    assert claims.loc["E2", "verdict"] == "not testable"
    assert claims.loc["E2", "detail"].startswith("not testable: no middle turns, as the conversations have at most 2")
    assert reader.shows("Claim E2 is not testable: no middle turns, as the conversations have at most 2 turns")
    assert reader.shows("As a description only, without a test: late minus early binary OM accuracy")
    assert not reader.shows("as blocks, two-sided p")
    assert not reader.shows("The decline of behaviour accuracy from early to late turns is")
    operating = pd.read_csv(work / "results/paper/tables/operating.csv", dtype=str).set_index("Claim")
    assert operating.loc["E2", "Power [95% CI]"] == "–"
    assert operating.loc["E2", "Note"].startswith("not simulated: not testable in this design: no middle turns")
    assert reader.shows("No claim is simulated on this design, so no verdict rule is applied to simulated studies")


def test_a_topic_model_stopped_by_a_singular_matrix_is_counted_as_a_failed_fit(sample):
    """With every conversation 2 turns long the topic models' length term is collinear with the
    intercept and the fit stops on a singular matrix: 4 such fits were counted among the models
    'with a design without the term' ('0 were fitted and did not converge ... and 10 had a
    design without the term')."""
    work, reader = sample
    topics = pd.read_csv(work / "results/stats/topics/romantic_contrast.csv")
    assert topics["mixed_model_note"].str.startswith("singular fit (the fixed effects' design matrix has rank").all()
    assert reader.shows(
        "Of the 10 mixed models the diagnosis and topic analyses specify, none gave an estimate: 4 were fitted and "
        "did not converge or "
        "gave a singular or boundary fit (4 singular fits), 4 are of metrics this cohort has no value of (not "
        "fitted), and 2 had a design without the term"
    )


def test_the_rank_claim_names_its_one_metric_with_values(sample):
    """E3 read "1 of its metrics (binary_om_acc, panas_items_adjusted) have values in this cohort"."""
    work, reader = sample
    detail = pd.read_csv(work / "results/stats/claims.csv").set_index("id").loc["E3", "detail"]
    printed = "1 of its 2 metrics has values in this cohort (binary_om_acc; panas_items_adjusted has none)"
    assert detail.startswith(f"not testable: {printed}; a rank comparison needs two")
    assert reader.shows(f"Claim E3 is not testable: {printed}") and not reader.shows("1 of its metrics")


def test_every_number_printed_is_the_numbers_files(sample):
    work, reader = sample
    check_numbers(reader, work, (work / "paper/main.typ").read_text(encoding="utf-8"))


def test_one_conversation_per_participant_gives_no_scheme_reason_of_several(sample):
    """ESConv build: "The primary scheme ... is resampling participants, then conversations,
    because the participants, not the conversations, are the sampled units of the design (the
    conversations of one participant share that participant's difficulty)", the configuration's
    reason, printed where every seeker has one conversation."""
    _, reader = sample
    assert reader.shows("as configured: with one conversation per participant it draws the same units as the others")
    assert not reader.shows("are the sampled units of the design")

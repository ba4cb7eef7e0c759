"""The paper of a release-format folder scored with a model read from its existing outputs, the
path of a researcher with the official release and published output files: ESConv's first
conversations written as release files, and a model whose output files lack the post-chat
ratings. Every sentence the audit of 7 December 2026 (1,300 chats, four such models) found
false for that build is checked here in the built PDF."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from ..paper.test_reader import check_numbers, render_and_read
from ..workflow.conftest import copy_repo, snakemake
from .conftest import SHARED_DATA, mirror

pytestmark = pytest.mark.workflow
RELEASE = ("--configfile", "config/attunebench.yaml", "config/release.yaml", "--config", "cohort=attunebench")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(repository copy, reader of its PDF) for 12 of ESConv's training chats as a release folder,
    the three baselines and "mine", the lexicon baseline's outputs without post-chat ratings."""
    mirror("esconv")
    tmp = tmp_path_factory.mktemp("release_outputs")
    work = copy_repo(tmp / "repo")
    here = {
        "datasets": {"esconv": {"mirror": str(SHARED_DATA / "esconv")}},
        "cohorts": {"esconv": {"limit": 12, "splits": ["train"]}},
    }
    (work / "config" / "here.yaml").write_text(yaml.safe_dump(here))
    target = "results/cohort/esconv/conversations"
    run = snakemake(work, "--cores", "2", target, "--configfile", "config/esconv.yaml", "config/here.yaml")
    assert run.returncode == 0, run.stderr[-4000:]
    chats = shutil.copytree(work / target, tmp / "chats")
    shutil.rmtree(work / "results")
    release = {"cohorts": {"attunebench": {"path": str(chats), "about": {"name": "twelve chats"}}}}
    (work / "config" / "release.yaml").write_text(yaml.safe_dump(release))
    lexicon = "results/predictions/lexicon/default/shard-0"
    run = snakemake(work, "--cores", "2", lexicon, *RELEASE)
    assert run.returncode == 0, run.stderr[-4000:]
    mine = tmp / "mine" / "default"
    mine.mkdir(parents=True)
    for src in sorted((work / lexicon).glob("*.json")):
        data = json.loads(src.read_text())
        data["em_model"] = "mine"
        del data["post_conversation"]["predicted_post_chat_ratings"]
        (mine / src.name).write_text(json.dumps(data))
    baselines = [{"name": b, "kind": "baseline", "method": b} for b in ("chance", "prior", "lexicon")]
    release["models"] = [*baselines, {"name": "mine", "kind": "outputs_dir", "path": str(tmp / "mine")}]
    (work / "config" / "release.yaml").write_text(yaml.safe_dump(release))
    run = snakemake(work, "--cores", "2", *RELEASE, timeout=1800)
    assert run.returncode == 0, run.stderr[-4000:]
    return work, render_and_read(work / "paper/build/paper.pdf", tmp)


def test_outputs_read_from_files_are_not_said_to_be_replayed(built):
    """The abstract said the build replayed the conversations through models it only read."""
    _, reader = built
    assert reader.shows("We score the predictions of 1 model read from its existing outputs and 3 offline baselines")
    assert reader.shows("reads the others' outputs from their files")
    assert not reader.shows("We replay")
    assert reader.shows("the outputs read from files were made outside this build")


def test_a_task_missing_from_a_models_files_is_named_with_its_consequence(built):
    """The files' missing post-chat ratings were scored at the parity default and held in the
    composite, said only in an appendix table; the invalid-answers table printed a dash that
    meant 'not asked'."""
    _, reader = built
    assert reader.shows("The answers of 1 model lack a whole task that the others answered (post_chat_ratings: mine)")
    assert reader.shows("their composites hold those scores")
    assert reader.shows("or none in the files it was read from")


def test_no_repair_is_claimed_where_no_model_was_asked_live(built):
    _, reader = built
    assert reader.shows("No model of this build was asked live, so no answer was repaired")
    assert not reader.shows("max_repairs")
    assert reader.shows("this build asked no model live: each row's requests are counted on its outputs")
    assert reader.shows("the model read from files is scored on its answers as its files hold them")


def test_the_hp_definition_says_why_a_cohort_without_preferences_has_none(built):
    """ESConv has no preferredBehavior: binary HP accuracy has no value, and Table 1 says why."""
    _, reader = built
    assert reader.shows("undefined in a cohort where no judgement has a preferred answer")


def test_one_conversation_per_participant_is_said_and_the_files_provider_read(built):
    """Each file names its own participant, and every file names ESConv as its provider: the
    data section, the limitations and the licences said neither."""
    _, reader = built
    assert reader.shows("(one conversation each, so no analysis here can tell a participant's effect from a")
    assert reader.shows("Every file of this cohort names ESConv as its provider")
    assert reader.shows("though every file names ESConv as its provider")


def test_figures_without_data_are_left_out_and_the_baselines_described(built):
    """No pair of principal metrics has values: the rank figure ("no data") was still printed
    with a sentence saying it gave tau for every pair. The baseline prior, which answers with
    the other conversations' gold, was never described."""
    _, reader = built
    assert not reader.shows("and its interval for every pair of principal metrics")
    assert not reader.shows("between the model rankings of each pair of principal metrics, with")
    assert reader.shows("prior gives the most common gold answers of the other conversations of the cohort")
    # lexicon's behaviour answers, the only ones scored on ESConv's chats, come from the reply's surface cues
    assert reader.shows("answers the behaviour questions from surface cues of the reply")


def test_every_number_printed_is_the_numbers_files(built):
    work, reader = built
    check_numbers(reader, work, (work / "paper/main.typ").read_text(encoding="utf-8"))


def test_methods_the_folder_cannot_run_are_not_described_as_run(built):
    """The audit of 30 chats: the methods described the diagnosis permutation test and mixed
    model, though no participant's diagnosis is recorded; the run-to-run noise section named
    only simulated, live and baseline models, not the model read from files."""
    _, reader = built
    assert reader.shows("No participant's diagnosis is recorded in this cohort's files, so the diagnosis analyses")
    assert not reader.shows("The diagnosis effect uses a permutation test")
    assert reader.shows("were produced outside this build: how much they would change if the model")


def test_behaviour_accuracy_is_read_against_the_gold_base_rate(built):
    """The audit of 30 chats: the leader was the prior baseline answering no throughout, and
    the paper never gave the gold's share of no that makes it so."""
    work, reader = built
    entries = json.loads((work / "results/paper/numbers.json").read_text())["entries"]
    n, pct_no = entries["gold.n_om_judgements"]["display"], entries["gold.pct_om_no"]["display"]
    assert reader.shows("gold yes/no judgements of the replies' behaviour (observed, else the file's llmValue)")
    assert reader.shows(f"so answering no throughout is right on {pct_no} % of them, pooled over the judgements")
    assert n != "0"


def test_a_leading_prior_baseline_is_said_to_read_no_conversation(built):
    """ESConv build (1,300 chats, three baselines): "The best baseline, prior, reaches a
    composite of 86.76 ... the leader is separated from the runner-up", though prior answers no to
    all 87,852 behaviour questions and reads no conversation: its lead is the gold's base rate.
    The abstract now says what the leader is wherever the prior baseline leads."""
    work, reader = built
    entries = json.loads((work / "results/paper/numbers.json").read_text())["entries"]
    assert entries["top_model"]["value"] == "prior" and entries["models.prior_baselines"]["value"] == "prior"
    assert reader.shows(
        "The leader, prior, reads no conversation: it gives each question the most common gold answer of the other "
        "conversations"
    )
    if entries["gold.om_no_every_question"]["value"]:
        pct_no = entries["gold.pct_om_no"]["display"]
        assert reader.shows(f"and no is the more common gold answer to every behaviour question here ({pct_no} %")

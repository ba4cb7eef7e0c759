"""The hand-made foreign cohorts (tests/data/cohorts/) through the whole workflow with the offline
baselines: a claim the cohort cannot test is 'not testable' with its reason and no number, no
statistic comes from an empty input, every JSON output is strict JSON, the validation by
simulation copies the cohort's design, and the PDF says all this to its reader."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd
import pytest
import yaml
from eibench.metrics.registry import METRICS

from ..conftest import REPO
from ..paper.test_reader import check_figures_and_tables, check_numbers, check_sections, render_and_read
from .conftest import copy_repo, snakemake

pytestmark = pytest.mark.workflow

# The run's config, inline (not config/attunebench.yaml): the cohort, the offline baselines as the
# compared models, small statistics.
CONFIG = """
cohort: attunebench
models:
  - {name: chance, kind: baseline, method: chance}
  - {name: prior, kind: baseline, method: prior}
  - {name: lexicon, kind: baseline, method: lexicon}
statistics:
  baselines_as_models: true
  n_bootstrap: 200
  split_halves: 20
  simulation: {n_null: 8, n_planted: 8, n_bootstrap: 100, jobs: 2}
"""

#: cohort -> (claims it cannot test, claims it can test)
EXPECTED = {
    "mood_only": ({"C1", "C2", "C3", "C3b", "C4", "C5", "C6", "C7", "C7b"}, {"C4b"}),
    "no_humans": ({"C1", "C2", "C6", "C7", "C7b"}, {"C3", "C3b", "C4", "C4b", "C5"}),
}
# Size columns: a count of the input itself (0 is true of an empty input), not a result.
SIZES = {
    "n_diagnosed",
    "n_not_diagnosed",
    "n_blocks",
    "n_turns",
    "n_conversations",
    "n_romantic",
    "n_models",
    "n_participants",
    "pairs",
    "n",
    "n_simulations",
}


def strict_json(path):
    def refuse(name):
        raise ValueError(f"{path}: bare {name} is not JSON")

    return json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)


@pytest.fixture(scope="module", params=sorted(EXPECTED))
def run(request, tmp_path_factory):
    name = request.param
    root = tmp_path_factory.mktemp(name)
    work = copy_repo(root / "repo")
    config = yaml.safe_load(CONFIG)
    config["cohorts"] = {"attunebench": {"path": str(REPO / "tests" / "data" / "cohorts" / name)}}
    (work / "config" / "foreign.yaml").write_text(yaml.safe_dump(config))
    result = snakemake(work, "--cores", "2", "--configfile", "config/foreign.yaml", timeout=1800)
    assert result.returncode == 0, result.stderr[-4000:]
    return name, work, root


def test_untestable_claims_are_not_testable_with_reasons_and_no_numbers(run):
    name, work, _ = run
    claims = pd.read_csv(work / "results/stats/claims.csv").set_index("id")
    cannot, can = EXPECTED[name]
    untestable = set(claims.index[claims["verdict"] == "not testable"])
    assert untestable == cannot, claims[["verdict", "detail"]]
    assert not (can & untestable)
    gone = claims.loc[sorted(untestable)]
    assert gone[["estimate", "lo", "hi", "p_value", "p_adjusted"]].isna().all().all()
    assert gone["detail"].str.startswith("not testable: ").all() and (gone["detail"].str.len() > 20).all()
    # 'inconclusive' only for a test that ran: it has an estimate
    ran = claims[claims["verdict"] == "inconclusive"]
    assert ran["estimate"].notna().all(), ran


def test_no_statistic_from_an_empty_input(run):
    """Every row of results/stats about a metric this cohort has no value of holds no p-value,
    estimate or count (sizes of the input are 0 or missing); JSON outputs are strict JSON."""
    name, work, _ = run
    design = strict_json(work / "results/stats/design.json")
    present = set(design["metrics_models"])
    tables = 0
    for path in sorted((work / "results/stats").rglob("*.csv")):
        if not path.read_text().strip():
            continue
        table = pd.read_csv(path)
        if "metric" not in table:
            continue
        tables += 1
        absent = table[~table["metric"].isin(present)]
        for column in absent.select_dtypes("number").columns:
            values = absent[column].dropna()
            if column in SIZES:
                assert (values == 0).all(), (path.name, column, values)
            else:
                assert values.empty, (path.name, column, values.head())
    # Each of these cohorts lacks some annotation kinds, whose metrics either have rows without
    # a statistic (checked above) or no row at all (drift leaves such a metric out).
    assert tables > 0 and {m.name for m in METRICS} - present
    for path in sorted((work / "results").rglob("*.json")):
        strict_json(path)
    profiles = strict_json(work / "results/stats/profiles/summary.json")
    flips = pd.read_csv(work / "results/stats/profiles/flips.csv")
    assert len(flips) == 0 and profiles["n_flips"] is None  # no holistic pillar: nothing to flip
    topics = pd.read_csv(work / "results/stats/topics/topics.csv")
    if name == "mood_only":  # one topic: none is the hardest
        assert topics["p_hardest"].isna().all()
        contrast = pd.read_csv(work / "results/stats/topics/romantic_contrast.csv")
        assert contrast["hardest"].isna().all() and (contrast["n_romantic"] == 0).all()
        assert not contrast["mixed_model_note"].str.contains("outside").any()
        subgroups = pd.read_csv(work / "results/stats/subgroups/diagnosis.csv")
        assert subgroups["n_permutations"].isna().all() and subgroups["p_permutation"].isna().all()


def test_the_simulation_copies_the_cohorts_design_and_leaves_out_what_it_cannot_support(run):
    from eibench.stats.design import cohort_design
    from eibench.stats.load import load_study
    from eibench.stats.simulation import TESTS, generator_design, null_generator, simulate, simulated_design

    name, work, _ = run
    design = strict_json(work / "results/stats/design.json")
    roles = {"chance": "model", "prior": "model", "lexicon": "model"}
    study = load_study(
        work / "results/scores/conversation_scores.parquet",
        work / "results/scores/turn_scores.parquet",
        work / "results/tables/gold/conversations.parquet",
        work / "results/tables/gold/participants.parquet",
        roles,
        {"mode": "default", "rule_set": "parity"},
    )
    assert cohort_design(study) == design
    g = null_generator(generator_design(design, 0.05))
    simulated, _ = simulate(g, np.random.default_rng(0))
    assert simulated_design(simulated) == simulated_design(study)
    null = pd.read_csv(work / "results/stats/simulation/null_rates.csv", keep_default_na=False, na_values=[""])
    left = null[null["left_out"].notna()]
    assert set(null["test"]) == set(TESTS)
    assert (left["n_simulations"] == 0).all() and left["false_positive_rate"].isna().all()
    assert "human vs model: paired cluster bootstrap" in set(left["test"])  # neither has raters
    if name == "mood_only":
        assert set(left["test"]) == set(TESTS)
    else:
        assert "diagnosis: participant permutation test" not in set(left["test"])


def test_the_paper_says_what_the_cohort_cannot_test(run):
    name, work, root = run
    numbers = strict_json(work / "results/paper/numbers.json")["entries"]
    claims = pd.read_csv(work / "results/stats/claims.csv").set_index("id")
    reader = render_and_read(work / "paper/build/paper.pdf", root)
    source = (work / "paper/main.typ").read_text(encoding="utf-8")
    check_sections(reader, source, work)
    check_figures_and_tables(reader, source, work)
    check_numbers(reader, work, source)
    cannot, _ = EXPECTED[name]
    assert reader.shows("What this cohort cannot test")
    for claim in sorted(cannot):
        assert numbers[f"claim.{claim}.estimate"]["value"] is None
        reason = claims.loc[claim, "detail"].removeprefix("not testable: ").split(";")[0]
        assert reader.shows(reason), (claim, reason)
        assert reader.shows(f"Claim {claim} is not testable") or claim in ("C3b", "C7b"), claim
    assert reader.shows("the cohort has no human raters")
    # no p-value or count printed from nothing
    assert not reader.shows("Page's trend test p 1.000")
    assert not re.search(r"(?<![0-9])0 relabellings", reader.words)  # '70 relabellings' is a test that ran
    assert numbers["claims.headline.inconclusive"]["value"] == int(
        ((claims["verdict"] == "inconclusive") & (claims["family"] == "headline")).sum()
    )
    # The compared models are the baselines alone: no sentence reads as a finding about models.
    assert reader.shows("its verdict describes these baselines and bears on no language model")
    for phrase in ("the only models of this cohort", "models track the emotions", "models' emotion F1"):
        assert not reader.shows(phrase), phrase
    # The claims' verdicts come from resampling conversations, not the primary scheme: a claim's
    # sentence names the scheme, and the primary scheme's verdict where it differs.
    primary = numbers["unc.primary"]["display"]
    assert numbers["unc.claims_use_primary"]["value"] is False
    for cid in claims.index:
        if claims.loc[cid, "verdict"] == "not testable" or cid in ("C3b", "C7b"):  # no sentence of their own
            continue
        if numbers[f"unc.claims.{cid}.primary_differs"]["value"]:
            verdict = numbers[f"unc.claims.{cid}.primary_verdict"]["display"]
            assert reader.shows(f"under the primary scheme, resampling {primary}, the claim is {verdict}"), cid
        if numbers[f"unc.claims.{cid}.by_scheme"]["value"] and cid in ("C4", "C4b"):
            ci = numbers[f"claim.{cid}.estimate"]["ci_display"]
            assert reader.shows(f"{ci}, resampling conversations"), cid
    # The Discussion lists the claims whose verdicts do not hold as computed: those not testable,
    # and those whose verdict the primary resampling scheme changes.
    schemes = pd.read_csv(work / "results/stats/uncertainty/claim_schemes.csv", keep_default_na=False, na_values=[""])
    own = schemes[schemes["scheme"] == "conversation"].set_index("id")["verdict"]
    main = schemes[schemes["scheme"] == "two_stage"].set_index("id")["verdict"]
    differ = [c for c in own.index if own[c] != "not testable" and main[c] != own[c]]
    untestable = [c for c in claims.index if claims.loc[c, "verdict"] == "not testable"]
    assert numbers["unc.claims.primary_differs"]["value"] == (", ".join(differ) or "none")
    assert reader.shows(
        f"Of the {len(claims)} claims, {len(untestable)} cannot be tested on this build ({', '.join(untestable)})"
    )
    if differ:
        assert reader.shows(f"({', '.join(differ)}; Table")
    kept = [c for c in claims.index if c not in untestable and c not in differ]
    held = len(kept)
    # one held on mood_only: "the remaining claim"; each kept claim named with its verdict
    whose = "verdict of the remaining claim" if held == 1 else f"verdicts of the other {held}"
    named = [f"{c} ({own[c]})" for c in kept]
    listed = named[0] if held == 1 else ", ".join(named[:-1]) + " and " + named[-1]
    hold = "holds" if held == 1 else "hold"
    assert numbers["unc.claims.primary_same"]["value"] == listed
    assert reader.shows(
        f"the {whose}, {listed}, the same under the claims' scheme and the primary one, {hold} for these conversations"
    )
    assert not reader.shows("the other claims' verdicts hold")
    if name == "mood_only":
        assert not reader.shows("the hardest topic by point estimate is")
        assert reader.shows("No test of the paper can be validated on this cohort's design")
        assert not math.isfinite(numbers["sim.min_coverage"]["value"] or float("nan"))

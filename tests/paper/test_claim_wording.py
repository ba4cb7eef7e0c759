"""How the claims' sentences speak of what was compared and of the resampling scheme (small run,
with its numbers edited to a build the small config does not make):

* a build whose compared models are the offline baselines alone says "the compared baselines",
  never "the models", and the claims table's caption says that its verdicts bear on no language
  model;
* when the claims' verdicts do not come from the primary resampling scheme, each claim's sentence
  names the scheme its interval and verdict come from, and says the primary scheme's verdict where
  it differs."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import typst

from .section import section_text
from .test_reader import Reader

pytestmark = pytest.mark.workflow


def _compiled(small_run: Path, edit: Callable[[dict], None], tmp_path: Path) -> Reader:
    """The small run's paper compiled with ``edit`` applied to its numbers (restored after)."""
    path = small_run / "results" / "paper" / "numbers.json"
    original, stat = path.read_bytes(), path.stat()
    data = json.loads(original)
    edit(data["entries"])
    try:
        path.write_text(json.dumps(data), encoding="utf-8")
        pdf = typst.compile(str(small_run / "paper" / "main.typ"), root=str(small_run))
    finally:  # the bytes and the times back, so that the run stays up to date
        path.write_bytes(original)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    out = tmp_path / "paper.pdf"
    out.write_bytes(pdf)
    return Reader(out, tmp_path)


def _set(entries: dict, key: str, value, display: str | None = None, **extra) -> None:
    template = entries["n_models"]
    entries[key] = dict(template, value=value, display=str(value) if display is None else display, **extra)


def _testable(entries: dict) -> None:
    """Claims C3, C4 and C4b with a verdict (the small run's design cannot test C3)."""
    for cid, verdict in (("C3", "inconclusive"), ("C4", "inconclusive"), ("C4b", "supported")):
        _set(entries, f"claim.{cid}.verdict", verdict)


def _baselines_only(entries: dict) -> None:
    _testable(entries)
    n = entries["n_models"]["value"]
    _set(entries, "n_ranked_baselines", n)


def test_a_baselines_only_build_says_compared_baselines_not_models(small_run, tmp_path):
    built = Reader(small_run / "paper" / "build" / "paper.pdf", tmp_path)
    reader = _compiled(small_run, _baselines_only, tmp_path)
    for phrase in (
        "The compared baselines' emotion F1",
        "decline of the compared baselines' behaviour accuracy",
        "The evidence that the compared baselines track the emotions",
        "where a claim speaks of models, its verdict describes these baselines and bears on no language model",
        "The compared models are the offline baselines alone,",
        "per-conversation scores of the compared offline baselines,",
    ):
        assert reader.shows(phrase), phrase
        assert not built.shows(phrase), phrase  # the small run compares simulated models
    for phrase in ("models' emotion F1", "models track the emotions", "the only models of this cohort"):
        assert not reader.shows(phrase), phrase


def test_each_claim_names_the_scheme_its_verdict_comes_from(small_run, tmp_path):
    entries = json.loads((small_run / "results" / "paper" / "numbers.json").read_text(encoding="utf-8"))["entries"]
    assert entries["unc.claims_use_primary"]["value"] is False  # config/small.yaml: conversations
    scheme, primary = entries["unc.claims_scheme"]["display"], entries["unc.primary"]["display"]

    def differ(e: dict) -> None:
        _testable(e)
        _set(e, "unc.claims.C4.by_scheme", True)
        _set(e, "unc.claims.C4.primary_differs", False)
        _set(e, "unc.claims.C4b.by_scheme", True)
        _set(e, "unc.claims.C4b.primary_differs", True)
        _set(e, "unc.claims.C4b.primary_verdict", "inconclusive")
        _set(e, "unc.claims.C4b.primary", 0.01, "0.01", ci=[-0.07, 0.08], ci_display="[-0.07, 0.08]")

    reader = _compiled(small_run, differ, tmp_path)
    ci = entries["claim.C4.estimate"]["ci_display"]
    assert reader.shows(f"{ci}, resampling {scheme}) (Page's trend test")
    assert reader.shows(
        f"resampling {scheme}; under the primary scheme, resampling {primary}, the claim is inconclusive, "
        "with the interval [-0.07, 0.08]"
    )
    assert reader.shows(f"Verdicts and intervals from resampling {scheme};")

    def on_primary(e: dict) -> None:
        differ(e)
        _set(e, "unc.claims_use_primary", True)

    quiet = _compiled(small_run, on_primary, tmp_path)
    assert not quiet.shows(f"{ci}, resampling {scheme})") and not quiet.shows("under the primary scheme, resampling")


def test_the_abstract_counts_every_claim_supported_on_the_null_cohort(small_run, tmp_path):
    """On the null cohort more claims can be supported than are false positives (a claim true of
    its estimand with nothing planted is 'recovered'): the abstract gives the supported count and
    how many of them are false positives, not the false positives alone as "claims still
    supported" (small run, numbers edited)."""

    def null(supported: int, false_positive: int, undecided: int = 0) -> Callable[[dict], None]:
        def edit(e: dict) -> None:
            _set(e, "truth.n_null_supported", supported)
            _set(e, "truth.null.n_false_positive", false_positive)
            _set(e, "truth.null.n_supported_undecided", undecided)
            _set(e, "truth.null.n_false_positive_true_of_cohort", 0)

        return edit

    reader = _compiled(small_run, null(5, 2), tmp_path)
    assert reader.shows(
        "with nothing planted, 5 claims are still supported, 2 of them false positives (claims false of their "
        "estimands)."
    )
    assert not reader.shows("with nothing planted, 2 claims are still supported")
    reader = _compiled(small_run, null(1, 1), tmp_path)
    assert reader.shows(
        "with nothing planted, 1 claim is still supported, a false positive (a claim false of its estimand)."
    )
    # the default build: C3's estimand on the null cohort, 0.007 ± 0.006 over 3 draws, is within
    # the Monte-Carlo error of zero, so its truth, and whether it is a false positive, is undecided
    reader = _compiled(small_run, null(4, 1, 1), tmp_path)
    assert reader.shows(
        "with nothing planted, 4 claims are still supported, 1 of them a false positive (a claim false of its "
        "estimand) and 1 of them undecided, its estimand within the Monte-Carlo error of the value at which the "
        "claim turns true or false."
    )

    # the default build's false positive, C3b, is false of the design's estimand (exactly 0) but
    # true of the estimand given the participants the null cohort drew (0.075)
    def drawn(true_of_cohort: int) -> Callable[[dict], None]:
        def edit(e: dict) -> None:
            null(4, 2, 1)(e)
            _set(e, "truth.null.n_false_positive_true_of_cohort", true_of_cohort)

        return edit

    reader = _compiled(small_run, drawn(2), tmp_path)
    assert reader.shows(
        "2 of them false positives (claims false of their estimands, though true of them given the participants "
        "and conversations the cohort drew) and 1 of them undecided"
    )
    reader = _compiled(small_run, drawn(1), tmp_path)
    assert reader.shows(
        "(claims false of their estimands, 1 of them true of its estimand given the participants and "
        "conversations the cohort drew)"
    )
    reader = _compiled(small_run, null(1, 0, 1), tmp_path)
    assert reader.shows("with nothing planted, 1 claim is still supported, undecided, its estimand within")
    reader = _compiled(small_run, null(2, 0, 2), tmp_path)
    assert reader.shows("2 claims are still supported, all of them undecided, their estimands within")
    reader = _compiled(small_run, null(3, 0, 2), tmp_path)
    assert reader.shows(
        "with nothing planted, 3 claims are still supported, 2 of them undecided, their estimands within"
    )


def test_the_diagnosis_panel_does_not_call_an_interval_off_zero_an_effect(small_run, tmp_path):
    """The left panel of figure subgroups draws the mixed model's interval of the diagnosis
    contrast over a few participants; its caption said that "an interval that excludes the
    dashed zero is an effect", while on the null cohort of the truth section, with nothing
    planted, such intervals exclude zero and the diagnosis claims are supported (default build: C3
    and C3b). The caption says what an interval off zero shows, and names the diagnosis claims
    the null cohort supports (whether each is a false positive is the truth section's to say:
    C3's estimand there is within its Monte-Carlo error of zero) (small run, numbers edited so
    that its diagnosis is testable)."""

    def testable(e: dict) -> None:
        _set(e, "diagnosis.testable", True, display="yes")
        _set(e, "truth.C3.null_verdict", "supported")
        _set(e, "truth.C3b.null_verdict", "inconclusive")

    reader = _compiled(small_run, testable, tmp_path)
    assert reader.shows("an interval that excludes the dashed zero shows that the two groups of these few participants")
    assert reader.shows("with nothing planted, the diagnosis claim C3 is supported)")
    assert not reader.shows("excludes the dashed zero is an effect")


def test_the_abstract_qualifies_a_false_positive_rate_of_equal_spreads(small_run, tmp_path):
    """Default build: claim C2's simulated false-positive rate (0.23) lies above the level, but its
    simulated studies draw every capability's abilities with one spread, so that rate is that of
    the claim read as one about models beyond those compared (section operating), while the
    validation by simulation finds the same kind of test calibrated for the compared models
    (Table 10, 0.055). The abstract printed the rate without that reading (small run, numbers
    edited)."""

    def above(equal: str) -> Callable[[dict], None]:
        def edit(e: dict) -> None:
            _set(e, "operating.n_fpr_above", 1)
            _set(e, "operating.fpr_above", "C2")
            _set(e, "operating.fpr_above_detail", "C2 (0.23 [0.15, 0.32])")
            _set(e, "operating.equal_spreads", equal)
            _set(e, "operating.n_equal_spreads", 0 if equal == "none" else 1)

        return edit

    reader = _compiled(small_run, above("C2"), tmp_path)
    assert reader.shows(
        "false-positive rate of claim C2 (0.23 [0.15, 0.32]), read as a claim about models beyond those compared"
    )
    reader = _compiled(small_run, above("none"), tmp_path)
    assert reader.shows("false-positive rate of claim C2 (0.23 [0.15, 0.32]) lies above the nominal level")


def test_the_abstract_qualifies_a_false_positive_rate_of_a_human_baseline_claim(small_run, tmp_path):
    """Seed 7: the abstract said claim C7's simulated false-positive rate (0.11) lies above the
    level, "its rule says 'supported' too often when the claim is false". But a simulated study
    draws the raters' abilities as it draws the models', so with nothing planted the raters beat
    most of a study's models in some studies and the claim about them is true there: the rate is
    that of the claim read about raters and models beyond those compared (small run, numbers
    edited)."""

    edits = {
        "operating.n_fpr_above": 1,
        "operating.fpr_above": "C7",
        "operating.fpr_above_detail": "C7 (0.11 [0.056, 0.189])",
        "operating.humans_drawn": "C7, C7b",
        "operating.n_humans_drawn": 2,
    }

    def above(e: dict) -> None:
        for key, value in edits.items():
            _set(e, key, value)

    reader = _compiled(small_run, above, tmp_path)
    assert reader.shows(
        "false-positive rate of claim C7 (0.11 [0.056, 0.189]), read as a claim about models beyond those "
        "compared (the simulated studies draw the raters' abilities as they draw the models')"
    )
    assert reader.shows("For claims C7 and C7b, a simulated study draws the raters' abilities as it draws the models'")
    assert reader.shows("Their simulated false-positive rates are therefore those of the claims read as ones about")


def test_the_validation_says_its_rank_test_is_not_the_rule_of_c1(small_run, tmp_path):
    """The validation by simulation runs, for rank independence, the exact Kendall test of no
    correlation (simulation.py, p_rank_tau), not claim C1's rule (an equivalence test over model
    and conversation resamples, a partial conjunction over its pairs); its sentence "runs every
    test of the paper ... except C4b and C6, so those claims are not validated" read as if C1's
    rule were validated there (small run, numbers edited so that C1 is testable and the rank
    test runs)."""

    def rank(e: dict) -> None:
        _set(e, "claim.C1.verdict", "inconclusive")
        _set(e, "sim.left_out", "none")
        _set(e, "sim.n_left_out", 0)

    reader = _compiled(small_run, rank, tmp_path)
    assert reader.shows(
        "its rank-independence test is the exact Kendall test of no correlation between two metrics' rankings"
    )
    assert reader.shows("not the equivalence rule by which claim C1 is judged")


def test_the_truth_tables_name_the_human_raters_they_count(small_run, tmp_path):
    """Tables truth-metrics and truth-models have a row (or a count) for every simulated model and
    human rater (default build: "14 of 14" over 11 models and 3 raters, with rows human_1 to
    human_3), but their captions spoke of the simulated models alone (small run: one rater)."""
    built = Reader(small_run / "paper" / "build" / "paper.pdf", tmp_path)
    assert built.shows("Simulated models' and simulated human rater's expected metrics beside their estimates")
    assert built.shows("Each simulated model's (and simulated human rater's) expected emotion F1")


def test_the_abstract_gives_the_range_of_studies_and_the_data_section_names_the_cohort_once(small_run, tmp_path):
    """A planted effect estimated in fewer studies than the others (the default build's diagnosis
    effect: 199 of 200) makes the abstract's count a range, as Section 7 gives it; and the data
    section of the synthetic cohort reads "The synthetic cohort holds", not "The cohort,
    synthetic cohort, holds" (small run, numbers edited)."""

    def uneven(e: dict) -> None:
        _set(e, "sim.coverage_too_few", False, display="no")
        _set(e, "sim.min_planted_studies", 7)
        _set(e, "sim.max_planted_studies", 8)

    reader = _compiled(small_run, uneven, tmp_path)
    assert reader.shows("Over 7 to 8 simulated studies of the design with planted effects")
    assert reader.shows("The synthetic cohort holds") and not reader.shows("The cohort, synthetic cohort, holds")


def test_a_reliability_reached_at_the_smallest_size_is_a_floor(small_run, tmp_path):
    """On 1,300 real chats the ranking of three baselines reached 0.9 at the smallest size tried,
    10 conversations, and the paper said it 'first reaches 0.9 at 10 conversations': a floor of
    the grid, not a measured need, and about those baselines only."""

    def at_smallest(entries: dict) -> None:
        _set(entries, "unc.reliability.reaches_target", True, "yes")
        _set(entries, "unc.reliability.n_sizes", 3)
        smallest = entries["unc.reliability.smallest_n"]["value"]
        _set(entries, "unc.reliability.n_for_target", smallest)

    reader = _compiled(small_run, at_smallest, tmp_path)
    assert reader.shows("already at the smallest size tried, so how few conversations would do is not measured")
    assert not reader.shows("it first reaches")


def test_the_reproducibility_table_names_its_command_a_rebuild_command(small_run, tmp_path):
    """The table printed 'Command ... snakemake --cores 8' 'as recorded by the run' after a run on
    2 cores: it is the command that rebuilds the same bytes."""
    reader = _compiled(small_run, lambda entries: None, tmp_path)
    assert reader.shows("Rebuild command snakemake --cores 8") and reader.shows("the command that rebuilds this paper")


def test_the_simulation_captions_explain_open_dots_and_dashes_only_where_drawn(small_run, tmp_path):
    """A design whose every coverage is a count of intervals draws no open dot and prints no dash
    for a mean over models: the captions said both (the release example on 1,300 real chats)."""

    def counts_only(e: dict) -> None:
        _set(e, "sim.n_coverage_untested", 0)
        _set(e, "sim.coverage_too_few", False, display="no")  # the small run's 8 studies print no p at all

    reader = _compiled(small_run, counts_only, tmp_path)
    assert not reader.shows("open where the coverage is a share over the models")
    assert not reader.shows("where the coverage is a mean over models, not a count")
    assert reader.shows("where a statistic has no value on this design")


def test_a_romantic_contrast_without_a_mixed_model_estimate_prints_no_number(small_run, tmp_path):
    """Release build on ESConv's chats: the mixed model of the composite gave a singular fit, and
    the topics section printed "the adjusted contrast with the other topics is – composite points
    ([–, –])". It says that the mixed model gave no estimate and why, and gives the claim's own
    estimate (the difference the claims table prints) instead (small run, numbers edited so that
    claim C5 is testable: its cohort has no romantic conversation)."""

    def romantic(estimated: bool, verdict: str) -> Callable[[dict], None]:
        def edit(e: dict) -> None:
            _set(e, "claim.C5.verdict", verdict)
            _set(e, "claim.C5.estimate", 0.41, "0.41", ci=[-0.14, 0.97], ci_display="[-0.14, 0.97]")
            _set(e, "unc.claims_use_primary", True)  # no scheme named: the test reads the sentence alone
            if estimated:
                _set(e, "topics.romantic_composite", -4.2, "-4.2", ci=[-5.1, -3.3], ci_display="[-5.1, -3.3]")
            else:
                _set(e, "topics.romantic_composite", None, "–", ci=[None, None], ci_display="[–, –]")
            _set(e, "topics.romantic_estimated", estimated, "yes" if estimated else "no")
            _set(e, "topics.romantic_no_estimate", "none" if estimated else "singular fit")
            _set(e, "topics.hardest", "Family")
            _set(e, "topics.p_romantic_hardest", 0.0, "0.00")
            _set(e, "topics.n_romantic", 239)

        return edit

    reader = _compiled(small_run, romantic(False, "inconclusive"), tmp_path)
    assert reader.shows("is inconclusive on the simulated data: the claim's estimate in Table")
    assert reader.shows(
        "that of the other topics, is 0.41 points (95% interval [-0.14, 0.97]), above the other topics by the "
        "point estimate, the opposite of the claim; the mixed model gave no adjusted contrast with the other "
        "topics (singular fit); the hardest topic"
    )
    assert not reader.shows("composite points ([–, –])") and not reader.shows("is – composite points")
    reader = _compiled(small_run, romantic(False, "supported"), tmp_path)
    assert reader.shows("(the mixed model with a random intercept per participant gave no estimate: singular fit), and")
    assert not reader.shows("or – ([–, –])")
    # The verdict's own estimate comes first; the mixed model's contrast, a Wald interval, is not
    # labelled with the resampling scheme of the verdict (a release build printed it so).
    reader = _compiled(small_run, romantic(True, "inconclusive"), tmp_path)
    assert reader.shows("is 0.41 points (95% interval [-0.14, 0.97]), above the other topics")
    assert reader.shows(
        "adjusted for length in a mixed model with a random intercept per participant, the contrast is -4.2 "
        "composite points ([-5.1, -3.3], a Wald interval); the hardest topic"
    )


def test_the_drift_sentence_counts_only_the_metrics_with_values(small_run, tmp_path):
    """Release build on ESConv's chats: "of each of the 2 turn-level metrics analysed for drift
    (Binary OM accuracy and Emotion F1)", though emotion F1 has no value there (claim C4b names
    it, so it is analysed). The sentence counts and names the metrics with values and says which
    have none (small run, numbers edited)."""

    def drift(with_values: list[str], without: list[str]) -> Callable[[dict], None]:
        def edit(e: dict) -> None:
            _set(e, "drift.n_metrics", len(with_values))
            _set(e, "drift.metrics", " and ".join(with_values) or "none")
            _set(e, "drift.n_no_values", len(without))
            _set(e, "drift.no_values", " and ".join(without) or "none")

        return edit

    reader = _compiled(small_run, drift(["Binary OM accuracy"], ["Emotion F1"]), tmp_path)
    assert reader.shows(
        "of the turn-level metric analysed for drift that has values (Binary OM accuracy); Emotion F1 has no values "
        "in this simulated cohort, and its panel says so."
    )
    assert not reader.shows("turn-level metrics analysed for drift (Binary OM accuracy and Emotion F1)")
    reader = _compiled(small_run, drift(["Binary OM accuracy", "Binary HP accuracy"], ["Emotion F1"]), tmp_path)
    assert reader.shows(
        "of each of the 2 turn-level metrics analysed for drift that have values (Binary OM accuracy and Binary HP"
    )
    reader = _compiled(small_run, drift([], ["Emotion F1"]), tmp_path)
    assert reader.shows(
        "draws no slope: no turn-level metric analysed for drift has values in this simulated cohort (Emotion F1)."
    )


def test_the_change_of_the_claims_intervals_is_worded_by_its_side_of_one(small_run, tmp_path):
    """Release build on ESConv's chats: "the two-stage scheme widens their intervals by a median
    factor of 0.99 over resampling conversations, resampling whole participants by 1.00": a
    factor below 1 narrows, and one printed 1.00 leaves the intervals about as wide (small run,
    numbers edited)."""

    def widths(two_stage: tuple[str, str], participant: tuple[str, str]) -> Callable[[dict], None]:
        def edit(e: dict) -> None:
            _set(e, "unc.claims.n_testable", 2)
            _set(e, "unc.claims.n_resampled", 2)
            for scheme, (ratio, change) in (("two_stage", two_stage), ("participant", participant)):
                _set(e, f"unc.claims.{scheme}.median_width_ratio", float(ratio), ratio)
                _set(e, f"unc.claims.{scheme}.n_width_ratios", 2)
                _set(e, f"unc.claims.{scheme}.width_change", change)
                _set(e, f"unc.claims.{scheme}.n_opposite", 0)  # every claim on the median's side

        return edit

    reader = _compiled(small_run, widths(("0.99", "narrower"), ("1.00", "as wide")), tmp_path)
    assert reader.shows(
        "the two-stage scheme narrows their simulated intervals by a median factor of 0.99 over resampling "
        "conversations; resampling whole participants leaves them about as wide as resampling conversations "
        "(a median factor of 1.00)."
    )
    assert not reader.shows("widens their simulated intervals by a median factor of 0.99")
    reader = _compiled(small_run, widths(("1.4", "wider"), ("1.2", "wider")), tmp_path)
    assert reader.shows(
        "the two-stage scheme widens their simulated intervals by a median factor of 1.4 over resampling "
        "conversations; resampling whole participants widens them by a median factor of 1.2 over resampling"
    )
    assert not reader.shows("though it narrows those of")

    def against(e: dict) -> None:
        """Default build: the participant scheme narrows two of the five intervals."""
        widths(("1.4", "wider"), ("1.1", "wider"))(e)
        _set(e, "unc.claims.participant.n_opposite", 2)
        _set(e, "unc.claims.participant.opposite", "C4b (0.81) and C5 (0.88)")

    reader = _compiled(small_run, against, tmp_path)
    assert reader.shows(
        "resampling whole participants widens them by a median factor of 1.1 over resampling conversations, "
        "though it narrows those of C4b (0.81) and C5 (0.88)."
    )


def test_the_methods_say_when_no_pair_of_metrics_has_values(small_run, tmp_path):
    """Release build on ESConv's chats: "Kendall's tau_b between the model rankings of every pair
    of principal metrics ... (no pair gets a verdict)", where no pair exists (ranks/summary.json
    n_pairs 0: one principal metric has values). The methods say so (small run, numbers edited)."""

    def no_pair(e: dict) -> None:
        _set(e, "ranks.n_pairs", 0)

    reader = _compiled(small_run, no_pair, tmp_path)
    assert reader.shows("this simulated cohort has no pair of principal metrics with values, so no")
    assert reader.shows("is computed; with")
    assert not reader.shows("(no pair gets a verdict)")


def test_a_simulated_family_that_lacks_claims_of_the_pipelines_says_so(small_run, tmp_path):
    """The operating characteristics and the design curves adjust each simulated claim within the
    claims the simulation draws; a claim of its family that the cohort can test but the
    simulation cannot draw is adjusted with it by the pipeline only, so the simulated power of a
    headline claim can be too high (Holm), and an exploratory claim's off either way
    (Benjamini-Hochberg). The curves also said "Holm" for whatever the claim's family. Small run,
    numbers edited so that C3's family lacks a claim E9; the operating section compiled alone
    with a computed model curve of C3 (the small run computes none)."""

    def short(holm: bool) -> Callable[[dict], None]:
        def edit(e: dict) -> None:
            _set(e, "operating.n_short_family", 1)
            _set(e, "operating.short_family", "C3")
            _set(e, "operating.short_family_detail", "C3 together with E9")
            _set(e, "operating.short_family_holm", holm)
            _set(e, "operating.C3.family_left_out", "E9")

        return edit

    built = Reader(small_run / "paper" / "build" / "paper.pdf", tmp_path)
    reader = _compiled(small_run, short(True), tmp_path)
    sentence = "The pipeline adjusts claim C3 together with E9, which this cohort can test but the simulation cannot"
    assert reader.shows(sentence) and not built.shows(sentence)
    assert reader.shows(
        "draw: the simulated family of that claim is smaller than the pipeline's, and a smaller Holm family never "
        "raises an adjusted p, so its simulated power and false-positive rate can only be higher"
    )
    reader = _compiled(small_run, short(False), tmp_path)
    assert reader.shows("so its simulated power and false-positive rate can differ from those under the pipeline's")
    assert not reader.shows("can only be higher")

    entries = json.loads((small_run / "results" / "paper" / "numbers.json").read_text(encoding="utf-8"))
    e = entries["entries"]
    short(False)(e)
    assert not e["operating.models.computed"]["value"]
    for key, value in {
        "operating.models.computed": True,
        "operating.models.claim": "C3",
        "operating.margin.n_models": 11,
        "operating.C3.note": "no power",
        "operating.models.reached": True,
        "operating.models.needed": 40,
        "operating.models.grid": "11, 20, 40",
        "operating.models.at_design_split": False,
        "operating.margin.value": 0.3,
        "operating.margin.detected": True,
        "operating.margin.smallest_tau": 0.5,
        "operating.margin.power_at_margin": 0.2,
    }.items():
        _set(e, key, value)
    for adjustment, lacks in (("Benjamini-Hochberg", True), ("Holm", True), ("Benjamini-Hochberg", False)):
        _set(e, "operating.models.adjustment", adjustment)
        _set(e, "operating.models.short_family", lacks)
        folder = tmp_path / f"{adjustment}-{lacks}"
        for sub in ("figures", "paper/tables"):  # what the section reads besides its numbers
            shutil.copytree(small_run / "results" / sub, folder / "results" / sub)
        text = section_text(folder, "operating.typ", e, entries["meta"])
        effect = "the curve can overstate its power" if adjustment == "Holm" else "the curve's power can differ"
        curve = f"With its {adjustment} family as simulated (lacking E9: {effect}"
        assert (curve in text) is lacks
        assert (f"With its {adjustment} family, its simulated power first reaches" in text) is not lacks


def test_a_curve_and_the_table_on_either_side_of_the_bar_are_printed_together(small_run, tmp_path):
    """Default build: "Claim C3 ... reaches simulated power 0.8 at 14 participants" while Table 15
    gives C3 0.81 at the design's own 11 participants (the curve: 0.79 there). Where the two fall
    on either side of the bar, the section prints both and says what their intervals show. The
    participant curve's section compiled alone (the small run computes no curve)."""
    entries = json.loads((small_run / "results" / "paper" / "numbers.json").read_text(encoding="utf-8"))
    e = entries["entries"]
    for key, value in {
        "operating.participants.computed": True,
        "operating.participants.claim": "C3",
        "operating.participants.reached": True,
        "operating.participants.needed": 14,
        "operating.participants.grid": "8, 11, 14, 18",
        "operating.participants.adjustment": "Holm",
        "operating.participants.short_family": False,
        "operating.participants.at_design_split": True,
        "operating.participants.design": 11,
    }.items():
        _set(e, key, value)
    e["operating.participants.at_design"] = dict(e["n_models"], value=0.79, display="0.79", ci_display="[0.69, 0.87]")
    e["operating.C3.power"] = dict(e["n_models"], value=0.81, display="0.81", ci_display="[0.71, 0.89]")
    for overlap in (True, False):
        _set(e, "operating.participants.at_design_overlap", overlap)
        folder = tmp_path / str(overlap)
        for sub in ("figures", "paper/tables"):
            shutil.copytree(small_run / "results" / sub, folder / "results" / sub)
        text = section_text(folder, "operating.typ", e, entries["meta"])
        assert (
            "At this design's own 11 participants, the curve's simulated power is 0.79 (95% interval "
            "[0.69, 0.87]) and that of Table 1 0.81 ([0.71, 0.89]), on either side of 0.8" in text
        ), text
        assert (
            "whose intervals overlap, so neither settles on which side of the bar its power lies" in text
        ) is overlap
        assert ("do not overlap (the curve's designs are drawn afresh at each size" in text) is not overlap
    # Compiled alone, the section names the validation without a reference, and only once.
    assert re.search(r"The validation by simulation (tests|reports) other coverages", text), text


def test_the_discussion_says_an_untestable_rank_claim_is_not_tested(small_run, tmp_path):
    """Small run (3 models): the Discussion printed the exact rank test's power 0.00 at the margin
    without saying that claim C1 is not tested at all, which the operating section says ("no
    number is printed for it"); and it said the human rater "gives wider intervals than the
    models have on all of them", false for binary HP accuracy among others. It now gives the
    composite's median widths."""
    built = Reader(small_run / "paper" / "build" / "paper.pdf", tmp_path)
    assert built.shows('so the rank-independence claim, C1, is not tested at all (verdict "not testable")')
    assert not built.shows("wider intervals than the models have on all of them")
    assert built.shows("a simulated human rater who labels 8 of the simulated conversations has composite intervals of")


def test_the_human_raters_intervals_are_called_wider_only_when_they_are(small_run, tmp_path):
    """The uncertainty section said the raters' intervals "are wider" whatever their widths; with
    their median width below the models' it now says they are not (small run, numbers edited)."""

    def narrower(e: dict) -> None:
        _set(e, "unc.two_stage.human_median_width", 12.0, display="12.0")

    reader = _compiled(small_run, narrower, tmp_path)
    assert reader.shows("yet its composite intervals are not wider (median width 12.0 points against")
    built = Reader(small_run / "paper" / "build" / "paper.pdf", tmp_path)
    assert built.shows("so its composite intervals are wider (median width")


def test_no_sentence_says_a_simulation_checks_participant_resampled_intervals(small_run, tmp_path):
    """Small run (5 participants): "where resampling participants gives a narrower interval ...,
    the validation by simulation measures how often this design's intervals cover". Every
    simulated study resamples conversations, so no simulation checks the intervals that sentence
    is about."""
    built = Reader(small_run / "paper" / "build" / "paper.pdf", tmp_path)
    assert not built.shows("the validation by simulation measures how often this design's intervals cover")
    assert built.shows("no simulation of this paper measures how often an interval that resamples participants covers")


def test_the_truth_section_speaks_of_mixed_model_intervals_only_when_they_exist(small_run, tmp_path):
    """Small run: the diagnosis claims are not testable (no interval, and the validation's
    diagnosis row ran in no study), yet the truth section said a mixed model's miss "is one of the
    misses whose rate the validation by simulation measures" (diagnosis.testable decides)."""
    built = Reader(small_run / "paper" / "build" / "paper.pdf", tmp_path)
    assert not built.shows("a mixed model's interval (the diagnosis claims') does")
    assert built.shows("does not carry the participants' shared difficulty. Outcomes on the simulated null cohort")


def test_the_false_positive_rate_is_defined_by_the_cohort_it_is_counted_in(small_run, tmp_path):
    """Seed 7: "the simulated false-positive rate is that share when it [the cohort] makes the claim
    false", but claim C2's rate counts the null cohort only, though the planted cohort plants no
    difference of spreads either (C2 'supported' in 39 of its 100 studies, against 24 of 100 null
    ones). The definition now names the cohort the rate is counted in."""
    built = Reader(small_run / "paper" / "build" / "paper.pdf", tmp_path)
    assert built.shows("the simulated false-positive rate is that share in the null cohort, which plants nothing")
    assert built.shows("the planted cohort never counts toward it, even for a claim it leaves false")


def test_the_abstract_says_when_its_intervals_resample_few_participants(small_run, tmp_path):
    """Small run: the abstract printed the leader's 95% interval from resampling 5 participants
    without the caveat the uncertainty section gives (a cluster bootstrap over fewer than about
    30 clusters tends to give intervals that are too narrow)."""
    built = Reader(small_run / "paper" / "build" / "paper.pdf", tmp_path)
    assert built.shows(
        "resampling participants, then conversations; with 5 participants, fewer than the about 30 clusters "
        "a cluster bootstrap needs, such intervals tend to be too narrow)"
    )


def test_an_inconclusive_diagnosis_claim_says_when_its_estimate_points_the_other_way(small_run, tmp_path):
    """Release build, three baselines: "The evidence that the compared baselines track the emotions
    of participants with a diagnosis worse is inconclusive: the adjusted effect on emotion F1 is
    0.013", better for them, with nothing said of its sign (small run, numbers edited so that C3
    is testable)."""

    def effect(value: float) -> Callable[[dict], None]:
        def edit(e: dict) -> None:
            _testable(e)
            _set(e, "unc.claims_use_primary", True)  # no scheme named: the test reads the sentence alone
            _set(e, "claim.C3.estimate", value, f"{value:.3f}", ci=[-0.034, 0.06], ci_display="[-0.034, 0.060]")

        return edit

    reader = _compiled(small_run, effect(0.013), tmp_path)
    assert reader.shows(
        "is 0.013 (95% interval [-0.034, 0.060]), better for them by the point estimate, the opposite of the claim "
        "(permutation p"
    )
    reader = _compiled(small_run, effect(-0.013), tmp_path)
    assert reader.shows("is -0.013 (95% interval [-0.034, 0.060]) (permutation p")


@pytest.mark.parametrize(
    "value, display, remark",
    [
        (0.0012, "0.001", True),  # the release build's late minus early, a rise by the point estimate
        (0.0004, "0.000", False),  # printed as zero: no sign to remark on
        (-0.0012, "-0.001", False),  # a decline, as the claim says
    ],
)
def test_an_inconclusive_drift_claim_says_when_its_estimate_points_the_other_way(
    small_run, tmp_path, value, display, remark
):
    """Release build, three baselines: "The decline of the compared baselines' behaviour accuracy
    from early to late turns is not supported: late minus early binary OM accuracy is 0.001",
    a rise, with nothing said of its sign (only an interval wholly above zero was remarked on).
    The other claims that predict a negative estimate (C3, C5) said so already (small run,
    numbers edited)."""

    def edit(e: dict) -> None:
        _testable(e)
        _set(e, "unc.claims_use_primary", True)
        _set(e, "claim.C4.estimate", value, display, ci=[-0.01, 0.012], ci_display="[-0.010, 0.012]")

    reader = _compiled(small_run, edit, tmp_path)
    sentence = f"binary OM accuracy is {display} (95% interval [-0.010, 0.012])"
    assert reader.shows(sentence)
    assert reader.shows(f"{sentence}, a rise by the point estimate, the opposite of the claim (Page's") is remark
    assert not reader.shows("a rise rather than a decline")


@pytest.mark.parametrize("k, words", [(1, "1 of them scores"), (2, "2 of them score"), (3, "all of them score")])
def test_the_count_of_models_not_declining_agrees_with_its_verb(small_run, tmp_path, k, words):
    """Release build, three baselines: "and 1 of them score at least as well late as early"
    (small run, numbers edited)."""

    def edit(e: dict) -> None:
        _testable(e)
        _set(e, "drift.binary_om_acc.n_models", 3)
        _set(e, "drift.binary_om_acc.n_not_declining", k)

    reader = _compiled(small_run, edit, tmp_path)
    assert reader.shows(f"within each of the 3 simulated models, and {words} at least as well late as early.")


def test_a_rank_correlation_over_few_models_is_said_to_move_in_coarse_steps(small_run, tmp_path):
    """Release build, three baselines: "The rank correlation between the compared baselines'
    turn-level and conversation-level pillars is 1.00 ([0.33, 1.00], ...)", an interval that
    reads as continuous, though over 3 models Kendall's tau-b takes only -1, -1/3, 1/3 and 1
    (small run, numbers edited so that C6 is testable)."""

    def few(coarse: bool) -> Callable[[dict], None]:
        def edit(e: dict) -> None:
            _set(e, "claim.C6.verdict", "not supported")
            _set(e, "profiles.n_models", 3)
            _set(e, "profiles.n_tau_values", 4)
            _set(e, "profiles.tau_coarse", coarse, display="yes" if coarse else "no")

        return edit

    reader = _compiled(small_run, few(True), tmp_path)
    assert reader.shows(", coarse: over 3 simulated models Kendall's tau-b of untied ranks takes only 4 values;")
    reader = _compiled(small_run, few(False), tmp_path)
    assert not reader.shows("Kendall's tau-b of untied ranks takes only")


def test_with_one_conversation_per_participant_the_claims_width_clause_is_said_once(small_run, tmp_path):
    """ESConv build: "the two-stage scheme changes their intervals only by its random draws (a
    median factor of 1.00 ...), since here it resamples conversations too; resampling whole
    participants changes them only by its random draws (a median factor of 1.00 ...), since here
    it resamples conversations too" (small run, numbers edited: one conversation per participant)."""

    def one_each(e: dict) -> None:
        _set(e, "n_participants", e["n_conversations"]["value"])

    reader = _compiled(small_run, one_each, tmp_path)
    assert reader.shows("since here it resamples conversations too; resampling whole participants likewise (a")
    assert reader.words.count("since here it resamples conversations too") == 1
    assert reader.shows("as configured: with one conversation per participant it draws the same units as the others")

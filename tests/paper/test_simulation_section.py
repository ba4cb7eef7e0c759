"""The validation by simulation (paper/main.typ, "Validation by simulation"): its recovery
sentence summarises only the planted effects the simulated studies estimated, over the studies
each was estimated in, and names those printed without numbers."""

from __future__ import annotations

from ..conftest import REPO


def _section() -> str:
    src = (REPO / "paper" / "main.typ").read_text(encoding="utf-8")
    start = src.index("= Validation by simulation")
    return src[start : src.index("#include", start)]


def test_the_recovery_sentence_counts_the_planted_effects_and_their_studies():
    section = _section()
    # Not "(200 simulated studies) the sign of every planted effect": an effect can be estimated
    # in fewer studies than the others, or in none.
    for key in (
        "sim.n_planted_effects",
        "sim.n_planted_effects_all",
        "sim.min_planted_studies",
        "sim.max_planted_studies",
    ):
        assert f'"{key}"' in section, key
    assert "every planted effect" not in section
    assert '#n("sim.no_planted_value")' in section  # the effects printed without numbers, with why


def test_the_section_names_the_claims_the_simulation_has_no_test_for():
    """'runs every test of the paper that this design supports' is false while the simulation has
    no test for the flat-drift (turn_flat) and profile-flips claims: the section names them."""
    section = _section()
    assert '#n("sim.no_test")' in section
    assert 'N.at("sim.n_no_test")' in section


def test_the_section_runs_only_the_tests_whose_metrics_it_draws():
    """ESConv build: 'It runs every test of the paper that this design supports' was false of
    claim E4's discriminability test, which the cohort runs (its only supported claim) but the
    simulation does not, its metric (panas_items_adjusted) not being drawn; the sentence that
    follows listed it as left out."""
    section = " ".join(_section().split())
    assert "every test of the paper that this design supports and whose metrics the simulated studies draw" in section
    assert "runs every test of the paper that this design supports on each" not in section


def test_too_few_simulated_studies_get_no_pass_or_fail():
    """Over 8 simulated studies the binomial band of 0.05 reaches 0.25: the section says the run
    has too few studies to check the rates and coverages, and the abstract leaves the check out."""
    section = _section()
    assert 'N.at("sim.null_too_few")' in section and 'N.at("sim.coverage_too_few")' in section
    src = (REPO / "paper" / "main.typ").read_text(encoding="utf-8")
    abstract = src[: src.index("= Introduction")]
    check = abstract.index("significantly below nominal")
    assert abstract.rindex('N.at("sim.coverage_too_few")', 0, check) > abstract.rindex("leader-separation", 0, check)


def test_tests_over_different_counts_of_studies_are_not_said_to_share_one_count():
    """The mixed model of a cohort can run in fewer studies (158 of 200), with its own band."""
    section = _section()
    assert '#n("sim.min_null") to #n("sim.n_null")' in section
    assert "its own binomial 95% band" in section


def test_the_human_rater_sentences_follow_the_number_of_raters():
    """With one simulated rater (small run) there is no agreement among raters and no
    alternative-annotator test (rule stats_humans writes both tables empty), and "the raters
    predict" is "the rater predicts"."""
    src = (REPO / "paper" / "main.typ").read_text(encoding="utf-8")
    assert '#let rater-agreement = N.at("n_humans").value >= 2' in src
    methods = src[src.index("= Statistical methods") : src.index("= Results")]
    assert "#if rater-agreement [#[;] agreement among the #simc human" in methods
    baseline = src[src.index("== Human baseline") : src.index("== Turn-level and conversation-level profiles")]
    assert "human raters predict" not in baseline and '#agree("n_humans", [predicts], [predict])' in baseline
    related = (REPO / "paper" / "sections" / "related_work.typ").read_text(encoding="utf-8")
    assert 'N.at("n_humans").value >= 2 [ that this paper reports]' in related


def test_a_per_model_coverage_is_not_called_a_share_of_studies():
    """The human-vs-model row's coverage (0.79 in the small run) is a mean over the studies of the
    share of models whose interval covers the planted shift, not a share of studies."""
    section = _section()
    assert '#if N.at("sim.n_coverage_untested").value > 0 [\nFor #n("sim.coverage_untested"), these shares' in section
    src = (REPO / "paper" / "main.typ").read_text(encoding="utf-8")
    abstract = src[: src.index("= Introduction")]
    assert '% of the studies#if N.at("sim.n_coverage_untested").value > 0 [ (for a per-model effect' in abstract


def test_the_human_baseline_names_one_rater_in_the_singular():
    """With one simulated rater (small run) the claim sentence said "the conversations they
    labelled" and the figure's caption "Human raters minus each evaluated model ... the raters
    labelled": both agree with the number of raters."""
    src = (REPO / "paper" / "main.typ").read_text(encoding="utf-8")
    baseline = src[src.index("== Human baseline") : src.index("== Turn-level and conversation-level profiles")]
    assert "conversations they labelled" not in baseline
    assert 'on the conversations #agree("n_humans", [it], [they]) labelled' in baseline
    assert "caption: [Human raters minus" not in baseline and "the raters\n    labelled" not in baseline
    assert "[The #simc human rater] else [The #simc human raters] minus each" in baseline
    assert "on the conversations the #raters\n    labelled" in baseline


def test_a_coverage_below_nominal_is_reported_however_few_the_studies(small_run, tmp_path):
    """The small run has 8 simulated studies: too few to show a coverage at nominal
    (sim.coverage_too_few), and the paper said only that, leaving the check out of the abstract.
    A coverage significantly below nominal is evidence of under-coverage however few the studies:
    edited to one, the abstract, the section, the figure's caption and the table's caption say so
    (small run, numbers edited)."""
    from .test_claim_wording import _compiled, _set

    def one_below(entries: dict) -> None:
        assert entries["sim.coverage_too_few"]["value"] is True
        _set(entries, "sim.n_coverage_below", 1)
        _set(entries, "sim.coverage_below", "drift slope (62 %, binomial p 0.006)")

    reader = _compiled(small_run, one_below, tmp_path)
    abstract = reader.words[: reader.words.index("1. Introduction")]
    assert "and the one tested coverage is significantly below nominal." in abstract
    for phrase in (
        "so a coverage not significantly below nominal is no evidence of a calibrated interval, but one",
        "is evidence of under-coverage all the same: drift slope (62 %, binomial p 0.006). That simulated "
        "interval is too narrow for the design.",
        "a tested dot not significantly below it has one neutral colour and no verdict.",
        "(– where a coverage is not significantly below it: too few simulated studies to show a coverage at nominal)",
    ):
        assert reader.shows(phrase), phrase


def test_over_too_few_studies_no_coverage_below_nominal_gives_no_verdict(small_run, tmp_path):
    """The small run as built: no coverage significantly below nominal over its 8 studies; the
    abstract leaves the check out, and the section says none is below and none gets a verdict."""
    from .test_reader import Reader

    reader = Reader(small_run / "paper" / "build" / "paper.pdf", tmp_path)
    assert "significantly below nominal" not in reader.words[: reader.words.index("1. Introduction")]
    for phrase in (
        "none is significantly below it (one-sided exact binomial p at most 0.05), and no coverage gets a verdict.",
        "(– throughout: too few simulated studies to show a coverage at nominal)",
    ):
        assert reader.shows(phrase), phrase

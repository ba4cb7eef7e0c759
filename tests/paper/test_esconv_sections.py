"""The sections' sentences on an ESConv build (meta.cohort 'esconv': real chats, the offline
baselines alone), each section compiled on its own with the numbers such a build writes."""

from __future__ import annotations

from .section import section_text

ESCONV_META = {"cohort": "esconv", "simulation": False, "simulated_cohort": False, "simulated_models": []}


def _discussion(tmp_path, verdict: str) -> str:
    entries = {
        "n_ranked_baselines": 3,
        "n_models": 3,
        "unc.claims.n_primary_differs": 0,
        "n_participants": 1300,
        "n_conversations": 1300,
        "models.described": "3 offline baselines",
        "ranks.n_models": 3,
        "ranks.margin": {"value": 0.3, "display": "0.30"},
        "ranks.power_at_margin": {"value": 0.0, "display": "0.00"},
        "operating.models.claim": "E3",
        "claim.E3.verdict": verdict,
    }
    return section_text(tmp_path, "discussion.typ", entries, ESCONV_META)


def test_the_discussion_does_not_call_an_untestable_rank_claim_tested(tmp_path):
    """ESConv's three baselines cannot test its rank-independence claim E3 ('not testable'):
    the Discussion said 'the rank-based claims are tested with little or no power'."""
    text = _discussion(tmp_path, "not testable")
    assert "the rank-independence claim, E3, is not tested at all" in text
    assert "are tested with little or no power" not in text


def test_the_discussion_calls_a_tested_rank_claim_weakly_tested(tmp_path):
    text = _discussion(tmp_path, "inconclusive")
    assert "so the rank-based claims are tested with little or no power" in text
    assert "not tested at all" not in text


def _preregistration(tmp_path, matches: bool, fpr_only: tuple[str, ...] = ()) -> str:
    entries = {**_entries(), "prereg.matches": matches}
    entries["operating.fpr_only"] = ", ".join(fpr_only) or "none"
    entries["operating.n_fpr_only"] = len(fpr_only)
    return section_text(tmp_path, "preregistration.typ", entries, ESCONV_META)


def _entries() -> dict:
    """The numbers the pre-registration section reads on an ESConv build."""
    return {
        "prereg.file": "config/preregistration.yaml",
        "prereg.sha256": "f5fb",
        "prereg.dated": True,
        "prereg.frozen_commit": "20a5db2",
        "prereg.frozen_date": "2026-12-02",
        "prereg.frozen_dirty": False,
        "prereg.matches": True,
        "prereg.differences": "E1 added; C1 removed; C7 removed",
        "prereg.n_changes": 0,
        "prereg.n_before_freeze": 0,
        "prereg.history_why": "no git history",
        "ranks.n_models": 3,
        "operating.not_simulated": "E3, E4",
        "operating.n_simulated": 2,
        "operating.simulated": "E1, E2",
        "operating.fpr_only": "none",
        "operating.n_fpr_only": 0,
        "operating.margin_simulated": "none",
        "operating.margin_not_simulated": "E3",
    }


def test_the_frozen_claims_about_most_of_a_set_are_not_called_this_builds(tmp_path):
    """ESConv's claims (E1 to E4) are not the frozen file's: none is a headline claim about most
    of a set (its rank claim E3 is exploratory), so the partial-conjunction sentence speaks of
    the frozen file's claims, not of claims this build adjusts with its headline claims."""
    text = _preregistration(tmp_path, matches=False)
    assert "In the frozen file (not this build's claims), the claims about most of a set" in text
    assert "Holm family. The claims about most of a set" not in text
    same = _preregistration(tmp_path, matches=True)
    assert "Holm family. The claims about most of a set (rankings largely independent" in same


def test_an_undated_preregistration_claims_no_order_of_freezing_and_code(tmp_path):
    """A build without git history (a copy of the sources) said 'Its freezing date is unknown'
    and then 'The file was frozen after the analysis code and the claims were first committed',
    which only the history shows, and gave the same reason twice."""
    why = "not a git checkout: the freezing commit and the history of rule changes are unknown"
    undated = {**_entries(), "prereg.dated": False, "prereg.frozen_date": why, "prereg.history_why": why}
    text = section_text(tmp_path, "preregistration.typ", undated, ESCONV_META)
    assert f"This build cannot date it ({why})." in text and text.count(why) == 1
    assert "frozen after the analysis code" not in text
    assert "from the time it was frozen, which this build cannot tell; it does not show" in text
    # with its history: rule files were committed before the freezing commit, so the order is known
    history = {**_entries(), "prereg.n_changes": 3, "prereg.n_before_freeze": 2, "prereg.n_after_freeze": 0}
    history["prereg.config_files"] = "config/config.yaml"
    tables = tmp_path / "results" / "paper" / "tables"
    tables.mkdir(parents=True)
    rows = ["a1,2026-11-01,claims,no", "b2,2026-11-20,rules,no", "20a5db2,2026-12-02,freeze,no"]
    (tables / "preregistration_history.csv").write_text("\n".join(["Commit,Date,Subject,After freeze", *rows]) + "\n")
    dated = section_text(tmp_path, "preregistration.typ", history, ESCONV_META)
    assert "The file was frozen after the analysis code and the claims were first committed" in dated


def test_the_benchmark_section_does_not_call_esconvs_supporters_a_model():
    """ESConv's replies were written by trained human supporters (metadata.model
    'human-supporter', docs/esconv.md): the benchmark section of its build said the behaviour
    questions are about 'the original model's reply'."""
    import re

    from ..conftest import REPO
    from .manuscript import _unconditional

    src = (REPO / "paper" / "main.typ").read_text(encoding="utf-8")
    assert not _unconditional(src, r"original model's reply")
    assert re.search(r"#if esconv \[reply \(in ESConv a trained\s+human supporter's, not a\s+model's#\[;\] as\]", src)


def test_a_rule_simulated_without_power_is_not_said_to_have_known_error_rates(tmp_path):
    """A simulated claim whose power is not simulated (C2's case on a synthetic design: no
    difference of spreads is planted) has only its false-positive rate in the operating section;
    the pre-registration says so beside the claims whose error rates it points to."""
    text = _preregistration(tmp_path, matches=True, fpr_only=("E2",))
    assert "(for E2 the false-positive rate only: no effect of its kind is planted, so its power is not known)" in text
    two = _preregistration(tmp_path, matches=True, fpr_only=("E1", "E2"))
    assert "no effect of their kind is planted, so their power is not known" in two
    assert "false-positive rate only" not in _preregistration(tmp_path, matches=True)


def test_one_simulated_rule_is_named_in_the_singular(tmp_path):
    """The local-model sample simulates the rule of one claim: 'the verdict rules of claims E2'."""
    entries = {"operating.n_simulated": 1, "operating.simulated": "E2"}
    one = section_text(tmp_path, "preregistration.typ", {**_entries(), **entries}, ESCONV_META)
    assert "The simulated error rates of the verdict rule of claim E2" in one
    assert "verdict rules of claims E1, E2" in _preregistration(tmp_path, matches=True)


def _operating(tmp_path, n_simulated: int) -> str:
    """The operating section of an ESConv build whose claims ``n_simulated`` of are simulated."""
    (tmp_path / "results" / "paper" / "tables").mkdir(parents=True, exist_ok=True)
    (tmp_path / "results" / "figures").mkdir(parents=True, exist_ok=True)
    (tmp_path / "results" / "paper" / "tables" / "operating.csv").write_text("Claim,Note\nE2,not simulated\n")
    (tmp_path / "results" / "figures" / "operating.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>'
    )
    entries = {
        "operating.n_simulated": n_simulated,
        "operating.n_studies": 100 if n_simulated else 0,
        "operating.simulated": "E2" if n_simulated else "none",
        "operating.not_simulated": "E1, E3, E4" if n_simulated else "E1, E2, E3, E4",
        "operating.at_margin": False,
        "operating.n_equal_spreads": 0,
        "operating.n_short_family": 0,
        "operating.n_fpr_above": 0,
        "operating.alpha": 0.05,
        "operating.any_coverage_below": False,
        "operating.n_coverage_tested": n_simulated,
        "operating.n_coverage_low": 0,
        "operating.models.computed": False,
        "operating.models.note": "claim E3 is not simulated",
        "operating.participants.computed": False,
        "operating.participants.note": "no claim is named by statistics.operating.diagnosis_claim",
        "operating.conversations.computed": False,
        "sim.n_planted_effects": 0,
    }
    return section_text(tmp_path, "operating.typ", entries, ESCONV_META)


def test_the_operating_section_applies_no_rule_to_zero_simulated_studies(tmp_path):
    """ESConv cut to 2 turns cannot test its drift claim E2, its only simulated claim until then:
    with no claim simulated, Section 8 said each rule 'is applied to each of 0 simulated studies'."""
    none = _operating(tmp_path / "none", 0)
    assert (
        "No claim is simulated on this design, so no verdict rule is applied to simulated studies: E1, E2, E3, E4"
        in none
    )
    assert "so this section would simulate both. No claim is simulated" in none
    assert "0 simulated studies" not in none and "Simulated power is the share" not in none
    assert "simulated here too" not in none
    assert "false-positive rate has a 95% interval" not in none
    some = _operating(tmp_path / "some", 1)
    assert "is applied to each of 100 simulated studies per simulated cohort" in some
    assert "No claim is simulated" not in some and "so both are simulated here too. Each claim's own rule" in some

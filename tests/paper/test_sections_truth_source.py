"""The truth and pre-registration sections (paper/sections/) type no number by hand either, and
main.typ includes them."""

from __future__ import annotations

import pytest

from ..conftest import REPO
from .manuscript import numeric_literals

SECTIONS = ("truth.typ", "truth_appendix.typ", "preregistration.typ")


@pytest.mark.parametrize("name", SECTIONS)
def test_no_numeric_literal_in_the_prose_of_the_section(name):
    found = numeric_literals((REPO / "paper" / "sections" / name).read_text(encoding="utf-8"))
    assert not found, f"numbers typed in paper/sections/{name}:\n" + "\n".join(
        f"  line {f.line}: {f.text!r} in: {f.source_line}" for f in found
    )


@pytest.mark.parametrize("name", SECTIONS)
def test_main_includes_the_section(name):
    # `#include "..."` in markup, `include "..."` in a code block (the appendix: synthetic build only)
    main = (REPO / "paper" / "main.typ").read_text(encoding="utf-8")
    assert f'#include "sections/{name}"' in main or f'{{ include "sections/{name}" }}' in main


def test_a_scale_without_an_estimand_gets_no_monte_carlo_clause():
    """The small run has no composite estimand (truth.max_estimand_mc_se_points is null): the
    sentence printed "– composite points". Each scale's clause is printed only with a value."""
    src = (REPO / "paper" / "sections" / "truth.typ").read_text(encoding="utf-8")
    start = src.index("carry a Monte-Carlo error of at most")
    sentence = src[start : src.index("}.", start)]
    for key in ("truth.max_estimand_mc_se", "truth.max_estimand_mc_se_points", "truth.max_estimand_mc_se_log_f"):
        assert f'"{key}"' in sentence and f'#n("{key}")' not in sentence, key
    assert ".filter(((key, _)) => N.at(key).value != none)" in sentence


def test_the_null_cohort_sentence_does_not_say_independence_holds_by_construction():
    """The null cohort plants no correlation of abilities, yet in the small run its independence
    claim's estimand (median |tau| of the expected rankings of three models) is 1.000, above the
    margin of 0.3: the claim is false there. 'The independence and flatness claims hold by
    construction' was false; they can hold with nothing planted, or fail."""
    src = (REPO / "paper" / "sections" / "truth.typ").read_text(encoding="utf-8")
    start = src.index("Outcomes on the simulated null cohort")
    sentence = src[start : src.index('#n("truth.null.n_missed")', start)]
    assert "by construction" not in sentence
    assert "independence or flatness claim can hold, or fail, with no effect planted" in " ".join(sentence.split())


def test_the_planted_cohort_outcomes_add_up_to_its_testable_claims():
    """In the small run claim C2 is false of its planted estimand (-1.8, 'no false positive'):
    the planted cohort's outcomes named recovered 2, missed 3 and wrong sign 0, five of its six
    testable claims. Every outcome is named, as for the null cohort."""
    src = (REPO / "paper" / "sections" / "truth.typ").read_text(encoding="utf-8")
    start = src.index("Outcomes on the simulated planted cohort")
    sentence = src[start : src.index(". Of its", start)]
    for outcome in ("recovered", "missed", "wrong_sign", "false_positive", "no_false_positive"):
        assert f'#n("truth.planted.n_{outcome}")' in sentence, outcome

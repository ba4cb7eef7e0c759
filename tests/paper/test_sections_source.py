"""The sections included from paper/main.typ (paper/sections/*.typ) type no number by hand
either: the same numeric-literal lint as the manuscript, file by file; each is included once; and
the operating section's result sentences each say that what they report is simulated."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ..conftest import REPO
from .manuscript import numeric_literals, prose_mask

SECTIONS = sorted((REPO / "paper" / "sections").glob("*.typ"))


def test_there_are_sections():
    assert SECTIONS


@pytest.mark.parametrize("path", SECTIONS, ids=lambda p: p.name)
def test_no_numeric_literal_in_the_prose_of_a_section(path: Path):
    found = numeric_literals(path.read_text(encoding="utf-8"))
    assert not found, f"numbers typed in the prose of {path.relative_to(REPO)}:\n" + "\n".join(
        f"  line {f.line}: {f.text!r} in: {f.source_line}" for f in found
    )


@pytest.mark.parametrize("path", SECTIONS, ids=lambda p: p.name)
def test_every_section_is_included_once(path: Path):
    main = (REPO / "paper" / "main.typ").read_text(encoding="utf-8")
    # `#include "..."` in markup, `include "..."` inside a code block (a conditional section)
    assert len(re.findall(rf'\binclude "sections/{re.escape(path.name)}"', main)) == 1


def test_every_sentence_of_the_operating_section_says_simulated():
    src = (REPO / "paper" / "sections" / "operating.typ").read_text(encoding="utf-8")
    prose = prose_mask(src.split("= Operating characteristics", 1)[1].split("\n", 1)[1])
    # Sentences of the prose (the masked code is blank): split at a full stop before a space.
    sentences = [s.strip() for s in re.split(r"(?<=[.])\s+", re.sub(r"\s+", " ", prose)) if len(s.strip()) > 3]
    assert sentences
    missing = [s for s in sentences if not re.search(r"simulat", s, re.IGNORECASE)]
    assert not missing, "sentences without 'simulated':\n" + "\n".join(missing)


def _section_src(name: str) -> str:
    return (REPO / "paper" / "sections" / name).read_text(encoding="utf-8")


def test_the_error_rates_of_every_rule_are_claimed_only_when_every_rule_is_simulated():
    """Section 5.1 named every verdict rule's error rates, margins included, as those of the
    operating characteristics; on the release cohort only C3, C3b and C4 are simulated (not C1,
    C4b, whose rules have margins). The sentence names the simulated rules and those that are
    not; 'every verdict rule' is printed only when none is left out (the truth section too)."""
    from .manuscript import _unconditional

    for name in ("preregistration.typ", "truth.typ"):
        src = _section_src(name)
        assert not _unconditional(src, r"rates of (?:every|each) verdict rule"), name
        assert '#n("operating.simulated")' in src and '#n("operating.not_simulated")' in src, name
    assert '#n("operating.margin_not_simulated")' in _section_src("preregistration.typ")


def test_the_cohort_at_the_margin_and_the_curves_are_described_only_when_computed():
    """Section 8 said abilities were drawn at the independence claim's margin, and Figure 9's
    caption described the left panel as simulated power, also where neither was computed."""
    from .manuscript import _unconditional

    src = _section_src("operating.typ")
    assert not _unconditional(src, r"equals its margin")
    assert 'val("operating.at_margin")' in src
    caption = src[src.index("caption: [Design curves") :]
    assert not _unconditional(caption, r"simulated power of the independence")
    assert not _unconditional(caption, r"simulated power of the diagnosis")
    for key in ("operating.models.computed", "operating.participants.computed", "operating.conversations.computed"):
        assert f'val("{key}")' in caption, key


def test_the_operating_section_says_the_validation_tests_coverages_only_when_it_can():
    """With too few simulated studies (8 in the small run) the validation by simulation gives its
    coverages no verdict (sim.coverage_too_few); the operating section said all the same that it
    "tests other coverages". It says so only when the validation has the studies to test them."""
    src = _section_src("operating.typ")
    assert "(@sec-validation) tests other coverages" not in src
    assert '#paren-ref(<sec-validation>) #if N.at("sim.coverage_too_few").value [reports other' in src
    assert "else [tests other coverages]" in src

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

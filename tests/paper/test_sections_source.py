"""The sections included from paper/main.typ (paper/sections/*.typ) type no number by hand
either: the same numeric-literal lint as the manuscript, file by file."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..conftest import REPO
from .manuscript import numeric_literals

SECTIONS = sorted((REPO / "paper" / "sections").glob("*.typ"))


def test_there_are_sections():
    assert SECTIONS


@pytest.mark.parametrize("path", SECTIONS, ids=lambda p: p.name)
def test_no_numeric_literal_in_the_prose_of_a_section(path: Path):
    found = numeric_literals(path.read_text(encoding="utf-8"))
    assert not found, f"numbers typed in the prose of {path.relative_to(REPO)}:\n" + "\n".join(
        f"  line {f.line}: {f.text!r} in: {f.source_line}" for f in found)


@pytest.mark.parametrize("path", SECTIONS, ids=lambda p: p.name)
def test_every_section_is_included_once(path: Path):
    main = (REPO / "paper" / "main.typ").read_text(encoding="utf-8")
    assert main.count(f'#include "sections/{path.name}"') == 1

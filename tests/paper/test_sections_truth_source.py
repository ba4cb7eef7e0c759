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

"""The uncertainty section and its appendix (paper/sections/uncertainty*.typ): no number typed in
prose, and every sentence that prints a result of the build names it as simulated (``#sim``,
which prints "simulated" whenever anything of the build is simulated)."""

from __future__ import annotations

import re

import pytest

from ..conftest import REPO
from .manuscript import numeric_literals

SECTIONS = sorted((REPO / "paper" / "sections").glob("uncertainty*.typ"))
#: Numbers of the method (settings, counts of the procedure), not results of the build.
METHOD_KEYS = {
    "n_bootstrap",
    "primary",
    "primary_reason",
    "weights.concentration",
    "weights.sd_min",
    "weights.sd_max",
    "weights.n_draws",
    "reliability.n_splits",
    "reliability.target",
    "n_adjacent",
    "claims_scheme",
    "noise.draws",
    "noise.requested_draws",
}
KEY = re.compile(r'#(?:n|ci)\((?:"unc\.([\w.]+)"|pk\("([\w.]+)"\))\)')


@pytest.mark.parametrize("path", SECTIONS, ids=lambda p: p.name)
def test_no_numeric_literal_in_the_prose(path):
    found = numeric_literals(path.read_text(encoding="utf-8"))
    assert not found, "\n".join(f"{path.name} line {f.line}: {f.text!r} in: {f.source_line}" for f in found)


def _sentences(src: str) -> list[str]:
    body = "\n".join(line for line in src.splitlines() if not line.lstrip().startswith(("//", "#let")))
    return [s for s in re.split(r"(?<=[.:])\s+(?=[A-Z@*(])", body) if s.strip()]


def test_every_result_sentence_says_simulated():
    missing = []
    for path in SECTIONS:
        for sentence in _sentences(path.read_text(encoding="utf-8")):
            keys = {a or b for a, b in KEY.findall(sentence)}
            if keys - METHOD_KEYS and "#sim" not in sentence:
                missing.append(f"{path.name}: {' '.join(sentence.split())[:160]}")
    assert not missing, "result sentences without #sim:\n" + "\n".join(missing)


def test_the_checks_see_the_sections():
    assert {p.name for p in SECTIONS} >= {"uncertainty.typ", "uncertainty_appendix.typ"}
    assert "#sim" in (REPO / "paper" / "sections" / "uncertainty.typ").read_text(encoding="utf-8")

"""The data section says how many gold intensities were clamped and how many tags name a word
outside the PANAS list, when there are any (small run; its cohort has none of either)."""

from __future__ import annotations

import json
import os
import re
import unicodedata

import pytest
import typst

from .manuscript import pdf_text

pytestmark = pytest.mark.workflow


def _squashed(text: str) -> str:
    """The text without white space and hyphens (line breaks and hyphenation vary), ligatures
    unfolded."""
    return re.sub(r"[\s\-\u00ad\u2010]", "", unicodedata.normalize("NFKC", text))


def test_clamped_intensities_and_words_outside_panas_are_said_when_there_are_any(small_run):
    path = small_run / "results" / "paper" / "numbers.json"
    original, stat = path.read_bytes(), path.stat()
    data = json.loads(original)
    entries = data["entries"]
    gold = entries["n_gold_tags"]["display"]
    built = _squashed(pdf_text(small_run / "paper" / "build" / "paper.pdf"))
    clamped = "gaveanintensitythat,rounded,layoutsidethesevenpointscale"
    outside = "goldmoodtagsnameawordoutsidethePANASlist"
    assert entries["n_intensities_clamped"]["value"] == entries["n_tags_outside_panas"]["value"] == 0
    assert clamped not in built and outside not in built
    entries["n_intensities_clamped"].update(value=7, display="7")
    entries["n_tags_outside_panas"].update(value=3, display="3")
    try:
        path.write_text(json.dumps(data), encoding="utf-8")
        text = _squashed(pdf_text(typst.compile(str(small_run / "paper" / "main.typ"), root=str(small_run))))
    finally:  # the bytes and the times back, so that the run stays up to date (a rerun does nothing)
        path.write_bytes(original)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert _squashed(f"Of the {gold} gold mood tags, 7 ") + clamped in text
    assert _squashed(f"3 of the {gold} ") + outside in text

"""Honest language in the built paper: in the synthetic build, every result sentence that
prints a number says that it is simulated (or synthetic, planted, generated), so no sentence
reads as a finding about real models; page headers say what each page is about.

The sentences are read from the PDF the reader sees, compiled once more with the figures and
tables hidden (their cells and captions are not sentences): the Abstract, and the Results up to
the replications on public data (which include the validation by simulation)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest
import typst
from pypdf import PdfReader

#: A result sentence of a simulated build must hold one of these words.
HONEST = re.compile(r"\b(?:simulated|synthetic|planted|generated)\b", re.IGNORECASE)
#: A number as the reader sees one: not part of a name (sim-04, C3b, F1) or of another number.
NUMBER = re.compile(r"(?<![\w.])(?<!\w-)-?\d+(?:[.,]\d+)*")
#: What carries digits without being a result: cross-references, citations, the fixed interval level.
NOT_RESULTS = re.compile(r"\b(?:Figure|Table|Section)\s*\d+|\[\d+(?:\s*[,–-]\s*\d+)*\]|(?<![\w.])95\s*%")
HEADING = re.compile(r"^(?:[A-Z]\.)?\d+(?:\.\d+)*\.\s+(.+)$")


def _normal(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("\u2212", "-").replace("\u00ad", "").replace("\u00a0", " ")
    return text


def page_texts(pdf: Path) -> list[tuple[str, str]]:
    """(header, body) of every page: the header is the first line (it ends with the page number)."""
    out = []
    for k, page in enumerate(PdfReader(pdf).pages, start=1):
        head, _, body = _normal(page.extract_text()).partition("\n")
        assert head.rstrip().endswith(str(k)), f"page {k} has no running header: {head!r}"
        out.append((head, body))
    return out


def section_sentences(pdf: Path, start: str, stop: tuple[str, ...]) -> list[str]:
    """The sentences from the heading ``start`` to the first heading of ``stop``, without the
    headings themselves."""
    lines = [line.strip() for _, body in page_texts(pdf) for line in body.split("\n")]
    keep, inside = [], False
    for line in lines:
        m = HEADING.match(line)
        title = m.group(1).strip() if m else line
        if title == start:
            inside = True
            continue
        if inside and m and title in stop:
            break
        if inside and not m:
            keep.append(line)
    assert inside, f"no heading {start!r} in {pdf}"
    text = re.sub(r"-\s*\n\s*", "", "\n".join(keep))  # words broken at a line end
    text = " ".join(text.split())
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(\d])", text) if s]


def unmarked(sentences: list[str]) -> list[str]:
    """The sentences that print a number and say nothing of being simulated."""
    return [s for s in sentences if NUMBER.search(NOT_RESULTS.sub(" ", s)) and not HONEST.search(s)]


@pytest.fixture(scope="module")
def prose_pdf(small_run, tmp_path_factory) -> Path:
    """The small run's paper with every figure and table hidden (same layout, text of prose only)."""
    wrapper = small_run / "prose_only.typ"
    wrapper.write_text('#show figure: it => hide(it)\n#include "/paper/main.typ"\n', encoding="utf-8")
    try:
        pdf = tmp_path_factory.mktemp("prose") / "prose.pdf"
        pdf.write_bytes(typst.compile(str(wrapper), root=str(small_run)))
    finally:
        wrapper.unlink()
    return pdf


def test_the_checker_catches_a_bare_result_sentence():
    sentences = [
        "Models track the emotions of participants with a diagnosis worse: the effect is -0.23.",
        "The simulated models track them worse: -0.23 [-0.28, -0.18].",
        "Figure 3 gives the ranks (Table 2) with 95% intervals [1], [2].",
        "The leading model, sim-04, wins on C3b and emotion F1.",
        "The effect is -0.23 on the composite.",
    ]
    assert unmarked(sentences) == [sentences[0], sentences[4]]


@pytest.mark.workflow
def test_every_result_sentence_of_the_synthetic_build_says_simulated(prose_pdf, small_run):
    stop = ("Replications on public data", "Discussion", "Limitations and intended use", "Related work")
    results = section_sentences(prose_pdf, "Results", stop)
    abstract = section_sentences(prose_pdf, "Abstract", ("Introduction",))
    assert len(results) > 20 and len(abstract) > 3
    assert any(NUMBER.search(s) for s in results)  # the check has numbers to check
    bare = unmarked(abstract + results)
    assert not bare, "result sentences with a number and without 'simulated':\n" + "\n".join(bare)


@pytest.mark.workflow
def test_page_headers_say_what_each_page_is_about(small_run):
    pages = page_texts(small_run / "paper" / "build" / "paper.pdf")
    heads = [h for h, _ in pages]
    assert "Simulation study" in heads[0] and "not findings about real models" in heads[0]
    # The references and the appendix have headers of their own, not the study's disclaimer alone.
    refs = [h for h, b in pages if "References" in h]
    appendix = [h for h, b in pages if "Appendix" in h]
    assert refs and appendix
    last = pages[-1][0]
    assert "Appendix" in last and "Simulation study" not in last

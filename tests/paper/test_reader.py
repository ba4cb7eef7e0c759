"""Reader checks of the built paper (small run): what a reader of the PDF sees. Its text has
every section of the manuscript, every figure and table with its caption, and every number the
manuscript prints (the compiler lists them: each ``n``/``nraw``/``ci`` of paper/main.typ leaves a
``<number>`` metadata record). Every page is rendered to PNG first, so a failure points to
images of what the reader would see."""

from __future__ import annotations

import csv
import json
import re
import unicodedata
from pathlib import Path

import pypdfium2
import pytest
import typst
from pypdf import PdfReader

from .manuscript import headings, n_image_figures, n_table_figures, unconditional_keys, without_running_header

pytestmark = pytest.mark.workflow


def _normal(text: str) -> str:
    """Unicode compatibility forms (ligatures), the Typst minus sign as '-', straight quotes, no
    soft hyphens."""
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("\u2212", "-").replace("\u00ad", "").replace("\u00a0", " ")
    return text.translate(str.maketrans("\u2018\u2019\u201c\u201d", "''\"\""))


def _flat(text: str) -> str:
    return re.sub(r"\s+", "", text)


class Reader:
    """The PDF's text as the reader sees it, and where its pages were rendered."""

    def __init__(self, pdf: Path, pages: Path):
        self.pages = pages
        self.text = _normal("\n".join(without_running_header([page.extract_text() for page in PdfReader(pdf).pages])))
        self.words = " ".join(self.text.split())
        self.flat = _flat(self.text)
        self.unhyphenated = _flat(re.sub(r"-[ \t]*\n\s*", "", self.text))  # words broken at a line end
        # Typst's font subset may map the hyphen glyph to U+00AD once a word was hyphenated with
        # it, so a hard hyphen ("Pre-registered") can extract as a soft one, which _normal drops.
        self.hyphenless = self.unhyphenated.replace("-", "")

    def shows(self, s: str) -> bool:
        needle = _flat(_normal(s))
        return needle in self.flat or needle in self.unhyphenated or needle.replace("-", "") in self.hyphenless

    def fail(self, what: str, missing: list) -> str:
        return f"{what} not in the PDF's text: {missing}\n(pages rendered to {self.pages})"


@pytest.fixture(scope="module")
def paper(small_run) -> Path:
    return small_run / "paper" / "build" / "paper.pdf"


@pytest.fixture(scope="module")
def reader(paper, tmp_path_factory) -> Reader:
    return render_and_read(paper, tmp_path_factory.mktemp("pages"))


def render_and_read(paper: Path, pages: Path) -> Reader:
    """Render every page of ``paper`` to PNG in ``pages``, then read its text."""
    pdf = pypdfium2.PdfDocument(paper)
    try:
        for k in range(len(pdf)):
            pdf[k].render(scale=1.5).to_pil().save(pages / f"page-{k + 1:02d}.png")
    finally:
        pdf.close()
    print(f"pages of {paper} rendered to {pages}")
    return Reader(paper, pages)


_INCLUDE = re.compile(r'^#include "([^"]+)"[ \t]*$', re.MULTILINE)


def with_includes(path: Path) -> str:
    """The text of a Typst file with each top-level ``#include "file"`` line replaced by that
    file's text (recursively), as the compiler places it."""
    text = path.read_text(encoding="utf-8")
    return _INCLUDE.sub(lambda m: with_includes(path.parent / m.group(1)), text)


@pytest.fixture(scope="module")
def source(small_run) -> str:
    return with_includes(small_run / "paper" / "main.typ")


def _query(small_run: Path, selector: str) -> list:
    return json.loads(typst.query(str(small_run / "paper" / "main.typ"), selector, root=str(small_run)))


def _plain(node) -> str:
    """The text of a queried content tree."""
    if isinstance(node, dict):
        if node.get("func") == "equation":
            return "\x00"  # math: the text stops being comparable here
        parts = [node["text"]] if isinstance(node.get("text"), str) else []
        if node.get("func") in ("space", "linebreak", "parbreak"):
            parts.append(" ")
        if node.get("func") == "smartquote":
            parts.append('"' if node.get("double", True) else "'")
        for key in ("body", "child", "children"):
            if key in node:
                parts.append(_plain(node[key]))
        return "".join(parts)
    if isinstance(node, list):
        return "".join(_plain(x) for x in node)
    return ""


def test_every_page_is_rendered(reader, paper):
    rendered = sorted(reader.pages.glob("page-*.png"))
    assert len(rendered) == len(PdfReader(paper).pages) > 0
    assert all(p.stat().st_size > 1000 for p in rendered)


def placed_headings(root: Path) -> list[str]:
    """The headings the compiler placed (the source has a branch per cohort: only one is built)."""
    return [" ".join(_plain(h["body"]).split()) for h in _query(root, "heading")]


def test_no_typst_code_is_printed_as_text(reader):
    """An ``else`` on the line after the ``]`` that closes its ``#if`` block is markup, not code:
    the truth table's caption printed "within 4.30 times else [the 95% interval of] its
    Monte-Carlo error". Neither that nor any other piece of the manuscript's code reaches the PDF."""
    for code in ("else [", "else if", "#if", "#n(", "N.at(", "#let", "default: (value"):
        assert code not in reader.words, code


def test_every_section_is_there(reader, source, small_run):
    check_sections(reader, source, small_run)


def check_sections(reader: Reader, source: str, root: Path) -> None:
    sections = placed_headings(root)
    assert "Reproducibility statement" in sections
    # The headings of the manuscript and of the sections it includes (paper/sections/*.typ).
    included = {
        h
        for path in sorted((root / "paper" / "sections").glob("*.typ"))
        for h in headings(path.read_text(encoding="utf-8"))
    }
    # and the bibliography's title.
    included |= set(re.findall(r'#bibliography\([^)]*title:\s*"([^"]+)"', source))
    assert set(sections) <= set(headings(source)) | included
    missing = [h for h in sections if not reader.shows(h)]
    assert not missing, reader.fail("sections", missing)


def test_every_figure_and_table_is_numbered_and_captioned(reader, source, small_run):
    check_figures_and_tables(reader, source, small_run)


def check_figures_and_tables(reader: Reader, source: str, root: Path) -> None:
    figures = {int(k) for k in re.findall(r"Figure\s*(\d+)\s*:", reader.words)}
    tables = {int(k) for k in re.findall(r"Table\s*(\d+)\s*:", reader.words)}
    placed = _query(root, "figure")
    kinds = [fig.get("kind") for fig in placed]
    # Every figure and table outside a conditional block is placed; the cohort's branch adds its own.
    assert kinds.count("image") >= n_image_figures(source) and kinds.count("table") >= n_table_figures(source)
    assert figures == set(range(1, kinds.count("image") + 1)), reader.fail("figure captions", sorted(figures))
    assert tables == set(range(1, kinds.count("table") + 1)), reader.fail("table captions", sorted(tables))
    missing = []
    for fig in placed:
        words = _plain(fig.get("caption", {})).split("\x00")[0].split()
        start = " ".join(words[:6])
        if not words or not reader.shows(start):
            missing.append(start)
    assert not missing, reader.fail("caption openings", missing)


def test_every_number_the_manuscript_prints_is_there(reader, small_run, source):
    check_numbers(reader, small_run, source)


def check_numbers(reader: Reader, small_run: Path, source: str) -> None:
    numbers = json.loads((small_run / "results" / "paper" / "numbers.json").read_text())["entries"]
    printed = _query(small_run, "<number>")
    keys = {p["value"]["key"] for p in printed}
    assert {
        "n_conversations",
        "top_composite",
        "repro.git",
        "repro.command",
        "repro.version.pandas",
        "repro.input.cohort.sha256",
    } <= keys
    for p in printed:  # what the compiler placed is what numbers.json says
        entry = numbers[p["value"]["key"]]
        assert p["value"]["display"] in (entry["display"], entry.get("ci_display", "no interval")), p
    missing = sorted(
        {(p["value"]["key"], p["value"]["display"]) for p in printed if not reader.shows(p["value"]["display"])}
    )
    assert not missing, reader.fail("numbers (key, display)", missing)
    # Every key the source names outside a conditional block is in numbers.json.
    unconditional = unconditional_keys(source)
    assert "n_conversations" in unconditional and "humans.alpha.pairwise" not in unconditional
    assert not unconditional - numbers.keys(), sorted(unconditional - numbers.keys())


def test_the_reproducibility_statement_is_printed(reader, small_run):
    numbers = json.loads((small_run / "results" / "paper" / "numbers.json").read_text())["entries"]
    assert numbers["repro.git"]["display"] == "not a git checkout"  # the tests' copy has no .git
    assert numbers["repro.command"]["display"] == "snakemake --cores 8 --configfile config/small.yaml"
    assert reader.shows("Reproducibility statement")
    # nothing but the library digest identifies a tree without a commit, and it covers the library only
    assert reader.shows("no commit identifies it, and the library digest")
    assert reader.shows("not the rule scripts, the rules or the manuscript's sources")
    for key in ("repro.git", "repro.command", "repro.config_digest", "repro.input.cohort.sha256"):
        assert reader.shows(numbers[key]["display"]), reader.fail(key, [numbers[key]["display"]])


def test_the_scaling_record_is_printed_with_its_provenance(reader, small_run):
    """The reproducibility section's scaling table: the committed record of one machine, printed
    with the machine, commit and date it was measured on."""
    with (small_run / "results" / "paper" / "tables" / "scaling.csv").open(newline="") as f:
        table = list(csv.reader(f))
    meta = json.loads((small_run / "results" / "paper" / "tables" / "scaling.json").read_text())
    assert reader.shows("Scaling study, measured on")
    for value in (meta["machine"], meta["commit"], meta["date"], "python benchmarks/bench_scaling.py"):
        assert reader.shows(value), reader.fail("scaling provenance", [value])
    missing = [row[0] for row in table[1:] if not reader.shows(row[0])]
    assert not missing, reader.fail("scaling rows", missing)


def _bib_entries(bib: Path) -> dict[str, str]:
    """The keys of a BibTeX file and each entry's title, without braces."""
    text = bib.read_text(encoding="utf-8")
    entries = {}
    for m in re.finditer(r"@\w+\{([^,\s]+),(.*?)\n\}", text, re.S):
        title = re.search(r"\btitle\s*=\s*\{(.*)\},?\s*$", m.group(2), re.M)
        entries[m.group(1)] = title.group(1).replace("{", "").replace("}", "") if title else ""
    return entries


def test_the_references_list_every_cited_work_and_each_is_cited(reader, small_run):
    """The bibliography (paper/references.bib) is printed as the References section, and every
    work in it is cited somewhere in the text (an uncited entry supports nothing)."""
    entries = _bib_entries(small_run / "paper" / "references.bib")
    assert len(entries) >= 13 and all(entries.values()), entries
    cited = {c["key"].strip("<>") for c in _query(small_run, "cite")}
    assert set(entries) <= cited, f"listed but never cited: {sorted(set(entries) - cited)}"
    assert not cited - set(entries), f"cited but not in references.bib: {sorted(cited - set(entries))}"
    assert "References" in placed_headings(small_run) and reader.shows("References")
    missing = [t for t in entries.values() if not reader.shows(" ".join(t.split()[:5]))]
    assert not missing, reader.fail("reference titles", missing)


def test_the_claims_table_has_a_units_column(reader, small_run):
    with (small_run / "results" / "paper" / "tables" / "claims.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and all(r["Units"] for r in rows)
    missing = [r["Units"] for r in rows if not reader.shows(r["Units"])]
    assert reader.shows("Units") and not missing, reader.fail("units", missing)


def test_the_engineering_tables_are_in_the_appendix(reader):
    """Scoring rules, invalid answers, provenance and scaling: after the References, under the
    Appendix heading, each once."""
    words = reader.words
    appendix = words.find("Appendix A. Scoring rules")
    assert appendix > words.find("References") > 0, "no Appendix after the References"
    for caption in (
        "Parity rules that fired",
        "Invalid answers per model and task",
        "Reproducibility statement: source tree",
        "Scaling study, measured on",
    ):
        at = [m.start() for m in re.finditer(re.escape(caption), words)]
        assert len(at) == 1 and at[0] > appendix, (caption, at, appendix)


def test_the_claims_are_printed_under_every_scheme_with_the_primary_named(reader, small_run):
    """The claims-by-scheme table: every claim, a 95% interval and a verdict column per
    configured scheme, the primary one marked, and what each claim's interval is."""
    with (small_run / "results" / "paper" / "tables" / "uncertainty_claims.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    numbers = json.loads((small_run / "results" / "paper" / "numbers.json").read_text())["entries"]
    primary = numbers["unc.claims.primary"]["value"]
    header = list(rows[0])
    assert f"Verdict ({primary}, primary)" in header and f"95% ({primary}, primary)" in header
    assert len([h for h in header if h.startswith("Verdict (")]) == numbers["unc.n_schemes"]["value"]
    missing = [h for h in header if not reader.shows(h)]
    missing += [r[h] for r in rows for h in header if r[h] != "–" and not reader.shows(r[h])]
    assert not missing, reader.fail("claims-by-scheme cells", missing)
    assert reader.shows(numbers["unc.primary_reason"]["display"])


def test_the_leaderboard_shows_the_human_raters_apart_with_their_n(reader, small_run):
    """The printed leaderboard's blocks: each block heading (with its conversations) is in the
    PDF, the human raters come after every model, and none of them has a rank."""
    with (small_run / "results" / "paper" / "tables" / "leaderboard.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    blocks = list(dict.fromkeys(r["Block"] for r in rows))
    humans = [r for r in rows if r["Block"].startswith("Human raters")]
    assert humans and blocks[-1] == humans[0]["Block"], blocks
    assert all(r["Rank"] == "–" for r in humans)
    assert all(f"{r['Conversations']} conversations each" in r["Block"] for r in humans)
    missing = [b for b in blocks if not reader.shows(b)]
    assert not missing, reader.fail("leaderboard blocks", missing)


def test_the_drift_sentence_names_the_metrics_the_figure_draws(reader, small_run):
    """The drift figure draws the turn-level metrics of rule stats_drift, not every metric: the
    sentence that points to it counts and names exactly those with values (drift.n_metrics,
    drift.metrics; the small run has no metric without)."""
    with (small_run / "results" / "stats" / "drift" / "page_trend.csv").open(newline="") as f:
        drawn = [r["metric"] for r in csv.DictReader(f) if int(r["n_turns"]) > 0]
    entries = json.loads((small_run / "results" / "paper" / "numbers.json").read_text())["entries"]
    assert entries["drift.n_metrics"]["value"] == len(drawn) > 0 and entries["drift.n_no_values"]["value"] == 0
    phrase = f"of each of the {len(drawn)} turn-level metrics analysed for drift"
    assert reader.shows(phrase), reader.fail("drift sentence", [phrase])


def test_the_leaderboard_captions_do_not_call_every_row_a_model(reader, small_run):
    """The leaderboard holds references and human raters beside the ranked models (the small run
    has both kinds of block): neither its table nor its figure caption calls every row a
    (simulated) model; the table's names the ranked ones as such."""
    assert reader.shows("Leaderboard (parity rule set)"), reader.fail("leaderboard caption", ["Leaderboard (parity"])
    assert reader.shows("in blocks: the ranked simulated models, then the references")
    assert reader.shows("not the cluster bootstrap of Table")
    assert reader.shows(") for each row of Table")
    assert not reader.shows("Leaderboard of the simulated models") and not reader.shows("Composite per simulated model")


def test_a_smaller_simulated_design_than_the_published_one_says_so(reader, small_run):
    """The abstract asks whether AttuneBench's design (200 conversations, 11 participants)
    supports its claims; the small run simulates fewer of both, and its abstract says that its
    answers are about that smaller design."""
    entries = json.loads((small_run / "results" / "paper" / "numbers.json").read_text())["entries"]
    assert entries["n_conversations"]["value"] < entries["design.published_conversations"]["value"] == 200
    phrase = "The simulated design of this build is smaller than the published one of 200 conversations by 11"
    assert reader.shows(phrase), reader.fail("smaller design", [phrase])

"""`snakemake --report` after the small run: one self-contained HTML file with every figure, every
paper table, the PDF and the manifest, each captioned with the rule that made it."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

from .conftest import snakemake

pytestmark = pytest.mark.workflow

CATEGORIES = {"Figures", "Tables", "Claims", "Paper", "Audit", "Notebooks"}


class _Links(HTMLParser):
    """Every src= and href= of the document's elements (script bodies are not parsed as tags)."""

    def __init__(self):
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.links += [value or "" for name, value in attrs if name in ("src", "href")]


def _script_json(html: str, script_id: str, var: str) -> dict:
    match = re.search(rf'<script id="{script_id}">\s*var {var} = (.*?);?\s*</script>', html, re.S)
    assert match, f"no {script_id} block in the report"
    return json.loads(match.group(1))


@pytest.fixture(scope="module")
def report(small_run, tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "report.html"
    run = snakemake(small_run, "--report", str(path), "--configfile", "config/small.yaml")
    assert run.returncode == 0, run.stderr[-4000:]
    assert path.is_file() and path.stat().st_size > 100_000
    return path.read_text()


def test_report_is_self_contained(report, small_run):
    parser = _Links()
    parser.feed(report)
    external = [link for link in parser.links if not link.startswith(("data:", "#", "javascript:")) and link]
    assert not external, external
    results = _script_json(report, "results", "results")
    assert results
    assert all(entry["data_uri"].startswith("data:") for entry in results.values())
    assert str(small_run) not in report


def test_every_figure_table_pdf_and_manifest_is_in_the_report(report, small_run):
    results = _script_json(report, "results", "results")
    figures = sorted(p.relative_to(small_run).as_posix() for p in (small_run / "results" / "figures").glob("*.svg"))
    tables = sorted(
        p.relative_to(small_run).as_posix() for p in (small_run / "results" / "paper" / "tables").glob("*.csv")
    )
    assert len(figures) >= 9 and len(tables) >= 7
    expected = {*figures, *tables, "paper/build/paper.pdf", "results/manifest.json", "results/stats/claims.csv"}
    assert expected <= results.keys(), sorted(expected - results.keys())
    for path in expected:
        assert path.rsplit("/", 1)[-1] in report
    categories = _script_json(report, "categories", "categories")
    assert CATEGORIES <= categories.keys()
    assert {p for subcats in categories["Figures"].values() for p in subcats} >= set(figures)
    assert {p for subcats in categories["Tables"].values() for p in subcats} >= set(tables)


def test_every_item_is_captioned_with_its_rule(report):
    results = _script_json(report, "results", "results")
    for path, entry in results.items():
        rule = entry["job_properties"]["rule"]
        assert "Made by rule" in entry["caption"] and rule in entry["caption"], path
        assert entry["labels"]["rule"] == rule, path
    assert "Forest plot" in report or "forest plot" in report
    assert "A benchmark paper that rebuilds itself" in report


def test_the_executed_notebooks_are_in_the_report(report, small_run):
    """A reviewer sees every notebook's outputs in the report without running anything."""
    import base64

    results = _script_json(report, "results", "results")
    pages = sorted(p.relative_to(small_run).as_posix() for p in (small_run / "results" / "notebooks").glob("*.html"))
    assert len(pages) >= 4 and set(pages) <= results.keys()
    categories = _script_json(report, "categories", "categories")
    assert {p for subcats in categories["Notebooks"].values() for p in subcats} == set(pages)
    for page in pages:
        entry = results[page]
        assert page.rsplit("/", 1)[-1].removesuffix(".html") in entry["caption"]
        embedded = base64.b64decode(entry["data_uri"].split(",", 1)[1]).decode("utf-8")
        assert embedded == (small_run / page).read_text(encoding="utf-8")

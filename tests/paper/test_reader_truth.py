"""Reader checks of the truth and pre-registration sections in the built paper (small run): the
truth table with the planted and the null cohort's verdicts of every claim, and the frozen
file's sha256 and its check."""

from __future__ import annotations

import csv
import json

import pytest

from .test_reader import render_and_read

pytestmark = pytest.mark.workflow


@pytest.fixture(scope="module")
def reader(small_run, tmp_path_factory):
    return render_and_read(small_run / "paper" / "build" / "paper.pdf", tmp_path_factory.mktemp("truth-pages"))


@pytest.fixture(scope="module")
def entries(small_run):
    return json.loads((small_run / "results" / "paper" / "numbers.json").read_text(encoding="utf-8"))["entries"]


def test_the_truth_table_is_in_the_pdf_with_both_cohorts_verdicts(reader, small_run):
    with open(small_run / "results" / "paper" / "tables" / "truth.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert rows, "the truth table has no claim"
    assert reader.shows("Truth beside estimate"), reader.fail("the truth section", ["Truth beside estimate"])
    missing = [
        (r["Claim"], col)
        for r in rows
        for col in ("Planted: verdict", "Null: verdict", "Planted (logits)")
        if not reader.shows(r[col])
    ]
    assert not missing, reader.fail("cells of the truth table", missing)
    assert reader.shows("simulated null cohort")


def test_the_null_cohort_ran_through_the_pipeline(small_run):
    null = small_run / "results" / "null"
    for path in ("stats/claims.csv", "scores/leaderboard.csv", "stats/design.json"):
        assert (null / path).is_file(), path
    planted = (small_run / "results" / "stats" / "claims.csv").read_text(encoding="utf-8")
    assert (null / "stats" / "claims.csv").read_text(encoding="utf-8") != planted


def test_the_preregistration_is_printed(reader, entries):
    assert reader.shows(entries["prereg.sha256"]["display"]), reader.fail("the frozen file's sha256", [])
    assert reader.shows("config/preregistration.yaml")
    # the small run is a copy without .git: the fallback is said, not a date
    assert entries["prereg.dated"]["value"] is False
    assert reader.shows(entries["prereg.frozen_date"]["display"])
    # config/small.yaml keeps the default claims: the check says they equal the frozen ones
    assert entries["prereg.matches"]["value"] is True
    assert reader.shows("equal the frozen ones")

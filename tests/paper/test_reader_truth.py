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


def test_the_truth_table_is_in_the_pdf_with_both_cohorts_estimands_and_verdicts(reader, small_run):
    with open(small_run / "results" / "paper" / "tables" / "truth.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert rows, "the truth table has no claim"
    assert {r["Cohort"] for r in rows} == {"planted", "null"}
    assert reader.shows("Truth beside estimate"), reader.fail("the truth section", ["Truth beside estimate"])
    # the estimand's value (its first token: the Monte-Carlo error may wrap to the next line)
    missing = [
        (r["Claim"], r["Cohort"], col)
        for r in rows
        for col in ("Verdict", "Outcome", "Estimand")
        if not reader.shows(r[col].split(" ")[0])
    ]
    assert not missing, reader.fail("cells of the truth table", missing)
    # every testable planted claim has an estimand, the discriminability (C2) and profile-flip (C6)
    # ones too (the small cohort has no romantic conversation: C5 is not testable there)
    lacking = [
        r["Claim"] for r in rows if r["Cohort"] == "planted" and r["Estimand"] == "–" and r["Verdict"] != "not testable"
    ]
    assert not lacking, f"claims without an estimand: {lacking}"
    assert {"C2", "C6"} <= {r["Claim"] for r in rows if r["Estimand"] != "–"}
    assert reader.shows("simulated null cohort") and reader.shows("estimand")
    assert len(rows[0]) <= 8, "the printed truth table has more columns than fit the page"


def test_the_truth_details_are_in_the_appendix(reader, small_run):
    with open(small_run / "results" / "paper" / "tables" / "truth_detail.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert reader.shows("Appendix: truth beside estimate, in detail")
    missing = [
        (r["Claim"], r["Cohort"]) for r in rows if not reader.shows(r["Planted (generator units)"].split(" ")[0])
    ]
    assert not missing, reader.fail("planted values of the appendix truth table", missing)


def test_the_models_expected_metrics_are_in_the_pdf(reader, small_run):
    with open(small_run / "results" / "paper" / "tables" / "truth_models.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["Metric"] for r in rows} >= {"Emotion F1", "Composite"}, {r["Metric"] for r in rows}
    missing = [(r["Model"], r["Metric"]) for r in rows if not reader.shows(r["Expected, this cohort"].split(" ")[0])]
    assert not missing, reader.fail("expected values of the per-model truth table", missing)


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

"""What the paper says of gaps in a cohort's data, when it has them (small run; its cohort has
none): gold intensities clamped, tags outside the PANAS list, participants whose diagnosis is
not recorded (the data section and the operating characteristics' participant curve)."""

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


def test_gaps_in_the_data_are_said_when_there_are_any(small_run):
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
    n_people = entries["n_participants"]["value"]
    assert entries["n_diagnosis_recorded"]["value"] == n_people
    entries["n_diagnosis_recorded"].update(value=n_people - 2, display=str(n_people - 2))
    # The diagnosis claim as if testable, and its participant curve as if computed (the small
    # run's design can test neither).
    entries["claim.C3.verdict"].update(value="inconclusive", display="inconclusive")
    entries["diagnosis.testable"].update(value=True, display="true")
    curve = {
        "computed": True,
        "reached": True,
        "needed": 11,
        "grid": "8, 11",
        "adjustment": "Holm",
        "short_family": False,
        "at_design_split": False,
    }
    for key, value in curve.items():
        entries[f"operating.participants.{key}"] = dict(entries["operating.participants.claim"], value=value)
        entries[f"operating.participants.{key}"]["display"] = str(value)
    try:
        path.write_text(json.dumps(data), encoding="utf-8")
        text = _squashed(
            pdf_text(typst.compile(str(small_run / "paper" / "main.typ"), root=str(small_run)), running_header=False)
        )
    finally:  # the bytes and the times back, so that the run stays up to date (a rerun does nothing)
        path.write_bytes(original)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert _squashed(f"Of the {gold} gold mood tags, 7 ") + clamped in text
    assert _squashed(f"3 of the {gold} ") + outside in text
    assert _squashed(
        f"The simulated designs of the curve record every participant's diagnosis, as the diagnosis tests need: "
        f"this cohort records the diagnosis of {n_people - 2} of its {n_people} participants,"
    ) in text.replace("\u2019", "'")
    assert _squashed(f"enter no simulated diagnosis test: {n_people - 2} of the {n_people} do.") in text
    # the small run's mixed models gave no estimate for some metrics: the sentence names them
    assert entries["diagnosis.n_estimated"]["value"] < entries["diagnosis.n_metrics"]["value"]
    assert _squashed("draws the diagnosis effects on the analysed metrics whose mixed model gave one") in text
    assert _squashed(entries["diagnosis.no_estimate"]["display"]) in text
    # as built (the claim not testable), the figure's sentence gives the reason, not effects
    assert _squashed("the diagnosis contrast is not testable in this simulated cohort") in built
    # as built (the claim not testable), the validation section does not speak of its test
    assert _squashed("enter no simulated diagnosis test") not in built


def test_no_estimable_diagnosis_effect_is_said_with_its_reason(small_run):
    path = small_run / "results" / "paper" / "numbers.json"
    original, stat = path.read_bytes(), path.stat()
    data = json.loads(original)
    entries = data["entries"]
    for key, value in (("diagnosis.n_estimated", 0), ("diagnosis.n_not_diagnosed", 0)):
        entries[key].update(value=value, display=str(value))
    entries["diagnosis.testable"].update(value=True, display="true")  # the reason of a failed estimate
    try:
        path.write_text(json.dumps(data), encoding="utf-8")
        text = _squashed(
            pdf_text(typst.compile(str(small_run / "paper" / "main.typ"), root=str(small_run)), running_header=False)
        )
    finally:
        path.write_bytes(original)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert _squashed("every participant whose diagnosis is recorded is in one group, so it draws no diagnosis") in text
    assert _squashed("draws the diagnosis effects on every analysed metric") not in text

"""Grammatical number after a printed count: paper/numbers.typ's `count` prints a count with its
noun in the singular for one and in the plural otherwise, and `agree` picks a verb (or noun) to
match; both leave the <number> record of the count for the reader test."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import typst

from ..conftest import REPO
from .manuscript import pdf_text

SNIPPET = """#import "/paper/numbers.typ": count, agree, n
Of #count("k", [exploratory claim], [exploratory claims]), #n("s") #agree("s", [is], [are]) supported.
"""


def _printed(tmp_path: Path, k, s, snippet: str = SNIPPET) -> tuple[str, list[dict]]:
    (tmp_path / "paper").mkdir(exist_ok=True)
    (tmp_path / "results" / "paper").mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "paper" / "numbers.typ", tmp_path / "paper")
    entries = {key: {"value": v, "display": "–" if v is None else str(v)} for key, v in (("k", k), ("s", s))}
    (tmp_path / "results" / "paper" / "numbers.json").write_text(json.dumps({"meta": {}, "entries": entries}))
    source = tmp_path / "paper" / "snippet.typ"
    source.write_text(snippet, encoding="utf-8")
    text = " ".join(pdf_text(typst.compile(str(source), root=str(tmp_path))).split())
    records = json.loads(typst.query(str(source), "<number>", root=str(tmp_path)))
    return text, [r["value"] for r in records]


@pytest.mark.parametrize(
    "k, s, sentence",
    [
        (1, 1, "Of 1 exploratory claim, 1 is supported."),
        (2, 1, "Of 2 exploratory claims, 1 is supported."),
        (2, 2, "Of 2 exploratory claims, 2 are supported."),
        (3, 0, "Of 3 exploratory claims, 0 are supported."),
        (None, None, "Of – exploratory claims, – are supported."),  # no value: the plural
    ],
)
def test_a_count_and_its_verb_agree_in_number(tmp_path, k, s, sentence):
    text, records = _printed(tmp_path, k, s)
    assert text == sentence
    # count prints its number with n, so the reader test still finds it
    assert [r["key"] for r in records] == ["k", "s"]


@pytest.mark.workflow
def test_the_manuscripts_counts_of_one_take_the_singular(small_run, tmp_path):
    """The small run has one human rater and one tested coverage (over too few simulated studies
    for the paper to test it: sim.coverage_too_few, edited to False to print the sentence); with
    more of its counts edited to one (and claim C1, not testable with its 3 models, edited to
    inconclusive so that the sentences of its section print), each sentence that prints them
    speaks of one (small run, numbers edited)."""
    from .test_claim_wording import _compiled, _set
    from .test_reader import Reader

    built = Reader(small_run / "paper" / "build" / "paper.pdf", tmp_path)
    for phrase in ("The 1 simulated human rater is listed apart and not ranked: it answers",):
        assert built.shows(phrase), phrase

    def ones(entries: dict) -> None:
        for key in (
            "claims.n_exploratory",
            "claims.exploratory.supported",
            "unc.weights.n_ever_first_around",
            "profiles.n_flips",
            "unc.two_stage.n_adjacent_separated",
            "n_strict_moved",
            "ranks.n_pairs",
            "mixed.n_failed",
        ):
            _set(entries, key, 1)
        _set(entries, "strict_changes_ranking", True, display="yes")
        _set(entries, "sim.coverage_too_few", False, display="no")
        _set(entries, "claim.C1.verdict", "inconclusive")  # so that the rank-independence sentences print

    reader = _compiled(small_run, ones, tmp_path)
    for phrase in (
        "of 1 exploratory claim, 1 is supported",
        "the one tested coverage is",
        "and no other simulated model is ever first",  # the one model ever first is the leader
        "1 pair of simulated models changes order",
        "Under the primary scheme 1 of the 2 adjacent pairs of simulated models is separated",
        "Under the strict rule set 1 simulated model changes rank",
        "For the one pair of principal metrics of the simulated models",
        "Of this simulated pair,",
        "1 was fitted and did not converge",
    ):
        assert reader.shows(phrase), phrase


OF_COUNT = """#import "/paper/numbers.typ": of-count
#of-count("k", "s", [tested coverage], [tested coverages]).
"""


@pytest.mark.parametrize(
    "k, s, sentence",
    [
        (1, 1, "the one tested coverage."),  # not "1 of the 1 tested coverage"
        (3, 3, "all 3 tested coverages."),
        (1, 3, "1 of the 3 tested coverages."),
        (0, 2, "none of the 2 tested coverages."),
        (2, 2, "both tested coverages."),
    ],
)
def test_k_of_n_reads_in_words_where_a_numeral_would_read_wrong(tmp_path, k, s, sentence):
    text, _ = _printed(tmp_path, k, s, OF_COUNT)
    assert text == sentence

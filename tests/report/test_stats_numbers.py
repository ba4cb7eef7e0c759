"""The statistics' numbers of rule paper_numbers (eibench.report.stats_numbers) that the paper
chooses its sentences from: what it may print as a number, and what it must word instead."""

from __future__ import annotations

import pandas as pd
from eibench.report.numbers import Numbers
from eibench.report.stats_numbers import add_romantic

SCRIPTS = {"stats_topics": "workflow/scripts/stats_topics.py"}


def _romantic(adjusted: float, note: str) -> pd.DataFrame:
    """romantic_contrast.csv of rule stats_topics: the composite's row and another metric's."""
    nan = float("nan")
    return pd.DataFrame(
        {
            "metric": ["composite", "evaluation"],
            "romantic": ["Romantic relationships"] * 2,
            "n_romantic": [239, 239],
            "difference": [0.41, 0.0005],
            "lo": [-0.14, -0.004],
            "hi": [0.97, 0.005],
            "p_boot": [0.146, 0.849],
            "adjusted": [adjusted, nan],
            "adjusted_lo": [adjusted - 0.5, nan],
            "adjusted_hi": [adjusted + 0.5, nan],
            "mixed_model_note": [note, "singular fit (x)"],
            "hardest": ["Family", "Family"],
            "p_romantic_hardest": [0.0, 0.0155],
        }
    )


def test_a_romantic_contrast_the_mixed_model_did_not_estimate_is_said_so_not_printed():
    """Release build on ESConv's chats: the mixed model of the composite gave a singular fit, and
    the paper printed "the adjusted contrast with the other topics is – composite points ([–, –])".
    The numbers say whether there is an estimate, and why not (the kind of failed fit)."""
    note = "singular fit (The Hessian matrix at the estimated parameter values is not positive definite.)"
    nums = Numbers(scripts=SCRIPTS)
    add_romantic(nums, _romantic(float("nan"), note))
    e = nums.entries
    assert e["topics.romantic_estimated"]["value"] is False
    assert e["topics.romantic_no_estimate"]["value"] == "singular fit"
    assert e["topics.romantic_composite"]["display"] == "–"  # never printed: the paper asks romantic_estimated
    assert e["topics.hardest"]["value"] == "Family" and e["topics.n_romantic"]["value"] == 239

    nums = Numbers(scripts=SCRIPTS)
    add_romantic(nums, _romantic(float("nan"), "term 'romantic' not estimable in this design"))
    assert nums.entries["topics.romantic_no_estimate"]["value"] == "term 'romantic' not estimable in this design"

    nums = Numbers(scripts=SCRIPTS)
    add_romantic(nums, _romantic(-4.2, ""))
    e = nums.entries
    assert e["topics.romantic_estimated"]["value"] is True and e["topics.romantic_no_estimate"]["value"] == "none"
    assert e["topics.romantic_composite"]["display"] == "-4.20"


def test_no_romantic_contrast_adds_no_topic_numbers():
    nums = Numbers(scripts=SCRIPTS)
    add_romantic(nums, pd.DataFrame())
    assert nums.entries == {}

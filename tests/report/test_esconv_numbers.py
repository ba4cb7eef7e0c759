"""The ESConv data paragraph's numbers (eibench.report.esconv_numbers)."""

from __future__ import annotations

import pandas as pd
import pytest
from eibench.public.esconv import rescale_intensity
from eibench.report.esconv_numbers import add_mean_drop_reference
from eibench.report.numbers import Numbers


def test_the_mean_drop_is_given_on_the_item_range_and_on_esconvs_intensity_scale():
    """Two seekers, intensity 5 -> 3 and 4 -> 1 on ESConv's 1..5 scale (7 -> 4 and 5.5 -> 1 on
    the PANAS item range). Each conversation's drop is the other's (leave one out): 4.5 and 3
    item points, 3 and 2 intensity points; the paper names the scale of each."""
    rows = []
    for cid, (pre, post) in {"a": (5, 3), "b": (4, 1)}.items():
        rows += [(cid, "pre", "Upset", rescale_intensity(pre)), (cid, "post", "Upset", rescale_intensity(post))]
    items = pd.DataFrame(rows, columns=["conversation_id", "phase", "item", "value"])
    nums = Numbers(scripts={"paper_numbers": "workflow/scripts/paper_numbers.py"})
    add_mean_drop_reference(nums, items, pd.DataFrame({"em_model": ["prior"]}))
    e = nums.entries
    assert e["esconv.reference.mean_drop"]["value"] == pytest.approx(3.75)
    assert e["esconv.reference.item_scale"]["value"] == "1..7"
    assert e["esconv.reference.mean_drop_intensity"]["value"] == pytest.approx((3 + 2) / 2)
    assert e["esconv.reference.mean_drop_intensity"]["display"] == "2.50"
    assert e["esconv.reference.intensity_scale"]["value"] == "1..5"

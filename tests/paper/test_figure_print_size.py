"""No figure text below 7 pt at print size: the font sizes in each SVG scaled by the width at
which paper/main.typ places the figure (tests/paper/print_size.py), for the figures drawn from
small tables and for the figures of the small run."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import pytest
from eibench.report import operating_figure, style
from eibench.report import stat_figures as sf
from eibench.report.weight_figure import weight_sensitivity

from ..report.test_operating_figure import _curves as operating_curves
from ..report.test_stat_figures import CASES, SRC, leaderboard_table
from .print_size import font_sizes, placements, print_sizes, text_width_pt, too_small


def _weights() -> plt.Figure:
    table = pd.DataFrame(
        {
            "em_model": [f"sim-{k:02d}" for k in range(1, 12)],
            "rank_published": range(1, 12),
            "rank_equal_weights": [2, 1, 3, 5, 4, 6, 7, 9, 8, 10, 11],
            "p_first_around": [0.83, 0.15, 0.02] + [0.0] * 8,
            "p_first_flat": [0.36, 0.3, 0.2, 0.1, 0.04] + [0.0] * 6,
        }
    )
    return weight_sensitivity(table, 30.0)


DRAWN = {
    **{f"{name}.svg": draw for name, (draw, _) in CASES.items()},
    "leaderboard.svg": lambda: sf.forest(leaderboard_table(), "composite", SRC),
    "weight_sensitivity.svg": _weights,
    "operating.svg": lambda: operating_figure.design_curves(*operating_curves()),
}


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def manuscript(repo) -> str:
    """main.typ and the section files it includes (paper/sections/*.typ): every placement."""
    files = [repo / "paper" / "main.typ", *sorted((repo / "paper" / "sections").glob("*.typ"))]
    return "\n".join(f.read_text(encoding="utf-8") for f in files)


def test_reads_the_text_width_and_each_figures_narrowest_placement(manuscript):
    assert text_width_pt(manuscript) == pytest.approx((21.0 - 4.4) * 72 / 2.54)
    placed = placements(manuscript)
    assert set(placed) == set(DRAWN)  # every figure the manuscript places is drawn by a test case
    assert placed["leaderboard.svg"] == pytest.approx(0.85)
    assert placements('#image("/results/figures/a.svg", width: 50%) image("/results/figures/a.svg", width: 80%)') == {
        "a.svg": 0.5
    }


def test_measures_the_font_size_of_a_known_text(tmp_path):
    style.apply()
    fig = plt.figure(figsize=(4.0, 1.0))
    fig.text(0.1, 0.5, "ten points", fontsize=10)
    fig.text(0.6, 0.5, "six", fontsize=6, rotation=90)
    fig.savefig(tmp_path / "a.svg", format="svg", metadata={"Date": None})  # no tight box: 4 in wide
    svg = (tmp_path / "a.svg").read_text()
    assert sorted(font_sizes(svg)) == [(pytest.approx(6.0), "six"), (pytest.approx(10.0), "ten points")]
    # placed at half of a text width of 4 in: printed at half size
    assert sorted(s for s, _ in print_sizes(svg, 0.5, 4.0 * 72)) == [pytest.approx(3.0), pytest.approx(5.0)]
    assert too_small(tmp_path / "a.svg", 1.0, 4.0 * 72, 7.0) == ["a.svg: 'six' at 6.0 pt"]


@pytest.mark.parametrize("name", sorted(DRAWN))
def test_no_text_below_the_minimum_at_print_size(name, manuscript, tmp_path):
    style.save(DRAWN[name](), tmp_path / name)
    assert font_sizes((tmp_path / name).read_text())  # texts were found
    assert too_small(tmp_path / name, placements(manuscript)[name], text_width_pt(manuscript), style.MIN_PT) == []


@pytest.mark.workflow
def test_no_text_of_the_small_runs_figures_below_the_minimum(small_run, manuscript):
    placed, width = placements(manuscript), text_width_pt(manuscript)
    svgs = sorted((small_run / "results" / "figures").glob("*.svg"))
    assert {p.name for p in svgs} >= set(placed)
    small = [line for p in svgs if p.name in placed for line in too_small(p, placed[p.name], width, style.MIN_PT)]
    assert small == []

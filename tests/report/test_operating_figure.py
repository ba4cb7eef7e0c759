"""The design-curves figure: identical SVG bytes on every call, the paper's text width, and no
text below 7 pt at that size."""

from __future__ import annotations

import pandas as pd
from eibench.report import operating_figure, style


def _curves():
    curve = lambda claim, values: pd.DataFrame(  # noqa: E731
        {
            "claim": claim,
            "value": values,
            "n_studies": 100,
            "supported": [0.1, 0.5, 0.9],
            "supported_lo": [0.05, 0.4, 0.8],
            "supported_hi": [0.2, 0.6, 0.95],
            "not_supported": 0.0,
        }
    )
    conv = pd.DataFrame(
        {
            "n_conversations": [50, 200, 50, 200],
            "metric": ["a", "a", "b", "b"],
            "n_studies": 100,
            "reliability": [0.8, 0.9, 0.7, 0.95],
            "snr": [2.0, 3.0, 1.5, 4.0],
        }
    )
    return curve("C1", [11, 20, 40]), curve("C3", [8, 11, 14]), conv


def test_two_calls_give_identical_svg_bytes(tmp_path):
    for name in ("a.svg", "b.svg"):
        style.save(operating_figure.design_curves(*_curves()), tmp_path / name)
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()


def test_the_figure_is_the_text_width_and_no_text_is_below_7_pt():
    fig = operating_figure.design_curves(*_curves())
    assert abs(fig.get_figwidth() - 16.6 / 2.54) < 1e-9
    texts = [
        t for t in fig.findobj(lambda o: hasattr(o, "get_fontsize") and hasattr(o, "get_text")) if t.get_text().strip()
    ]
    assert texts and min(t.get_fontsize() for t in texts) >= 7
    fig.canvas.draw()
    assert fig.get_tightbbox().width <= fig.get_figwidth() * 1.05  # placed at 100% width, not shrunk


def test_a_curve_that_is_not_computed_says_why_in_its_panel():
    from eibench.stats.operating import not_computed_curve

    models = not_computed_curve("claim C1 is not simulated: fewer than two of its metrics are simulated")
    models.insert(0, "claim", "C1")
    participants = not_computed_curve("no claim is named by statistics.operating.diagnosis_claim")
    participants.insert(0, "claim", "")
    conv = pd.DataFrame(columns=["n_conversations", "metric", "n_studies", "reliability", "snr"])
    fig = operating_figure.design_curves(models, participants, conv)
    texts = [t.get_text() for t in fig.findobj(lambda o: hasattr(o, "get_text")) if t.get_text().strip()]
    assert sum(t.startswith("not computed:") for t in texts) == 3
    assert any("fewer than two of its metrics" in t.replace("\n", " ") for t in texts)
    assert (
        min(
            t.get_fontsize()
            for t in fig.findobj(lambda o: hasattr(o, "get_fontsize") and hasattr(o, "get_text"))
            if t.get_text().strip()
        )
        >= 7
    )

"""Font sizes of the paper's figures at print size: the size of each text of an SVG (drawn by
matplotlib with ``svg.fonttype: path``, so each text is a group scaled by its font size / 100)
scaled by the width at which paper/main.typ places the figure over the SVG's own width."""

from __future__ import annotations

import re
from pathlib import Path

CM = 72 / 2.54  # points per centimetre
PAPER_WIDTH_CM = {"a4": 21.0, "us-letter": 21.59}


def text_width_pt(typ: str) -> float:
    """The manuscript's text width in points, from its ``#set page(paper: ..., margin: (x: ...cm``."""
    paper = re.search(r'#set page\(\s*paper:\s*"([^"]+)"', typ)
    margin = re.search(r"margin:\s*\(x:\s*([\d.]+)cm", typ)
    if paper is None or margin is None or paper.group(1) not in PAPER_WIDTH_CM:
        raise ValueError("paper/main.typ: no '#set page(paper: \"a4\", margin: (x: ...cm' to read the text width from")
    return (PAPER_WIDTH_CM[paper.group(1)] - 2 * float(margin.group(1))) * CM


def placements(typ: str) -> dict[str, float]:
    """File name of each figure -> the smallest width (fraction of the text width) at which an
    ``image("/results/figures/<name>.svg", width: N%)`` of the manuscript places it."""
    out: dict[str, float] = {}
    for name, pct in re.findall(r'image\("/results/figures/([^"]+\.svg)",\s*width:\s*([\d.]+)%\)', typ):
        out[name] = min(out.get(name, 1.0), float(pct) / 100)
    return out


def font_sizes(svg: str) -> list[tuple[float, str]]:
    """(font size in the SVG's points, text) of every text of a matplotlib SVG."""
    width = re.search(r'<svg[^>]*\bwidth="([\d.]+)pt"[^>]*viewBox="[\d.\s-]+? ([\d.]+) [\d.]+"', svg)
    if width is None:
        raise ValueError("SVG without a width in pt and a viewBox: not a matplotlib SVG")
    pt_per_unit = float(width.group(1)) / float(width.group(2))
    sizes, last = [], ""
    for m in re.finditer(r'<!-- (.*?) -->|transform="[^"]*scale\(([\d.e-]+) -[\d.e-]+\)"', svg, re.S):
        if m.group(1) is not None:
            last = m.group(1)
        else:
            sizes.append((float(m.group(2)) * 100 * pt_per_unit, last))
    return sizes


def svg_width_pt(svg: str) -> float:
    return float(re.search(r'<svg[^>]*\bwidth="([\d.]+)pt"', svg).group(1))


def print_sizes(svg: str, fraction: float, text_width: float) -> list[tuple[float, str]]:
    """(printed font size in points, text) when the SVG is placed at ``fraction`` of ``text_width``."""
    scale = fraction * text_width / svg_width_pt(svg)
    return [(size * scale, text) for size, text in font_sizes(svg)]


def too_small(svg_path: Path, fraction: float, text_width: float, minimum: float) -> list[str]:
    """The texts of ``svg_path`` printed below ``minimum`` points, each with its size."""
    return [
        f"{svg_path.name}: {text!r} at {size:.1f} pt"
        for size, text in print_sizes(svg_path.read_text(encoding="utf-8"), fraction, text_width)
        if size < minimum - 1e-6
    ]

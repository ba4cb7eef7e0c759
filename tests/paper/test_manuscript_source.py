"""The manuscript's prose types no number by hand: every number comes from numbers.json (or a
table or figure of results/). A numeric literal left in prose fails, but for an explicit
allow-list (tests/paper/manuscript.py: citation years, arXiv ids, section references, the fixed
interval level)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ..conftest import REPO
from .manuscript import (
    ALLOWED,
    headings,
    n_image_figures,
    n_table_figures,
    numeric_literals,
    prose_mask,
    unconditional_keys,
)

MAIN = REPO / "paper" / "main.typ"


SECTIONS = sorted((REPO / "paper" / "sections").glob("*.typ"))


@pytest.mark.parametrize("path", [MAIN, *SECTIONS], ids=lambda p: p.name)
def test_no_numeric_literal_in_the_prose_of_the_manuscript(path):
    """paper/main.typ and every section it includes (paper/sections/*.typ)."""
    found = numeric_literals(path.read_text(encoding="utf-8"))
    assert not found, f"numbers typed in the prose of {path.name} (move them to numbers.json):\n" + "\n".join(
        f"  line {f.line}: {f.text!r} in: {f.source_line}" for f in found
    )


def test_the_sections_are_linted():
    assert {"related_work.typ", "discussion.typ"} <= {p.name for p in SECTIONS}


def test_the_allow_list_says_why():
    assert all(a.why for a in ALLOWED)


@pytest.mark.parametrize(
    "snippet, literal",
    [
        ("We replay 200 conversations.", "200"),
        ('The composite is 71.3 (#ci("top_composite")).', "71.3"),
        ("#if simulated [\n  the leading model, sim-01, wins\n]", "01"),
        ('#figure(image("a.svg", width: 85%), caption: [Drawn over 12 models.])', "12"),
        ("#let est(id) = [#n(id) (90% interval)]", "90"),
        ('Of 5 claims, #n("claims.n_headline") are headline.', "5"),
        ("A year outside a citation: 2024.", "2024"),
        ("Section 3 and 4 models.", "4"),
    ],
)
def test_a_literal_in_prose_is_caught(snippet, literal):
    assert [f.text for f in numeric_literals(snippet)] == [literal]


@pytest.mark.parametrize(
    "snippet",
    [
        "// a comment with 12 models\nText.",
        "/* block 3 */ Text.",
        "#set page(margin: (x: 2.2cm, y: 2.4cm))",
        '#let board = csv("/results/paper/tables/leaderboard.csv")',
        "#show figure.caption: set text(size: 9pt)",
        '#image("/results/figures/a.svg", width: 85%)',
        "The file `results/stats/2.csv` and ```py x = 3``` and $1..t$ and $tau_b$.",
        "See @fig-2 and <tab-3>.",
        "Lubrano et al., arXiv 2605.21739; Smith et al., 2023; (Doe, 2019); Section 4.2.",
        "Composite per model with 95% intervals; #raw(meta.config_digest.slice(0, 12)).",
        "Claims C1 and C4b; emotion F1; sha256.",
        '#if N.at("a").value < 3 [no digits here] else if x == 2 [none] else [nor here]',
        "1. an enumeration marker\n+ a list",
        "An escaped \\#hash, \\$ and \\` sign.",
    ],
)
def test_code_comments_raw_math_references_and_allowed_numbers_pass(snippet):
    assert numeric_literals(snippet) == []


def test_the_prose_of_captions_and_content_blocks_is_scanned():
    mask = prose_mask('#figure(image("x.svg", width: 50%), caption: [A caption.]) <fig-x>')
    assert "A caption." in mask and "x.svg" not in mask and "50" not in mask and "fig-x" not in mask


def test_the_manuscript_has_sections_figures_and_tables():
    src = MAIN.read_text(encoding="utf-8")
    assert {"Abstract", "Introduction", "Limitations and intended use", "Reproducibility statement"} <= set(
        headings(src)
    )
    assert n_image_figures(src) > 0 and n_table_figures(src) > 0


def test_keys_inside_conditional_blocks_are_not_unconditional():
    src = (
        'We have #n("a") and #ci("b").\n#if N.at("c").value [#n("d")] else if x [#nraw("e")] else [#n("f")]\n'
        '#for r in rows [#n("g")]\nEnd #n("h"), #count("i", [claim], [claims]) #agree("j", [is], [are]).'
    )
    assert unconditional_keys(src) == {"a", "b", "c", "h", "i", "j"}


def test_the_task_list_says_what_the_cohort_lacks():
    """The release cohort has no pairwise comparisons (that task is not asked: asked = 0 in
    invalid_answers.csv) and no four-branch ratings, yet the benchmark section listed both
    tasks as asked without a word."""
    src = (REPO / "paper" / "main.typ").read_text(encoding="utf-8")
    start = src.index("= The benchmark and its metrics")
    tasks = src[start : src.index("@tab-metrics", start)]
    assert 'N.at("absent.pairwise_comparisons").value' in tasks and '#n("absent_kinds")' in tasks


def test_the_methods_name_the_resampling_of_the_claims_and_the_primary_scheme():
    """The methods said that uncertainty came from one set of resamples of the conversations,
    shared by every analysis, while the abstract's intervals and the uncertainty section's
    statements resample the primary scheme (participants, then conversations, in the small run).
    One set is shared by the claims' analyses (statistics.cluster), and where that is not the
    primary scheme the methods name both."""
    src = MAIN.read_text(encoding="utf-8")
    methods = src[src.index("= Statistical methods") : src.index("#include", src.index("= Statistical methods"))]
    assert "resamples of the conversations" not in methods and "shared by every analysis" not in methods
    assert 'share one set of them, resampling #if has("unc.claims_scheme") [#n("unc.claims_scheme")]' in methods
    assert "#if not claims-primary [#[;]\nthe primary scheme of @sec-uncertainty" in methods
    assert '#n("unc.primary")' in methods


def test_the_introduction_does_not_claim_the_scaling_record_was_regenerated():
    """The introduction said the workflow 'regenerates every number from the raw annotations',
    and related work 'every number of the manuscript regenerated', while the appendix's scaling
    table is 'not a product of this run but a measured record of one machine, committed with the
    sources'. Both speak of the numbers of the analyses, and the introduction names the exception."""
    src = MAIN.read_text(encoding="utf-8")
    intro = " ".join(src[src.index("= Introduction") : src.index('#include "sections/related_work.typ"')].split())
    assert "regenerates every number from the raw annotations" not in intro
    assert "regenerates every number of its analyses from the raw annotations" in intro
    assert "scaling record of the appendix" in intro
    assert "not a product of this run but a measured record of one machine" in " ".join(src.split())
    related = " ".join((REPO / "paper" / "sections" / "related_work.typ").read_text(encoding="utf-8").split())
    assert "every number of the manuscript regenerated" not in related


def _figure_captions(label: str) -> list[str]:
    """The source of every caption of the figures labelled ``label`` in paper/main.typ (the
    text between ``caption: [`` and the figure's closing label), whitespace squashed."""
    src = MAIN.read_text(encoding="utf-8")
    out = []
    for end in (m.start() for m in re.finditer(rf"\)\s*<{re.escape(label)}>", src)):
        start = src.rfind("caption: [", 0, end)
        out.append(" ".join(src[start:end].split()))
    return out


def test_the_rank_heatmap_captions_say_what_its_colours_and_intervals_are():
    """Figure rank-correlations colours each cell by tau_b alone, vermillion (negative) through
    white to blue (stat_figures.TAU_CMAP), and draws the 95% interval, from which the verdict
    'related' is read, while 'indep.' needs the equivalence test's 90% interval inside the margin
    (stats.ranks): a caption must not call white cells unrelated, leave the vermillion ones
    unexplained, or say the verdict uses the interval drawn."""
    from eibench.report import stat_figures, style
    from matplotlib.colors import to_rgb

    assert np.allclose(stat_figures.TAU_CMAP(0.0)[:3], to_rgb(style.PALETTE[3]))  # vermillion at -1
    assert np.allclose(stat_figures.TAU_CMAP(1.0)[:3], to_rgb(style.PALETTE[0]))  # blue at +1
    captions = _figure_captions("fig-rank-correlations")
    assert captions
    for caption in captions:
        assert "the interval the verdict uses" not in caption
        assert "`indep.` needs the equivalence test's own, narrower interval" in caption
        if "blue" in caption.lower():
            assert "vermillion" in caption
            assert "white ones unrelated rankings" not in caption


def test_the_discriminability_caption_gives_the_order_the_figure_draws():
    """stat_figures.discriminability orders the metrics by signal-to-noise ratio alone; the share
    of pairs separated, drawn beside it, need not follow it (default build: emotion F1 separates
    46 of 55 pairs, below the composite's 42), so the caption must not say that the metrics
    which separate the models best are at the top."""
    import inspect

    from eibench.report import stat_figures

    assert 'sort_values(["snr", "metric"]' in inspect.getsource(stat_figures.discriminability)
    captions = _figure_captions("fig-discriminability")
    assert captions
    for caption in captions:  # the synthetic build's and ESConv's
        assert "best are at the top" not in caption
        assert "ordered by their signal-to-noise ratio" in caption


def test_the_methods_do_not_say_a_holm_adjusted_comparison_depends_on_two_models_alone():
    """The paired comparisons the paper reports (pairs separated, adjacent pairs) are
    Holm-adjusted over the pairs compared, so their outcome depends on the other models' p-values
    and on how many pairs there are; only the paired statistic depends on the two models alone."""
    src = " ".join(MAIN.read_text(encoding="utf-8").split())
    assert "a test whose outcome depends on the two models alone" not in src
    assert "a test whose statistic depends on the two models alone" in src
    assert "only the Holm adjustment of its $p$ over the pairs compared" in src


def _balanced(src: str, i: int) -> str:
    """The bracketed block of ``src`` that opens at ``i`` (a ``[``), brackets included."""
    depth = 0
    for j in range(i, len(src)):
        depth += {"[": 1, "]": -1}.get(src[j], 0)
        if depth == 0:
            return src[i : j + 1]
    raise ValueError(f"unbalanced block at {i}")


def test_every_caption_names_its_rule_as_the_introduction_says():
    """The Introduction says each figure and table names the rule that made it; it said "and its
    data" too, which a third of the captions do not name (Table 1, 3, 4, 5, 10, 11, 16 to 18,
    Figures 9 and 11 of the default build). Every caption of the manuscript and its sections
    (a figure's ``caption:``, a table helper's caption argument) names a rule."""
    intro = " ".join(MAIN.read_text(encoding="utf-8").split())
    assert "names the rule that made it and its data" not in intro
    for path in [MAIN, *SECTIONS]:
        src = path.read_text(encoding="utf-8")
        starts = [m.end() - 1 for m in re.finditer(r"caption: \[", src)]
        starts += [src.index("[", m.end()) for m in re.finditer(r'#(?:csv-table|table-of|truth-table)\("', src)]
        for i in starts:
            caption = _balanced(src, i)
            assert re.search(r"[Rr]ule\s+`", caption), f"{path.name}: a caption without its rule: {caption[:80]}"


def test_the_profiles_caption_does_not_read_a_rank_change_as_a_finding():
    """Figure profiles draws each model's mean and interval per metric, no paired comparison: a
    change of rank between two panels can be noise (the profiles section counts 36 pairs of
    models that change order in the default build, 20 of them significantly), so the caption
    must not say that such a model "is better at one capability than at another"."""
    (caption,) = _figure_captions("fig-profiles")
    assert "is better at one capability than at another" not in caption
    assert "may be noise" in caption


def test_a_caption_names_the_rule_that_wrote_its_table_or_figure(small_run):
    """The uncertainty tables' captions named the rule of their data (stats_resampling), the
    operating table's the rule of its statistics: the run's manifest says table_uncertainty and
    paper_numbers wrote them. Every caption that gives a file with its rule ("`results/...`,
    rule `r`") and every figure's image with its caption's first rule agree with the manifest
    of the small build, for the files that build writes."""
    import json

    manifest = json.loads((small_run / "results" / "manifest.json").read_text())
    rule_of = {f["path"]: manifest["jobs"][f["job"]]["rule"] for f in manifest["files"]}
    checked = 0
    for path in [MAIN, *SECTIONS]:
        src = " ".join(path.read_text(encoding="utf-8").split())
        for m in re.finditer(r"`(results/[\w/.-]+\.(?:csv|json))`, rule `(\w+)`", src):
            if m.group(1) in rule_of:
                assert rule_of[m.group(1)] == m.group(2), f"{path.name}: {m.group(0)}"
                checked += 1
        for m in re.finditer(r'image\("/(results/figures/[\w.-]+\.svg)"', src):
            rule = re.search(r"[Rr]ule `(\w+)`", src[m.end() :])
            if m.group(1) in rule_of and rule:
                assert rule_of[m.group(1)] == rule.group(1), f"{path.name}: {m.group(1)} rule {rule.group(1)}"
                checked += 1
    assert checked >= 10, checked
